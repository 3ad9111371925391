"""autoscaling API group."""
