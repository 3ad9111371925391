"""apiextensions API group."""
