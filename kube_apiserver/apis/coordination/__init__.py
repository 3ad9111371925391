"""coordination API group."""
