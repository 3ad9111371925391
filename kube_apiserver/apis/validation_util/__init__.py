"""Helpers shared by the validation of the built-in groups (the parts of k8s.io/apimachinery's
api/validation, util/validation and util/validation/field that the group validators call), with
kube-apiserver's exact messages and Go's rendering of the offending values."""
