"""HTTP wire format shared by the lab endpoints and the lab itself.

The lab needs exact byte counts (e.g. to drop the segment holding the last
response byte), so heads are built here and nowhere else, without Date or other
varying headers.
"""

import json
import socket
import struct
import threading
import time
import urllib.parse

SERVER_PORT = 8080


def now_us():
    """CLOCK_REALTIME in microseconds: the clock tcpdump stamps packets with."""
    return time.time_ns() // 1000


def sleep_measured_us(ms):
    """Sleeps ms milliseconds and returns how long the sleep really took, in microseconds."""
    start = time.perf_counter_ns()
    time.sleep(ms / 1000)
    return (time.perf_counter_ns() - start) // 1000


def object_path(size, think_ms=0, stalls=(), write_size=None):
    """Request target asking the server for size body bytes.

    stalls: (after_bytes, stall_ms) pairs; after_bytes counts response bytes
    on the wire, head included.
    """
    query = {"size": size}
    if think_ms:
        query["think_ms"] = think_ms
    if stalls:
        query["stall_after"] = ",".join(str(after) for after, _ in stalls)
        query["stall_ms"] = ",".join(str(ms) for _, ms in stalls)
    if write_size:
        query["write_size"] = write_size
    return "/obj?" + urllib.parse.urlencode(query, safe=",")


def parse_object_query(query):
    """Inverse of object_path's query: returns size, think_ms, stalls, write_size."""
    fields = urllib.parse.parse_qs(query)

    def numbers(name):
        return [float(v) for item in fields.get(name, []) for v in item.split(",") if v]

    size = int(numbers("size")[0]) if "size" in fields else 0
    think_ms = numbers("think_ms")[0] if "think_ms" in fields else 0.0
    after, stall_ms = numbers("stall_after"), numbers("stall_ms")
    if len(after) != len(stall_ms):
        raise ValueError("stall_after and stall_ms need the same number of values")
    write_size = int(numbers("write_size")[0]) if "write_size" in fields else None
    if size < 0 or think_ms < 0 or (write_size is not None and write_size < 1) or any(v < 0 for v in after + stall_ms):
        raise ValueError("negative size, time or write size")
    stalls = sorted((int(a), ms) for a, ms in zip(after, stall_ms))
    return size, think_ms, stalls, write_size


def request_bytes(target, http_version, host):
    return f"GET {target} HTTP/{http_version}\r\nHost: {host}\r\n\r\n".encode("ascii")


def response_head(http_version, body_size, close):
    lines = [f"HTTP/{http_version} 200 OK", "Content-Type: application/octet-stream",
             f"Content-Length: {body_size}"]
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


def response_size(http_version, body_size, close):
    """Bytes of a whole response on the wire."""
    return len(response_head(http_version, body_size, close)) + body_size


def parse_head(head):
    """Splits a request or response head into its first line and lower-cased headers."""
    first, *rest = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in rest:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return first, headers


# Python's socket module does not export it; 35 in Linux's asm-generic/socket.h (struct timespec)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class HeadReader:
    """Reads HTTP heads and bodies from a socket, recv_size bytes per recv.

    on_recv(n) runs after every recv that returned n > 0 bytes (the client uses
    it to read slowly and to stamp the first byte).
    """

    def __init__(self, sock, recv_size=65536, on_recv=None, kernel_timestamps=False):
        self.sock = sock
        self.recv_size = recv_size
        self.on_recv = on_recv
        self.buffer = b""
        # with kernel_timestamps (SO_TIMESTAMPNS set on the socket), arrival_ts_us is when the newest
        # bytes read reached the host (the skb timestamp tcpdump also records), not when this
        # program got round to them
        self.kernel_timestamps = kernel_timestamps
        self.arrival_ts_us = None

    def _recv(self):
        if not self.kernel_timestamps:
            return self.sock.recv(self.recv_size)
        data, ancillary, _, _ = self.sock.recvmsg(self.recv_size, socket.CMSG_SPACE(16))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", payload[:16])
                self.arrival_ts_us = sec * 1_000_000 + nsec // 1000
        return data

    def _fill(self):
        data = self._recv()
        if data:
            self.buffer += data
            if self.on_recv:
                self.on_recv(len(data))
        return bool(data)

    def read_head(self):
        """Returns the next head (without the blank line), or None at a clean EOF."""
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                if self.buffer:
                    raise ConnectionError("connection closed inside a head")
                return None
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head

    def read_body(self, size):
        """Consumes size body bytes without keeping them."""
        while len(self.buffer) < size:
            size -= len(self.buffer)
            self.buffer = b""
            if not self._fill():
                raise ConnectionError(f"connection closed with {size} body bytes missing")
        self.buffer = self.buffer[size:]

    def read_to_eof(self):
        """Returns how many bytes arrived before the peer closed."""
        extra = len(self.buffer)
        self.buffer = b""
        while self._fill():
            extra += len(self.buffer)
            self.buffer = b""
        return extra


class JsonLines:
    """Appends one JSON object per line and flushes, so a killed process keeps its log."""

    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8") if path != "-" else None
        self.lock = threading.Lock()  # the server logs from one thread per connection

    def write(self, record):
        line = json.dumps(record, separators=(",", ":"))
        with self.lock:
            self._write(line)

    def _write(self, line):
        if self.file:
            self.file.write(line + "\n")
            self.file.flush()
        else:
            print(line, flush=True)
