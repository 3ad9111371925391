"""authentication API group."""
