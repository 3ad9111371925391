"""Value transformers (k8s.io/apiserver/pkg/storage/value): what the storage writes is the transformed value."""
