"""`critpath plot` on lab fixtures: every packet the warehouse keeps is a mark of its kind, every
critical-path arc is drawn, the SVG is valid, the interactive page works in headless Chromium.
From captures, the marks are the packets the lab's sensors captured (truth.json)."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from conftest import REPO
from testkit import PLOT_FIGURE, chromium, console_errors, wait_for

sys.path.insert(0, os.path.join(REPO, "dashboards"))
import critpath_sql  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
SCREENSHOTS = os.path.join(REPO, "dashboards", "tests", "screenshots")
# a loss on the critical path of each class, a zero window, a keep-alive connection of three exchanges
SCENARIOS = ("fast-retransmit", "backoff", "tail-timeout", "sack-tail-loss", "zero-window", "keepalive-3")


def lab(scenario, name):
    return os.path.join(REPO, "testdata", "lab", scenario, name)


@pytest.fixture(scope="module")
def plots(tmp_path_factory):
    """A warehouse of the scenarios, and each flagged connection's plot: {conn_uid: prefix}."""
    wh = str(tmp_path_factory.mktemp("wh"))
    out = tmp_path_factory.mktemp("plots")
    for s in SCENARIOS:
        subprocess.run([os.path.join(REPO, "critpath"), "analyze", "--client-pcap", lab(s, "client.pcap"), "--server-pcap",
                        lab(s, "server.pcap"), "--parquet", wh, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    con = critpath_sql.connect(wh)
    flagged = [r[0] for r in con.execute("SELECT conn_uid FROM profiles WHERE NOT boring ORDER BY start_us").fetchall()]
    assert len(flagged) >= len(SCENARIOS) - 1, flagged
    prefixes = {}
    for i, uid in enumerate(flagged):
        prefixes[uid] = str(out / f"conn{i}")
        subprocess.run([os.path.join(REPO, "critpath"), "plot", "--warehouse", wh, "--conn-uid", uid, "--out", prefixes[uid]],
                       check=True, stdout=subprocess.DEVNULL)
    return con, prefixes


def drawn(svg_file):
    """{group id: elements drawn in it}: a segment is a path, a marker a <use> of its shape."""
    root = ET.parse(svg_file).getroot()
    assert root.tag == SVG + "svg"
    out = {}
    for g in root.iter(SVG + "g"):
        gid = g.get("id", "")
        if gid.startswith(("marks-", "arcs-", "timeline-")):
            uses = sum(1 for _ in g.iter(SVG + "use"))
            out[gid] = uses or sum(1 for c in g if c.tag == SVG + "path")
    return out


def marks_per_kind(groups):
    kinds = Counter()
    for gid, n in groups.items():
        if gid.startswith("marks-"):
            kinds[gid.split("-")[1]] += n
    return kinds


def test_the_svg_marks_every_kept_packet_by_kind_and_draws_every_arc(plots):
    con, prefixes = plots
    kinds_seen = set()
    for uid, prefix in prefixes.items():
        groups = drawn(prefix + ".svg")
        rows = Counter(dict(con.execute("SELECT kind, count(*) FROM packets WHERE conn_uid = ? GROUP BY kind", [uid]).fetchall()))
        assert sum(rows.values()) > 0, uid
        assert marks_per_kind(groups) == rows, uid
        kinds_seen |= set(rows)
        arcs = con.execute("SELECT count(*) FROM critical_path WHERE conn_uid = ?", [uid]).fetchone()[0]
        for panel in ("c2s", "s2c"):
            assert sum(n for g, n in groups.items() if g.startswith(f"arcs-{panel}-")) == arcs, (uid, panel)
        by_category = dict(con.execute("SELECT category, count(*) FROM critical_path WHERE conn_uid = ? GROUP BY 1", [uid]).fetchall())
        assert {g.removeprefix("timeline-"): n for g, n in groups.items() if g.startswith("timeline-")} == by_category, uid
    # the fixtures hold what the plot has to tell apart
    assert {"data", "dup_ack", "fast_retransmit", "timeout", "backoff", "tail_loss_probe", "zero_window"} <= kinds_seen, kinds_seen


def test_from_captures_the_marks_are_the_packets_the_sensors_captured(tmp_path):
    with open(lab("fast-retransmit", "truth.json")) as f:
        conn = json.load(f)["connections"][0]
    prefix = str(tmp_path / "fr")
    subprocess.run([os.path.join(REPO, "critpath"), "plot", "--client-pcap", lab("fast-retransmit", "client.pcap"),
                    "--server-pcap", lab("fast-retransmit", "server.pcap"), "--connection", str(conn["client_port"]),
                    "--out", prefix], check=True, stdout=subprocess.DEVNULL)
    marks = marks_per_kind(drawn(prefix + ".svg"))
    assert sum(marks.values()) == conn["capture"]["client_packets"] + conn["capture"]["server_packets"]
    # each sensor saw the one fast retransmit the server's kernel made
    assert marks["fast_retransmit"] == 2 * conn["kernel"]["server"]["TcpExtTCPFastRetrans"] == 2


def test_the_interactive_page_in_headless_chromium(plots):
    """The page draws every kept packet and arc with nothing fetched and no console error; a zoom
    narrows the time axis. Screenshots stay in dashboards/tests/screenshots."""
    con, prefixes = plots
    os.makedirs(SCREENSHOTS, exist_ok=True)
    b = chromium()
    try:
        for i, (uid, prefix) in enumerate(prefixes.items()):
            b.get("file://" + prefix + ".html")
            fig = wait_for(lambda: b.execute_script(PLOT_FIGURE), uid + ": the plot drawn")
            rows = dict(con.execute("SELECT kind, count(*) FROM packets WHERE conn_uid = ? GROUP BY kind", [uid]).fetchall())
            assert fig["kinds"] == rows, uid
            arcs = con.execute("SELECT count(*) FROM critical_path WHERE conn_uid = ?", [uid]).fetchone()[0]
            assert fig["arcs"] == {"c2s": arcs, "s2c": arcs}, uid
            assert sum(fig["timeline"].values()) == arcs, uid
            assert fig["drawn"] > len(rows), "plotly put the traces on the page"
            assert [r for r in fig["resources"] if not r.startswith(("file:", "data:", "blob:"))] == [], "nothing fetched"
            b.save_screenshot(os.path.join(SCREENSHOTS, f"plot-{i}.png"))
            before = b.execute_script("return document.getElementById('critpath-plot')._fullLayout.xaxis.range.slice()")
            b.execute_script("Plotly.relayout('critpath-plot', {'xaxis.range': [0, arguments[0]]})", before[1] / 4)
            after = b.execute_script("return document.getElementById('critpath-plot')._fullLayout.xaxis3.range.slice()")
            assert after[1] == pytest.approx(before[1] / 4), "the panels share the zoomed time axis"
            assert console_errors(b) == []
    finally:
        b.quit()
