"""authorization API group."""
