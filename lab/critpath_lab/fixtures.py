"""Regenerates the committed fixture set, testdata/lab/, and its README."""

import json
import os
import shutil
import tempfile

from .runner import run_scenarios
from .scenarios import SCENARIOS
from .system import LAB_DIR, progress
from .truth import total

FIXTURE_DIR = os.path.join(os.path.dirname(LAB_DIR), "testdata", "lab")
FILES = ("client.pcap", "server.pcap", "truth.json")

# Columns of the README's table: header, fact (see truth.total).
FACTS = (
    ("drops", "drops"),
    ("data drops", "drops.data"),
    ("ACK drops", "drops.ack"),
    ("srv retrans", "server.TcpRetransSegs"),
    ("fast retrans", "server.TcpExtTCPFastRetrans"),
    ("RTOs", "server.TcpExtTCPTimeouts"),
    ("loss probes", "server.TcpExtTCPLossProbes"),
    ("cli zero-win", "client.TcpExtTCPToZeroWindowAdv"),
    ("cli retrans", "client.TcpRetransSegs"),
)


def regenerate(names=()):
    """Runs the named fixture scenarios (all of them when none is named) into a staging
    directory and, only if all of them behaved as intended, puts them into testdata/lab
    (replacing it whole when all were run) and renders its README. Returns {name: failures}."""
    fixtures = [s for s in SCENARIOS if s.fixture]
    scenarios = [s for s in fixtures if s.name in names] if names else fixtures
    staging = tempfile.mkdtemp(prefix="critpath-lab-fixtures-")
    try:
        results = run_scenarios(scenarios, staging, keep_logs=False)
        if any(results.values()):
            progress(f"{FIXTURE_DIR} left unchanged")
            return results
        if not names:
            shutil.rmtree(FIXTURE_DIR, ignore_errors=True)
        for s in scenarios:
            target = os.path.join(FIXTURE_DIR, s.name)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(os.path.join(staging, s.name), target)
            os.chmod(target, 0o755)  # copytree keeps mkdtemp's 0700 otherwise
        with open(os.path.join(FIXTURE_DIR, "README.md"), "w", encoding="utf-8") as f:
            f.write(readme(fixtures, FIXTURE_DIR))
        progress(f"wrote {FIXTURE_DIR}: {directory_size(FIXTURE_DIR) / 1e6:.2f} MB")
        return results
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def directory_size(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def readme(scenarios, root):
    truths = {}
    for s in scenarios:
        with open(os.path.join(root, s.name, "truth.json"), encoding="utf-8") as f:
            truths[s.name] = json.load(f)
    lines = [
        "# Trace lab fixtures",
        "",
        "Real Linux TCP connections captured at a client-side and a server-side point, with delays and",
        "losses injected on purpose and recorded as ground truth. Each directory holds `client.pcap`,",
        "`server.pcap` (pcap, snaplen 128, microsecond timestamps) and `truth.json`; docs/lab.md describes",
        "the testbed and the meaning of every truth.json field.",
        "",
        "Do not edit these files by hand: regenerate the whole set, or the scenarios named (as root,",
        "on a machine where `lab/critpath-lab check` passes), with",
        "",
        "    lab/critpath-lab fixtures [SCENARIO ...]",
        "",
        "Each scenario's generation date and kernel are in the table below and its truth.json.",
        "Timestamps are real (CLOCK_REALTIME), so they differ from one generation to the next, and so",
        "do ports, sequence numbers and the exact segment a byte-offset drop hits; the scenario's",
        "intended behaviour is checked by the lab before it is written.",
        "",
        "## Scenarios",
        "",
        "Defaults unless a line says otherwise: Reno, SACK off, timestamps on, initcwnd 10,",
        "segmentation offload off, HTTP/1.0, one connection. Sizes are body bytes; `response_bytes` in",
        "truth.json counts the whole response on the wire (head included).",
        "",
    ]
    for s in scenarios:
        lines.append(f"- **{s.name}**: {s.description}.")
        if s.notes:
            lines.append(f"  *Changed from the first plan:* {s.notes}")
    header = ["scenario", "generated", "conns", *(name for name, _ in FACTS), "client.pcap", "server.pcap"]
    lines += [
        "",
        "## Key truth facts",
        "",
        "Sums over a scenario's connections: drops by the delay line (all, data, pure ACKs; a rate",
        "limit's queue is the delay line's too), kernel counter deltas (nstat) at the server and client.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for s in scenarios:
        truth = truths[s.name]
        sizes = [f"{os.path.getsize(os.path.join(root, s.name, name)) / 1000:.0f} KB" for name in FILES[:2]]
        facts = [str(total(truth, path)) for _, path in FACTS]
        generated = f"{truth['generated_at'][:10]}, {truth['kernel']}"
        lines.append("| " + " | ".join([s.name, generated, str(len(truth["connections"])), *facts, *sizes]) + " |")
    lines += ["", f"Total size of the pcaps and truth files: {directory_size(root) / 1e6:.2f} MB.", ""]
    return "\n".join(lines)
