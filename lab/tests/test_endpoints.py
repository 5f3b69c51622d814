"""The HTTP endpoints over loopback (no root, no namespaces)."""

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from endpoints.httpwire import HeadReader, object_path, parse_object_query, request_bytes, response_size

ENDPOINTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "endpoints")


def test_object_query_round_trip():
    path = object_path(20000, think_ms=100, stalls=((100000, 200), (300000, 50)), write_size=4096)
    assert path.startswith("/obj?")
    assert parse_object_query(path.split("?", 1)[1]) == (20000, 100.0, [(100000, 200.0), (300000, 50.0)], 4096)
    assert parse_object_query("size=5") == (5, 0.0, [], None)
    with pytest.raises(ValueError):
        parse_object_query("size=5&stall_after=1,2&stall_ms=3")


def test_head_reader_splits_heads_and_bodies():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\n\r\n")
        a.shutdown(socket.SHUT_WR)
        reader = HeadReader(b, recv_size=7)
        assert reader.read_head() == b"HTTP/1.1 200 OK\r\nContent-Length: 3"
        reader.read_body(3)
        assert reader.read_head() == b"HTTP/1.1 200 OK"
        assert reader.read_head() is None


@pytest.fixture
def server(tmp_path):
    log = tmp_path / "server.jsonl"
    proc = subprocess.Popen([sys.executable, os.path.join(ENDPOINTS, "server.py"), "--host", "127.0.0.1",
                             "--port", "0", "--log", str(log)], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert "listening on" in line, line
    yield int(line.rsplit(":", 1)[1]), log
    proc.terminate()
    proc.wait(10)


def run_client(port, tmp_path, *args):
    log = tmp_path / "client.jsonl"
    subprocess.run([sys.executable, os.path.join(ENDPOINTS, "client.py"), "--server", "127.0.0.1",
                    "--port", str(port), "--log", str(log), *args], check=True, timeout=30)
    return json.loads(log.read_text().splitlines()[-1])


def test_http10_download_with_think_time_and_stall(server, tmp_path):
    port, server_log = server
    client = run_client(port, tmp_path, object_path(30000, think_ms=50, stalls=((10000, 40),), write_size=4096))
    request, = [json.loads(line) for line in server_log.read_text().splitlines()]
    assert request["client_port"] == client["local_port"]
    assert request["response_bytes"] == response_size("1.0", 30000, close=True)
    assert client["requests"][0]["response_bytes"] == request["response_bytes"]
    assert request["think_us_configured"] == 50000 and request["think_us_executed"] >= 50000
    stall, = request["stalls"]
    assert stall["after_bytes"] == 10000 and stall["stall_us_executed"] >= 40000
    assert request["request_complete_ts_us"] + 50000 <= request["first_byte_ts_us"]
    # the kernel saw the request's last bytes arrive before the program read them
    assert 0 <= request["request_complete_ts_us"] - request["request_arrival_ts_us"] < 1_000_000
    assert request["first_byte_ts_us"] + 40000 <= request["response_complete_ts_us"]
    # the server's own time around its sends: before the stall, and from its end to the FIN
    before, after = request["send_windows"]
    assert before["start_ts_us"] == request["first_byte_ts_us"] <= before["end_ts_us"] <= stall["stall_start_ts_us"]
    assert after["start_ts_us"] == stall["stall_end_ts_us"] <= after["end_ts_us"] == request["response_complete_ts_us"]
    exchange = client["requests"][0]
    assert client["connect_start_ts_us"] <= client["connected_ts_us"] <= exchange["request_sent_ts_us"]
    assert exchange["request_sent_ts_us"] < exchange["first_byte_ts_us"] <= exchange["response_complete_ts_us"]
    assert exchange["response_complete_ts_us"] <= client["close_ts_us"]


def test_keep_alive_with_pauses_and_slow_reading(server, tmp_path):
    port, server_log = server
    client = run_client(port, tmp_path, "--http", "1.1", "--pause-ms", "0,30", "--rcvbuf", "8192",
                        "--read-size", "2048", "--read-sleep-ms", "1",
                        object_path(10000, think_ms=20), object_path(5000))
    requests = [json.loads(line) for line in server_log.read_text().splitlines()]
    assert [r["client_port"] for r in requests] == [client["local_port"]] * 2
    assert all(r["keep_alive"] and r["http"] == "1.1" for r in requests)
    first, second = client["requests"]
    assert second["pause_us_configured"] == 30000 and second["pause_us_executed"] >= 30000
    assert second["request_sent_ts_us"] >= first["response_complete_ts_us"] + 30000
    assert [r["response_bytes"] for r in client["requests"]] == [r["response_bytes"] for r in requests]


@pytest.mark.skipif(os.geteuid() != 0, reason="a send buffer beyond net.core.wmem_max needs root, as in the lab")
def test_whole_response_reaches_the_kernel_before_the_client_reads(server):
    # more than the largest autotuned send buffer (tcp_wmem's 4 MB) plus the client's receive window: a
    # server writing piecemeal would wait for the client here, as it would wait for a scheduler on a loaded machine
    port, server_log = server
    size = 6_000_000
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(request_bytes(object_path(size), "1.0", "127.0.0.1"))
        deadline = time.monotonic() + 30
        while not server_log.exists() or not server_log.read_text():
            assert time.monotonic() < deadline, "the server still waits for the client to read"
            time.sleep(0.01)
        request = json.loads(server_log.read_text())
        assert request["response_bytes"] == response_size("1.0", size, close=True)


def test_client_reports_refused_connection(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run([sys.executable, os.path.join(ENDPOINTS, "client.py"), "--server", "127.0.0.1",
                           "--port", str(port), "--log", str(tmp_path / "c.jsonl"), "/obj?size=1"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "client:" in done.stderr
