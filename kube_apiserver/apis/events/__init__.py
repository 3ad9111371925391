"""events API group."""
