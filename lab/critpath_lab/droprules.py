"""Drop rules of the delay line, in the JSON form recorded in truth.json.

  {"dir": "s2c", "kind": "offset", "offset": 300000, "times": 1}
      drop the first `times` transmissions of the data segment that holds byte
      `offset` of the direction's stream (offset 0 is the byte after the ISN)
  {"dir": "c2s", "kind": "ack", "nth": 5}     drop the 5th pure ACK
  {"dir": "c2s", "kind": "syn", "times": 2}   drop the first 2 SYNs
  {"dir": "s2c", "kind": "synack", "times": 1}

Scenarios may write "last" as the offset: the last byte of the direction's
stream, resolved once the lab knows the exact response sizes.

The text form DIR:KIND[=VALUE][:times=K] (e.g. "s2c:offset=300000:times=2",
"c2s:ack=5") is the one the delay line's -drop flag takes.
"""

DIRECTIONS = ("c2s", "s2c")
LAST = "last"


class RuleError(ValueError):
    pass


def validate_rule(rule):
    """Checks a rule and returns it normalised (times defaults to 1)."""
    rule = dict(rule)
    if rule.get("dir") not in DIRECTIONS:
        raise RuleError(f"rule {rule}: dir must be c2s or s2c")
    kind = rule.get("kind")
    if kind == "offset":
        allowed = {"dir", "kind", "offset", "times"}
        offset = rule.get("offset")
        if offset != LAST and not (isinstance(offset, int) and offset >= 0):
            raise RuleError(f"rule {rule}: offset must be a byte offset >= 0 or \"last\"")
    elif kind in ("syn", "synack"):
        allowed = {"dir", "kind", "times"}
    elif kind == "ack":
        allowed = {"dir", "kind", "nth"}
        if not (isinstance(rule.get("nth"), int) and rule["nth"] >= 1):
            raise RuleError(f"rule {rule}: nth must be >= 1")
    else:
        raise RuleError(f"rule {rule}: kind must be offset, ack, syn or synack")
    if extra := set(rule) - allowed:
        raise RuleError(f"rule {rule}: unexpected keys {sorted(extra)}")
    if "times" in allowed:
        rule.setdefault("times", 1)
        if not (isinstance(rule["times"], int) and rule["times"] >= 1):
            raise RuleError(f"rule {rule}: times must be >= 1")
    return rule


def parse_rule(text):
    """Parses the text form DIR:KIND[=VALUE][:times=K] into a normalised rule."""
    fields = text.split(":")
    if len(fields) < 2:
        raise RuleError(f"rule {text!r}: want DIR:KIND[=VALUE][:times=K]")
    kind, has_value, value = fields[1].partition("=")
    rule = {"dir": fields[0], "kind": kind}
    if has_value:
        value_key = {"offset": "offset", "ack": "nth"}.get(kind)
        if value_key is None:
            raise RuleError(f"rule {text!r}: kind {kind} takes no value")
        rule[value_key] = value if value == LAST and kind == "offset" else _integer(text, value)
    elif kind == "offset":
        raise RuleError(f"rule {text!r}: offset needs a value, e.g. offset=300000")
    for option in fields[2:]:
        key, _, value = option.partition("=")
        if key != "times":
            raise RuleError(f"rule {text!r}: unknown option {option!r} (only times=K)")
        rule["times"] = _integer(text, value)
    return validate_rule(rule)


def _integer(text, value):
    try:
        return int(value)
    except ValueError:
        raise RuleError(f"rule {text!r}: {value!r} is not a number") from None


def resolve_rules(rules, stream_bytes):
    """Validates rules and replaces offset "last" by the last byte of the stream.

    stream_bytes: {"c2s": n, "s2c": m}, the bytes each direction carries.
    """
    resolved = []
    for rule in map(validate_rule, rules):
        if rule["kind"] == "offset" and rule["offset"] == LAST:
            rule["offset"] = stream_bytes[rule["dir"]] - 1
        resolved.append(rule)
    return resolved
