"""scheduling API group."""
