"""apiregistration API group."""
