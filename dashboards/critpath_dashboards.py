#!/usr/bin/env python3
"""critpath dashboards: Superset on localhost over the Parquet warehouse (DuckDB), with the
project's dashboards imported, served by gunicorn (gunicorn_config.py) with CSRF protection on.

  critpath dashboards                              on warehouse/demo, http://127.0.0.1:8088
  critpath dashboards --warehouse DIR --port N
  critpath dashboards --setup-only                 install, configure and import, then exit
  critpath_dashboards.py --installed --host 0.0.0.0 in a Superset container (docker-compose.yml)

The first run installs Superset from PyPI into its own virtual environment (a few minutes). The
admin password is CRITPATH_SUPERSET_PASSWORD, or one generated on the first run, printed, and
kept in STATE/admin-password (readable by you only); there is no default password. The secret key
is SUPERSET_SECRET_KEY, or one generated on the first run. A table that gets its first Parquet
files while Superset runs is picked up within REFRESH_S seconds.
"""
import argparse
import hashlib
import os
import secrets
import signal
import subprocess
import sys
import zipfile

import critpath_sql

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIREMENTS = os.path.join(HERE, "requirements-superset.txt")
BUNDLE = os.path.join(HERE, "bundle")
GUNICORN_CONFIG = os.path.join(HERE, "gunicorn_config.py")
DATABASE_NAME = "critpath warehouse"
REFRESH_S = 10


def say(msg):
    print(f"critpath dashboards: {msg}", file=sys.stderr, flush=True)


def venv(path):
    """The Superset venv, (re)built when the pinned requirements change."""
    stamp = os.path.join(path, ".requirements-sha256")
    want = hashlib.sha256(open(REQUIREMENTS, "rb").read()).hexdigest()
    if os.path.exists(stamp) and open(stamp).read() == want:
        return path
    say(f"installing Superset from PyPI into {path} (first run: a few minutes) ...")
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    subprocess.run([os.path.join(path, "bin", "pip"), "install", "-q", "-r", REQUIREMENTS], check=True)
    with open(stamp, "w") as f:
        f.write(want)
    return path


def installed_env():
    """This Python's own environment, Superset already in it (a container image). The official
    apache/superset image lacks the DuckDB driver and plotly (the plot pages): they are added,
    pinned, from PyPI."""
    try:
        import duckdb_engine  # noqa: F401
        import plotly  # noqa: F401
    except ImportError:
        pins = [line.strip() for line in open(REQUIREMENTS) if line.startswith(("duckdb", "plotly"))]
        say(f"adding the DuckDB driver and plotly from PyPI: {' '.join(pins)} ...")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *pins], check=True)
    return os.path.dirname(os.path.dirname(sys.executable))


SYNC_COLUMNS = """
from superset.app import create_app
app = create_app()
with app.app_context():
    from superset import db
    from superset.connectors.sqla.models import SqlaTable
    for table in db.session.query(SqlaTable).all():
        table.fetch_metadata()
    db.session.commit()
"""


# the admin user with the password from the environment: on a command line, `ps` would show it
SET_ADMIN_PASSWORD = """
import os
from superset.app import create_app
app = create_app()
with app.app_context():
    from superset import security_manager as sm
    password = os.environ["CRITPATH_ADMIN_PASSWORD"]
    admin = sm.find_user(username="admin")
    if admin is None:
        if not sm.add_user("admin", "critpath", "admin", "admin@localhost", sm.find_role("Admin"), password=password):
            raise SystemExit("could not create the admin user")
    else:
        sm.reset_password(admin.id, password)
"""


def bundle_zip(duckdb_file, path):
    """The dashboards bundle as Superset imports it, pointed at this warehouse's DuckDB file."""
    with zipfile.ZipFile(path, "w") as z:
        for root, _, files in os.walk(BUNDLE):
            for f in sorted(files):
                src = os.path.join(root, f)
                text = open(src).read().replace("CRITPATH_DUCKDB_FILE", duckdb_file)
                z.writestr(os.path.join("critpath_dashboards", os.path.relpath(src, BUNDLE)), text)
    return path


def private_file(path, make):
    """A file of the state dir only its owner reads, made once."""
    if not os.path.exists(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(make())
        return True
    return False


class Superset:
    def __init__(self, env_dir, state, warehouse):
        self.bin = os.path.join(env_dir, "bin")
        self.state = state
        self.env = dict(os.environ,
                        SUPERSET_CONFIG_PATH=os.path.join(HERE, "superset_config.py"),
                        CRITPATH_SUPERSET_STATE=state,
                        CRITPATH_WAREHOUSE=warehouse,
                        SUPERSET_SECRET_KEY=os.environ.get("SUPERSET_SECRET_KEY")
                        or open(os.path.join(state, "secret-key")).read().strip(),
                        FLASK_APP="superset")

    def run(self, *args, quiet=True):
        out = subprocess.run([os.path.join(self.bin, "superset"), *args], env=self.env, text=True,
                             stdout=subprocess.PIPE if quiet else None, stderr=subprocess.STDOUT if quiet else None)
        if out.returncode != 0:
            if quiet:
                sys.stderr.write(out.stdout[-4000:])
            raise SystemExit(f"critpath dashboards: superset {args[0]} failed")
        return out.stdout

    def python(self, *args, secret_env=None):
        subprocess.run([os.path.join(self.bin, "python"), *args], env=dict(self.env, **(secret_env or {})), check=True,
                       stdout=subprocess.DEVNULL)

    def build_views(self, warehouse, duckdb_file):
        """The warehouse's views in a new DuckDB file, swapped in whole (Superset may be reading
        the old one); returns the tables that had files."""
        filled = tables_with_files(warehouse)
        fresh = duckdb_file + ".new"
        if os.path.exists(fresh):
            os.remove(fresh)
        self.python(os.path.join(HERE, "critpath_sql.py"), "--warehouse", warehouse, "--database", fresh, "-c", "select 1")
        os.replace(fresh, duckdb_file)
        return filled

    def serve(self, host, port, warehouse, duckdb_file, filled):
        """Serves Superset with gunicorn; a table with no file when the views were made is an empty
        view, so the views are made again once such a table gets files."""
        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"  # an IPv6 address goes in brackets
        server = subprocess.Popen([os.path.join(self.bin, "gunicorn"), "--config", GUNICORN_CONFIG, "--bind", bind,
                                   "superset.app:create_app()"], env=self.env)
        signal.signal(signal.SIGTERM, lambda *_: server.terminate())
        while server.poll() is None:
            try:
                server.wait(timeout=REFRESH_S)
            except subprocess.TimeoutExpired:
                if tables_with_files(warehouse) != filled:
                    filled = self.build_views(warehouse, duckdb_file)
                    say(f"views made again: tables with files now {', '.join(sorted(filled))}")
        return server.returncode


def tables_with_files(warehouse):
    return {t for t in critpath_sql.TABLES if critpath_sql.has_files(warehouse, t)}


def main(argv=None):
    p = argparse.ArgumentParser(prog="critpath dashboards", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--warehouse", default="warehouse/demo", help="the Parquet warehouse (default: %(default)s)")
    p.add_argument("--state", help="Superset's own database, keys and the DuckDB file (default: WAREHOUSE/_superset)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default: %(default)s)")
    p.add_argument("--port", type=int, default=8088, help="port (default: %(default)s)")
    p.add_argument("--venv", default=os.environ.get("CRITPATH_SUPERSET_VENV",
                                                    os.path.expanduser("~/.cache/critpath/superset-venv")),
                   help="where Superset is installed (default: %(default)s)")
    p.add_argument("--installed", action="store_true",
                   help="use the Superset installed with this Python (a container image) instead of --venv")
    p.add_argument("--setup-only", action="store_true", help="install, configure and import, then exit")
    args = p.parse_args(argv)
    if not os.path.isdir(args.warehouse):
        say(f"no warehouse at {args.warehouse} (run ./critpath demo first, or give --warehouse)")
        return 2
    warehouse = os.path.abspath(args.warehouse)
    state = os.path.abspath(args.state or os.path.join(warehouse, "_superset"))
    os.makedirs(state, exist_ok=True)
    private_file(os.path.join(state, "secret-key"), lambda: secrets.token_urlsafe(48))
    password_file = os.path.join(state, "admin-password")
    password = os.environ.get("CRITPATH_SUPERSET_PASSWORD")
    generated = password is None and private_file(password_file, lambda: secrets.token_urlsafe(12))
    if password is None:
        password = open(password_file).read().strip()

    ss = Superset(installed_env() if args.installed else venv(args.venv), state, warehouse)
    duckdb_file = os.path.join(state, "critpath.duckdb")
    say(f"views over {warehouse} into {duckdb_file} ...")
    filled = ss.build_views(warehouse, duckdb_file)
    say("Superset's own database, roles and admin user ...")
    ss.run("db", "upgrade")
    ss.run("init")
    ss.python("-c", SET_ADMIN_PASSWORD, secret_env={"CRITPATH_ADMIN_PASSWORD": password})
    say("importing the dashboards (dashboards/bundle) ...")
    ss.run("import-dashboards", "-p", bundle_zip(duckdb_file, os.path.join(state, "dashboards.zip")), "-u", "admin")
    # the bundle's datasets carry no column lists: they follow the views, read from DuckDB here
    ss.python("-c", SYNC_COLUMNS)
    url = f"http://{args.host}:{args.port}"
    say(f"ready: {url}  user admin  password {password if generated or 'CRITPATH_SUPERSET_PASSWORD' not in os.environ else '(from CRITPATH_SUPERSET_PASSWORD)'}")
    if generated:
        say(f"(generated on this first run and kept in {password_file})")
    if args.setup_only:
        return 0
    return ss.serve(args.host, args.port, warehouse, duckdb_file, filled)


if __name__ == "__main__":
    sys.exit(main())
