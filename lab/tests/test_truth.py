from critpath_lab.pcap import ConnectionSpan
from critpath_lab.scenarios import BY_NAME
from critpath_lab.truth import ConnectionRun, failed_expectations, scenario_truth

TOP_KEYS = ["scenario", "description", "generated_at", "kernel", "client_addr", "server_addr", "server_port",
            "config", "connections"]
CONNECTION_KEYS = ["client_port", "delay_us", "http", "exchanges", "client_connect_start_ts_us",
                   "client_close_ts_us", "capture", "drops", "delay_line", "kernel"]
EXCHANGE_KEYS = ["request_bytes", "response_bytes", "think_us_configured", "think_us_executed",
                 "request_complete_ts_us", "request_arrival_ts_us", "first_byte_ts_us", "response_complete_ts_us", "stalls",
                 "send_windows", "client_pause_us_configured", "client_pause_us_executed", "client_request_sent_ts_us",
                 "client_first_byte_ts_us", "client_response_complete_ts_us"]
CAPTURE_KEYS = ["client_first_ts_us", "client_last_ts_us", "client_observed_duration_us", "client_packets",
                "server_packets"]
DROP_KEYS = ["ts_us", "dir", "seq_rel", "len", "flags", "rule", "kind"]


def fake_run(scenario, port=43210):
    plan = scenario.connections[0]
    client = {"local_port": port, "connect_start_ts_us": 100, "close_ts_us": 900, "requests": [
        {"request_bytes": 49, "pause_us_configured": 0, "pause_us_executed": 0, "request_sent_ts_us": 200,
         "first_byte_ts_us": 300, "response_complete_ts_us": 800}]}
    drop = {"ts_us": 500, "dir": "s2c", "src": "10.71.2.2", "sport": 8080, "dst": "10.71.1.2", "dport": port,
            "seq": 123, "seq_rel": 299257, "len": 1448, "flags": "A", "rule": "offset 300000 #1", "kind": "data"}
    extra = {"packets": 2, "sum_us": 10, "min_us": 3, "max_us": 7}
    summary = {"summary": True, "forwarded": {"c2s": 1, "s2c": 2}, "dropped": {"c2s": 0, "s2c": 1},
               "extra_delay": {"c2s": {"extra": extra, "queued": extra}, "s2c": {"extra": extra, "queued": extra}},
               "unclassified": 0, "write_errors": 0}
    kernel = {"server": {"TcpExtTCPFastRetrans": 1}, "client": {}}
    return ConnectionRun(plan, scenario.delay_us, client, [drop, summary], kernel)


def server_request(port=43210):
    return {"client_port": port, "response_bytes": 500083, "think_us_configured": 0, "think_us_executed": 0,
            "request_complete_ts_us": 250, "request_arrival_ts_us": 249, "first_byte_ts_us": 260, "response_complete_ts_us": 700, "stalls": [],
            "send_windows": [{"start_ts_us": 260, "end_ts_us": 700}]}


def test_truth_has_exactly_the_contract_keys():
    scenario = BY_NAME["fast-retransmit"]
    truth = scenario_truth(scenario, [fake_run(scenario)], [server_request(), server_request(999)],
                           {43210: ConnectionSpan(150, 950, 40)}, {43210: ConnectionSpan(160, 940, 41)},
                           "2024-01-01T00:00:00+00:00", "6.1.0")
    assert list(truth) == TOP_KEYS
    connection, = truth["connections"]
    assert list(connection) == CONNECTION_KEYS
    assert list(connection["exchanges"][0]) == EXCHANGE_KEYS
    assert list(connection["capture"]) == CAPTURE_KEYS
    assert connection["capture"]["client_observed_duration_us"] == 800
    assert connection["capture"]["server_packets"] == 41
    assert [list(d) for d in connection["drops"]] == [DROP_KEYS]  # the summary line is no drop
    assert connection["delay_line"]["dropped"] == {"c2s": 0, "s2c": 1}
    assert list(connection["delay_line"]) == ["forwarded", "dropped", "extra_delay"]
    assert truth["config"]["drop_rules"] == [{"dir": "s2c", "kind": "offset", "offset": 300000, "times": 1}]
    assert failed_expectations(scenario, truth) == [
        "server.TcpRetransSegs = 0, expected 1..1", "server.TcpExtTCPRenoRecovery = 0, expected 1..1"]


def test_symbolic_offsets_are_resolved_in_config():
    scenario = BY_NAME["tail-timeout"]
    run = fake_run(scenario)
    truth = scenario_truth(scenario, [run], [server_request()], {43210: ConnectionSpan(1, 2, 3)},
                           {43210: ConnectionSpan(1, 2, 3)}, "t", "k")
    assert truth["config"]["drop_rules"][0]["offset"] == scenario.connections[0].stream_bytes()["s2c"] - 1
