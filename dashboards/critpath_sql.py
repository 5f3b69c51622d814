#!/usr/bin/env python3
"""critpath sql: the Parquet warehouse in DuckDB, one view per table plus blame views.

  critpath sql                                   interactive, on warehouse/demo
  critpath sql --warehouse DIR -c "select ..."   one query, a table on stdout
  critpath sql --warehouse DIR --database F      write the views into a DuckDB file (for Superset)
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "..", "schemas", "tables")
SHOWN_DECIMALS = 4
TABLES = ("profiles", "exchanges", "critical_path", "packets", "screening", "dead_letters")

# Avro types of schemas/tables as DuckDB types, for tables with no file yet
AVRO_TO_DUCKDB = {"long": "BIGINT", "int": "INTEGER", "double": "DOUBLE", "boolean": "BOOLEAN", "string": "VARCHAR"}


def fields(table):
    """The table's columns as schemas/tables/TABLE.avsc, their one source, declares them."""
    with open(os.path.join(SCHEMAS, table + ".avsc")) as f:
        return json.load(f)["fields"]


# the delay categories (Category.java): the CATEGORY_us columns the profiles schema marks "category"
CATEGORIES = tuple(f["name"].removesuffix("_us") for f in fields("profiles") if f.get("category"))

BLAME_COLUMNS = ",\n".join(
    [f"  sum({c}_us) / 1e3 AS {c}_ms" for c in CATEGORIES]
    # the cast keeps the division fractional in Trino as well (trino_sql.py reuses these)
    + [f"  CAST(sum({c}_us) AS DOUBLE) / nullif(sum(duration_us), 0) AS {c}_share" for c in CATEGORIES])

# IPv6 client networks are /48s: the first three groups of the address, "::" expanded first.
# (Macros are created in order: later ones use earlier ones.)
MACROS = {
    "v6_groups": """(a) AS (
  CASE WHEN contains(a, '::') THEN
    list_filter(string_split(split_part(a, '::', 1), ':'), lambda g: g <> '')
    || list_transform(range(8 - len(list_filter(string_split(split_part(a, '::', 1), ':'), lambda g: g <> ''))
                             - len(list_filter(string_split(split_part(a, '::', 2), ':'), lambda g: g <> ''))), lambda i: '0')
    || list_filter(string_split(split_part(a, '::', 2), ':'), lambda g: g <> '')
  ELSE string_split(a, ':') END)""",
    # canonical text (RFC 5952) of a /48 as Trino's ip_prefix prints it: trailing zero groups fold into "::"
    "v6_prefix48": """(g) AS (
  CASE WHEN g[3] <> '0' THEN g[1] || ':' || g[2] || ':' || g[3]
       WHEN g[2] <> '0' THEN g[1] || ':' || g[2]
       WHEN g[1] <> '0' THEN g[1]
       ELSE '' END || '::/48')""",
    "client_network": """(a) AS (
  CASE WHEN contains(a, ':')
       THEN v6_prefix48(list_transform(v6_groups(a)[1:3], lambda g: printf('%x', TRY_CAST('0x' || g AS INTEGER))))
       ELSE regexp_replace(a, '\\.\\d+$', '.0') || '/24' END)""",
}

# Convenience views: where the time went per server, per client network, per hour; what the screen flags.
CONVENIENCE = {
    "blame_by_server": f"""
SELECT server_addr, server_port, count(*) AS connections, sum(duration_us) / 1e3 AS duration_ms,
{BLAME_COLUMNS}
FROM profiles GROUP BY server_addr, server_port""",
    "blame_by_client_network": f"""
SELECT client_network(client_addr) AS client_network,
       count(*) AS connections, sum(duration_us) / 1e3 AS duration_ms,
{BLAME_COLUMNS}
FROM profiles GROUP BY client_network""",
    "blame_by_hour": f"""
SELECT dt, hour, count(*) AS connections, count(*) FILTER (WHERE NOT boring) AS worth_a_look,
       sum(duration_us) / 1e3 AS duration_ms,
{BLAME_COLUMNS}
FROM profiles GROUP BY dt, hour""",
    "screen_rule_failures": """
SELECT rule, count(*) AS connections, sum(score_us) / 1e3 AS score_ms
FROM (SELECT unnest(failed_rules) AS rule, score_us FROM screening) GROUP BY rule""",
}


def avro_type(t):
    if isinstance(t, list):
        return avro_type([x for x in t if x != "null"][0])
    if isinstance(t, dict):
        if t["type"] == "array":
            return avro_type(t["items"]) + "[]"
        if t["type"] == "map":
            return f"MAP(VARCHAR, {avro_type(t['values'])})"
    return AVRO_TO_DUCKDB[t]


def has_files(warehouse, table):
    """Whether the table has a finished Parquet file (in-progress ones are hidden: .part-...)."""
    return any(f.endswith(".parquet") and not f.startswith(".")
               for _, _, files in os.walk(os.path.join(warehouse, table)) for f in files)


def table_view(table, warehouse):
    """A view over the table's finished Parquet files, or an empty view of its schema while it has none."""
    root = os.path.join(warehouse, table)
    if has_files(warehouse, table):
        glob = os.path.join(root, "**", "*.parquet").replace("'", "''")
        return (f"SELECT * FROM read_parquet('{glob}', hive_partitioning = true, "
                f"hive_types = {{'dt': DATE, 'hour': INTEGER}})")
    columns = ", ".join(f"NULL::{avro_type(f['type'])} AS {f['name']}" for f in fields(table))
    return f"SELECT {columns}, NULL::DATE AS dt, NULL::INTEGER AS hour WHERE false"


def connect(warehouse, database=":memory:"):
    """A DuckDB connection with every view in place."""
    import duckdb  # here, not at the top: `critpath dashboards` uses has_files without DuckDB

    con = duckdb.connect(database)
    for name, body in MACROS.items():
        con.execute(f"CREATE OR REPLACE MACRO {name}{body}")
    for table in TABLES:
        con.execute(f"CREATE OR REPLACE VIEW {table} AS {table_view(table, os.path.abspath(warehouse))}")
    for name, sql in CONVENIENCE.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
    return con


def show(con, sql):
    rel = con.sql(sql)
    if rel is None:
        return
    # shares and milliseconds to four decimals: a double's full precision is noise to a reader
    quoted = ['"' + c.replace('"', '""') + '"' for c in rel.columns]
    shown = [f"round({q}, {SHOWN_DECIMALS}) AS {q}" if str(t) in ("DOUBLE", "FLOAT") else q for q, t in zip(quoted, rel.types)]
    rel.project(", ".join(shown)).show(max_width=200, max_rows=200)


def main(argv=None):
    p = argparse.ArgumentParser(prog="critpath sql", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--warehouse", default="warehouse/demo", help="the Parquet warehouse (default: %(default)s)")
    p.add_argument("-c", "--command", metavar="SQL", help="run one statement and exit")
    p.add_argument("--database", metavar="FILE", help="also keep the views in this DuckDB file")
    args = p.parse_args(argv)
    if not os.path.isdir(args.warehouse):
        print(f"critpath sql: no warehouse at {args.warehouse} (run ./critpath demo, or give --warehouse)", file=sys.stderr)
        return 2
    import duckdb

    con = connect(args.warehouse, args.database or ":memory:")
    if args.command:
        try:
            show(con, args.command)
        except duckdb.Error as e:
            print(f"critpath sql: {e}", file=sys.stderr)
            return 1
        return 0
    print(f"critpath sql on {os.path.abspath(args.warehouse)}: views {', '.join(TABLES + tuple(CONVENIENCE))}.")
    print("End statements with ';'. Ctrl-D quits.")
    buf = []
    while True:
        try:
            line = input("sql> " if not buf else "...> ")
        except EOFError:
            print()
            return 0
        buf.append(line)
        if line.rstrip().endswith(";"):
            try:
                show(con, "\n".join(buf))
            except duckdb.Error as e:
                print(f"error: {e}")
            buf = []


if __name__ == "__main__":
    sys.exit(main())
