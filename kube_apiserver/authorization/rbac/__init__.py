"""RBAC (plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac): the authorizer, the bootstrap policy and its
reconciler, the ClusterRole aggregation controller and escalation prevention on RBAC writes."""
