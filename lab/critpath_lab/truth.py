"""Assembles truth.json from the endpoint logs, the delay line log, nstat and the captures."""

import json
from dataclasses import dataclass

from endpoints.httpwire import SERVER_PORT

from .droprules import resolve_rules
from .scenarios import CLIENT_ADDR, SERVER_ADDR
from .system import LabError

DROP_KEYS = ("ts_us", "dir", "seq_rel", "len", "flags", "rule", "kind")


@dataclass
class ConnectionRun:
    """What the runner collected about one connection."""
    plan: object            # scenarios.ConnectionPlan
    delay_us: dict
    client: dict            # the client's JSON line
    delayline_events: list  # the delay line's JSON lines of this connection
    kernel: dict            # {"server": deltas, "client": deltas}


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def exchange_truth(client_request, server_request):
    s, c = server_request, client_request
    return {
        "request_bytes": c["request_bytes"], "response_bytes": s["response_bytes"],
        "think_us_configured": s["think_us_configured"], "think_us_executed": s["think_us_executed"],
        "request_complete_ts_us": s["request_complete_ts_us"], "request_arrival_ts_us": s["request_arrival_ts_us"],
        "first_byte_ts_us": s["first_byte_ts_us"],
        "response_complete_ts_us": s["response_complete_ts_us"],
        "stalls": s["stalls"], "send_windows": s["send_windows"],
        "client_pause_us_configured": c["pause_us_configured"], "client_pause_us_executed": c["pause_us_executed"],
        "client_request_sent_ts_us": c["request_sent_ts_us"], "client_first_byte_ts_us": c["first_byte_ts_us"],
        "client_response_complete_ts_us": c["response_complete_ts_us"],
    }


def connection_truth(run, server_requests, client_span, server_span):
    """One entry of truth.json's "connections"; server_requests are this connection's, in order."""
    port = run.client["local_port"]
    if len(server_requests) != len(run.client["requests"]):
        raise LabError(f"port {port}: server logged {len(server_requests)} requests, "
                         f"client {len(run.client['requests'])}")
    if client_span is None or server_span is None:
        raise LabError(f"port {port}: connection missing from a capture")
    return {
        "client_port": port,
        "delay_us": run.delay_us,
        "http": run.plan.http,
        "exchanges": [exchange_truth(c, s) for c, s in zip(run.client["requests"], server_requests)],
        "client_connect_start_ts_us": run.client["connect_start_ts_us"],
        "client_close_ts_us": run.client["close_ts_us"],
        "capture": {
            "client_first_ts_us": client_span.first_ts_us,
            "client_last_ts_us": client_span.last_ts_us,
            "client_observed_duration_us": client_span.last_ts_us - client_span.first_ts_us,
            "client_packets": client_span.packets,
            "server_packets": server_span.packets,
        },
        "drops": [{key: event[key] for key in DROP_KEYS} for event in run.delayline_events
                  if "summary" not in event],
        "delay_line": delay_line_summary(run.delayline_events),
        "kernel": run.kernel,
    }


def delay_line_summary(events):
    """The delay line's own account of the connection: packets forwarded and dropped per
    direction, and per direction the delays it added beyond the configured one as packets,
    sum_us, min_us and max_us: "extra" (waiting and serialisation at a bottleneck, jitter,
    holding back to keep order, batching; its min_us is part of the path's fixed delay) and
    "queued" (waiting behind other packets at a bottleneck)."""
    summaries = [e for e in events if "summary" in e]
    if len(summaries) != 1:
        raise LabError(f"the delay line wrote {len(summaries)} summaries for one connection")
    return {key: summaries[0][key] for key in ("forwarded", "dropped", "extra_delay")}


def scenario_truth(scenario, runs, server_log, client_spans, server_spans, generated_at, kernel_release):
    config = scenario.config()
    if scenario.drop_rules is not None:
        # Record offsets as numbers ("last" resolved); every connection of a
        # scenario with scenario-wide rules carries the same streams.
        config["drop_rules"] = resolve_rules(scenario.drop_rules, scenario.connections[0].stream_bytes())
    connections = []
    for run in runs:
        port = run.client["local_port"]
        requests = [r for r in server_log if r["client_port"] == port]
        connections.append(connection_truth(run, requests, client_spans.get(port), server_spans.get(port)))
    return {
        "scenario": scenario.name,
        "description": scenario.description,
        "generated_at": generated_at,
        "kernel": kernel_release,
        "client_addr": CLIENT_ADDR, "server_addr": SERVER_ADDR, "server_port": SERVER_PORT,
        "config": config,
        "connections": connections,
    }


def total(truth, path):
    """Sums a fact over all connections: "drops" counts drops, "drops.KIND" those of one kind
    (data, ack, syn, synack, fin), anything else is a path into each connection's "kernel"
    object, e.g. "server.TcpExtTCPFastRetrans"."""
    if path == "drops":
        return sum(len(c["drops"]) for c in truth["connections"])
    if path.startswith("drops."):
        kind = path.removeprefix("drops.")
        return sum(d["kind"] == kind for c in truth["connections"] for d in c["drops"])
    value = 0
    for connection in truth["connections"]:
        node = connection["kernel"]
        for key in path.split("."):
            node = node.get(key) if node else None
        value += node or 0
    return value


def failed_expectations(scenario, truth):
    """The scenario's expectations (path, low, high) that this truth misses, as sentences."""
    failures = []
    for path, low, high in scenario.expect:
        value = total(truth, path)
        if value < low or (high is not None and value > high):
            wanted = f"{low}..{high}" if high is not None else f">= {low}"
            failures.append(f"{path} = {value}, expected {wanted}")
    return failures
