"""Structural schemas: the OpenAPI definitions of the built-in kinds (and later CRDs' schemas),
and the engine that checks, prunes and reports on objects against them."""
