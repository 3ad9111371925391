"""core API group."""
