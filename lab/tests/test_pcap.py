import pytest

from critpath_lab.pcap import PcapError, connection_spans, shift_timestamps, tcp_packets
from pcapfiles import arp_frame, tcp_frame, write_pcap

CLIENT, SERVER, PORT = "10.71.1.2", "10.71.2.2", 8080
T0 = 1_700_000_000_123_456


def sample_packets():
    return [
        (T0, tcp_frame(CLIENT, 40000, SERVER, PORT, flags=0x02)),
        (T0 + 60_000, tcp_frame(SERVER, PORT, CLIENT, 40000, flags=0x12)),
        (T0 + 60_100, arp_frame()),
        (T0 + 70_000, tcp_frame(SERVER, PORT, CLIENT, 40000, payload_len=1448, snaplen=128)),
        (T0 + 90_000, tcp_frame(CLIENT, 40002, SERVER, PORT, flags=0x02)),
        (T0 + 95_000, tcp_frame(CLIENT, 40002, "10.9.9.9", 443, flags=0x02)),  # another server
        (T0 + 150_000, tcp_frame(SERVER, PORT, CLIENT, 40000, flags=0x11)),
        (T0 + 200_000, tcp_frame(SERVER, PORT, CLIENT, 40002, flags=0x12)),
    ]


@pytest.mark.parametrize("nanos", [False, True])
@pytest.mark.parametrize("endian", ["<", ">"])
def test_shift_round_trip(tmp_path, nanos, endian):
    original, shifted, back = tmp_path / "a.pcap", tmp_path / "b.pcap", tmp_path / "c.pcap"
    write_pcap(original, sample_packets(), nanos=nanos, endian=endian)
    shift_timestamps(original, shifted, 1_500_000)
    shift_timestamps(shifted, back, -1_500_000)
    assert back.read_bytes() == original.read_bytes()
    before = [p.ts_us for p in tcp_packets(original)]
    after = [p.ts_us for p in tcp_packets(shifted)]
    assert after == [ts + 1_500_000 for ts in before]
    assert shifted.stat().st_size == original.stat().st_size


def test_shift_carries_into_seconds(tmp_path):
    src, dst = tmp_path / "a.pcap", tmp_path / "b.pcap"
    write_pcap(src, [(5_999_999, tcp_frame(CLIENT, 1, SERVER, PORT))])
    shift_timestamps(src, dst, 1)
    assert [p.ts_us for p in tcp_packets(dst)] == [6_000_000]


def test_shift_refuses_before_epoch(tmp_path):
    src = tmp_path / "a.pcap"
    write_pcap(src, [(1_000, tcp_frame(CLIENT, 1, SERVER, PORT))])
    with pytest.raises(PcapError):
        shift_timestamps(src, tmp_path / "b.pcap", -2_000)


def test_tcp_packets_reads_fields_despite_snaplen(tmp_path):
    path = tmp_path / "a.pcap"
    write_pcap(path, sample_packets())
    packets = list(tcp_packets(path))
    assert len(packets) == 7  # the ARP frame is skipped
    data = packets[2]
    assert (data.src, data.sport, data.dst, data.dport) == (SERVER, PORT, CLIENT, 40000)
    assert data.payload_len == 1448
    assert packets[0].flags == 0x02


def test_connection_spans_first_and_last_per_client_port(tmp_path):
    path = tmp_path / "client.pcap"
    write_pcap(path, sample_packets())
    spans = connection_spans(path, SERVER, PORT)
    assert set(spans) == {40000, 40002}
    first = spans[40000]
    assert (first.first_ts_us, first.last_ts_us, first.packets) == (T0, T0 + 150_000, 4)
    second = spans[40002]
    assert (second.first_ts_us, second.last_ts_us, second.packets) == (T0 + 90_000, T0 + 200_000, 2)


def test_rejects_pcapng_and_truncation(tmp_path):
    pcapng = tmp_path / "x.pcapng"
    pcapng.write_bytes(b"\x0a\x0d\x0d\x0a" + b"\x00" * 40)
    with pytest.raises(PcapError):
        list(tcp_packets(pcapng))
    truncated = tmp_path / "t.pcap"
    write_pcap(truncated, sample_packets()[:1])
    truncated.write_bytes(truncated.read_bytes()[:-5])
    with pytest.raises(PcapError):
        list(tcp_packets(truncated))
