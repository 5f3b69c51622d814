"""`critpath dashboards` on a warehouse made from lab fixtures: Superset installed from PyPI and
set up by the command, the warehouse queried through Superset's own API."""
import glob
import os
import secrets
import signal
import subprocess
import time
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest
import yaml
from conftest import REPO, truth_ports
from testkit import (BUNDLE, PLOT_FIGURE, check_every_chart, check_gunicorn_and_csrf, chromium, console_errors, free_port, login,
                     wait_for, wait_serving)

sys.path.insert(0, os.path.join(REPO, "dashboards"))
import critpath_sql  # noqa: E402

SCREENSHOTS = os.path.join(REPO, "dashboards", "tests", "screenshots")
DASHBOARDS = {"fleet-screening": "critpath: fleet screening", "blame": "critpath: server vs network blame",
              "delay-profiles": "critpath: delay profile explorer"}


@pytest.fixture(scope="module")
def superset(warehouse):
    """`critpath dashboards` serving the lab warehouse: (base URL, admin password, the command's
    process id, which is also its session's)."""
    password = "t-" + secrets.token_urlsafe(12)
    env = dict(os.environ, CRITPATH_SUPERSET_PASSWORD=password)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([os.path.join(REPO, "critpath"), "dashboards", "--warehouse", warehouse, "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # the first run installs Superset
        wait_serving(server, lambda: urllib.request.urlopen(base + "/health", timeout=5), "Superset", timeout=900)
        yield base, password, server.pid
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def test_superset_serves_the_warehouse_views_and_every_chart(superset):
    base, password, _ = superset
    try:
        login(base, "admin")
        raise AssertionError("a default password was accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 401
    api = login(base, password)

    databases = api.call("/api/v1/database/")["result"]
    assert [(d["database_name"], d["backend"]) for d in databases] == [("critpath warehouse", "duckdb")]
    result = sqllab(api, databases[0]["id"],
                    "select sum(connections) as n, sum(server_share * duration_ms) / sum(duration_ms) as server_share from blame_by_server")
    assert result["status"] == "success"
    row = result["data"][0]
    assert row["n"] == len(truth_ports())
    assert 0 < row["server_share"] < 1

    # SQL Lab reads the warehouse and nothing else on the host, and cannot lift that
    for sql in ("select * from read_csv('/etc/passwd')", "select * from read_text('/etc/hostname')",
                "set enable_external_access = true"):
        refused = sqllab(api, databases[0]["id"], sql)
        assert refused.get("status") != "success", f"{sql}: {refused}"
    assert sqllab(api, databases[0]["id"], "select count(*) as n from profiles")["data"][0]["n"] == len(truth_ports())

    titles = {d["dashboard_title"] for d in api.call("/api/v1/dashboard/?q=(page_size:100)")["result"]}
    assert titles == set(DASHBOARDS.values())
    check_every_chart(api)


def test_superset_runs_under_gunicorn_and_refuses_writes_without_a_csrf_token(superset):
    base, password, session = superset
    commands = session_commands(session)
    # VENV/bin/python VENV/bin/gunicorn ... superset.app:create_app(); Flask's server was `superset run`
    servers = [c for c in commands if "superset.app:create_app()" in c]
    assert servers and all(os.path.basename(c[1]) == "gunicorn" for c in servers), commands
    check_gunicorn_and_csrf(login(base, password))


def session_commands(session):
    """The command lines of the processes in a session, from /proc."""
    commands = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold anything
            if int(fields[3]) == session:
                with open(os.path.join(os.path.dirname(stat), "cmdline")) as f:
                    commands.append(f.read().split("\0")[:-1])
        except OSError:  # the process ended meanwhile
            continue
    return commands


def sqllab(api, database_id, sql):
    """What SQL Lab answers to a statement: its result, or its error as Superset reports it."""
    try:
        return api.call("/api/v1/sqllab/execute/", {"database_id": database_id, "runAsync": False, "sql": sql})
    except urllib.error.HTTPError as e:
        return {"status": "error", "http": e.code, "body": e.read().decode(errors="replace")[:500]}


def test_every_dashboard_renders_its_charts_in_a_browser(superset):
    """Headless Chromium logs in, opens each dashboard and waits for its charts: none may show an
    error or no data. Screenshots stay in dashboards/tests/screenshots."""
    from selenium.webdriver.common.by import By

    base, password, _ = superset
    os.makedirs(SCREENSHOTS, exist_ok=True)
    browser = chromium()
    try:
        log_in(browser, base, password)
        for slug, title in DASHBOARDS.items():
            browser.get(f"{base}/superset/dashboard/{slug}/")
            charts = wait_for(lambda: [c for c in browser.find_elements(By.CSS_SELECTOR, "[data-test-chart-id]")], title)

            def rendered():
                done = [c for c in charts if c.find_elements(By.CSS_SELECTOR, "canvas, table, svg")
                        or c.find_elements(By.CSS_SELECTOR, "[role='alert'], .ant-empty")]
                return len(done) == len(charts) and not browser.find_elements(By.CSS_SELECTOR, ".loading")

            wait_for(rendered, title + ": every chart drawn")
            time.sleep(2)  # let the last animation settle for the screenshot
            browser.save_screenshot(os.path.join(SCREENSHOTS, slug + ".png"))
            assert len(charts) == charts_on(slug), title
            errors = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "[data-test-chart-id] [role='alert'], [data-test-chart-id] .ant-empty")]
            assert not errors, f"{title}: {errors}"
            assert "No results were returned" not in browser.page_source, title
    finally:
        browser.quit()


def log_in(browser, base, password):
    from selenium.webdriver.common.by import By

    browser.get(base + "/login/")
    wait_for(lambda: browser.find_elements(By.ID, "password"), "the login form")
    browser.find_element(By.ID, "username").send_keys("admin")
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.ID, "password").submit()
    # a gunicorn worker still loading Superset answers when it is done (gunicorn_config.py allows it 300 s)
    wait_for(lambda: "/login" not in browser.current_url, "logging in", timeout=300)


def test_a_flagged_connection_opens_its_plot_in_one_click(superset, warehouse):
    """In the fleet screening dashboard's table of the worst connections, each row's "plot" link
    opens that connection's time-sequence plot, served next to Superset: Chromium clicks the
    first, finds the plot drawn with the connection's packets and arcs and no console error.
    Without a login the page is refused."""
    from selenium.webdriver.common.by import By

    base, password, _ = superset
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.build_opener(NoRedirect).open(base + "/critpath/plot?conn_uid=x", timeout=30)
    assert refused.value.code == 302 and "/login/" in refused.value.headers["Location"]
    con = critpath_sql.connect(warehouse)
    browser = chromium()
    try:
        log_in(browser, base, password)
        browser.get(f"{base}/superset/dashboard/fleet-screening/")
        links = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "[data-test-chart-id] a[href*='/critpath/plot?']"), "the plot links")
        flagged = con.execute("SELECT count(*) FROM profiles WHERE NOT boring").fetchone()[0]
        assert len(links) == flagged
        dashboard = browser.current_window_handle
        console_errors(browser)  # the dashboard's: the plot's page is judged alone
        links[0].click()
        wait_for(lambda: len(browser.window_handles) == 2, "the plot's tab")
        browser.switch_to.window([h for h in browser.window_handles if h != dashboard][0])
        uid = urllib.parse.parse_qs(urllib.parse.urlparse(browser.current_url).query)["conn_uid"][0]
        fig = wait_for(lambda: browser.execute_script(PLOT_FIGURE), "the plot drawn")
        browser.save_screenshot(os.path.join(SCREENSHOTS, "fleet-screening-plot.png"))
        rows = dict(con.execute("SELECT kind, count(*) FROM packets WHERE conn_uid = ? GROUP BY kind", [uid]).fetchall())
        assert rows and fig["kinds"] == rows, uid
        arcs = con.execute("SELECT count(*) FROM critical_path WHERE conn_uid = ?", [uid]).fetchone()[0]
        assert fig["arcs"] == {"c2s": arcs, "s2c": arcs}, uid
        assert console_errors(browser) == []
    finally:
        browser.quit()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def charts_on(slug):
    """How many charts the bundle puts on the dashboard."""
    for path in glob.glob(os.path.join(BUNDLE, "dashboards", "*.yaml")):
        with open(path) as f:
            d = yaml.safe_load(f)
        if d["slug"] == slug:
            return sum(1 for node in d["position"].values() if isinstance(node, dict) and node.get("type") == "CHART")
    raise AssertionError("no dashboard " + slug + " in the bundle")
