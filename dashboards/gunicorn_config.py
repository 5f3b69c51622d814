"""gunicorn settings for `critpath dashboards` (the launcher adds the address and the app). The
apache/superset image brings its own gunicorn, maybe older: it ignores settings it does not know."""
# threads: a dashboard asks for its charts in parallel and each mostly waits on DuckDB;
# two processes: Superset's own Python work holds the GIL, and the machine has two cores
worker_class = "gthread"
workers = 2
threads = 8
# a worker counts as silent while it loads Superset, which a busy 2-core machine can take minutes
# over; requests are not cut by it (gthread workers report alive while their threads work)
timeout = 300
# Superset's API takes its list filters in the query string: the longest request line gunicorn
# still bounds (its default is half that)
limit_request_line = 8190
accesslog = "-"
# gunicorn 25.1 and later open a control socket by default: nothing here uses it
control_socket_disable = True
