"""PodSecurity admission (k8s.io/pod-security-admission): the Pod Security Standards (privileged, baseline,
restricted) enforced on pods and warned about on pods and workload pod templates, by namespace labels."""
