"""apps API group."""
