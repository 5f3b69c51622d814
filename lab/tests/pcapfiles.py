"""Builds small pcap files for the tests."""

import struct

from critpath_lab.pcap import MAGIC_MICROS, MAGIC_NANOS


def tcp_frame(src, sport, dst, dport, flags=0x10, payload_len=0, snaplen=None):
    """An Ethernet/IPv4/TCP frame; with snaplen, cut like tcpdump -s would."""
    tcp = struct.pack(">HHIIBBHHH", sport, dport, 1, 1, 5 << 4, flags, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + payload_len, 0, 0, 64, 6, 0,
                     bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))))
    frame = b"\x00" * 12 + b"\x08\x00" + ip + tcp + b"\x00" * payload_len
    return frame[:snaplen] if snaplen else frame


def arp_frame():
    return b"\xff" * 12 + b"\x08\x06" + b"\x00" * 28


def write_pcap(path, packets, nanos=False, endian="<"):
    """packets: (timestamp in microseconds, frame) pairs."""
    units = 1_000_000_000 if nanos else 1_000_000
    with open(path, "wb") as f:
        f.write(struct.pack(endian + "IHHiIII", MAGIC_NANOS if nanos else MAGIC_MICROS, 2, 4, 0, 0, 65535, 1))
        for ts_us, frame in packets:
            ts_sec, ts_frac = divmod(ts_us * (units // 1_000_000), units)
            f.write(struct.pack(endian + "IIII", ts_sec, ts_frac, len(frame), len(frame)) + frame)
