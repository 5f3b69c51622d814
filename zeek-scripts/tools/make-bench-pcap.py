#!/usr/bin/env python3
"""Usage: make-bench-pcap.py OUT COPIES CAPTURE...

Writes COPIES copies of the packets of the CAPTUREs (classic little-endian microsecond pcaps with
Ethernet framing, as the lab records them) into one pcap OUT, each copy a day later than the one
before, so that Zeek sees new connections throughout and a run measures its cost per packet rather
than its start-up. Prints the packet count."""
import struct
import sys

PCAP_MAGIC_LE_MICROS = b"\xd4\xc3\xb2\xa1"
LINKTYPE_ETHERNET = 1
DAY_S = 86400


def records(path):
    data = open(path, "rb").read()
    if data[:4] != PCAP_MAGIC_LE_MICROS or struct.unpack("<I", data[20:24])[0] != LINKTYPE_ETHERNET:
        sys.exit(f"{path}: not a little-endian microsecond Ethernet pcap")
    off = 24
    while off + 16 <= len(data):
        sec, usec, caplen, wirelen = struct.unpack("<IIII", data[off:off + 16])
        yield sec, usec, wirelen, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, copies, captures = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    packets = [r for path in captures for r in records(path)]
    span = max(p[0] for p in packets) - min(p[0] for p in packets) + DAY_S
    with open(out, "wb") as f:
        f.write(PCAP_MAGIC_LE_MICROS + struct.pack("<HHiIII", 2, 4, 0, 0, 262144, LINKTYPE_ETHERNET))
        for k in range(copies):
            for sec, usec, wirelen, data in packets:
                f.write(struct.pack("<IIII", sec + k * span, usec, len(data), wirelen) + data)
    print(len(packets) * copies, "packets")


main()
