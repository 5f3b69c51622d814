"""Superset configuration for `critpath dashboards`: everything from the environment the
launcher sets, nothing secret in the repository."""
import os

STATE = os.environ["CRITPATH_SUPERSET_STATE"]

SECRET_KEY = os.environ["SUPERSET_SECRET_KEY"]
SQLALCHEMY_DATABASE_URI = "sqlite:///" + os.path.join(STATE, "superset.db")
# the warehouse is a local DuckDB file: Superset refuses file-based databases unless told
PREVENT_UNSAFE_DB_CONNECTIONS = False
# a local single-user tool: no CSRF tokens on the API the tests and the import use
WTF_CSRF_ENABLED = False
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


def _connect_one_at_a_time(*args, **kwargs):
    with _open_lock:
        return _duckdb_connect(*args, **kwargs)


duckdb.connect = _connect_one_at_a_time
