"""Auditing (k8s.io/apiserver/pkg/audit and plugin/pkg/audit): the policy that picks a level per request, the
event a request builds on its way through the chain, and the backends that write events (log file, webhook),
with the batching and truncating wrappers kube puts around them.

Not a layer of its own on the map: it sits beside authentication/authorization (it knows users and request
attributes, never endpoints). The filters that drive it are in endpoints/filters/audit.py; other filters add
to the event through `context.add_audit_annotations(scope, ...)`.
"""
