"""Typed decoding of request bodies with server-side field validation (fieldValidation=Strict,
Warn or Ignore; the default is Warn), as the serializers of kube-apiserver do it for built-in kinds.

The decoded object is walked against its kind's schema: unknown fields are dropped (and reported),
nulls are dropped, quantities take their canonical form, and the first JSON type error is a 400 in
Go's words: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal
string into Go struct field DeploymentSpec.spec.replicas of type int32`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.endpoints.request import Request
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.schema.structural import DecodeReport, Node, decode_check, schema_for_kind
from kube_apiserver.runtime.serializer import json_field_order, may_have_duplicates, yaml_duplicate_lines

IGNORE, WARN, STRICT = "Ignore", "Warn", "Strict"
_ALLOWED = ("", IGNORE, STRICT, WARN)  # sorted, as kube lists them in the error
_OPTIONS_KIND = {"POST": "CreateOptions", "PUT": "UpdateOptions", "PATCH": "PatchOptions"}

# Custom resources: (group, version, kind) → a function pruning an object in place against the CRD
# version's structural schema and reporting what it dropped; kept by the apiextensions server.
CUSTOM_DECODERS: dict[tuple[str, str, str], Callable[[dict[str, Any]], DecodeReport]] = {}


def field_validation(req: Request) -> str:
    """The fieldValidation directive of a write request; 422 for a value kube does not know."""
    value = req.param("fieldValidation")
    if value not in _ALLOWED:
        kind = _OPTIONS_KIND.get(req.method, "CreateOptions")
        cause = errors.field_not_supported("fieldValidation", value, list(_ALLOWED))
        raise errors.new_invalid("meta.k8s.io", kind, "", [cause])
    return value or WARN


def typed_decode(
    req: Request,
    obj: dict[str, Any],
    group: str,
    version: str,
    kind: str,
    body: bytes = b"",
    media: str = "application/json",
    directive: str | None = None,
    patched: bool = False,
) -> None:
    """Check and prune obj (in place) against the schema of group/version/kind, then apply the
    fieldValidation directive to what was unknown or duplicated: 400 (Strict), Warning headers
    (Warn) or nothing (Ignore). body/media are the raw request, for finding duplicate keys;
    patched: obj is the result of applying body as a patch."""
    node: Node | None = schema_for_kind(group, version, kind)
    custom = CUSTOM_DECODERS.get((group, version, kind)) if node is None else None
    if node is None and custom is None:
        return
    if directive is None:
        directive = field_validation(req)
    report = decode_check(obj, node) if node is not None else custom(obj)  # type: ignore[misc]
    if report.type_error:
        raise errors.new_bad_request(
            f'{kind} in version "{version}" cannot be handled as a {kind}: {report.type_error}'
        )
    if directive == IGNORE:
        return
    problems = _patch_problems(report, body) if patched else _strict_problems(report, body, media)
    if not problems:
        return
    if directive == STRICT:
        detail = ", ".join(problems)
        raise errors.new_bad_request(
            f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: {detail}'
        )
    for text in problems if media not in _YAML else _yaml_warnings(problems):
        req.add_warning(text)


_YAML = ("application/yaml", "application/apply-patch+yaml")


def _strict_problems(report: DecodeReport, body: bytes, media: str) -> list[str]:
    if media in _YAML:
        dup_lines = yaml_duplicate_lines(body) if body else []
        problems = [f'unknown field "{p}"' for p in sorted(report.unknown)]
        if dup_lines:
            problems.insert(0, "yaml: unmarshal errors:\n  " + "\n  ".join(dup_lines))
        return problems
    if media != "application/json" and not media.endswith("+json") or not body:
        return [f'unknown field "{p}"' for p in report.unknown]
    if not may_have_duplicates(body, report.keys):
        return [f'unknown field "{p}"' for p in report.unknown]
    # Document order, as Go's decoder meets them; a field both unknown and repeated is only unknown.
    unknown = set(report.unknown)
    problems = []
    for path, repeated in json_field_order(body):
        if path in unknown:
            problems.append(f'unknown field "{path}"')
            unknown.discard(path)
        elif repeated and not any(path.startswith(u + ".") or path.startswith(u + "[") for u in report.unknown):
            problems.append(f'duplicate field "{path}"')
    problems.extend(f'unknown field "{p}"' for p in report.unknown if p in unknown)
    return problems


def _patch_problems(report: DecodeReport, body: bytes) -> list[str]:
    # As kube's patcher reports them: the patch's own repeated keys in its order, then the unknown
    # fields of the patched object, which it re-encodes from a map (so in sorted order).
    problems = [f'duplicate field "{path}"' for path, repeated in json_field_order(body) if repeated] if body else []
    return problems + [f'unknown field "{p}"' for p in sorted(report.unknown)]


def _yaml_warnings(problems: list[str]) -> list[str]:
    out = []
    for p in problems:
        if p.startswith("yaml: unmarshal errors:\n  "):
            out.extend(p.split("\n  ")[1:])
        else:
            out.append(p)
    return out
