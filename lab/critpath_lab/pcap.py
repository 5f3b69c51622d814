"""Classic pcap reading and timestamp shifting, standard library only.

The lab computes its truth from the captures itself (never with critpath code),
so this module knows just enough: the pcap record format, Ethernet, IPv4, TCP.
"""

import struct
from dataclasses import dataclass

MAGIC_MICROS = 0xA1B2C3D4
MAGIC_NANOS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101
GLOBAL_HEADER_LEN = 24
RECORD_HEADER_LEN = 16


class PcapError(ValueError):
    pass


@dataclass(frozen=True)
class PcapFile:
    endian: str          # "<" or ">"
    units_per_sec: int   # 1_000_000 (microsecond pcap) or 1_000_000_000 (nanosecond)
    linktype: int
    header: bytes


@dataclass(frozen=True)
class TcpPacket:
    ts_us: int
    src: str
    sport: int
    dst: str
    dport: int
    flags: int
    payload_len: int


def read_header(data):
    if len(data) < GLOBAL_HEADER_LEN:
        raise PcapError("file too short for a pcap header")
    for endian in "<>":
        magic, = struct.unpack(endian + "I", data[:4])
        if magic in (MAGIC_MICROS, MAGIC_NANOS):
            linktype, = struct.unpack(endian + "I", data[20:24])
            units = 1_000_000 if magic == MAGIC_MICROS else 1_000_000_000
            return PcapFile(endian, units, linktype & 0x0FFFFFFF, data[:GLOBAL_HEADER_LEN])
    raise PcapError("not a classic pcap file (pcapng is not supported)")


def records(data, pcap):
    """Yields (offset of the record header, ts_sec, ts_frac, frame bytes)."""
    offset = GLOBAL_HEADER_LEN
    header = struct.Struct(pcap.endian + "IIII")
    while offset < len(data):
        if offset + RECORD_HEADER_LEN > len(data):
            raise PcapError(f"truncated record header at byte {offset}")
        ts_sec, ts_frac, incl_len, _orig_len = header.unpack_from(data, offset)
        frame_start = offset + RECORD_HEADER_LEN
        if frame_start + incl_len > len(data):
            raise PcapError(f"truncated record at byte {offset}")
        yield offset, ts_sec, ts_frac, data[frame_start:frame_start + incl_len]
        offset = frame_start + incl_len


def shift_timestamps(src_path, dst_path, offset_us):
    """Copies a pcap, adding offset_us (may be negative) to every record's timestamp.

    Imitates a sensor whose clock is off by offset_us.
    """
    with open(src_path, "rb") as f:
        data = bytearray(f.read())
    pcap = read_header(data)
    units_per_us = pcap.units_per_sec // 1_000_000
    stamp = struct.Struct(pcap.endian + "II")
    for offset, ts_sec, ts_frac, _frame in list(records(data, pcap)):
        total = ts_sec * pcap.units_per_sec + ts_frac + offset_us * units_per_us
        if total < 0:
            raise PcapError("shift would move a packet before 1970")
        stamp.pack_into(data, offset, *divmod(total, pcap.units_per_sec))
    with open(dst_path, "wb") as f:
        f.write(data)


def parse_tcp(frame, linktype):
    """Returns (src, sport, dst, dport, flags, payload_len) of an IPv4/TCP frame, or None."""
    if linktype == LINKTYPE_ETHERNET:
        if len(frame) < 14 or frame[12:14] != b"\x08\x00":
            return None
        ip = frame[14:]
    elif linktype == LINKTYPE_RAW:
        ip = frame
    else:
        raise PcapError(f"unsupported link type {linktype}")
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
        return None
    ihl = (ip[0] & 0x0F) * 4
    total_len, = struct.unpack_from(">H", ip, 2)
    if len(ip) < ihl + 14:  # need the TCP ports, data offset and flags
        return None
    tcp = ip[ihl:]
    sport, dport = struct.unpack_from(">HH", tcp, 0)
    header_len = (tcp[12] >> 4) * 4
    # The IP total length, not the (snaplen-cut) frame, tells the payload size.
    payload_len = total_len - ihl - header_len
    src = ".".join(str(b) for b in ip[12:16])
    dst = ".".join(str(b) for b in ip[16:20])
    return src, sport, dst, dport, tcp[13], payload_len


def tcp_packets(path):
    """Yields every IPv4/TCP packet of a pcap file, in file order."""
    with open(path, "rb") as f:
        data = f.read()
    pcap = read_header(data)
    for _offset, ts_sec, ts_frac, frame in records(data, pcap):
        fields = parse_tcp(frame, pcap.linktype)
        if fields:
            ts_us = ts_sec * 1_000_000 + ts_frac * 1_000_000 // pcap.units_per_sec
            yield TcpPacket(ts_us, *fields)


@dataclass(frozen=True)
class ConnectionSpan:
    first_ts_us: int
    last_ts_us: int
    packets: int


def connection_spans(path, server_addr, server_port):
    """Maps each client port to the span of its connection with server_addr:server_port."""
    spans = {}
    for p in tcp_packets(path):
        if (p.dst, p.dport) == (server_addr, server_port):
            port = p.sport
        elif (p.src, p.sport) == (server_addr, server_port):
            port = p.dport
        else:
            continue
        span = spans.get(port)
        if span is None:
            spans[port] = ConnectionSpan(p.ts_us, p.ts_us, 1)
        else:
            spans[port] = ConnectionSpan(min(span.first_ts_us, p.ts_us), max(span.last_ts_us, p.ts_us),
                                         span.packets + 1)
    return spans
