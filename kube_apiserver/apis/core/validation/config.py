"""ConfigMap and Secret (pkg/apis/core/validation: ValidateConfigMap, ValidateSecret and their update
rules: `immutable`, the secret's type)."""

from __future__ import annotations

import base64
import binascii
import json
from functools import lru_cache
from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_str
from kube_apiserver.runtime.errors import StatusCause, field_forbidden, field_invalid, field_required, field_too_long
from kube_apiserver.runtime.validation.names import is_config_map_key
from kube_apiserver.runtime.validation.objectmeta import validate_immutable_field

MAX_SECRET_SIZE = 1 << 20
IMMUTABLE_SET = "field is immutable when `immutable` is set"
SA_NAME_ANNOTATION = "kubernetes.io/service-account.name"


def _utf8_len(value: Any) -> int:
    return len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0


def _decoded(value: Any) -> bytes:
    """A []byte field as Go decodes it from JSON (base64); b"" when it is not valid base64."""
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return b""


@lru_cache(maxsize=4096)
def _key_errors(key: str) -> tuple[str, ...]:
    """A data key's errors: the same few keys come in object after object."""
    return tuple(is_config_map_key(key))


def validate_config_map(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    data, binary = as_dict(obj.get("data")), as_dict(obj.get("binaryData"))
    total = 0
    for key, value in data.items():
        causes += [field_invalid(f"data[{key}]", key, msg) for msg in _key_errors(key)]
        if key in binary:
            causes.append(field_invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += _utf8_len(value)
    for key, value in binary.items():
        causes += [field_invalid(f"binaryData[{key}]", key, msg) for msg in _key_errors(key)]
        total += len(_decoded(value))
    if total > MAX_SECRET_SIZE:
        # kube reports it at the empty path: it is about the whole object.
        causes.append(field_too_long("[]", "", MAX_SECRET_SIZE))
    return causes


def _same(new: Any, old: Any) -> bool:
    return (new or None) == (old or None)


def _immutable_rules(new: dict[str, Any], old: dict[str, Any], fields: tuple[str, ...]) -> list[StatusCause]:
    if old.get("immutable") is not True:
        return []
    causes: list[StatusCause] = []
    if new.get("immutable") is not True:
        causes.append(field_forbidden("immutable", IMMUTABLE_SET))
    for key in fields:
        if not _same(new.get(key), old.get(key)):
            causes.append(field_forbidden(key, IMMUTABLE_SET))
    return causes


def validate_config_map_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    return _immutable_rules(new, old, ("data", "binaryData"))


def _json_object_error(raw: bytes) -> str:
    """The error json.Unmarshal into a map[string]interface{} gives, in Go's words (the common cases)."""
    text = raw.decode("utf-8", "replace")
    if not text.strip():
        return "unexpected end of JSON input"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg.startswith("Expecting value") and e.pos < len(text):
            return f"invalid character '{text[e.pos]}' looking for beginning of value"
        if e.msg.startswith("Expecting property name") and e.pos < len(text):
            return f"invalid character '{text[e.pos]}' looking for beginning of object key string"
        if e.pos >= len(text.rstrip()):
            return "unexpected end of JSON input"
        return f"invalid character '{text[e.pos]}' after top-level value" if e.msg == "Extra data" else e.msg
    kinds = {list: "array", str: "string", bool: "bool", int: "number", float: "number"}
    for kind, name in kinds.items():
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return f"json: cannot unmarshal {name} into Go value of type map[string]interface {{}}"
    return ""


def validate_secret(obj: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    data = as_dict(obj.get("data"))
    # stringData is merged into data when the object is read; keys that only it carries count the same.
    string_data = {k: v for k, v in as_dict(obj.get("stringData")).items() if k not in data}
    total = 0
    for key, value in data.items():
        causes += [field_invalid(f"data[{key}]", key, msg) for msg in _key_errors(key)]
        total += len(_decoded(value))
    for key, value in string_data.items():
        causes += [field_invalid(f"data[{key}]", key, msg) for msg in _key_errors(key)]
        total += _utf8_len(value)
    if total > MAX_SECRET_SIZE:
        causes.append(field_too_long("data", "", MAX_SECRET_SIZE))
    present = set(data) | set(string_data)

    def raw(key: str) -> bytes:
        return _decoded(data[key]) if key in data else as_str(string_data.get(key)).encode()

    kind = as_str(obj.get("type"))
    if kind == "kubernetes.io/service-account-token":
        annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
        if not annotations.get(SA_NAME_ANNOTATION):
            causes.append(field_required(f"metadata.annotations[{SA_NAME_ANNOTATION}]"))
    elif kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if kind == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in present:
            causes.append(field_required(f"data[{key}]"))
        else:
            err = _json_object_error(raw(key))
            if err:
                causes.append(field_invalid(f"data[{key}]", "<secret contents redacted>", err))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in present and "password" not in present:
            causes += [field_required("data[username]"), field_required("data[password]")]
    elif kind == "kubernetes.io/ssh-auth":
        if "ssh-privatekey" not in present or not raw("ssh-privatekey"):
            causes.append(field_required("data[ssh-privatekey]"))
    elif kind == "kubernetes.io/tls":
        causes += [field_required(f"data[{k}]") for k in ("tls.crt", "tls.key") if k not in present]
    return causes


def validate_secret_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    causes = validate_immutable_field(as_str(new.get("type")), as_str(old.get("type")), "type")
    return causes + _immutable_rules(new, old, ("data",))


VALIDATORS = {("v1", "ConfigMap"): validate_config_map, ("v1", "Secret"): validate_secret}
UPDATE_VALIDATORS = {("v1", "ConfigMap"): validate_config_map_update, ("v1", "Secret"): validate_secret_update}
