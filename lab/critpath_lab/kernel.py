"""Kernel truth: TCP counters of a namespace, read with nstat."""

import json

from .system import in_ns, run

# Recorded for every connection, as after-minus-before deltas.
COUNTERS = (
    "TcpInSegs", "TcpOutSegs", "TcpRetransSegs",
    "TcpExtTCPFastRetrans", "TcpExtTCPSlowStartRetrans", "TcpExtTCPTimeouts",
    "TcpExtTCPLossProbes", "TcpExtTCPLossProbeRecovery",
    "TcpExtTCPSackRecovery", "TcpExtTCPRenoRecovery",
    "TcpExtTCPSpuriousRTOs", "TcpExtTCPLostRetransmit", "TcpExtTCPDSACKRecv",
    "TcpExtDelayedACKs", "TcpExtTCPSACKReorder", "TcpExtTCPRenoReorder",
    "TcpExtTCPSynRetrans", "TcpExtTCPToZeroWindowAdv", "TcpExtTCPFromZeroWindowAdv",
    "TcpExtTCPWantZeroWindowAdv", "TcpExtTCPDSACKOldSent", "TcpExtTCPLossUndo", "TcpExtTCPFullUndo",
)


def snapshot(ns):
    """Absolute counter values; -s leaves nstat's history file alone, so namespaces cannot mix."""
    return json.loads(run(in_ns(ns, ["nstat", "-a", "-s", "-z", "--json"])))["kernel"]


def delta(before, after):
    return {name: after.get(name, 0) - before.get(name, 0) for name in COUNTERS}
