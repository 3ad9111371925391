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
