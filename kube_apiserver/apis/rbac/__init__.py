"""rbac API group."""
