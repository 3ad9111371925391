"""Validation shared by every kind (k8s.io/apimachinery/pkg/api/validation and util/validation)."""
