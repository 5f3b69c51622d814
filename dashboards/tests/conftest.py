"""A warehouse written by critpath from three lab fixtures, shared by the dashboards' tests."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SCENARIOS = ("fast-retransmit", "keepalive-3", "clock-offset")


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory):
    wh = tmp_path_factory.mktemp("wh")
    for s in SCENARIOS:
        lab = os.path.join(REPO, "testdata", "lab", s)
        subprocess.run([os.path.join(REPO, "critpath"), "analyze", "--client-pcap", os.path.join(lab, "client.pcap"),
                        "--server-pcap", os.path.join(lab, "server.pcap"), "--parquet", str(wh), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
    return str(wh)


def truth_ports():
    ports = set()
    for s in SCENARIOS:
        with open(os.path.join(REPO, "testdata", "lab", s, "truth.json")) as f:
            ports.update(c["client_port"] for c in json.load(f)["connections"])
    return ports
