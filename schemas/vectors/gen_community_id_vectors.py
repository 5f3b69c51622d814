#!/usr/bin/env python3
"""Regenerates community-id.json with the reference implementation (PyPI `communityid`).

The Java reader and the Zeek sensors must both agree with these values, so they come
from the spec authors' own library, not from critpath code.
Usage: pip install communityid && python3 gen_community_id_vectors.py > community-id.json
"""
import json
import random

import communityid

TUPLES = [
    ("1.2.3.4", "5.6.7.8", 1122, 3344),
    ("5.6.7.8", "1.2.3.4", 3344, 1122),
    ("10.1.0.2", "10.2.0.2", 43210, 80),
    ("10.2.0.2", "10.1.0.2", 80, 43210),
    ("10.0.0.1", "10.0.0.1", 1, 2),
    ("10.0.0.1", "10.0.0.1", 2, 1),
    ("0.0.0.0", "255.255.255.255", 0, 65535),
    ("2001:db8::1", "2001:db8::2", 50000, 443),
    ("2001:db8::2", "2001:db8::1", 443, 50000),
    ("fe80::1", "::1", 65535, 0),
    ("::ffff:10.1.2.3", "2001:db8:ffff::abcd", 12345, 22),
]


def main():
    rng = random.Random(20261122)
    tuples = list(TUPLES)
    for _ in range(20):
        a = ".".join(str(rng.randrange(256)) for _ in range(4))
        b = ".".join(str(rng.randrange(256)) for _ in range(4))
        tuples.append((a, b, rng.randrange(65536), rng.randrange(65536)))
    out = []
    for seed in (0, 1, 65535):
        cid = communityid.CommunityID(seed)
        for src, dst, sport, dport in tuples:
            out.append({"seed": seed, "src": src, "dst": dst, "sport": sport, "dport": dport,
                        "community_id": cid.calc(communityid.FlowTuple.make_tcp(src, dst, sport, dport))})
    print(json.dumps({"generator": "communityid (PyPI) 1.5.0", "protocol": "tcp", "vectors": out}, indent=1))


if __name__ == "__main__":
    main()
