#!/usr/bin/env python3
"""critpath plot: one connection's time-sequence plot (paper 003) with its critical path on it.

  critpath plot --warehouse DIR --conn-uid UID [--out PREFIX]
  critpath plot --client-pcap c.pcap --server-pcap s.pcap --connection 10.0.0.1:51334 [--out PREFIX]

Writes PREFIX.svg (for reports and tickets) and PREFIX.html (self-contained: zoom, pan, hover for
each packet; plotly's script is inside, nothing is fetched when it is opened). From captures or
event files the connection is analysed first into a temporary warehouse (every packet kept) and
drawn from there, the same way as from a warehouse. How to read it: docs/plots.md.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import critpath_sql  # noqa: E402

# what a packet is, as the `packets` table's kind says; segments are drawn in their own direction's
# panel, acknowledgements as points on the ACK line of the other direction's
SEGMENT_KINDS = ("data", "syn", "fin", "rst", "window_probe", "keepalive",
                 "fast_retransmit", "timeout", "backoff", "tail_loss_probe", "path_mtu", "syn_ack_again", "fin_again",
                 "spurious")
ACK_KINDS = ("ack", "dup_ack", "zero_window")
KIND_STYLE = {  # colour, plotly marker, matplotlib marker (acknowledgements only)
    "data": ("#1f77b4", "line-ew", None),
    "syn": ("#555555", "line-ew", None),
    "fin": ("#555555", "line-ew", None),
    "rst": ("#000000", "line-ew", None),
    "window_probe": ("#8c564b", "line-ew", None),
    "keepalive": ("#8c564b", "line-ew", None),
    "fast_retransmit": ("#ff7f0e", "line-ew", None),
    "timeout": ("#d62728", "line-ew", None),
    "backoff": ("#7b0000", "line-ew", None),
    "tail_loss_probe": ("#9467bd", "line-ew", None),
    "path_mtu": ("#17becf", "line-ew", None),
    "syn_ack_again": ("#555555", "line-ew", None),
    "fin_again": ("#555555", "line-ew", None),
    "spurious": ("#e377c2", "line-ew", None),
    "ack": ("#2ca02c", "circle", "."),
    "dup_ack": ("#bcbd22", "x", "x"),
    "zero_window": ("#000000", "square", "s"),
}
CATEGORY_COLOURS = {
    "server": "#d95f02", "client": "#1b9e77", "propagation": "#7570b3", "queuing": "#e6ab02",
    "loss_timeout": "#e31a1c", "loss_fast_retransmit": "#fb6a4a", "loss_backoff": "#99000d", "idle": "#bdbdbd",
    "server_or_queuing": "#a6761d", "client_or_queuing": "#66a61e", "unknown": "#7f7f7f",
}
DIRECTION_TITLES = {"s2c": "server → client", "c2s": "client → server"}


def load(con, conn_uid):
    """The connection's rows from the warehouse: profile, verdict, critical path, packets (None if unknown)."""
    def rows(sql, *args):
        rel = con.execute(sql, [conn_uid, *args])
        names = [d[0] for d in rel.description]
        return [dict(zip(names, r)) for r in rel.fetchall()]

    profiles = rows("SELECT * FROM profiles WHERE conn_uid = ?")
    if not profiles:
        return None
    # the other tables' rows are in the connection's partition or (a long-lived one's segments) later ones
    since = profiles[0]["dt"]
    verdict = rows("SELECT * FROM screening WHERE conn_uid = ? AND dt >= ?", since)
    return {
        "profile": profiles[0],
        "verdict": verdict[0] if verdict else None,
        "arcs": rows("SELECT * FROM critical_path WHERE conn_uid = ? AND dt >= ? ORDER BY arc_index", since),
        "packets": rows("SELECT * FROM packets WHERE conn_uid = ? AND dt >= ? ORDER BY segment_start_us, time_us, tx_index, seen_at",
                        since),
    }


def seq_end(p):
    """First sequence number after the packet: SYN and FIN count one each."""
    return p["seq"] + p["len"] + ("S" in p["flags"]) + ("F" in p["flags"])


def other(direction):
    return "c2s" if direction == "s2c" else "s2c"


def side(p):
    """Which end's sensor captured the packet."""
    return "client" if (p["seen_at"] == "sender") == (p["direction"] == "c2s") else "server"


def ms(us):
    return f"{us / 1e3:,.1f} ms"


def scene(conn):
    """What the plot shows, drawing-library free: both renderers draw exactly this."""
    prof, packets, arcs = conn["profile"], conn["packets"], conn["arcs"]
    start = prof["start_us"]

    def x(us):
        return (us - start) / 1e3

    bytes_by_dir = {"c2s": prof["bytes_c2s"] or 0, "s2c": prof["bytes_s2c"] or 0}
    panels = sorted(("s2c", "c2s"), key=lambda d: -bytes_by_dir[d])

    marks = defaultdict(list)  # (panel, kind, seen_at, side) -> [(x, y_low, y_high, hover)]
    for p in packets:
        hover = (f"#{p['tx_index']} {p['direction']} {p['flags']} seq {p['seq']} len {p['len']} ack {p['ack']}"
                 f" win {p['window']}<br>{p['kind']}, seen at the {p['seen_at']} by {p['sensor']}"
                 f"<br>{x(p['time_us']):.3f} ms (sensor clock {p['sensor_time_us']} µs)"
                 + (f"<br>re-sends #{p['rtx_of']}, loss by {p['loss_cause']}" if p["rtx_of"] is not None else "")
                 + ("<br>on the critical path" if p["on_critical_path"] else ""))
        where = (p["direction"], p["kind"], p["seen_at"], side(p))
        if p["kind"] in ACK_KINDS:
            marks[(other(p["direction"]),) + where[1:]].append((x(p["time_us"]), p["ack"], p["ack"], hover))
        else:
            marks[where].append((x(p["time_us"]), p["seq"], seq_end(p), hover))

    # each packet as it left one sensor and as it reached the other, on the aligned clock
    flights = defaultdict(list)
    seen = defaultdict(dict)
    for p in packets:
        seen[(p["segment_start_us"], p["tx_index"])][p["seen_at"]] = p
    for both in seen.values():
        if len(both) == 2:
            s, r = both["sender"], both["receiver"]
            panel, y = (s["direction"], seq_end(s)) if s["kind"] not in ACK_KINDS else (other(s["direction"]), s["ack"])
            flights[panel].append((x(s["time_us"]), y, x(r["time_us"]), y))

    ack_lines, window_lines, sacks, zero_windows = {}, {}, defaultdict(list), defaultdict(list)
    end_x = x(prof["end_us"])
    for d in panels:
        acks = [p for p in packets if p["direction"] == other(d) and "A" in p["flags"]]
        # Shepard's view: the ACKs as they reach the data's sender; its own sensor if it had one
        at_sender = [p for p in acks if p["seen_at"] == "receiver"]
        acks = at_sender or acks
        ack_lines[d] = [(x(p["time_us"]), p["ack"]) for p in acks]
        window_lines[d] = [(x(p["time_us"]), p["window_edge"]) for p in acks if p["window_edge"] is not None]
        closed_since = None
        for p in acks:
            for lo, hi in zip(p["sack_starts"] or [], p["sack_ends"] or []):
                sacks[d].append((x(p["time_us"]), lo, hi))
            if p["window"] == 0 and "R" not in p["flags"] and closed_since is None:
                closed_since = x(p["time_us"])
            elif p["window"] > 0 and closed_since is not None:
                zero_windows[d].append((closed_since, x(p["time_us"])))
                closed_since = None
        if closed_since is not None:
            zero_windows[d].append((closed_since, end_x))

    # the critical path: a chain of packet events, each at its packet's place in the panel's sequence space
    path = {d: defaultdict(list) for d in panels}  # panel -> category -> [(x0, y0, x1, y1, hover)]
    timeline = defaultdict(list)
    for d in panels:
        prev_y = None
        for a in arcs:
            y = seq_end(a) if a["direction"] == d else a["ack"]
            hover = (f"arc {a['arc_index']}: {a['arc_type']} {a['category']} {ms(a['duration_us'])}"
                     f" ({a['endpoint']}, {a['direction']} {a['flags']} seq {a['seq']})"
                     + (", estimated" if a["estimated"] else ""))
            path[d][a["category"]].append((x(a["from_us"]), y if prev_y is None else prev_y, x(a["to_us"]), y, hover))
            prev_y = y
    for a in arcs:
        timeline[a["category"]].append((x(a["from_us"]), x(a["to_us"]), f"arc {a['arc_index']}: {a['category']} {ms(a['duration_us'])}"))

    duration = prof["duration_us"] or 1
    shares = {c: prof[c + "_us"] for c in critpath_sql.CATEGORIES}
    legend = {c: f"{c.replace('_', ' ')}: {ms(v)} ({100 * v / duration:.0f}%)" for c, v in shares.items()}
    verdict = conn["verdict"]
    title = (f"{prof['client_addr']}:{prof['client_port']} → {prof['server_addr']}:{prof['server_port']}"
             f" · {prof['mode'].replace('_', '-')} · {ms(prof['duration_us'])}"
             + ("" if verdict is None else (" · boring" if verdict["boring"] else " · worth a look")))
    if prof["mode"] == "two_point":
        unc = prof["clock_offset_uncertainty_us"]
        clock = (f"both sensors on the client sensor's clock: the server sensor's runs {prof['clock_offset_us']:+,} µs"
                 + (f" (± {unc:,} µs)" if unc is not None else " (a guess)") + " from it")
    else:
        clock = f"one sensor ({prof['client_sensor'] or prof['server_sensor']}): the other end's times are estimates, not drawn"
    bursty = ", ".join(f"{who} {prof['burstiness_' + d]:.0%}" for who, d in (("client", "c2s"), ("server", "s2c"))
                       if prof["burstiness_" + d] is not None)
    notes = [clock, "burstiness (paper 003, bytes sent at ≥10× the sender's throughput): " + (bursty or "too few data packets")]
    if len(packets) == 0:
        notes.append("no packets kept for this connection (boring and not sampled): the critical path alone")
    return {
        "title": title, "notes": notes, "verdict": verdict["explanation"] if verdict else "",
        "panels": panels, "marks": dict(marks), "flights": dict(flights), "ack_lines": ack_lines,
        "window_lines": window_lines, "sacks": dict(sacks), "zero_windows": dict(zero_windows),
        "path": path, "timeline": dict(timeline), "legend": legend,
        "categories": [c for c in critpath_sql.CATEGORIES if c in timeline],
    }


def mark_order(item):
    (_, kind, _, where), _ = item
    return (SEGMENT_KINDS + ACK_KINDS).index(kind), where


def mark_label(kind, where):
    return f"{kind.replace('_', ' ')} ({where}-side sensor)"


def wrap(text, width):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w).strip()
    return lines + ([line] if line else [])


def plotly_figure(sc):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = len(sc["panels"]) + 1
    shown = set()

    def once(name):
        """A legend entry for the first trace of that name only: later panels' join it."""
        first = name not in shown
        shown.add(name)
        return first

    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.05, row_heights=[0.45, 0.3, 0.25][:rows],
                        subplot_titles=[f"{DIRECTION_TITLES[d]}: data, its ACK line and window edge" for d in sc["panels"]]
                        + ["where the time went: the critical path's arcs by category"])
    for row, d in enumerate(sc["panels"], start=1):
        for lo, hi in sc["zero_windows"].get(d, []):
            fig.add_vrect(x0=lo, x1=hi, row=row, col=1, fillcolor="#000000", opacity=0.08, line_width=0)
        fl = sc["flights"].get(d, [])
        fig.add_trace(go.Scatter(x=[v for f in fl for v in (f[0], f[2], None)], y=[v for f in fl for v in (f[1], f[3], None)],
                                 mode="lines", line=dict(color="#d9d9d9", width=0.5), name="sensor to sensor", legendgroup="flight",
                                 showlegend=once("flight"), hoverinfo="skip"), row=row, col=1)
        for name, pts, colour in (("ACK line", sc["ack_lines"].get(d, []), "#2ca02c"),
                                  ("receive window edge", sc["window_lines"].get(d, []), "#ffbf00")):
            fig.add_trace(go.Scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines", line=dict(shape="hv", color=colour, width=1),
                                     name=name, legendgroup=name, showlegend=once(name), hoverinfo="skip"), row=row, col=1)
        sk = sc["sacks"].get(d, [])
        fig.add_trace(go.Scatter(x=[v for s in sk for v in (s[0], s[0], None)], y=[v for s in sk for v in (s[1], s[2], None)],
                                 mode="lines", line=dict(color="#17becf", width=3), name="SACK blocks", legendgroup="sack",
                                 showlegend=once("sack"), hoverinfo="skip"), row=row, col=1)
        for (panel, kind, seen_at, where), pts in sorted(sc["marks"].items(), key=mark_order):
            if panel != d:
                continue
            colour, symbol, _ = KIND_STYLE[kind]
            segment = kind in SEGMENT_KINDS
            name = mark_label(kind, where)
            fig.add_trace(go.Scatter(
                x=[p[0] for p in pts], y=[p[2] for p in pts], mode="markers", name=name, legendgroup=name, showlegend=once(name),
                meta={"kind": kind, "seen_at": seen_at},
                marker=dict(color=colour, symbol=symbol + ("" if seen_at == "sender" else "-open") if not segment else symbol,
                            size=7 if segment else 5, opacity=1.0 if seen_at == "sender" else 0.45, line=dict(color=colour, width=1)),
                error_y=dict(type="data", symmetric=False, array=[0] * len(pts), arrayminus=[p[2] - p[1] for p in pts],
                             color=colour, thickness=1.5, width=0) if segment else None,
                hovertext=[p[3] for p in pts], hoverinfo="text"), row=row, col=1)
        for c, segs in sc["path"][d].items():
            fig.add_trace(go.Scatter(
                x=[v for s in segs for v in (s[0], s[2], None)], y=[v for s in segs for v in (s[1], s[3], None)],
                mode="lines", line=dict(color=CATEGORY_COLOURS[c], width=3), opacity=0.8, name=sc["legend"][c],
                legendgroup=f"cat-{c}", showlegend=False, meta={"arcs": c, "panel": d, "count": len(segs)},
                hovertext=[v for s in segs for v in (s[4], s[4], None)], hoverinfo="text"), row=row, col=1)
        fig.update_yaxes(title_text="relative sequence number", row=row, col=1)
    for c in sc["categories"]:
        segs = sc["timeline"][c]
        fig.add_trace(go.Scatter(
            x=[v for s in segs for v in (s[0], s[1], None)], y=[v for s in segs for v in (c, c, None)], mode="lines",
            line=dict(color=CATEGORY_COLOURS[c], width=12), name=sc["legend"][c], legendgroup=f"cat-{c}",
            meta={"timeline": c, "count": len(segs)}, hovertext=[v for s in segs for v in (s[2], s[2], None)], hoverinfo="text"),
            row=rows, col=1)
    fig.update_xaxes(title_text="ms since the connection's first packet (client sensor's clock)", row=rows, col=1)
    subtitle = "<br>".join(sc["notes"] + wrap(sc["verdict"], 160))
    fig.update_layout(title=dict(text=f"{sc['title']}<br><sup>{subtitle}</sup>", x=0.01), height=1000, template="plotly_white",
                      legend=dict(groupclick="togglegroup"), hovermode="closest", dragmode="zoom", margin=dict(t=200))
    return fig


def html_page(sc, include_plotlyjs=True):
    """The interactive page; plotly's script inside it, or from that URL."""
    page = plotly_figure(sc).to_html(include_plotlyjs=include_plotlyjs, full_html=True, div_id="critpath-plot",
                                     config={"scrollZoom": True, "displaylogo": False})
    # an empty icon: the browser asks for none
    return page.replace("<head>", '<head>\n    <link rel="icon" href="data:,">', 1)


def write_html(sc, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(html_page(sc))


def write_svg(sc, path):
    import matplotlib

    matplotlib.use("svg")
    matplotlib.rcParams["svg.hashsalt"] = "critpath"  # the same drawing gives the same file (its element ids)
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    rows = len(sc["panels"]) + 1
    fig, axes = plt.subplots(rows, 1, sharex=True, figsize=(14, 11), height_ratios=[0.45, 0.3, 0.25][:rows])
    handles = []
    for ax, d in zip(axes, sc["panels"]):
        for lo, hi in sc["zero_windows"].get(d, []):
            ax.axvspan(lo, hi, color="#000000", alpha=0.08, lw=0, gid=f"zero-window-{d}")
        ax.add_collection(LineCollection([[(f[0], f[1]), (f[2], f[3])] for f in sc["flights"].get(d, [])],
                                         colors="#d9d9d9", linewidths=0.4, alpha=0.6, gid=f"flights-{d}", zorder=1))
        for name, pts, colour in (("ACK line", sc["ack_lines"].get(d, []), "#2ca02c"),
                                  ("receive window edge", sc["window_lines"].get(d, []), "#ffbf00")):
            if pts:
                ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", color=colour, lw=0.8, label=name)
        ax.add_collection(LineCollection([[(s[0], s[1]), (s[0], s[2])] for s in sc["sacks"].get(d, [])],
                                         colors="#17becf", linewidths=2.5, gid=f"sacks-{d}"))
        for (panel, kind, seen_at, where), pts in sorted(sc["marks"].items(), key=mark_order):
            if panel != d:
                continue
            colour, _, marker = KIND_STYLE[kind]
            alpha = 1.0 if seen_at == "sender" else 0.45
            gid = f"marks-{kind}-{seen_at}-{d}"
            if kind in SEGMENT_KINDS:
                ax.add_collection(LineCollection([[(p[0], p[1]), (p[0], p[2])] for p in pts], colors=colour, linewidths=1.5,
                                                 alpha=alpha, gid=gid, label=mark_label(kind, where), zorder=3))
            else:
                ax.scatter([p[0] for p in pts], [p[2] for p in pts], s=10, marker=marker, color=colour, alpha=alpha, gid=gid,
                           label=mark_label(kind, where), linewidths=0.8, zorder=3)
        for c, segs in sc["path"][d].items():
            ax.add_collection(LineCollection([[(s[0], s[1]), (s[2], s[3])] for s in segs], colors=CATEGORY_COLOURS[c],
                                             linewidths=3, alpha=0.85, gid=f"arcs-{d}-{c}", zorder=4))
        ax.autoscale_view()
        ax.set_title(f"{DIRECTION_TITLES[d]}: data, its ACK line and window edge", fontsize=9, loc="left")
        ax.set_ylabel("relative sequence number", fontsize=8)
        if ax.get_legend_handles_labels()[0]:  # a connection without packets kept has only its path here
            ax.legend(fontsize=6, loc="upper left", ncols=2)
    tl = axes[-1]
    for i, c in enumerate(sc["categories"]):
        tl.add_collection(LineCollection([[(s[0], i), (s[1], i)] for s in sc["timeline"][c]], colors=CATEGORY_COLOURS[c],
                                         linewidths=9, gid=f"timeline-{c}"))
        handles.append(Patch(color=CATEGORY_COLOURS[c], label=sc["legend"][c]))
    tl.set_yticks(range(len(sc["categories"])), [c.replace("_", " ") for c in sc["categories"]], fontsize=8)
    tl.set_ylim(-0.7, len(sc["categories"]) - 0.3)
    tl.autoscale_view(scaley=False)
    tl.set_title("where the time went: the critical path's arcs by category", fontsize=9, loc="left")
    tl.set_xlabel("ms since the connection's first packet (client sensor's clock)", fontsize=8)
    tl.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="critical path", title_fontsize=7)
    fig.suptitle("\n".join([sc["title"]] + sc["notes"] + wrap(sc["verdict"], 170)), fontsize=9, x=0.01, ha="left")
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def analyse_into(warehouse, captures, screen):
    """`critpath analyze` into a fresh warehouse, every connection keeping its packets."""
    props = os.path.join(warehouse, "screen.properties")
    with open(props, "w") as f:
        if screen:
            with open(screen) as given:
                f.write(given.read() + "\n")
        f.write("packets.boring_sample_rate = 1\npackets.max_per_connection = 2147483647\n")
    cmd = [os.path.join(HERE, "..", "critpath"), "analyze", *captures, "--parquet", os.path.join(warehouse, "w"), "--screen", props, "--quiet"]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):  # 1: some connection could not be analysed, the rest were
        sys.stderr.write(done.stderr)
        raise SystemExit(done.returncode)
    return os.path.join(warehouse, "w")


def pick(con, connection):
    """conn_uids whose client or server is ADDR:PORT (or PORT)."""
    addr, _, port = connection.rpartition(":") if ":" in connection and not connection.endswith("]") else ("", "", connection)
    addr = addr.strip("[]")
    sql = ("SELECT conn_uid, client_addr, client_port, server_addr, server_port FROM profiles "
           "WHERE (client_port = ? AND (? = '' OR client_addr = ?)) OR (server_port = ? AND (? = '' OR server_addr = ?)) ORDER BY start_us")
    return con.execute(sql, [int(port), addr, addr, int(port), addr, addr]).fetchall()


def main(argv=None):
    p = argparse.ArgumentParser(prog="critpath plot", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--warehouse", help="a Parquet warehouse (critpath analyze --parquet, the streaming job)")
    p.add_argument("--conn-uid", help="the connection (profiles.conn_uid)")
    for opt in ("--client-pcap", "--server-pcap"):
        p.add_argument(opt, metavar="FILE", help="a capture to analyse first (as `critpath analyze` does)")
    for opt in ("--pcap", "--events"):
        p.add_argument(opt, action="append", default=[], metavar="FILE", help="the same, repeatable")
    p.add_argument("--screen", metavar="FILE", help="the screen's properties for that analysis")
    p.add_argument("--connection", metavar="[ADDR:]PORT", help="the connection whose client or server is this")
    p.add_argument("--out", metavar="PREFIX", help="writes PREFIX.svg and PREFIX.html (default: critpath-plot-CLIENTPORT)")
    args = p.parse_args(argv)
    given = {"client_pcap": [args.client_pcap] if args.client_pcap else [], "server_pcap": [args.server_pcap] if args.server_pcap else [],
             "pcap": args.pcap, "events": args.events}
    captures = [v for opt, files in given.items() for f in files for v in ("--" + opt.replace("_", "-"), f)]
    if bool(captures) == bool(args.warehouse):
        p.error("give --warehouse, or captures/event files to analyse")
    with tempfile.TemporaryDirectory(prefix="critpath-plot-") as tmp:
        warehouse = args.warehouse or analyse_into(tmp, captures, args.screen)
        if not os.path.isdir(warehouse):
            p.error(f"no warehouse at {warehouse}")
        con = critpath_sql.connect(warehouse)
        uid = args.conn_uid
        if uid is None:
            found = pick(con, args.connection) if args.connection else con.execute(
                "SELECT conn_uid, client_addr, client_port, server_addr, server_port FROM profiles ORDER BY start_us").fetchall()
            if len(found) != 1:
                print(f"critpath plot: {len(found)} connections match; name one with --conn-uid or --connection:", file=sys.stderr)
                for f in found[:50]:
                    print(f"  {f[1]}:{f[2]} > {f[3]}:{f[4]}  --conn-uid '{f[0]}'", file=sys.stderr)
                return 2
            uid = found[0][0]
        conn = load(con, uid)
        if conn is None:
            print(f"critpath plot: no connection {uid} in {warehouse}", file=sys.stderr)
            return 2
        sc = scene(conn)
        prefix = args.out or f"critpath-plot-{conn['profile']['client_port']}"
        write_svg(sc, prefix + ".svg")
        write_html(sc, prefix + ".html")
        print(f"wrote {prefix}.svg and {prefix}.html ({len(conn['packets'])} packet sightings, {len(conn['arcs'])} arcs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
