"""Generated protobuf field tables, one module per API group version (see ../generate_schemas.py)."""
