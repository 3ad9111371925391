"""admissionregistration.k8s.io validation (pkg/apis/admissionregistration/validation), one module per
kind family (webhooks.py, policies.py) on what they share (common.py, which has no tables); each
module's VALIDATORS / UPDATE_VALIDATORS / UPDATE_REPLACES_OBJECT_VALIDATION are merged by apis/scheme.py."""
