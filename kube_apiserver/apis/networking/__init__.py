"""networking API group."""
