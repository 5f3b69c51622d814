"""The DuckDB views over a warehouse written by critpath from three lab fixtures."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "dashboards"))
import critpath_sql  # noqa: E402
from conftest import truth_ports  # noqa: E402


def test_one_profile_and_one_verdict_per_lab_connection(warehouse):
    con = critpath_sql.connect(warehouse)
    assert {r[0] for r in con.execute("select client_port from profiles").fetchall()} == truth_ports()
    assert con.execute("select count(*) from screening").fetchone()[0] == len(truth_ports())
    assert con.execute("select count(*) from exchanges where conn_uid in (select conn_uid from profiles)").fetchone()[0] == 5  # 1 + 3 + 1


def test_blame_shares_add_up_to_the_whole(warehouse):
    con = critpath_sql.connect(warehouse)
    shares = " + ".join(f"{c}_share" for c in critpath_sql.CATEGORIES)
    for view in ("blame_by_server", "blame_by_client_network", "blame_by_hour"):
        for total, connections in con.execute(f"select {shares}, connections from {view}").fetchall():
            assert total == pytest.approx(1.0, abs=1e-9), view
        assert con.execute(f"select sum(connections) from {view}").fetchone()[0] == len(truth_ports()), view
    assert con.execute("select client_network from blame_by_client_network").fetchall() == [("10.71.1.0/24",)]


def test_rule_failures_count_the_screening_verdicts(warehouse):
    con = critpath_sql.connect(warehouse)
    expected = {}
    for (rules,) in con.execute("select failed_rules from screening").fetchall():
        for r in rules:
            expected[r] = expected.get(r, 0) + 1
    assert dict(con.execute("select rule, connections from screen_rule_failures").fetchall()) == expected
    assert "no_retransmission" in expected  # fast-retransmit's loss


def test_a_table_without_files_is_an_empty_view_with_its_columns(warehouse):
    con = critpath_sql.connect(warehouse)  # no streaming job ran: no dead letters
    assert con.execute("select count(*) from dead_letters").fetchone()[0] == 0
    with open(os.path.join(REPO, "schemas", "tables", "dead_letters.avsc")) as f:
        documented = [x["name"] for x in json.load(f)["fields"]]
    assert con.sql("select * from dead_letters").columns == documented + ["dt", "hour"]


def test_the_command_answers_a_query_and_refuses_a_missing_warehouse(warehouse, tmp_path):
    ok = subprocess.run([os.path.join(REPO, "critpath"), "sql", "--warehouse", warehouse, "-c",
                         "select count(*) as n from profiles"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "3" in ok.stdout
    shares = subprocess.run([os.path.join(REPO, "critpath"), "sql", "--warehouse", warehouse, "-c",
                             "select server_share, 1.0 / 3 as third from blame_by_server"], capture_output=True, text=True)
    assert shares.returncode == 0, shares.stderr
    assert "0.3333" in shares.stdout and "0.33333" not in shares.stdout, shares.stdout
    missing = subprocess.run([os.path.join(REPO, "critpath"), "sql", "--warehouse", str(tmp_path / "none"), "-c", "select 1"],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "no warehouse" in missing.stderr


def test_client_networks_are_ipv4_slash_24s_and_ipv6_slash_48s(warehouse):
    con = critpath_sql.connect(warehouse)
    cases = {"10.71.1.2": "10.71.1.0/24", "2001:db8::1": "2001:db8::/48", "2001:db8:abcd:12::7": "2001:db8:abcd::/48",
             "2001:0DB8:0a0b:12f0:0:0:0:1": "2001:db8:a0b::/48", "2001:0:5::1": "2001:0:5::/48", "::1": "::/48"}
    for addr, network in cases.items():
        assert con.execute("select client_network(?)", [addr]).fetchone()[0] == network, addr
