"""discovery API group."""
