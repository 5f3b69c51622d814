"""critpath trace lab: real Linux TCP connections with injected delays and losses."""
