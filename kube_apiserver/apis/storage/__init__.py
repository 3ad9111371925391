"""storage API group."""
