"""admissionregistration.k8s.io validation (pkg/apis/admissionregistration/validation), one module per
kind family; each module's VALIDATORS / UPDATE_VALIDATORS are merged by apis/scheme.py."""
