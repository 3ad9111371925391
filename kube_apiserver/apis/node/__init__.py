"""node API group."""
