"""schemas/tables/*.avsc are the one source of the warehouse's columns, and the columns they mark
"category" of the delay categories (the Java tests hold those to Category.java). What the
dashboards make of them must follow: the DuckDB views, Trino's committed SQL, and the Superset
bundle, whose category lists render_bundle.py renders. Failures name the file and the column.

The bundle's SQL runs on a warehouse of one connection whose category k took 2**k ms, so that a
time split leaving any category out falls short of the duration, whatever the categories' sizes
in real captures."""
import glob
import json
import os
import re
import sys

import duckdb
import pytest
import yaml
from conftest import REPO
from testkit import BUNDLE

sys.path.insert(0, os.path.join(REPO, "dashboards"))
import critpath_sql  # noqa: E402
import render_bundle  # noqa: E402
import trino_sql  # noqa: E402

CATEGORIES = critpath_sql.CATEGORIES
TRINO_SQL = os.path.join(REPO, "dashboards", "trino", "warehouse.sql")
DURATION_MS = 2 ** len(CATEGORIES) - 1
# a value of every DuckDB type a profiles column has, for the columns the tests do not look at
PLACEHOLDER = {"BIGINT": "0", "INTEGER": "0", "DOUBLE": "0", "BOOLEAN": "false", "VARCHAR": "'x'"}


def drift(source, copy):
    """What sets a copy of a list of names apart from its source: the names one of them lacks, or
    else their order. Empty when the two are equal."""
    out = [f"{n} missing" for n in source if n not in copy] + [f"{n} extra" for n in copy if n not in source]
    return out or ([] if list(source) == list(copy) else [f"order differs: {list(copy)}, the source {list(source)}"])


def relative(path):
    return os.path.relpath(path, REPO)


@pytest.fixture(scope="module")
def one_connection(tmp_path_factory):
    """The views over a warehouse whose only connection took 2**k ms in category k."""
    warehouse = tmp_path_factory.mktemp("one-connection")
    values = {f"{c}_us": str(1000 * 2 ** k) for k, c in enumerate(CATEGORIES)}
    values.update(duration_us=str(1000 * DURATION_MS), client_addr="'10.0.0.1'")
    select = ", ".join(f"{values.get(f['name'], PLACEHOLDER[critpath_sql.avro_type(f['type'])])}::"
                       f"{critpath_sql.avro_type(f['type'])} AS {f['name']}" for f in critpath_sql.fields("profiles"))
    partition = warehouse / "profiles" / "dt=2026-01-01" / "hour=00"
    partition.mkdir(parents=True)
    duckdb.sql(f"COPY (SELECT {select}) TO '{partition / 'part-0.parquet'}' (FORMAT parquet)")
    return critpath_sql.connect(str(warehouse))


def bundle(kind):
    """{file: document} of the bundle's charts or datasets."""
    out = {}
    for path in sorted(glob.glob(os.path.join(BUNDLE, kind, "**", "*.yaml"), recursive=True)):
        with open(path) as f:
            out[relative(path)] = yaml.safe_load(f)
    return out


def dataset_sql(dataset):
    return dataset["sql"] or f"SELECT * FROM {dataset['table_name']}"


def datasets_by(key):
    return {d[key]: d for d in bundle("datasets").values()}


def rows(con, sql, where):
    try:
        return con.execute(sql).fetchall()
    except duckdb.Error as e:
        pytest.fail(f"{where}: {e}")


def test_the_tables_are_the_schema_files():
    files = [os.path.basename(p).removesuffix(".avsc") for p in glob.glob(os.path.join(critpath_sql.SCHEMAS, "*.avsc"))]
    assert drift(sorted(files), sorted(critpath_sql.TABLES)) == [], "dashboards/critpath_sql.py TABLES against schemas/tables/"


def test_the_blame_views_share_out_every_category(one_connection):
    for view in (v for v in critpath_sql.CONVENIENCE if v.startswith("blame_")):
        shares = [c for c in one_connection.sql(f"select * from {view}").columns if c.endswith("_share")]
        assert drift([c + "_share" for c in CATEGORIES], shares) == [], f"dashboards/critpath_sql.py: {view}"
        [(total,)] = rows(one_connection, f"select {' + '.join(shares)} from {view}", view)
        assert total == pytest.approx(1.0, abs=1e-12), f"dashboards/critpath_sql.py: {view}'s shares"


def test_trinos_committed_sql_has_every_schema_column_and_category():
    with open(TRINO_SQL) as f:
        text = f.read()
    for table in critpath_sql.TABLES:
        body = re.search(rf"CREATE TABLE IF NOT EXISTS critpath\.{table} \(\n(.*?)\n\) WITH", text, re.S)
        assert body, f"{relative(TRINO_SQL)} creates no table {table}"
        declared = [tuple(line.strip().rstrip(",").split(" ", 1)) for line in body.group(1).splitlines()]
        expected = [(f["name"], trino_sql.trino_type(f["type"])) for f in critpath_sql.fields(table)] + [("dt", "date"), ("hour", "integer")]
        assert drift([n for n, _ in expected], [n for n, _ in declared]) == [], f"{relative(TRINO_SQL)}: table {table}"
        assert declared == expected, f"{relative(TRINO_SQL)}: the types of table {table}"
    for view in (v for v in critpath_sql.CONVENIENCE if v.startswith("blame_")):
        body = re.search(rf"CREATE OR REPLACE VIEW critpath\.{view} AS(.*?);\n", text, re.S)
        assert body, f"{relative(TRINO_SQL)} creates no view {view}"
        assert drift(CATEGORIES, re.findall(r"AS (\w+)_share\b", body.group(1))) == [], f"{relative(TRINO_SQL)}: view {view}"


def test_the_bundles_category_lists_are_rendered_from_the_schema():
    stale = []
    for path, text in render_bundle.render().items():
        with open(path) as f:
            if f.read() != text:
                stale.append(relative(path))
    assert stale == [], "not what dashboards/render_bundle.py renders (run it)"


def test_every_dataset_reads_the_warehouse(one_connection):
    for name, d in bundle("datasets").items():
        try:
            columns = one_connection.sql(dataset_sql(d)).columns
        except duckdb.Error as e:
            pytest.fail(f"{name}: {e}")
        assert d["main_dttm_col"] in columns + [None], f"{name}: no column {d['main_dttm_col']}"


def test_every_chart_asks_its_dataset_only_for_columns_it_has(one_connection):
    """Each column, metric, filter and ordering of a chart's saved query, evaluated on its dataset."""
    datasets = datasets_by("uuid")
    for name, chart in bundle("charts").items():
        dataset = datasets[chart["dataset_uuid"]]
        query = json.loads(chart["query_context"])["queries"][0]
        named = query.get("columns", []) + query.get("metrics", []) + [f["col"] for f in query.get("filters", [])] \
            + [o[0] for o in query.get("orderby", [])]
        for item in named:
            expression = item["sqlExpression"] if isinstance(item, dict) else item
            if expression in (m["metric_name"] for m in dataset["metrics"]):
                continue  # the dataset's own metric, count
            rows(one_connection, f"SELECT {expression} FROM ({dataset_sql(dataset)}) AS d", f"{name}: {expression}")


def test_the_dashboards_time_splits_leave_no_category_out(one_connection):
    datasets = datasets_by("table_name")
    connections = dataset_sql(datasets["connections"])
    split = [c for c in one_connection.sql(connections).columns if c.endswith("_ms") and c != "duration_ms"]
    sums = {
        "datasets/connections": f"SELECT {' + '.join(split)} FROM ({connections}) AS d",
        "datasets/category_times": f"SELECT sum(ms) FROM ({dataset_sql(datasets['category_times'])}) AS d",
        "datasets/pie_vs_path": f"SELECT sum(ms) FROM ({dataset_sql(datasets['pie_vs_path'])}) AS d WHERE method = 'critical path'",
    }
    for name, chart in bundle("charts").items():
        query = json.loads(chart["query_context"])["queries"][0]
        if os.path.basename(name).removesuffix(".yaml") in render_bundle.SPLIT_CHARTS:
            sums[name] = f"SELECT {' + '.join(m['sqlExpression'] for m in query['metrics'])} FROM ({connections}) AS d"
        elif os.path.basename(name).removesuffix(".yaml") == render_bundle.WORST_CHART:
            shown = [c for c in query["columns"] if c.endswith("_ms") and c != "duration_ms"]
            sums[name] = f"SELECT {' + '.join(shown)} FROM ({connections}) AS d"
    wrong = {}
    for name, sql in sums.items():
        [(total,)] = rows(one_connection, sql, name)
        if total != DURATION_MS:
            # category k is the bit 2**k of what is missing
            wrong[name] = ([c for k, c in enumerate(CATEGORIES) if int(DURATION_MS - total) >> k & 1] if total < DURATION_MS
                           else f"{total - DURATION_MS} ms counted twice")
    assert wrong == {}, "time splits leaving out these categories"
