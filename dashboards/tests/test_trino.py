"""The warehouse in a real Trino (Hive connector, file metastore, local file system): the tables
and views trino_sql.py writes return the same rows as the DuckDB views on a warehouse from lab
fixtures. Trino 476 comes from Maven Central (cached in ~/.cache/critpath/trino) and needs a
Java 24 or newer; the test skips with the reason when the machine has none."""
import glob
import json
import os
import signal
import subprocess
import sys
import tarfile
import urllib.request

import pytest
from conftest import REPO
from testkit import free_port, wait_serving

sys.path.insert(0, os.path.join(REPO, "dashboards"))
import critpath_sql  # noqa: E402
import trino_sql  # noqa: E402

VERSION = "476"
CENTRAL = "https://repo1.maven.org/maven2/io/trino"
CACHE = os.path.expanduser("~/.cache/critpath/trino")


def java24():
    for home in sorted(glob.glob("/usr/lib/jvm/*")) + [os.environ.get("JAVA_HOME", "")]:
        java = os.path.join(home, "bin", "java")
        if os.path.exists(java):
            out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
            major = out.split('"')[1].split(".")[0] if '"' in out else "0"
            if major.isdigit() and int(major) >= 24:
                return java
    return None


def fetch(url, path):
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        urllib.request.urlretrieve(url, path + ".part")
        os.rename(path + ".part", path)
    return path


@pytest.fixture(scope="module")
def trino(warehouse, tmp_path_factory):
    java = java24()
    if java is None:
        pytest.skip("Trino needs Java 24 or newer; none under /usr/lib/jvm or JAVA_HOME")
    server = os.path.join(CACHE, f"trino-server-{VERSION}")
    if not os.path.isdir(server):
        archive = fetch(f"{CENTRAL}/trino-server/{VERSION}/trino-server-{VERSION}.tar.gz", server + ".tar.gz")
        with tarfile.open(archive) as t:
            t.extractall(CACHE)
        os.remove(archive)
    cli = fetch(f"{CENTRAL}/trino-cli/{VERSION}/trino-cli-{VERSION}-executable.jar", os.path.join(CACHE, "trino-cli.jar"))
    work = tmp_path_factory.mktemp("trino")
    etc = work / "etc"
    (etc / "catalog").mkdir(parents=True)
    port = free_port()
    (etc / "node.properties").write_text(f"node.environment=test\nnode.id=critpath-test\nnode.data-dir={work}/data\n")
    (etc / "jvm.config").write_text("-server\n-Xmx1G\n-XX:+ExitOnOutOfMemoryError\n-Djdk.attach.allowAttachSelf=true\n")
    (etc / "config.properties").write_text(f"coordinator=true\nnode-scheduler.include-coordinator=true\n"
                                           f"http-server.http.port={port}\ndiscovery.uri=http://127.0.0.1:{port}\n")
    # as the compose file's catalog: the local file system's root is the warehouse
    with open(os.path.join(REPO, "dashboards", "trino", "catalog", "critpath.properties")) as f:
        (etc / "catalog" / "hive.properties").write_text(f.read().replace("local.location=/warehouse", f"local.location={warehouse}"))
    env = dict(os.environ, JAVA_HOME=os.path.dirname(os.path.dirname(java)),
               PATH=os.path.dirname(java) + os.pathsep + os.environ["PATH"])
    proc = subprocess.Popen([os.path.join(server, "bin", "launcher"), "run", f"--etc-dir={etc}"], env=env,
                            stdout=open(work / "server.log", "w"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_serving(proc, lambda: not json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/info", timeout=5))["starting"],
                     f"Trino (log: {work / 'server.log'})", timeout=300)

        def query(sql):
            out = subprocess.run([java, "-jar", cli, "--server", f"http://127.0.0.1:{port}", "--catalog", "hive",
                                  "--output-format", "JSON", "--execute", sql], capture_output=True, text=True, env=env)
            assert out.returncode == 0, out.stderr[-2000:]
            return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]

        yield query
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


def test_trino_sees_the_warehouse_as_duckdb_does(warehouse, trino):
    for table in critpath_sql.TABLES:  # the Hive connector wants each table's directory to exist
        os.makedirs(os.path.join(warehouse, table), exist_ok=True)
    for statement in trino_sql.statements("local:///", "critpath"):
        trino(statement)
    duck = critpath_sql.connect(warehouse)
    checks = {
        "profiles": "select conn_uid, duration_us, server_us, propagation_us, dt, hour from {} order by 1",
        "screening": "select conn_uid, boring from {} order by 1",
        "dead_letters": "select count(*) from {}",
        "blame_by_server": "select server_addr, connections, round(server_share, 9), round(queuing_share, 9) from {} order by 1",
        "blame_by_client_network": "select client_network, connections, round(propagation_share, 9) from {} order by 1",
        "blame_by_hour": "select dt, hour, connections, worth_a_look from {} order by 1, 2",
        "screen_rule_failures": "select rule, connections from {} order by 1",
    }
    for name, sql in checks.items():
        expected = [[str(v) for v in row] for row in duck.execute(sql.format(name)).fetchall()]
        got = [[str(v) for v in row.values()] for row in trino(sql.format("critpath." + name))]
        assert got == expected, name
        assert name == "dead_letters" or got, name


def test_the_compose_files_sql_is_what_the_generator_writes():
    with open(os.path.join(REPO, "dashboards", "trino", "warehouse.sql")) as f:
        committed = [line for line in f.read().splitlines() if not line.startswith("--")]
    generated = subprocess.run([sys.executable, os.path.join(REPO, "dashboards", "trino_sql.py"), "--location", "local:///"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
    assert committed == generated, "regenerate dashboards/trino/warehouse.sql with the command in its first line"


def test_the_catalog_reaches_no_file_outside_the_warehouse(trino, tmp_path_factory):
    """The catalog's local file system is rooted at the warehouse: a table over a directory beside
    it (by absolute path, or climbing out with ..) reads nothing there, where a root of / would."""
    secret = tmp_path_factory.mktemp("secret")
    (secret / "passwords.txt").write_text("root:not-for-trino\n")
    trino("CREATE SCHEMA IF NOT EXISTS probe WITH (location = 'local:///')")
    leaked = []
    for n, location in enumerate((f"local://{secret}", f"local:///../{secret.name}")):
        try:
            trino(f"CREATE TABLE probe.outside{n} (line varchar) WITH (external_location = '{location}', format = 'TEXTFILE')")
            leaked += [row for row in trino(f"SELECT line FROM probe.outside{n}") if "not-for-trino" in str(row)]
        except AssertionError:
            pass  # refused: nothing to read
    assert not leaked, leaked
