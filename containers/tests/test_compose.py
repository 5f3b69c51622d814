"""Smoke test of the distributed deployment: docker-compose.yml brought up under podman with the
images containers/build-images makes here, the trace lab's two-point fixtures replayed into its
Kafka through the published listener, which authenticates (a wrong password is refused), the
JobManager restarted mid-stream (critpath-job resubmits the job from its newest checkpoint), every
lab connection waited for once in its warehouse volume and every dashboard chart asked for rows
through Superset's API; then the stack is torn down. Skips only where no container engine can run."""
import glob
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path[:0] = [os.path.join(REPO, "dashboards", "tests"), os.path.join(REPO, "dashboards"), os.path.join(REPO, "lab", "tests"),
                os.path.join(REPO, "lab")]
import critpath_sql  # noqa: E402
from pcapfiles import tcp_frame, write_pcap  # noqa: E402
from testkit import check_every_chart, check_gunicorn_and_csrf, free_port, login, wait_for  # noqa: E402

PROJECT = "critpath-smoke"
COMPOSE = os.path.join(REPO, "containers", "compose")
HEALTH_CHECKED = ("kafka", "jobmanager", "superset")


def podman_usable():
    if not shutil.which("podman"):
        return "podman is not installed (containers/podman-setup installs it)"
    info = subprocess.run(["podman", "info"], capture_output=True, text=True)
    return None if info.returncode == 0 else "podman cannot run here: " + info.stderr.strip()[-300:]


def podman(*args):
    return subprocess.run(["podman", *args], capture_output=True, text=True)


def say(msg):
    print(f"compose smoke test: {msg}", file=sys.stderr, flush=True)


@pytest.fixture(scope="module")
def stack():
    reason = podman_usable()
    if reason:
        pytest.skip(reason)
    ports = {name: free_port() for name in ("KAFKA_PORT", "FLINK_PORT", "SUPERSET_PORT")}
    password = "s-" + secrets.token_urlsafe(12)
    kafka_password = "k-" + secrets.token_urlsafe(12)
    env = dict(os.environ, SUPERSET_SECRET_KEY=secrets.token_urlsafe(32), SUPERSET_ADMIN_PASSWORD=password,
               KAFKA_PASSWORD=kafka_password, **{k: str(v) for k, v in ports.items()})
    compose = [COMPOSE, "-p", PROJECT]
    subprocess.run([*compose, "down", "-v"], env=env, capture_output=True)  # what a killed earlier run left
    started = time.time()
    try:
        # a missing image can leave podman-compose waiting for good: fail instead
        up = subprocess.run([*compose, "up", "-d"], env=env, capture_output=True, text=True, timeout=600)
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        say(f"up -d returned after {time.time() - started:.0f} s")
        yield ports, password, kafka_password, started
    except Exception:
        print_every_log()
        raise
    finally:
        down = subprocess.run([*compose, "down", "-v"], env=env, capture_output=True, text=True)
        assert down.returncode == 0, down.stderr[-3000:]
        left = podman("ps", "-a", "--filter", f"label=io.podman.compose.project={PROJECT}", "--format", "{{.Names}}").stdout.split()
        assert not left, f"containers left after down: {left}"


def container(service):
    return f"{PROJECT}_{service}_1"


def print_every_log(lines=80):
    """What each of the stack's containers said, for a failure that would otherwise leave no clue."""
    names = podman("ps", "-a", "--filter", f"label=io.podman.compose.project={PROJECT}", "--format",
                   "{{.Names}} {{.Status}}").stdout.splitlines()
    for line in names:
        name = line.split()[0]
        logs = podman("logs", "--tail", str(lines), name)
        print(f"\n----- {line} (last {lines} lines of its log) -----\n{logs.stdout}{logs.stderr}", file=sys.stderr, flush=True)


def healthy(service):
    # podman without systemd schedules no health checks: run the compose file's check now
    return podman("healthcheck", "run", container(service)).returncode == 0


def json_at(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)
    except OSError:
        return None


def test_the_stack_turns_replayed_fixtures_into_parquet_and_charts(stack, tmp_path):
    try:
        check_the_stack(*stack, tmp_path)
    except Exception:
        print_every_log()
        raise


def kafka_config(path, password):
    """The client settings a sensor's operator writes for the published listener, readable by its owner only."""
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                    f'username="critpath" password="{password}";\n')
    path.chmod(0o600)
    return str(path)


def check_the_stack(ports, password, kafka_password, started, tmp):
    for service in HEALTH_CHECKED:
        wait_for(lambda s=service: healthy(s), f"{service}'s health check to pass", timeout=600)
    say(f"kafka, jobmanager and superset healthy {time.time() - started:.0f} s after up")

    flink = f"http://127.0.0.1:{ports['FLINK_PORT']}"
    first_job = wait_for(lambda: running_job(flink), "the critpath job to run on the session cluster", timeout=900)
    # secure defaults: published on loopback only, no jar upload through Flink's web UI
    for service in HEALTH_CHECKED:
        published = podman("port", container(service)).stdout.split()
        addresses = [p for p in published if ":" in p and not p.endswith("/tcp")]
        assert addresses and all(a.startswith("127.0.0.1:") for a in addresses), f"{service} published on {published}"
    assert json_at(flink + "/config")["features"]["web-submit"] is False

    replay = [os.path.join(REPO, "critpath"), "replay", "--bootstrap-servers", f"localhost:{ports['KAFKA_PORT']}"]
    fixtures = ["--lab-runs", os.path.join(REPO, "testdata", "lab")]
    refused = subprocess.run([*replay, *fixtures, "--kafka-config", kafka_config(tmp / "wrong.properties", "not-" + kafka_password)],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "Authentication failed" in refused.stderr, refused.stderr[-3000:]
    replay += ["--kafka-config", kafka_config(tmp / "kafka.properties", kafka_password)]
    replayed_lab = subprocess.run([*replay, *fixtures], capture_output=True, text=True)
    assert replayed_lab.returncode == 0, replayed_lab.stderr[-3000:]
    replayed = time.time()
    say(f"fixtures replayed in {replayed - started:.0f} s after up")

    warehouse = podman("volume", "inspect", f"{PROJECT}_warehouse", "--format", "{{.Mountpoint}}").stdout.strip()
    wait_for(lambda: critpath_sql.has_files(warehouse, "profiles"), "profiles in the warehouse volume", timeout=600)
    say(f"first profiles committed {time.time() - replayed:.0f} s after the replay")

    # the JobManager restarted (no HA: the job is gone with it); critpath-job resubmits it from the
    # newest checkpoint, and every lab connection still lands once
    assert podman("restart", container("jobmanager")).returncode == 0
    second_job = wait_for(lambda: (job := running_job(flink)) != first_job and job, "the job to be resubmitted", timeout=900)
    resumed = podman("logs", container("critpath-job"))
    assert "resuming from checkpoint /warehouse/_checkpoints/" in resumed.stdout + resumed.stderr, resumed.stdout[-3000:]
    say(f"job {second_job} resumed after the JobManager's restart")
    # the fixtures' last connections close only when event time passes them: a sensor speaking now does that
    now_us = int(time.time() * 1e6)
    write_pcap(tmp / "now.pcap", [(now_us + i, tcp_frame(f"192.0.2.{1 + i}", 40000, "10.71.2.2", 8080, flags=0x02)) for i in range(64)])
    later = subprocess.run([*replay, "--client-pcap", str(tmp / "now.pcap")], capture_output=True, text=True)
    assert later.returncode == 0, later.stderr[-3000:]
    connections = sum(len(json.load(open(t))["connections"])
                      for t in glob.glob(os.path.join(REPO, "testdata", "lab", "*", "truth.json")))
    wait_for(lambda: profile_rows(warehouse)[1] >= connections, f"all {connections} lab connections profiled", timeout=900)
    time.sleep(30)  # a few more checkpoints: anything written twice would show now
    rows, distinct = profile_rows(warehouse)
    assert rows == distinct == connections, f"{rows} profile rows for {distinct} connections of {connections}: each must be there once"

    base = f"http://127.0.0.1:{ports['SUPERSET_PORT']}"
    api = login(base, password)
    check_gunicorn_and_csrf(api)
    # Superset's views follow the warehouse within its refresh period once tables have files
    wait_for(lambda: _blame_connections(api) > 0, "Superset to see the profiles", timeout=300)
    charts = check_every_chart(api)
    say(f"{len(charts)} charts answered with rows, {time.time() - started:.0f} s after up")


def running_job(flink):
    """The id of the critpath job running on the cluster, or None."""
    jobs = (json_at(flink + "/jobs/overview") or {"jobs": []})["jobs"]
    return next((j["jid"] for j in jobs if j["name"] == "critpath" and j["state"] == "RUNNING"), None)


def profile_rows(warehouse):
    """Profile rows and distinct connections committed so far."""
    return critpath_sql.connect(warehouse).execute("select count(*), count(distinct conn_uid) from profiles").fetchone()


def _blame_connections(api):
    databases = api.call("/api/v1/database/")["result"]
    result = api.call("/api/v1/sqllab/execute/", {
        "database_id": databases[0]["id"], "runAsync": False, "sql": "select sum(connections) as n from blame_by_server"})
    return result["data"][0]["n"] or 0
