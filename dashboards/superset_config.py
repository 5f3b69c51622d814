"""Superset configuration for `critpath dashboards`: everything from the environment the
launcher sets, nothing secret in the repository."""
import os

STATE = os.environ["CRITPATH_SUPERSET_STATE"]

SECRET_KEY = os.environ["SUPERSET_SECRET_KEY"]
SQLALCHEMY_DATABASE_URI = "sqlite:///" + os.path.join(STATE, "superset.db")
# the warehouse is a local DuckDB file: Superset refuses file-based databases unless told
PREVENT_UNSAFE_DB_CONNECTIONS = False
FEATURE_FLAGS = {"DASHBOARD_RBAC": False}
# query results are small (aggregates over the warehouse): keep them in process
CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache"}
DATA_CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache"}

# DuckDB opens a file once per process and shares it between connections, but two threads
# opening it at the same moment collide ("Unique file handle conflict"), and a dashboard's charts
# load in parallel: opening is serialised (queries still run in parallel).
import threading  # noqa: E402

import duckdb  # noqa: E402

_open_lock = threading.Lock()
_duckdb_connect = duckdb.connect
WAREHOUSE = os.path.join(os.path.abspath(os.environ["CRITPATH_WAREHOUSE"]), "")


def _connect_confined(*args, **kwargs):
    # SQL Lab runs whatever its users type: the views read the warehouse, nothing else can be read
    # (read_csv('/etc/passwd'), ATTACH, extensions), and no statement can lift that. Connections to
    # a file already open share its database, settings and lock included: set them once, under
    # the lock so that two first connections do not both try.
    with _open_lock:
        con = _duckdb_connect(*args, **kwargs)
        if not con.execute("SELECT current_setting('lock_configuration')").fetchone()[0]:
            con.execute("SET allowed_directories = [" + "'" + WAREHOUSE.replace("'", "''") + "']")
            con.execute("SET enable_external_access = false")
            con.execute("SET lock_configuration = true")
    return con


duckdb.connect = _connect_confined


# one connection's time-sequence plot, linked from the dashboards' connection tables (plot_pages.py)
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_pages  # noqa: E402

BLUEPRINTS = [plot_pages.blueprint(WAREHOUSE)]
