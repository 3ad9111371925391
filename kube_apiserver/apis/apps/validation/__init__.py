"""Validation of apps/v1 (pkg/apis/apps/validation and the selector rules of the apps strategies),
one module per kind; each module's VALIDATORS / UPDATE_VALIDATORS are merged by apis/scheme.py."""
