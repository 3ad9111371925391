"""CEL as Kubernetes uses it (k8s.io/apiserver/pkg/cel): the environment with Kubernetes' function
libraries, the static cost estimator and the evaluation of compiled programs.

Shared by CRD validation rules (x-kubernetes-validations) and, later, ValidatingAdmissionPolicy; the
expression engine underneath is cel-expr-python (the cel-cpp bindings).
"""
