"""batch API group."""
