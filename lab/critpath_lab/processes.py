"""Long-running helpers of a scenario run: captures, the delay line, the HTTP server."""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import threading

from .system import LAB_DIR, LabError, in_ns, progress, run

DELAYLINE_SOURCE = os.path.join(LAB_DIR, "delayline")
DELAYLINE_BINARY = os.path.join(LAB_DIR, "build", "delayline")
ENDPOINTS = os.path.join(LAB_DIR, "endpoints")
SNAPLEN = 128  # headers only: keeps fixtures small


class Background:
    """A process in a namespace that announces on stderr when it is ready.

    All its stderr lines go to stderr_path; start() returns once a line holds
    ready_marker, and fails if the process exits or stays silent first.
    """

    def __init__(self, name, argv, ready_marker, stderr_path, timeout=15):
        self.name = name
        self.stderr_path = stderr_path
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.ready = threading.Event()
        self.copier = threading.Thread(target=self._copy_stderr, args=(ready_marker,), daemon=True)
        self.copier.start()
        if not self.ready.wait(timeout) or self.proc.poll() is not None:
            self.stop(signal.SIGKILL)
            raise LabError(f"{name} did not start: {self.stderr_text().strip() or 'no output'}")

    def _copy_stderr(self, marker):
        with open(self.stderr_path, "a", encoding="utf-8") as out:
            for line in self.proc.stderr:
                out.write(line)
                out.flush()
                if marker in line:
                    self.ready.set()
        self.ready.set()  # exited: wake start() so it can report the failure

    def stderr_text(self):
        with open(self.stderr_path, encoding="utf-8") as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM, timeout=10):
        """Signals the process, waits for it, and returns its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.copier.join(5)
        return self.proc.returncode


def start_capture(ns, dev, pcap_path, stderr_path):
    # --immediate-mode: without it packets wait in the capture ring and a short
    # connection can end (SIGINT) before any reach the file. -U: write each at
    # once. -B: a 64 MB ring so bulk transfers lose nothing. The file is pcap
    # (not pcapng) with microsecond stamps.
    argv = in_ns(ns, ["tcpdump", "-i", dev, "-n", "-s", str(SNAPLEN), "--immediate-mode", "-U",
                      "-B", "65536", "-w", pcap_path, "tcp"])
    return Background(f"tcpdump in {ns}", argv, "listening on", stderr_path)


def stop_capture(capture):
    """Stops tcpdump with SIGINT (so it flushes) and returns the packets the kernel dropped."""
    capture.stop(signal.SIGINT)
    match = re.search(r"(\d+) packets? dropped by kernel", capture.stderr_text())
    if match is None:
        raise LabError(f"{capture.name} ended without its statistics: {capture.stderr_text().strip()}")
    return int(match.group(1))


def delayline_is_stale():
    if not os.path.exists(DELAYLINE_BINARY):
        return True
    sources = glob.glob(os.path.join(DELAYLINE_SOURCE, "*.go")) + [os.path.join(DELAYLINE_SOURCE, "go.mod")]
    return max(map(os.path.getmtime, sources)) > os.path.getmtime(DELAYLINE_BINARY)


def build_delayline():
    """Builds the delay line into lab/build/ when it is missing or older than its source."""
    if not delayline_is_stale():
        return
    progress("building the delay line (go build)")
    os.makedirs(os.path.dirname(DELAYLINE_BINARY), exist_ok=True)
    # GOTOOLCHAIN=local: never try to download another Go; the module is stdlib only.
    run(["go", "build", "-o", DELAYLINE_BINARY, "."], cwd=DELAYLINE_SOURCE, timeout=300,
        env={**os.environ, "GOTOOLCHAIN": "local"})


def start_delayline(ns, config, config_path, log_path, stderr_path):
    with open(config_path, "w", encoding="utf-8") as f:
        json.dump(config, f)
    # Real-time priority: a link emulator should not queue behind the endpoints
    # and tcpdump for CPU (netem would run in softirq context).
    argv = in_ns(ns, ["chrt", "--fifo", "20", DELAYLINE_BINARY, "-config", config_path, "-log", log_path])
    return Background("delay line", argv, "delayline: ready", stderr_path)


def start_server(ns, cc, log_path, stderr_path):
    # Real-time priority (below the delay line's): on a loaded machine a server queued behind
    # other processes for CPU would add milliseconds of its own time between its logged stamps
    # and its socket calls; the send windows in its log bound what is left.
    argv = in_ns(ns, ["chrt", "--fifo", "10", sys.executable, os.path.join(ENDPOINTS, "server.py"), "--cc", cc,
                      "--log", log_path])
    return Background("HTTP server", argv, "server: listening", stderr_path)


def run_client(ns, argv, stderr_path, timeout):
    """Runs the client to completion; its JSON line goes where argv's --log says."""
    command = in_ns(ns, [sys.executable, os.path.join(ENDPOINTS, "client.py"), *argv])
    with open(stderr_path, "a", encoding="utf-8") as err:
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LabError(f"client did not finish within {timeout} s") from None
    if done.returncode != 0:
        with open(stderr_path, encoding="utf-8") as f:
            last_line = (f.read().strip().splitlines() or ["no output"])[-1]
        raise LabError(f"client failed (exit {done.returncode}): {last_line}")
