"""Validation of the core group's kinds (pkg/apis/core/validation), one module per area; each module
has its own VALIDATORS / UPDATE_VALIDATORS tables, merged by apis/scheme.py."""
