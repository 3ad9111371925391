"""Custom resource conversion between the versions of a CRD (apiextensions-apiserver/pkg/apiserver/conversion):
the None strategy (apiVersion rewritten), the Webhook strategy (a ConversionReview sent to the CRD's
conversion webhook, its answer checked as kube checks it), the webhook's HTTPS client and service
resolution, the per-version converted watch cache, and the validation of spec.conversion."""
