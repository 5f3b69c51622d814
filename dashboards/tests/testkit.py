"""Helpers the dashboards' tests and the compose smoke test (containers/tests) share: ports,
waiting, and Superset's API."""
import glob
import json
import os
import socket
import time
import urllib.error
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


def chromium(window="1600,1300"):
    """Headless Chromium through its driver, keeping the page's console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=" + window):
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def console_errors(browser):
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


# a time-sequence plot's page (critpath_plot.py) as plotly holds its figure: points per packet kind,
# segments per arc trace, and what the page fetched
PLOT_FIGURE = """
const div = document.getElementById('critpath-plot');
if (!div || !div.data || !div._fullLayout) return null;
const kinds = {}, arcs = {}, timeline = {};
for (const t of div.data) {
  const m = t.meta || {};
  if (m.kind) kinds[m.kind] = (kinds[m.kind] || 0) + t.x.length;
  const segments = t.x.filter(v => v !== null).length / 2;
  if (m.arcs) arcs[m.panel] = (arcs[m.panel] || 0) + segments;
  if (m.timeline) timeline[m.timeline] = segments;
}
return {kinds, arcs, timeline, drawn: div.querySelectorAll('.scatterlayer .trace').length,
        resources: performance.getEntriesByType('resource').map(r => r.name)};
"""


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


class Api:
    """Superset's REST API as a browser uses it: the access token on every call, and on a call that
    changes state the CSRF token with the session cookie it belongs to (CSRF protection is on)."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        self.token = self.csrf = None

    def call(self, path, body=None, method=None, csrf=True):
        """The JSON answer to a GET, or to a POST of body, or to method; csrf=False leaves the
        CSRF token out."""
        method = method or ("GET" if body is None else "POST")
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if method != "GET" and csrf and self.csrf:
            # Flask-WTF also wants a same-origin Referer when Superset is served over HTTPS
            headers.update({"X-CSRFToken": self.csrf, "Referer": self.base + "/"})
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode() if body is not None else None,
                                     headers=headers, method=method)
        with self.opener.open(req, timeout=60) as r:
            return json.load(r)


def login(base, password):
    """Superset's API as the admin user."""
    api = Api(base)
    api.token = api.call("/api/v1/security/login", {"username": "admin", "password": password, "provider": "db"})["access_token"]
    api.csrf = api.call("/api/v1/security/csrf_token/")["result"]
    return api


def check_gunicorn_and_csrf(api):
    """Superset answers from gunicorn, not Flask's development server, and refuses a call that
    changes state without the CSRF token, where the same call with it passes."""
    with urllib.request.urlopen(api.base + "/health", timeout=60) as r:
        assert r.headers["Server"].split("/")[0] == "gunicorn", r.headers["Server"]
    query = {"db_id": api.call("/api/v1/database/")["result"][0]["id"], "label": "critpath: CSRF check", "sql": "select 1"}
    try:
        api.call("/api/v1/saved_query/", query, csrf=False)
        raise AssertionError("a saved query was created without a CSRF token")
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        assert e.code in (400, 403) and "CSRF" in body, f"{e.code}: {body[:300]}"
    saved = api.call("/api/v1/saved_query/", query)["id"]
    labels = [q["label"] for q in api.call("/api/v1/saved_query/?q=(page_size:100)")["result"]]
    assert labels.count(query["label"]) == 1, labels
    api.call(f"/api/v1/saved_query/{saved}", method="DELETE")


def check_every_chart(api):
    """Every chart of the bundle is there and answers with rows and the columns it names."""
    expected = bundle_charts()
    charts = api.call("/api/v1/chart/?q=(page_size:100)")["result"]
    assert sorted(c["slice_name"] for c in charts) == sorted(expected)
    for c in charts:
        result = api.call(f"/api/v1/chart/{c['id']}/data/")["result"][0]
        assert result["error"] is None, c["slice_name"]
        assert result["rowcount"] > 0, c["slice_name"]
        assert result["colnames"] == expected[c["slice_name"]], c["slice_name"]
    return charts
