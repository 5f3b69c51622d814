"""Runs scenarios: testbed up, server and captures on, connections one by one, truth out."""

import datetime
import json
import os
import platform
import shutil
import signal
import time

from endpoints.httpwire import SERVER_PORT

from . import kernel, processes
from .droprules import resolve_rules
from .pcap import connection_spans, shift_timestamps
from .scenarios import SERVER_ADDR, connection_delay_us, connection_rules
from .system import LabError, in_ns, progress, run
from .topology import CLIENT_IF, SERVER_IF, Topology
from .truth import ConnectionRun, failed_expectations, read_jsonl, scenario_truth

SETTLE_TIMEOUT_S = 60
# Sockets in these states send nothing more; any other belongs to a connection still closing.
SETTLED_STATES = {"LISTEN", "TIME-WAIT"}


def settle(topology, delay_us):
    """Waits until the connection is fully closed at both ends, then one more round trip
    for stray packets (e.g. a retransmitted FIN) to finish crossing the delay line."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while True:
        states = [line.split()[0] for ns in (topology.client, topology.server)
                  for line in run(in_ns(ns, ["ss", "-H", "-t", "-a", "-n"])).splitlines() if line.strip()]
        if all(state in SETTLED_STATES for state in states):
            break
        if time.monotonic() > deadline:
            raise LabError(f"connection still open after {SETTLE_TIMEOUT_S} s: {states}")
        time.sleep(0.02)
    time.sleep((delay_us["c2s"] + delay_us["s2c"]) / 1e6 + 0.02)


def client_argv(plan, log_path):
    argv = ["--server", SERVER_ADDR, "--port", str(SERVER_PORT), "--http", plan.http, "--log", log_path,
            "--pause-ms", ",".join(str(e.pause_ms) for e in plan.exchanges)]
    if plan.rcvbuf:
        argv += ["--rcvbuf", str(plan.rcvbuf)]
    if plan.read_size:
        argv += ["--read-size", str(plan.read_size)]
    if plan.read_sleep_ms:
        argv += ["--read-sleep-ms", str(plan.read_sleep_ms)]
    return argv + [e.target() for e in plan.exchanges]


def describe(plan, delay_us, rules):
    sizes = "+".join(f"{e.size / 1000:g} KB" for e in plan.exchanges)
    delay = "/".join(f"{delay_us[d] / 1000:g}" for d in ("c2s", "s2c"))
    drops = ", drops " + "; ".join(f"{r['dir']} {r['kind']} {r.get('offset', r.get('nth', ''))}"
                                   for r in rules) if rules else ""
    return f"{sizes}, delay {delay} ms{drops}"


class ScenarioRun:
    def __init__(self, scenario, out_dir):
        self.scenario = scenario
        self.out_dir = out_dir
        self.logs = os.path.join(out_dir, "logs")
        self.topology = Topology()

    def log(self, name):
        return os.path.join(self.logs, name)

    def say(self, message):
        progress(f"[{self.scenario.name}] {message}")

    def run(self):
        """Runs the scenario and returns its truth (also written to truth.json)."""
        s = self.scenario
        os.makedirs(self.logs)
        raw_server_pcap = self.log("server-unshifted.pcap") if s.server_clock_offset_us else \
            os.path.join(self.out_dir, "server.pcap")
        client_pcap = os.path.join(self.out_dir, "client.pcap")
        self.say("testbed up")
        self.topology.up(s)
        background = []
        try:
            server = processes.start_server(self.topology.server, s.cc, self.log("server.jsonl"),
                                            self.log("server.stderr"))
            background.append(server)
            captures = [processes.start_capture(self.topology.client, CLIENT_IF, client_pcap,
                                                self.log("tcpdump-client.stderr")),
                        processes.start_capture(self.topology.server, SERVER_IF, raw_server_pcap,
                                                self.log("tcpdump-server.stderr"))]
            background += captures
            runs = [self.run_connection(index, plan) for index, plan in enumerate(s.connections)]
            for capture in captures:
                if lost := processes.stop_capture(capture):
                    raise LabError(f"{capture.name} lost {lost} packets (kernel drops)")
            server.stop()
        finally:
            for process in background:
                process.stop(signal.SIGKILL)
            self.topology.down()
        if s.server_clock_offset_us:
            shift_timestamps(raw_server_pcap, os.path.join(self.out_dir, "server.pcap"), s.server_clock_offset_us)
        truth = scenario_truth(
            s, runs, read_jsonl(self.log("server.jsonl")),
            connection_spans(client_pcap, SERVER_ADDR, SERVER_PORT),
            connection_spans(raw_server_pcap, SERVER_ADDR, SERVER_PORT),
            datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), platform.release())
        with open(os.path.join(self.out_dir, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2)
            f.write("\n")
        return truth

    def run_connection(self, index, plan):
        s = self.scenario
        delay_us = connection_delay_us(s, plan)
        rules = resolve_rules(connection_rules(s, plan) or (), plan.stream_bytes())
        self.say(f"connection {index + 1}/{len(s.connections)}: {describe(plan, delay_us, rules)}")
        started = time.monotonic()
        delayline_log = self.log("delayline.jsonl")
        log_start = os.path.getsize(delayline_log) if os.path.exists(delayline_log) else 0
        delayline = processes.start_delayline(self.topology.router, s.delayline_config(delay_us, rules),
                                              self.log(f"delayline-{index + 1}.json"), delayline_log, self.log("delayline.stderr"))
        try:
            before = self.counters()
            processes.run_client(self.topology.client, client_argv(plan, self.log("client.jsonl")),
                                 self.log("client.stderr"), s.client_timeout_s)
            settle(self.topology, delay_us)
            after = self.counters()
        finally:
            delayline.stop()
        with open(self.log("nstat.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"connection": index + 1, "before": before, "after": after}) + "\n")
        with open(delayline_log, encoding="utf-8") as f:
            f.seek(log_start)
            events = [json.loads(line) for line in f if line.strip()]
        client = read_jsonl(self.log("client.jsonl"))[-1]
        kernel_truth = {"server": kernel.delta(before["server"], after["server"]),
                        "client": kernel.delta(before["client"], after["client"])}
        drops = sum("summary" not in e for e in events)
        self.say(f"connection {index + 1} done in {time.monotonic() - started:.2f} s: port {client['local_port']}, "
                 f"{drops} drop(s), server retransmits {kernel_truth['server']['TcpRetransSegs']}")
        return ConnectionRun(plan, delay_us, client, events, kernel_truth)

    def counters(self):
        return {"server": kernel.snapshot(self.topology.server), "client": kernel.snapshot(self.topology.client)}


def run_scenarios(scenarios, out_root, keep_logs):
    """Runs scenarios one after another into out_root/<name>/; returns {name: failures}."""
    processes.build_delayline()
    results = {}
    for scenario in scenarios:
        out_dir = os.path.join(out_root, scenario.name)
        if os.path.exists(out_dir):
            shutil.rmtree(out_dir)
        started = time.monotonic()
        truth = ScenarioRun(scenario, out_dir).run()
        if not keep_logs:
            shutil.rmtree(os.path.join(out_dir, "logs"))
        failures = failed_expectations(scenario, truth)
        verdict = "as expected" if not failures else "NOT as expected: " + "; ".join(failures)
        progress(f"[{scenario.name}] done in {time.monotonic() - started:.1f} s, {verdict}")
        results[scenario.name] = failures
    return results
