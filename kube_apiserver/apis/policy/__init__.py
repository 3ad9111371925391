"""policy API group."""
