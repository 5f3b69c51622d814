from critpath_lab.droprules import resolve_rules
from critpath_lab.scenarios import BY_NAME, SCENARIOS, random_batch
from critpath_lab.truth import total
from endpoints.httpwire import request_bytes, response_size

CONTRACT_NAMES = {
    "dl-1k", "dl-20k", "dl-500k", "think-100ms", "fast-retransmit", "tail-timeout", "backoff",
    "bottleneck-4mbit", "slow-uplink", "zero-window", "server-stall", "keepalive-3", "clock-offset",
    "cubic-fast-retransmit", "sack-fast-retransmit", "sack-tail-loss", "cubic-clock-offset",
    "sack-clock-offset", "asym-delay", "offload-on", "random-batch", "bench-bulk",
    "shallow-queue", "uplink-ack-loss", "jitter", "ack-compression", "tlp-off-sack", "synack-loss",
    "request-loss", "random-loss", "loss-twins", "server-link-100mbit",
}
CONFIG_KEYS = {"delay_us", "jitter_us", "rate_kbit", "queue_bytes", "batch_us", "server_link_kbit", "cc", "sack",
               "timestamps", "initcwnd", "early_retrans", "offload", "server_clock_offset_us", "drop_rules", "random_loss", "seed"}
PER_DIRECTION = ("delay_us", "jitter_us", "rate_kbit", "queue_bytes", "batch_us")


def test_names_are_the_contract():
    assert {s.name for s in SCENARIOS} == CONTRACT_NAMES
    assert len(SCENARIOS) == len(CONTRACT_NAMES)


def test_only_the_benchmark_is_not_a_fixture():
    assert [s.name for s in SCENARIOS if not s.fixture] == ["bench-bulk"]


def test_config_has_the_contract_keys():
    for s in SCENARIOS:
        config = s.config()
        assert set(config) == CONFIG_KEYS, s.name
        for key in PER_DIRECTION:
            if config[key] is not None:
                assert set(config[key]) == {"c2s", "s2c"}, (s.name, key)
        assert config["cc"] in ("reno", "cubic", "bbr")
        assert s.description and s.connections


def test_every_connection_has_a_delay_and_valid_rules():
    for s in SCENARIOS:
        for plan in s.connections:
            delay = plan.delay_us or s.delay_us
            assert set(delay) == {"c2s", "s2c"} and all(v > 0 for v in delay.values()), s.name
            rules = plan.drop_rules if plan.drop_rules is not None else s.drop_rules
            for rule in resolve_rules(rules, plan.stream_bytes()):
                assert 0 <= rule.get("offset", 0) < plan.stream_bytes()[rule["dir"]], s.name
            assert plan.http == "1.1" or len(plan.exchanges) == 1, s.name


def test_rates_come_with_queues():
    for s in SCENARIOS:
        for direction in ("c2s", "s2c"):
            assert (s.rate_kbit[direction] is None) == (s.queue_bytes[direction] is None), s.name


def test_expectations_name_known_facts():
    counters_truth = {"connections": [{"drops": [{"kind": "ack"}], "kernel": {"server": {}, "client": {}}}]}
    for s in SCENARIOS:
        for path, low, high in s.expect:
            assert path == "drops" or path.split(".")[0] in ("drops", "server", "client"), s.name
            assert high is None or low <= high
            total(counters_truth, path)


def test_variants_differ_only_where_named():
    fast, cubic, sack = BY_NAME["fast-retransmit"], BY_NAME["cubic-fast-retransmit"], BY_NAME["sack-fast-retransmit"]
    assert cubic.cc == "cubic" and not cubic.sack and cubic.drop_rules == fast.drop_rules
    assert sack.sack and sack.cc == "reno"
    assert BY_NAME["sack-tail-loss"].sack and BY_NAME["sack-tail-loss"].drop_rules == BY_NAME["tail-timeout"].drop_rules
    assert all(BY_NAME[n].server_clock_offset_us == 1_500_000
               for n in ("clock-offset", "cubic-clock-offset", "sack-clock-offset"))


def test_drops_count_by_kind():
    truth = {"connections": [{"drops": [{"kind": "ack"}, {"kind": "data"}, {"kind": "ack"}], "kernel": {}}]}
    assert (total(truth, "drops"), total(truth, "drops.ack"), total(truth, "drops.data")) == (3, 2, 1)


def test_random_batch_is_seeded_and_in_range():
    assert random_batch(5) == random_batch(5)
    assert random_batch(5) != random_batch(6)
    plans = BY_NAME["random-batch"].connections
    assert len(plans) == 40 and BY_NAME["random-batch"].seed is not None
    for plan in plans:
        exchange, = plan.exchanges
        assert 2_000 <= exchange.size <= 200_000 and 0 <= exchange.think_ms <= 200
        assert plan.delay_us["c2s"] == plan.delay_us["s2c"] and 10_000 <= plan.delay_us["c2s"] <= 50_000
        assert len(plan.drop_rules) <= 1
    assert 10 <= sum(1 for plan in plans if plan.drop_rules) <= 30


def test_stream_bytes_match_the_wire_format():
    plan = BY_NAME["keepalive-3"].connections[0]
    streams = plan.stream_bytes()
    assert streams["s2c"] == sum(response_size("1.1", e.size, close=False) for e in plan.exchanges)
    assert streams["c2s"] == sum(len(request_bytes(e.target(), "1.1", "10.71.2.2")) for e in plan.exchanges)
    assert BY_NAME["dl-20k"].connections[0].stream_bytes()["s2c"] == response_size("1.0", 20_000, close=True)


def test_delayline_config_carries_the_scenarios_path():
    uplink = BY_NAME["slow-uplink"]
    config = uplink.delayline_config(uplink.delay_us, [])
    assert config["rate_kbit"] == {"c2s": 64, "s2c": 20_000} and config["queue_bytes"] == {"c2s": 3_000, "s2c": 150_000}
    assert BY_NAME["ack-compression"].delayline_config(uplink.delay_us, [])["batch_us"] == {"c2s": 10_000, "s2c": 0}
    lossy = BY_NAME["random-loss"]
    assert lossy.delayline_config(lossy.delay_us, [])["random_loss"] == {"c2s": 0, "s2c": 0.02}
    assert lossy.delayline_config(lossy.delay_us, [], random_loss=False)["random_loss"] is None
    assert BY_NAME["jitter"].delayline_config(uplink.delay_us, [], jitter_us={"c2s": 1, "s2c": 2})["jitter_us"] == {"c2s": 1, "s2c": 2}
