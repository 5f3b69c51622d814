"""Helpers the dashboards' tests and the compose smoke test (containers/tests) share: ports,
waiting, and Superset's API."""
import glob
import json
import os
import socket
import time
import urllib.request

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUNDLE = os.path.join(REPO, "dashboards", "bundle")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, what, timeout=90):
    """condition()'s first true value, polled until timeout."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError("timed out waiting for " + what)


def wait_serving(proc, is_up, what, timeout):
    """Waits for a server process to answer: is_up() true, connection errors meaning not yet."""
    def up():
        assert proc.poll() is None, what + " exited"
        try:
            return is_up()
        except OSError:
            return False
    wait_for(up, what, timeout)


def label(c):
    return c if isinstance(c, str) else c["label"]


def bundle_charts():
    """Each chart of the bundle and the columns its saved query names."""
    charts = {}
    for path in glob.glob(os.path.join(BUNDLE, "charts", "*.yaml")):
        with open(path) as f:
            chart = yaml.safe_load(f)
        query = json.loads(chart["query_context"])["queries"][0]
        charts[chart["slice_name"]] = [label(c) for c in query.get("columns", []) + query.get("metrics", [])]
    return charts


def call(base, path, token=None, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None, headers=headers,
                                 method="POST" if body is not None else "GET")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def login(base, password):
    """An access token for Superset's API, as the admin user."""
    return call(base, "/api/v1/security/login", body={"username": "admin", "password": password, "provider": "db"})["access_token"]


def check_every_chart(base, token):
    """Every chart of the bundle is there and answers with rows and the columns it names."""
    expected = bundle_charts()
    charts = call(base, "/api/v1/chart/?q=(page_size:100)", token)["result"]
    assert sorted(c["slice_name"] for c in charts) == sorted(expected)
    for c in charts:
        result = call(base, f"/api/v1/chart/{c['id']}/data/", token)["result"][0]
        assert result["error"] is None, c["slice_name"]
        assert result["rowcount"] > 0, c["slice_name"]
        assert result["colnames"] == expected[c["slice_name"]], c["slice_name"]
    return charts
