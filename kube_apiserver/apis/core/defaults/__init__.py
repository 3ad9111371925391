"""Defaults of the core group's kinds (pkg/apis/core/v1/defaults.go), one module per area; each module
has its own DEFAULTERS table, merged by apis/scheme.py."""
