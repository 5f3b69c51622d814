#!/usr/bin/env python3
"""HTTP client of the critpath trace lab: one connection, one or more requests.

HTTP/1.0 sends one request and reads until the server closes; HTTP/1.1 sends
the requests one after another on the same (keep-alive) connection and closes
it after the last response. Responses are read as fast as possible, or slowly
(--read-size/--read-sleep-ms) to let the receive window close. A small
--rcvbuf (set before connect) keeps that window small.

Logs one JSON line for the connection with CLOCK_REALTIME microsecond
timestamps, the same clock tcpdump stamps packets with.
"""

import argparse
import socket
import sys
import time

from httpwire import HeadReader, JsonLines, SERVER_PORT, now_us, parse_head, request_bytes, sleep_measured_us



def new_exchange(target, pause_ms):
    """The log record of one request/response, filled in as it happens."""
    return {"target": target, "pause_us_configured": round(pause_ms * 1000), "pause_us_executed": 0,
            "request_bytes": 0, "request_sent_ts_us": None, "first_byte_ts_us": None,
            "response_complete_ts_us": None, "response_bytes": 0}


def run(args, log):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if args.rcvbuf:
        # Before connect, so the window scale in the SYN already reflects it.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    exchanges = [new_exchange(target, pause) for target, pause in zip(args.targets, args.pauses)]
    record = {"event": "connection", "server": args.server, "server_port": args.port, "http": args.http,
              "rcvbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF), "local_port": None,
              "connect_start_ts_us": now_us(), "connected_ts_us": None, "requests": exchanges}
    current = exchanges[0]

    def on_recv(_size):
        if current["first_byte_ts_us"] is None:
            current["first_byte_ts_us"] = now_us()
        if args.read_sleep_ms:
            time.sleep(args.read_sleep_ms / 1000)

    reader = HeadReader(sock, args.read_size, on_recv)
    try:
        sock.connect((args.server, args.port))
        record["connected_ts_us"] = now_us()
        record["local_port"] = sock.getsockname()[1]
        for current in exchanges:
            if current["pause_us_configured"]:
                current["pause_us_executed"] = sleep_measured_us(current["pause_us_configured"] / 1000)
            request = request_bytes(current["target"], args.http, args.server)
            current["request_bytes"] = len(request)
            current["request_sent_ts_us"] = now_us()
            sock.sendall(request)
            head = reader.read_head()
            if head is None:
                raise ConnectionError("server closed before responding")
            _, headers = parse_head(head)
            body_size = int(headers["content-length"])
            reader.read_body(body_size)
            current["response_complete_ts_us"] = now_us()
            current["response_bytes"] = len(head) + 4 + body_size
            # An HTTP/1.0 server closes after the response: wait for that.
            extra = reader.read_to_eof() if args.http == "1.0" else len(reader.buffer)
            if extra:
                raise ConnectionError(f"{extra} bytes after the response")
    finally:
        record["close_ts_us"] = now_us()
        sock.close()
        log.write(record)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="+", metavar="TARGET",
                        help="request target, e.g. '/obj?size=20000&think_ms=100' (several need --http 1.1)")
    parser.add_argument("--server", required=True, help="server address")
    parser.add_argument("--port", type=int, default=SERVER_PORT, help="server port (default: %(default)s)")
    parser.add_argument("--http", choices=("1.0", "1.1"), default="1.0", help="HTTP version (default: 1.0)")
    parser.add_argument("--pause-ms", default="0",
                        help="pause before each request: one value for all, or a comma-separated list, "
                             "one per request (default: 0)")
    parser.add_argument("--rcvbuf", type=int, help="SO_RCVBUF in bytes, set before connect")
    parser.add_argument("--read-size", type=int, default=65536, help="bytes per recv (default: %(default)s)")
    parser.add_argument("--read-sleep-ms", type=float, default=0, help="sleep after each recv (slow reader)")
    parser.add_argument("--log", default="-", help="JSON lines file to append to (default: stdout)")
    args = parser.parse_args()
    pauses = [float(p) for p in args.pause_ms.split(",")]
    args.pauses = pauses * len(args.targets) if len(pauses) == 1 else pauses
    if len(args.pauses) != len(args.targets):
        parser.error("--pause-ms needs one value or one per request")
    if args.http == "1.0" and len(args.targets) > 1:
        parser.error("HTTP/1.0 carries one request per connection: use --http 1.1")
    try:
        run(args, JsonLines(args.log))
    except (OSError, ValueError, KeyError) as error:
        print(f"client: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
