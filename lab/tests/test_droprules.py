import pytest

from critpath_lab.droprules import RuleError, parse_rule, resolve_rules, validate_rule


@pytest.mark.parametrize("text, rule", [
    ("s2c:offset=300000", {"dir": "s2c", "kind": "offset", "offset": 300000, "times": 1}),
    ("s2c:offset=0:times=2", {"dir": "s2c", "kind": "offset", "offset": 0, "times": 2}),
    ("s2c:offset=last", {"dir": "s2c", "kind": "offset", "offset": "last", "times": 1}),
    ("c2s:ack=5", {"dir": "c2s", "kind": "ack", "nth": 5}),
    ("c2s:syn:times=2", {"dir": "c2s", "kind": "syn", "times": 2}),
    ("s2c:synack", {"dir": "s2c", "kind": "synack", "times": 1}),
])
def test_parse_rule(text, rule):
    assert parse_rule(text) == rule


@pytest.mark.parametrize("text", [
    "", "s2c", "up:offset=1", "s2c:offset", "s2c:offset=x", "s2c:offset=-1", "c2s:ack", "c2s:ack=0",
    "s2c:synack=3", "s2c:offset=5:count=2", "s2c:offset=5:times=0", "s2c:bogus", "c2s:ack=last",
])
def test_parse_rule_rejects(text):
    with pytest.raises(RuleError):
        parse_rule(text)


def test_validate_rejects_unknown_keys_and_fills_times():
    assert validate_rule({"dir": "c2s", "kind": "syn"}) == {"dir": "c2s", "kind": "syn", "times": 1}
    with pytest.raises(RuleError):
        validate_rule({"dir": "s2c", "kind": "offset", "offset": 1, "nth": 3})
    with pytest.raises(RuleError):
        validate_rule({"dir": "s2c", "kind": "offset", "offset": 1.5})


def test_resolve_last_byte_of_each_direction():
    rules = [{"dir": "s2c", "kind": "offset", "offset": "last", "times": 2},
             {"dir": "c2s", "kind": "offset", "offset": "last"},
             {"dir": "s2c", "kind": "offset", "offset": 7}]
    resolved = resolve_rules(rules, {"c2s": 49, "s2c": 20101})
    assert [r["offset"] for r in resolved] == [20100, 48, 7]
    assert resolved[0]["times"] == 2 and resolved[1]["times"] == 1
    assert rules[0]["offset"] == "last"  # the scenario's own rules stay symbolic
