#!/usr/bin/env python3
"""HTTP/1.0 and HTTP/1.1 keep-alive server of the critpath trace lab.

Every request's query string says how to answer, e.g.
  GET /obj?size=20000&think_ms=100&stall_after=100000&stall_ms=200&write_size=16384
size: body bytes; think_ms: pause between the complete request head and the
first response byte; stall_after/stall_ms: comma-separated lists of pauses after
that many response bytes (head included), each starting once those bytes are acknowledged;
write_size: bytes per send call (default: each part between stalls in one call).

Logs one JSON line per request with CLOCK_REALTIME microsecond timestamps, the
same clock tcpdump stamps packets with.
"""

import argparse
import fcntl
import socket
import struct
import sys
import termios
import threading
import time
import urllib.parse

from httpwire import (SO_TIMESTAMPNS, HeadReader, JsonLines, SERVER_PORT, now_us, parse_head, parse_object_query, response_head,
                      sleep_measured_us)

# Python's socket module does not export it; 32 in Linux's asm-generic/socket.h
SO_SNDBUFFORCE = getattr(socket, "SO_SNDBUFFORCE", 32)


def send_response(conn, head, body_size, write_size, stalls, fin):
    """Sends head and body_size zero bytes, pausing at the stall points, then the FIN if fin.

    Without write_size each part (up to a stall point or the end) goes to the kernel in one call,
    into a send buffer that holds it all: from its first byte on the kernel alone paces the part,
    so a server thread descheduled on a loaded machine can neither starve the connection nor hold
    the socket lock while ACKs wait. write_size (a benchmark's bulk writes) sends that many bytes
    per call instead. The FIN follows the last call at once: it ends the exchange for the client.

    Returns (first_byte_ts_us, executed stalls, send windows). A part's window runs from the
    stamp before its first call (after a stall: the stall's end) to the return of its last call
    (or of the FIN's shutdown): the part's first segments and the FIN leave within it, so outside
    the think time and the stalls this is all the server's own time the client can wait for.
    """
    total = len(head) + body_size
    # Stall points at or past the end would never be reached.
    boundaries = [(after, ms) for after, ms in stalls if after < total] + [(total, None)]
    stops = [stop for stop, _ in boundaries]
    call_size = write_size or max(stop - start for start, stop in zip([0] + stops, stops))
    if not write_size:
        hold_in_send_buffer(conn, call_size)
    zeros = memoryview(bytes(call_size))  # reused: one call's worth, built once

    def chunk(start, end):
        if start >= len(head):
            return zeros[:end - start]
        return head[start:end] + bytes(max(0, end - len(head)))

    executed = []
    windows = []
    window_start = None
    sent = 0
    for stop, stall_ms in boundaries:
        while sent < stop:
            data = chunk(sent, min(sent + call_size, stop))
            window_start = window_start or now_us()
            conn.sendall(data)
            sent += len(data)
        if stall_ms is None:
            break
        if window_start is not None:  # None: a stall before the first byte
            windows.append({"start_ts_us": window_start, "end_ts_us": now_us()})
        drain_start = now_us()
        wait_until_acknowledged(conn)
        stall_start = now_us()
        stall_us = sleep_measured_us(stall_ms)
        executed.append({"after_bytes": stop, "stall_us_configured": round(stall_ms * 1000),
                         "stall_us_executed": stall_us, "drain_wait_us": stall_start - drain_start,
                         "stall_start_ts_us": stall_start, "stall_end_ts_us": stall_start + stall_us})
        window_start = stall_start + stall_us
    if fin:
        conn.shutdown(socket.SHUT_WR)
    windows.append({"start_ts_us": window_start, "end_ts_us": now_us()})
    return windows[0]["start_ts_us"], executed, windows


def hold_in_send_buffer(conn, size):
    """Grows the socket's send buffer so one send call of size bytes never waits for ACKs.

    The kernel doubles the value and charges each queued segment's overhead against it (about
    1.6 times the payload for MSS-sized segments without offload), so twice the size is ample.
    SO_SNDBUFFORCE (the lab runs as root) is not capped by net.core.wmem_max.
    """
    wanted = 2 * size
    if conn.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) >= 2 * wanted:
        return
    try:
        conn.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, wanted)
    except PermissionError:  # not root (the endpoints' own tests): as much as wmem_max allows
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, wanted)


def wait_until_acknowledged(conn, timeout_s=10.0):
    """Blocks until the peer has acknowledged everything sent (SIOCOUTQ == 0).

    A stall that starts while earlier data still drains overlaps with network time, and only
    its remainder lies on the critical path; starting it on an idle connection makes the
    injected delay and its cost on the path the same.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        unacked = struct.unpack("i", fcntl.ioctl(conn.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
        if unacked == 0:
            return
        time.sleep(0.0002)


def serve_connection(conn, peer, log):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    effective_cc = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    reader = HeadReader(conn, kernel_timestamps=True)
    with conn:
        while True:
            request = reader.read_head()
            if request is None:
                break
            request_complete_ts_us = now_us()
            request_arrival_ts_us = reader.arrival_ts_us
            request_line, headers = parse_head(request)
            method, target, version = request_line.split(" ")
            http_version = version.removeprefix("HTTP/")
            connection = headers.get("connection", "").lower()
            keep_alive = connection == "keep-alive" if http_version == "1.0" else connection != "close"
            size, think_ms, stalls, write_size = parse_object_query(urllib.parse.urlsplit(target).query)
            head = response_head(http_version, size, close=not keep_alive)
            request_bytes = len(request) + 4  # the head and its blank line
            think_us_executed = sleep_measured_us(think_ms) if think_ms else 0
            first_byte_ts_us, executed_stalls, send_windows = send_response(conn, head, size, write_size, stalls,
                                                                            fin=not keep_alive)
            log.write({
                "event": "request", "client_addr": peer[0], "client_port": peer[1], "cc": effective_cc,
                "method": method, "target": target, "http": http_version, "keep_alive": keep_alive,
                "request_bytes": request_bytes, "response_bytes": len(head) + size,
                "think_us_configured": round(think_ms * 1000), "think_us_executed": think_us_executed,
                "request_complete_ts_us": request_complete_ts_us, "request_arrival_ts_us": request_arrival_ts_us,
                "first_byte_ts_us": first_byte_ts_us,
                "stalls": executed_stalls, "send_windows": send_windows,
                "response_complete_ts_us": send_windows[-1]["end_ts_us"],
            })
            if not keep_alive:
                break


def handle(conn, peer, log):
    try:
        serve_connection(conn, peer, log)
    except (OSError, ValueError) as error:
        print(f"server: connection from {peer[0]}:{peer[1]}: {error}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    parser.add_argument("--port", type=int, default=SERVER_PORT, help="port, 0 for any free one (default: %(default)s)")
    parser.add_argument("--cc", help="congestion control set per socket with TCP_CONGESTION, e.g. cubic "
                                     "(default: the namespace's net.ipv4.tcp_congestion_control)")
    parser.add_argument("--log", default="-", help="JSON lines file to append to (default: stdout)")
    args = parser.parse_args()

    log = JsonLines(args.log)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Kernel receive timestamps: accepted sockets inherit the flag, and turning it on now makes
    # the kernel stamp packets that arrive before a connection's thread gets to them.
    listener.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    if args.cc:
        # Accepted sockets inherit the listener's congestion control.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    listener.bind((args.host, args.port))
    listener.listen(16)
    host, port = listener.getsockname()
    print(f"server: listening on {host}:{port}", file=sys.stderr, flush=True)
    while True:
        conn, peer = listener.accept()
        threading.Thread(target=handle, args=(conn, peer, log), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
