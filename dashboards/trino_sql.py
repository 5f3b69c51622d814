#!/usr/bin/env python3
"""The warehouse for Trino's Hive connector: external tables over the Parquet files (hive
partitions dt/hour) and the same convenience views as `critpath sql`, as SQL to run once.

  python3 dashboards/trino_sql.py --location s3://bucket/critpath | trino --server ... --catalog hive
  python3 dashboards/trino_sql.py --location local:///data/critpath      # Trino's local file system

Run it again after new partitions appear, or call hive.system.sync_partition_metadata yourself.
"""
import argparse
import sys

import critpath_sql

AVRO_TO_TRINO = {"long": "bigint", "int": "integer", "double": "double", "boolean": "boolean", "string": "varchar"}

# critpath_sql's views in Trino's dialect: the same columns and rows
def _group(i):
    """Group i (1-3) of an IPv6 client address as hex without leading zeros."""
    return f"format('%x', from_base(to_hex(substr(CAST(CAST(client_addr AS ipaddress) AS varbinary), {2 * i - 1}, 2)), 16))"


# the client /24 or /48 as critpath_sql's client_network macro writes it (Trino 476 has no ip_prefix)
CLIENT_NETWORK = f"""CASE WHEN strpos(client_addr, ':') = 0 THEN regexp_replace(client_addr, '\\.\\d+$', '.0') || '/24'
       ELSE CASE WHEN {_group(3)} <> '0' THEN {_group(1)} || ':' || {_group(2)} || ':' || {_group(3)}
                 WHEN {_group(2)} <> '0' THEN {_group(1)} || ':' || {_group(2)}
                 WHEN {_group(1)} <> '0' THEN {_group(1)}
                 ELSE '' END || '::/48' END"""


def trino_type(t):
    if isinstance(t, list):
        return trino_type([x for x in t if x != "null"][0])
    if isinstance(t, dict):
        if t["type"] == "array":
            return f"array({trino_type(t['items'])})"
        if t["type"] == "map":
            return f"map(varchar, {trino_type(t['values'])})"
    return AVRO_TO_TRINO[t]


def views(schema):
    """critpath_sql's views, table names qualified (Trino binds a view's names when it is created)."""
    shares = critpath_sql.BLAME_COLUMNS
    sql = {
        "blame_by_server": critpath_sql.CONVENIENCE["blame_by_server"],
        "blame_by_client_network": f"""
SELECT {CLIENT_NETWORK} AS client_network,
       count(*) AS connections, sum(duration_us) / 1e3 AS duration_ms,
{shares}
FROM profiles GROUP BY 1""",
        "blame_by_hour": critpath_sql.CONVENIENCE["blame_by_hour"],
        "screen_rule_failures": """
SELECT rule, count(*) AS connections, sum(score_us) / 1e3 AS score_ms
FROM screening CROSS JOIN UNNEST(failed_rules) AS t (rule) GROUP BY rule""",
    }
    return {name: text.replace("FROM profiles", f"FROM {schema}.profiles").replace("FROM screening", f"FROM {schema}.screening")
            for name, text in sql.items()}


def statements(location, schema):
    # "local:///" (a catalog whose local file system is the warehouse itself) keeps its slash
    location = location if location.endswith(":///") else location.rstrip("/")
    under = location if location.endswith("/") else location + "/"
    out = [f"CREATE SCHEMA IF NOT EXISTS {schema} WITH (location = '{location}')"]
    for table in critpath_sql.TABLES:
        columns = ",\n  ".join(f"{f['name']} {trino_type(f['type'])}" for f in critpath_sql.fields(table))
        out.append(f"CREATE TABLE IF NOT EXISTS {schema}.{table} (\n  {columns},\n  dt date,\n  hour integer\n) WITH (\n"
                   f"  external_location = '{under}{table}', format = 'PARQUET', partitioned_by = ARRAY['dt', 'hour'])")
        out.append(f"CALL system.sync_partition_metadata('{schema}', '{table}', 'FULL')")
    for name, sql in views(schema).items():
        out.append(f"CREATE OR REPLACE VIEW {schema}.{name} AS{sql}")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="trino_sql.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--location", required=True, help="the warehouse as Trino reaches it (s3://..., hdfs://..., local:///...)")
    p.add_argument("--schema", default="critpath", help="schema in the Hive catalog (default: %(default)s)")
    args = p.parse_args(argv)
    for s in statements(args.location, args.schema):
        print(s + ";\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
