"""One connection's time-sequence plot as a page of Superset's own web server, so that the
dashboards' connection tables can link each flagged connection to it (dashboards/README.md says
why a page next to Superset rather than a chart). Registered by superset_config.py:

  /critpath/plot?conn_uid=UID   the page (login required: it shows the warehouse's packets)
  /critpath/plotly.js           plotly's script, the same for every page, cached by the browser
"""
from urllib.parse import quote

import critpath_plot
import critpath_sql


def blueprint(warehouse):
    from flask import Blueprint, Response, abort, redirect, request
    from flask_login import current_user
    import plotly.offline

    bp = Blueprint("critpath_plot", __name__, url_prefix="/critpath")
    script = plotly.offline.get_plotlyjs()

    @bp.route("/plotly.js")
    def plotly_js():
        return Response(script, mimetype="application/javascript", headers={"Cache-Control": "max-age=86400"})

    @bp.route("/plot")
    def plot():
        if not current_user.is_authenticated:
            return redirect("/login/?next=" + quote(request.full_path))
        con = critpath_sql.connect(warehouse)
        try:
            conn = critpath_plot.load(con, request.args.get("conn_uid", ""))
        finally:
            con.close()
        if conn is None:
            abort(404)
        page = critpath_plot.html_page(critpath_plot.scene(conn), include_plotlyjs="/critpath/plotly.js")
        # Superset's content security policy runs only scripts that carry this request's nonce
        nonce = getattr(request, "csp_nonce", None)
        if nonce:
            page = page.replace("<script", f'<script nonce="{nonce}"')
        return Response(page, mimetype="text/html")

    return bp
