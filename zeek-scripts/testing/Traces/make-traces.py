#!/usr/bin/env python3
"""Writes the package's small hand-made captures (Ethernet, IPv4, correct checksums), each a case
the lab's captures do not have. Run from this directory: python3 make-traces.py"""
import struct

CLIENT, SERVER = "10.71.1.2", "10.71.2.2"
MAC_C, MAC_S = bytes.fromhex("020000000102"), bytes.fromhex("020000000202")
SYN, FIN, RST, PSH, ACK = 0x02, 0x01, 0x04, 0x08, 0x10
# MSS 1460, NOP, window scale 7, SACK permitted, timestamps 1000/0, NOP NOP
SYN_OPTIONS = bytes([2, 4, 5, 180, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 3, 232, 0, 0, 0, 0, 1, 1])


def checksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def addr(text):
    return bytes(int(x) for x in text.split("."))


def ipv4(src, dst, proto, payload, ip_id, ttl=64):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ip_id, 0x4000, ttl, proto, 0,
                      addr(src), addr(dst))
    return hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:] + payload


def tcp(src, sport, dst, dport, seq, ack, flags, payload=b"", win=502, options=b"", ip_id=1):
    options += b"\1" * (-len(options) % 4)
    hl = 20 + len(options)
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, hl // 4 << 4, flags, win, 0, 0) + options + payload
    pseudo = addr(src) + addr(dst) + struct.pack("!BBH", 0, 6, len(seg))
    seg = seg[:16] + struct.pack("!H", checksum(pseudo + seg)) + seg[18:]
    return ipv4(src, dst, 6, seg, ip_id)


def icmp_echo(src, dst, kind, ident, seq):
    msg = struct.pack("!BBHHH", kind, 0, 0, ident, seq) + b"critpath"
    msg = msg[:2] + struct.pack("!H", checksum(msg)) + msg[4:]
    return ipv4(src, dst, 1, msg, 7)


def ether(ip):
    to_server = ip[16:20] == addr(SERVER)
    return (MAC_S + MAC_C if to_server else MAC_C + MAC_S) + b"\x08\x00" + ip


def write(name, packets):
    """packets: (microseconds since the epoch, IP packet[, bytes of the frame captured and on the wire])"""
    with open(name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for ts_us, ip, *cut in packets:
            frame = ether(ip)
            frame = frame[:cut[0]] if cut else frame
            f.write(struct.pack("<IIII", ts_us // 1000000, ts_us % 1000000, len(frame), len(frame)) + frame)


T0 = 1795317482000000  # the lab captures' day, 2026-11-24


def handshake(cport, isn_c, isn_s, t, sport=8080):
    return [
        (t, tcp(CLIENT, cport, SERVER, sport, isn_c, 0, SYN, win=64240, options=SYN_OPTIONS, ip_id=100)),
        (t + 50000, tcp(SERVER, sport, CLIENT, cport, isn_s, isn_c + 1, SYN | ACK, win=65160, options=SYN_OPTIONS, ip_id=0)),
    ]


# Packet stamps that go backwards (two NICs' queues merged, as on the teto pair): each event must
# carry its own packet's time, not the latest time seen.
c, s = 1000, 5000
write("backwards-ts.pcap", handshake(40001, c, s, T0) + [
    (T0 + 100000, tcp(CLIENT, 40001, SERVER, 8080, c + 1, s + 1, ACK, ip_id=101)),
    (T0 + 100400, tcp(CLIENT, 40001, SERVER, 8080, c + 1, s + 1, PSH | ACK, b"G" * 100, ip_id=102)),
    (T0 + 100150, tcp(SERVER, 8080, CLIENT, 40001, s + 1, c + 101, ACK, ip_id=1)),      # 250 us before the previous
    (T0 + 150000, tcp(SERVER, 8080, CLIENT, 40001, s + 1, c + 101, PSH | ACK, b"R" * 300, ip_id=2)),
    (T0 + 149736, tcp(CLIENT, 40001, SERVER, 8080, c + 101, s + 301, ACK, ip_id=103)),  # 264 us before the previous
    (T0 + 200000, tcp(CLIENT, 40001, SERVER, 8080, c + 101, s + 301, FIN | ACK, ip_id=104)),
    (T0 + 250000, tcp(SERVER, 8080, CLIENT, 40001, s + 301, c + 102, FIN | ACK, ip_id=3)),
    (T0 + 250100, tcp(CLIENT, 40001, SERVER, 8080, c + 102, s + 302, ACK, ip_id=105)),
])

# The capture starts at the server's SYN/ACK (the SYN came before the capture did), then a ping:
# the SYN/ACK's receiver is the originator from the first event on, and ICMP is not TCP. Port 5201
# (iperf3) is no port of a Zeek analyzer, so Zeek does not turn the roles round on the SYN/ACK.
c, s = 2000, 6000
write("synack-first.pcap", handshake(40002, c, s, T0, 5201)[1:] + [
    (T0 + 100000, tcp(CLIENT, 40002, SERVER, 5201, c + 1, s + 1, ACK, ip_id=101)),
    (T0 + 100100, tcp(CLIENT, 40002, SERVER, 5201, c + 1, s + 1, PSH | ACK, b"G" * 100, ip_id=102)),
    (T0 + 150000, tcp(SERVER, 5201, CLIENT, 40002, s + 1, c + 101, PSH | ACK, b"R" * 300, ip_id=1)),
    (T0 + 160000, icmp_echo(CLIENT, SERVER, 8, 77, 1)),
    (T0 + 210000, icmp_echo(SERVER, CLIENT, 0, 77, 1)),
    (T0 + 220000, tcp(CLIENT, 40002, SERVER, 5201, c + 101, s + 301, RST | ACK, ip_id=103)),
])

# Packets whose IP total length exceeds the bytes on the wire, which Zeek discards
# (truncated_IP_len): a SYN whose frame lost its last 12 bytes (slowfile-serverside.pcapng's SYN)
# and a 1460-byte segment recorded as its first 120 bytes of frame (long_rtt.dmp's data).
c, s = 3000, 7000
syn = tcp(CLIENT, 40003, SERVER, 8080, c, 0, SYN, win=64240, options=SYN_OPTIONS, ip_id=100)
data = tcp(SERVER, 8080, CLIENT, 40003, s + 1, c + 1, ACK, b"R" * 1460, ip_id=1)
write("truncated-ip-len.pcap", [
    (T0, syn, 14 + len(syn) - 12),
    (T0 + 50000, tcp(SERVER, 8080, CLIENT, 40003, s, c + 1, SYN | ACK, win=65160, options=SYN_OPTIONS, ip_id=0)),
    (T0 + 100000, tcp(CLIENT, 40003, SERVER, 8080, c + 1, s + 1, ACK, ip_id=101)),
    (T0 + 100100, tcp(CLIENT, 40003, SERVER, 8080, c + 1, s + 1, PSH | ACK, b"G" * 100, ip_id=102)),
    (T0 + 150000, data, 120),
    (T0 + 150100, tcp(SERVER, 8080, CLIENT, 40003, s + 1461, c + 101, PSH | ACK, b"R" * 40, ip_id=2)),
    (T0 + 200000, tcp(CLIENT, 40003, SERVER, 8080, c + 101, s + 1501, FIN | ACK, ip_id=103)),
])
