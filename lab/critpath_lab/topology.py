"""The three-namespace testbed: client <-veth-> router (TUN + delay line) <-veth-> server.

    client ns                 router ns                          server ns
  eth0 10.71.1.2 <--> to-client 10.71.1.1   to-server 10.71.2.1 <--> eth0 10.71.2.2
                         |  ip rule iif to-client/to-server      |
                         +----> table 100: default dev tun0 <----+
                                  tun0 <-> delay line (Go)
                       packets written back into tun0 use the main table

Rate limits, queues and their drops are the delay line's, so that every drop is logged.
"""

import os
import re
import signal
import time

from .scenarios import CLIENT_ADDR, SERVER_ADDR
from .system import LabError, in_ns, progress, run

ROUTER_CLIENT_ADDR = "10.71.1.1"
ROUTER_SERVER_ADDR = "10.71.2.1"
CLIENT_IF = SERVER_IF = "eth0"
TUN = "tun0"
FORWARD_TABLE = "100"
# The router's egress veth of each direction.
EGRESS = {"c2s": "to-server", "s2c": "to-client"}
OFFLOADS = ("tso", "gso", "gro", "lro", "ufo")
NAME_PATTERN = re.compile(r"^cpl-(\d+)-(client|router|server)$")


class Topology:
    def __init__(self, prefix=None):
        self.prefix = prefix or f"cpl-{os.getpid()}-"
        self.client, self.router, self.server = (self.prefix + role for role in ("client", "router", "server"))

    @property
    def namespaces(self):
        return (self.client, self.router, self.server)

    def up(self, scenario):
        """Builds the testbed for a scenario's network settings; tears it down if that fails."""
        try:
            self._build(scenario)
        except BaseException:
            self.down()
            raise

    def _build(self, scenario):
        for ns in self.namespaces:
            run(["ip", "netns", "add", ns])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
            sysctl(ns, {"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1})
        router = ["ip", "-n", self.router]
        run(router + ["link", "add", EGRESS["s2c"], "type", "veth", "peer", "name", CLIENT_IF, "netns", self.client])
        run(router + ["link", "add", EGRESS["c2s"], "type", "veth", "peer", "name", SERVER_IF, "netns", self.server])
        run(router + ["tuntap", "add", "dev", TUN, "mode", "tun"])
        links = ((self.client, CLIENT_IF, f"{CLIENT_ADDR}/24"), (self.server, SERVER_IF, f"{SERVER_ADDR}/24"),
                 (self.router, EGRESS["s2c"], f"{ROUTER_CLIENT_ADDR}/24"),
                 (self.router, EGRESS["c2s"], f"{ROUTER_SERVER_ADDR}/24"))
        for ns, dev, addr in links:
            run(["ip", "-n", ns, "addr", "add", addr, "dev", dev])
            run(["ip", "-n", ns, "link", "set", dev, "mtu", "1500", "up"])
            if not scenario.offload:
                disable_offloads(ns, dev)
        if scenario.server_link_kbit:
            # a small bucket (one frame) spaces every burst at the rate; the limit never drops
            run(["ip", "netns", "exec", self.server, "tc", "qdisc", "add", "dev", SERVER_IF, "root", "tbf",
                 "rate", f"{scenario.server_link_kbit}kbit", "burst", "1600", "limit", "4000000"])
        # A long TUN queue: bursts wait for the delay line instead of being dropped unseen.
        run(router + ["link", "set", TUN, "txqueuelen", "10000", "up"])
        sysctl(self.router, {"net.ipv4.ip_forward": 1, "net.ipv4.conf.all.rp_filter": 0,
                             "net.ipv4.conf.default.rp_filter": 0,
                             **{f"net.ipv4.conf.{dev}.rp_filter": 0 for dev in (*EGRESS.values(), TUN)}})
        # Everything forwarded goes through tun0; the delay line writes it back,
        # and then the main table routes it to the right veth.
        for dev in EGRESS.values():
            run(router + ["rule", "add", "iif", dev, "lookup", FORWARD_TABLE])
        run(router + ["route", "add", "default", "dev", TUN, "table", FORWARD_TABLE])
        for ns, gateway in ((self.client, ROUTER_CLIENT_ADDR), (self.server, ROUTER_SERVER_ADDR)):
            quickack = ["quickack", "1"] if ns == self.client and scenario.client_quickack else []
            run(["ip", "-n", ns, "route", "add", "default", "via", gateway,
                 "initcwnd", str(scenario.initcwnd), *quickack])
            sysctl(ns, {
                # cubic cannot be a namespace default here; the server sets it per socket.
                "net.ipv4.tcp_congestion_control": "bbr" if scenario.cc == "bbr" else "reno",
                "net.ipv4.tcp_sack": int(scenario.sack),
                "net.ipv4.tcp_timestamps": int(scenario.timestamps),
                # Earlier connections must not seed ssthresh or RTT of later ones.
                "net.ipv4.tcp_no_metrics_save": 1,
                "net.ipv4.tcp_window_scaling": 1,
                "net.ipv4.tcp_early_retrans": scenario.early_retrans,
            })

    def down(self):
        """Ends the processes left in the namespaces and deletes them (and their devices)."""
        remove_namespaces([ns for ns in self.namespaces if ns in list_namespaces()])


def sysctl(ns, settings):
    run(in_ns(ns, ["sysctl", "-q", "-w", *(f"{key}={value}" for key, value in settings.items())]))


def disable_offloads(ns, dev):
    for feature in OFFLOADS:
        # lro and ufo are fixed on veth with some kernels: "where settable".
        run(in_ns(ns, ["ethtool", "-K", dev, feature, "off"]), check=feature not in ("lro", "ufo"))


def list_namespaces():
    return [line.split()[0] for line in run(["ip", "netns", "list"]).splitlines() if line.strip()]


def remove_namespaces(namespaces):
    for ns in namespaces:
        pids = [int(pid) for pid in run(["ip", "netns", "pids", ns], check=False).split()]
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 2
            while pids and time.monotonic() < deadline:
                pids = [pid for pid in pids if os.path.exists(f"/proc/{pid}")]
                time.sleep(0.02)
        run(["ip", "netns", "del", ns], check=False)


def cleanup(everything=False):
    """Removes lab namespaces whose creating process is gone (all of them with everything)."""
    stale = []
    for ns in list_namespaces():
        match = NAME_PATTERN.match(ns)
        if match and (everything or not os.path.exists(f"/proc/{match.group(1)}")):
            stale.append(ns)
    if stale:
        progress(f"removing {', '.join(stale)}")
    remove_namespaces(stale)
    leftover = [ns for ns in stale if ns in list_namespaces()]
    if leftover:
        raise LabError(f"could not remove {', '.join(leftover)}")
    return stale
