"""HTTP endpoints of the critpath trace lab (run as scripts inside namespaces)."""
