"""certificates API group."""
