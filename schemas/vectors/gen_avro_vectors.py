#!/usr/bin/env python3
"""Regenerates packet-event-avro/ with Apache Avro's reference Python implementation (PyPI `avro`).

Each valid JSON vector of packet-event/ becomes its Avro single-object encoding (magic C3 01, the
schema's CRC-64-AVRO fingerprint little-endian, the binary datum); the invalid ones are made of
those bytes cut, extended or written with a wrong value or another schema. The Java reader and
encoder and the Zeek plugin's encoder are tested against these bytes, so they come from Avro's own
library, not from critpath code.
Usage: pip install avro==1.12.0 && python3 gen_avro_vectors.py   (from this directory)
"""
import io
import json
import os

import avro.io
import avro.schema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_TEXT = open(os.path.join(HERE, "..", "packet-event.avsc")).read()
SCHEMA = avro.schema.parse(SCHEMA_TEXT)
OUT = os.path.join(HERE, "packet-event-avro")
MAGIC = b"\xc3\x01"


def header(schema):
    # the library gives the 64-bit CRC's bytes little-endian, as the single-object encoding wants them
    return MAGIC + schema.fingerprint("CRC-64-AVRO")


def body(datum, schema=SCHEMA):
    out = io.BytesIO()
    avro.io.DatumWriter(schema).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


def zigzag(n):
    """An Avro long as the specification writes it: zig-zag, then 7 bits a byte, low first."""
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n & ~0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def datum(event):
    """The contract's JSON form as an Avro datum: absent optional fields are null, unknown ones dropped."""
    return {f.name: event.get(f.name) for f in SCHEMA.fields}


def json_vector(name):
    with open(os.path.join(HERE, "packet-event", "valid", name + ".json")) as f:
        return json.load(f)


def write(kind, name, data):
    with open(os.path.join(OUT, kind, name + ".bin"), "wb") as f:
        f.write(data)


def main():
    index = {
        "description": "Avro single-object encodings of the packet-event vectors, made by gen_avro_vectors.py with "
        "Apache Avro's Python library. 'valid': each file decodes to the JSON vector named by 'json'; 'canonical' "
        "says whether it is the one encoding a writer makes (an encoder must reproduce those byte for byte). "
        "'invalid': the critpath reader's error code and field for each.",
        "fingerprint": "%016x" % int.from_bytes(SCHEMA.fingerprint("CRC-64-AVRO"), "little"),
        "valid": {},
        "invalid": {},
    }
    for kind in ("valid", "invalid"):
        os.makedirs(os.path.join(OUT, kind), exist_ok=True)
    with open(os.path.join(HERE, "packet-event", "index.json")) as f:
        json_valid = json.load(f)["valid"]
    for name in json_valid:
        write("valid", name, header(SCHEMA) + body(datum(json_vector(name))))
        index["valid"][name] = {"json": name, "canonical": True}

    sack = datum(json_vector("data-with-sack"))
    # the same array written in two blocks, the second with a negative count and its byte size, as
    # block-buffering encoders do (Java's BlockingBinaryEncoder): valid Avro a reader must take
    items = [zigzag(v) for v in sack["sack"]]
    rest = b"".join(items[2:])
    blocked = (body_until(sack, "sack") + zigzag(1) + zigzag(2) + b"".join(items[:2])
               + zigzag(-2) + zigzag(len(rest)) + rest + zigzag(0) + body_after(sack, "sack"))
    write("valid", "sack-in-blocks", header(SCHEMA) + blocked)
    index["valid"]["sack-in-blocks"] = {"json": "data-with-sack", "canonical": False}

    base = datum(json_vector("syn-ipv4-options"))
    good = header(SCHEMA) + body(base)
    invalid = index["invalid"]

    def bad(name, data, error, field=None):
        write("invalid", name, data)
        invalid[name] = {"error": error, "field": field}

    bad("truncated", good[: len(good) // 2], "MALFORMED_AVRO")
    bad("header-only", good[:10], "MALFORMED_AVRO")
    bad("trailing-bytes", good + b"\x00", "MALFORMED_AVRO")
    # sensor_role's union branch 5 of 2, and its enum symbol 7 of 3
    role_at = 10 + len(zigzag(len(base["sensor"]))) + len(base["sensor"])
    bad("bad-union-branch", good[:role_at] + zigzag(5) + good[role_at + 1:], "MALFORMED_AVRO")
    bad("bad-enum-symbol", good[:role_at + 1] + zigzag(7) + good[role_at + 2:], "MALFORMED_AVRO")
    bad("negative-string-length", good[:10] + zigzag(-3) + good[10 + 1 + len(base["sensor"]):], "MALFORMED_AVRO")
    bad("string-past-the-end", good[:10] + zigzag(1000) + good[11:], "MALFORMED_AVRO")
    bad("varint-too-long", good[:role_at + 2] + b"\xff" * 10 + b"\x01" + good[role_at + 2:], "MALFORMED_AVRO")
    # orig_p as a 64-bit value: no Avro int
    port_at = len(header(SCHEMA)) + len(body_until(base, "orig_p"))
    bad("int-over-32-bits", good[:port_at] + zigzag(1 << 40) + good[port_at + len(zigzag(base["orig_p"])):], "MALFORMED_AVRO")

    # an evolved schema (a field added): its fingerprint is not the one this reader knows
    evolved_text = json.loads(SCHEMA_TEXT)
    evolved_text["fields"].append({"name": "vlan", "type": ["null", "int"], "default": None})
    evolved = avro.schema.parse(json.dumps(evolved_text))
    bad("unknown-fingerprint", header(evolved) + body({**base, "vlan": 12}, evolved), "UNKNOWN_SCHEMA")
    bad("json-fingerprint-bytes", MAGIC + b"{\"sensor\"" + good[10:], "UNKNOWN_SCHEMA")

    # well-formed Avro with values the contract refuses (the JSON vectors' counterparts)
    def value(name, error, field, **changes):
        bad(name, header(SCHEMA) + body({**base, **changes}), error, field)

    value("port-out-of-range", "OUT_OF_RANGE", "resp_p", resp_p=70000)
    value("negative-port", "OUT_OF_RANGE", "orig_p", orig_p=-1)
    value("negative-len", "OUT_OF_RANGE", "len", len=-5)
    value("seq-over-u32", "OUT_OF_RANGE", "seq", seq=1 << 32)
    value("ts-2100", "OUT_OF_RANGE", "ts_us", ts_us=4102444800000000)
    value("ts-negative", "OUT_OF_RANGE", "ts_us", ts_us=-1)
    value("flags-out-of-range", "OUT_OF_RANGE", "flags", flags=256)
    value("win-out-of-range", "OUT_OF_RANGE", "win", win=65536)
    value("capture-index-negative", "OUT_OF_RANGE", "capture_index", capture_index=-1)
    value("empty-sensor", "BAD_FORMAT", "sensor", sensor="")
    value("sensor-non-ascii", "BAD_FORMAT", "sensor", sensor="caf\u00e9")
    bad("sensor-invalid-utf8", good[:10] + zigzag(2) + b"\xff\xfe" + good[10 + 1 + len(base["sensor"]):], "BAD_FORMAT", "sensor")
    value("bad-address", "BAD_FORMAT", "orig_h", orig_h="10.1.0.256")
    value("bad-community-id", "BAD_FORMAT", "community_id", community_id="5h9G45xOIgLg7RdKZ96HNzULLn4=")
    value("community-id-mismatch", "COMMUNITY_ID_MISMATCH", "community_id", community_id="1:wCb3OG7yAFWelaUydu0D+125CLM=")
    value("sack-odd-length", "BAD_FORMAT", "sack", sack=[1, 2, 3])
    value("sack-too-many-blocks", "BAD_FORMAT", "sack", sack=list(range(1, 11)))
    value("sack-over-u32", "OUT_OF_RANGE", "sack", sack=[1, 1 << 32])

    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")


def body_until(d, field):
    """The encoding of d's fields before `field`."""
    names = [f.name for f in SCHEMA.fields]
    return b"".join(field_bytes(d, n) for n in names[: names.index(field)])


def body_after(d, field):
    names = [f.name for f in SCHEMA.fields]
    return b"".join(field_bytes(d, n) for n in names[names.index(field) + 1:])


def field_bytes(d, name):
    field = next(f for f in SCHEMA.fields if f.name == name)
    out = io.BytesIO()
    avro.io.DatumWriter(field.type).write(d[name], avro.io.BinaryEncoder(out))
    return out.getvalue()


if __name__ == "__main__":
    main()
