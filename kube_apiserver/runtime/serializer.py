"""Wire encodings: JSON (orjson) and YAML (PyYAML's C loader and dumper)."""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from kube_apiserver.runtime.errors import StatusError, new_bad_request

try:  # the C implementations are ~10x faster; fall back where libyaml is missing
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]


def decode_json(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise new_bad_request(f"error decoding request body as JSON: {e}") from None


class _StrictLoader(_Loader):  # type: ignore[misc,valid-type]
    pass


# Timestamps and such stay strings as in JSON: kube decodes YAML by converting it to JSON first.
_StrictLoader.yaml_implicit_resolvers = {
    k: [(tag, regexp) for tag, regexp in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in _Loader.yaml_implicit_resolvers.items()
}


def decode_yaml(data: bytes) -> Any:
    try:
        return yaml.load(data, Loader=_StrictLoader)
    except yaml.YAMLError as e:
        raise new_bad_request(f"error converting YAML to JSON: {str(e).splitlines()[0] if str(e) else e}") from None


def encode_yaml(obj: Any) -> bytes:
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True).encode()


def encode_json(obj: Any) -> bytes:
    return orjson.dumps(obj)


def decode_body(data: bytes, media_type: str) -> Any:
    if media_type == "application/vnd.kubernetes.protobuf":
        from kube_apiserver.runtime.protobuf import ProtobufDecodeError, decode_protobuf

        try:
            return decode_protobuf(data)
        except ProtobufDecodeError as e:
            raise new_bad_request(f"error decoding request body: {e}") from None
    if media_type in ("application/yaml", "application/apply-patch+yaml"):
        return decode_yaml(data)
    return decode_json(data)


def ensure_object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StatusError(400, "BadRequest", "the body of the request must be a JSON or YAML object", details=False)
    return value


# --- duplicate fields (for fieldValidation) --------------------------------------------------------


def may_have_duplicates(data: bytes, keys_seen: int) -> bool:
    """False when the JSON text certainly has no duplicate object keys.

    Without escaped quotes no string can contain '"', so every '":' ends a key; if their count
    equals the keys the decoded object has, no key was repeated. Otherwise look closer.
    """
    # A lone backslash is found far faster than the two-byte sequence; without one there is no \".
    return (b"\\" in data and b'\\"' in data) or data.count(b'":') != keys_seen


class _Pairs(dict):  # type: ignore[type-arg]
    __slots__ = ("duplicates",)


def _pairs_hook(pairs: list[tuple[str, Any]]) -> _Pairs:
    out = _Pairs(pairs)
    out.duplicates = []
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen and k not in out.duplicates:
                out.duplicates.append(k)
            seen.add(k)
    return out


def json_field_order(data: bytes) -> list[tuple[str, bool]]:
    """Every field path of a JSON document in document order, with whether its key was repeated
    in its object (paths as kube writes them: spec.template.spec.containers[0].image)."""
    import json

    try:
        doc = json.loads(data, object_pairs_hook=_pairs_hook)
    except ValueError:
        return []
    out: list[tuple[str, bool]] = []
    _walk_pairs(doc, "", out)
    return out


def _walk_pairs(value: Any, path: str, out: list[tuple[str, bool]]) -> None:
    if isinstance(value, _Pairs):
        prefix = f"{path}." if path else ""
        for k, v in value.items():
            p = prefix + k
            out.append((p, k in value.duplicates))
            _walk_pairs(v, p, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk_pairs(v, f"{path}[{i}]", out)


class _DuplicateRecordingLoader(_StrictLoader):  # type: ignore[misc,valid-type]
    """Records 'line N: key "k" already set in map' as kube's YAML decoder words it."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = key_node.value
            if key in seen:
                self.duplicate_lines.append(f'line {key_node.start_mark.line + 1}: key "{key}" already set in map')
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def yaml_duplicate_lines(data: bytes) -> list[str]:
    loader = _DuplicateRecordingLoader(data)
    loader.duplicate_lines = []
    try:
        loader.get_single_data()
    except yaml.YAMLError:
        return []
    finally:
        loader.dispose()
    return sorted(loader.duplicate_lines, key=lambda line: int(line.split(":", 1)[0][5:]))
