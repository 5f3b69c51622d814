#!/usr/bin/env python3
"""Renders the parts of the Superset bundle (bundle/) that list the delay categories, from the
warehouse schema (critpath_sql.CATEGORIES: the columns schemas/tables/profiles.avsc marks
"category"), so that every dashboard shows every category and a new one needs no YAML edited:

  the SQL of the datasets connections, category_times and pie_vs_path;
  the metrics of the time-split charts and the columns of the worst-connections table (with a
  link to each connection's plot).

The rest of each file stays as it is. Run after changing the categories (PyYAML is in the tests'
environment):

  dashboards/venv-python .ci/requirements-tests.txt dashboards/render_bundle.py

tests/test_columns.py fails while a committed file differs from its rendering.
"""
import json
import os
import sys

import yaml

import critpath_sql

BUNDLE = os.path.join(critpath_sql.HERE, "bundle")
DATASETS = os.path.join(BUNDLE, "datasets", "critpath_warehouse")
CHARTS = os.path.join(BUNDLE, "charts")
# the width the committed files are wrapped at, so that rendering an unchanged file gives the same text
YAML_WIDTH = 120

# paper 002's pie slices (profiles' pie_SLICE_us) and the categories the critical path puts in each;
# the path's other parts stand beside them on their own
PIE_SLICES = {"client": ("client", "client_or_queuing"), "server": ("server", "server_or_queuing"),
              "network": ("propagation", "queuing")}
# stacked bars or areas of every part of the time split (metric SUM(PART_ms) per part)
SPLIT_CHARTS = ("blame_server", "blame_network", "blame_trend")
# the table of the worst connections: these columns around the parts' PART_ms
WORST_CHART = "fleet_worst"
WORST_BEFORE = ("client_addr", "server_addr", "server_port", "duration_ms")
WORST_AFTER = ("failed_rules", "plot")
# a table cell that opens the connection's time-sequence plot (plot_pages.py, served next to Superset)
PLOT_LINK = ("'<a href=\"/critpath/plot?conn_uid=' || url_encode(p.conn_uid) || '\" target=\"_blank\" "
             "class=\"critpath-plot\">plot</a>'")


def parts():
    """The time split the dashboards show, {part: its categories}: each category on its own but the
    loss causes, which add up to one "loss"."""
    out = {}
    for c in critpath_sql.CATEGORIES:
        out.setdefault("loss" if c.startswith("loss_") else c, []).append(c)
    return out


def label(part):
    return part.replace("_", " ")


def us_sum(categories):
    return " + ".join(c + "_us" for c in categories)


def connections_sql():
    split = "".join(f"  ({us_sum(cs)}) / 1e3 AS {part}_ms,\n" for part, cs in parts().items())
    return ("SELECT p.*, make_timestamp(p.start_us) AS started_at, p.duration_us / 1e3 AS duration_ms,\n" + split
            + "  client_network(p.client_addr) AS client_network,\n"
            + "  CASE WHEN p.boring THEN 'boring' ELSE 'worth a look' END AS verdict,\n"
            + f"  {PLOT_LINK} AS plot\nFROM profiles p")


def category_times_sql():
    return " UNION ALL\n".join(
        f"SELECT conn_uid, make_timestamp(start_us) AS started_at, '{label(part)}' AS category, ({us_sum(cs)}) / 1e3 AS ms, "
        "duration_us / 1e3 AS duration_ms FROM profiles" for part, cs in parts().items())


def pie_vs_path_sql():
    sliced = {c for cs in PIE_SLICES.values() for c in cs}
    if sliced - set(critpath_sql.CATEGORIES):
        raise SystemExit(f"render_bundle.py: PIE_SLICES names {sorted(sliced - set(critpath_sql.CATEGORIES))}, no categories")
    path = {name: list(cs) for name, cs in PIE_SLICES.items()}
    for part, cs in parts().items():
        if set(cs) - sliced:
            path[label(part)] = [c for c in cs if c not in sliced]
    rows = [("paper 002 pie", name, f"pie_{name}_us") for name in PIE_SLICES]
    rows += [("critical path", name, us_sum(cs)) for name, cs in path.items()]
    (method, part, us), *rest = rows
    return "\n".join([f"SELECT '{method}' AS method, '{part}' AS part, sum({us}) / 1e3 AS ms FROM profiles"]
                     + [f"UNION ALL SELECT '{m}', '{p}', sum({u}) / 1e3 FROM profiles" for m, p, u in rest])


def split_metrics():
    return [{"expressionType": "SQL", "sqlExpression": f"SUM({part}_ms)", "label": label(part)} for part in parts()]


def worst_columns():
    return [*WORST_BEFORE, *(f"{part}_ms" for part in parts()), *WORST_AFTER]


def with_chart_fields(chart, params, query):
    """The chart with these fields set in its params, its form data and its first query alike
    (Superset keeps the form twice: params and query_context)."""
    context = json.loads(chart["query_context"])
    chart["params"].update(params)
    context["form_data"].update(params)
    context["queries"][0].update(query)
    chart["query_context"] = json.dumps(context)
    return chart


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def dump(doc):
    return yaml.safe_dump(doc, sort_keys=False, width=YAML_WIDTH, allow_unicode=True)


def render():
    """{path: text} of every file this renders, as it must be committed."""
    out = {}
    for name, sql in (("connections", connections_sql()), ("category_times", category_times_sql()),
                      ("pie_vs_path", pie_vs_path_sql())):
        path = os.path.join(DATASETS, name + ".yaml")
        out[path] = dump({**load(path), "sql": sql})
    for name in SPLIT_CHARTS:
        path = os.path.join(CHARTS, name + ".yaml")
        out[path] = dump(with_chart_fields(load(path), {"metrics": split_metrics()}, {"metrics": split_metrics()}))
    path = os.path.join(CHARTS, WORST_CHART + ".yaml")
    # the plot column's link is HTML the table renders
    out[path] = dump(with_chart_fields(load(path), {"all_columns": worst_columns(), "allow_render_html": True},
                                       {"columns": worst_columns()}))
    return out


def main():
    for path, text in render().items():
        with open(path, "w") as f:
            f.write(text)
        print(os.path.relpath(path, critpath_sql.HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
