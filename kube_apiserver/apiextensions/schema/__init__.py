"""Structural schemas of CustomResourceDefinitions (apiextensions-apiserver/pkg/apiserver/schema):
pruning of unknown fields, defaulting and OpenAPI v3 value validation, on plain JSON dicts."""
