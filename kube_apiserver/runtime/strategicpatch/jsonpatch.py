"""JSON patch (RFC 6902) and JSON merge patch (RFC 7386) as kube-apiserver applies them, i.e. with
the behaviour of gopkg.in/evanphx/json-patch.v4 rather than the letter of the RFCs:

- "replace" of a missing object key adds it; "add", "replace", "test" and "copy" without a value
  use null; array indices may be negative (counted from the end); a path that does not start with
  "/" has its first segment ignored; "replace" of the whole document ("") with a scalar does nothing.
- "test" compares scalars by their JSON text (1 and 1.0 differ) and passes for a missing member when
  the value is null.
- merge patch: a null member of a value that is merged into nothing (or into a non-object) is
  dropped, nulls inside arrays are kept, and a non-object patch replaces the whole document.

Failures raise JSONPatchError; kube-apiserver turns every one of them into the same 422, so the
texts here are for logs only.
"""

from __future__ import annotations

import copy
import json as stdjson
import re
from typing import Any

import orjson

from kube_apiserver.runtime.strategicpatch import gojson

_CONTAINERS = (dict, list)  # a tuple: `X | Y` in isinstance builds a union object on every call

_INDEX = re.compile(r"[+-]?[0-9]+")
_ESCAPE = re.compile(r"~[01]")


class JSONPatchError(Exception):
    pass


def _decode_key(part: str) -> str:
    if "~" not in part:
        return part
    return _ESCAPE.sub(lambda m: "/" if m.group() == "~1" else "~", part)


def _atoi(key: str) -> int:
    if not _INDEX.fullmatch(key):
        raise JSONPatchError(f"value was not a proper array index: '{key}'")
    idx = int(key)
    if not -(2**63) <= idx < 2**63:
        raise JSONPatchError(f"value was not a proper array index: '{key}'")
    return idx


def _get(container: Any, key: str) -> Any:
    if isinstance(container, dict):
        return container.get(key)
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(container):
            raise JSONPatchError(f"Unable to access invalid index: {idx}")
        idx += len(container)
    if idx >= len(container):
        raise JSONPatchError(f"Unable to access invalid index: {idx}")
    return container[idx]


def _add(container: Any, key: str, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    idx = _atoi(key)
    size = len(container) + 1
    if idx >= size or idx < -size:
        raise JSONPatchError(f"Unable to access invalid index: {idx}")
    if idx < 0:
        idx += size
    container.insert(idx, value)


def _remove(container: Any, key: str) -> None:
    if isinstance(container, dict):
        if key not in container:
            raise JSONPatchError(f"Unable to remove nonexistent key: {key}")
        del container[key]
        return
    idx = _atoi(key)
    if idx >= len(container) or idx < -len(container):
        raise JSONPatchError(f"Unable to access invalid index: {idx}")
    del container[idx]


def _find(doc: Any, path: str) -> tuple[Any, str]:
    """findObject: the container a path's last segment lives in (None when the way is missing)."""
    split = path.split("/")
    if len(split) < 2:
        return None, ""
    cur = doc
    for part in split[1:-1]:
        try:
            nxt = _get(cur, _decode_key(part))
        except JSONPatchError:
            return None, ""
        if not isinstance(nxt, _CONTAINERS):
            return None, ""
        cur = nxt
    return cur, _decode_key(split[-1])


def _string_field(op: dict[str, Any], name: str) -> str:
    value = op.get(name)
    if value is None:
        raise JSONPatchError(f"operation missing {name} field")
    if not isinstance(value, str):
        raise JSONPatchError(f"operation {name} is not a string")
    return value


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            if k not in b:
                return False
            ov = b[k]
            if (v is None) != (ov is None):
                return False
            if v is not None and not _equal(v, ov):
                return False
        return True
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


# How much "copy" operations may add to a document in one patch (kube-apiserver's JSONPatchMaxCopyBytes,
# the request body limit, given to json-patch as AccumulatedCopySizeLimit): each copy may double the
# document, and a few dozen would take the server's memory and time for everyone.
MAX_COPY_BYTES = 3 * 1024 * 1024


def _json_size(value: Any) -> int:
    """The size of value's JSON text, as json-patch measures a copy (Go's json.Marshal)."""
    try:
        return len(orjson.dumps(value))
    except TypeError:  # an integer beyond 64 bits, which orjson does not write
        return len(stdjson.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def apply_json_patch(doc: Any, ops: list[Any]) -> Any:
    """Apply decoded operations to doc (changed in place) and return the document."""
    copied = 0
    for op in ops:
        if not isinstance(op, dict):
            op = {}
        kind = op.get("op")
        if not isinstance(kind, str):
            kind = "unknown"
        if kind == "add":
            path = _string_field(op, "path")
            con, key = _find(doc, path)
            if con is None:
                raise JSONPatchError(f'add operation does not apply: doc is missing path: "{path}"')
            _add(con, key, op.get("value"))
        elif kind == "remove":
            path = _string_field(op, "path")
            con, key = _find(doc, path)
            if con is None:
                raise JSONPatchError(f'remove operation does not apply: doc is missing path: "{path}"')
            _remove(con, key)
        elif kind == "replace":
            doc = _replace(doc, op)
        elif kind == "move":
            source = _string_field(op, "from")
            con, key = _find(doc, source)
            if con is None:
                raise JSONPatchError(f"move operation does not apply: doc is missing from path: {source}")
            value = _get(con, key)
            _remove(con, key)
            path = _string_field(op, "path")
            con, key = _find(doc, path)
            if con is None:
                raise JSONPatchError(f"move operation does not apply: doc is missing destination path: {path}")
            _add(con, key, value)
        elif kind == "copy":
            source = _string_field(op, "from")
            con, key = _find(doc, source)
            if con is None:
                raise JSONPatchError(f"copy operation does not apply: doc is missing from path: {source}")
            value = _get(con, key)
            path = _string_field(op, "path")
            con, key = _find(doc, path)
            if con is None:
                raise JSONPatchError(f"copy operation does not apply: doc is missing destination path: {path}")
            copied += _json_size(value)
            if copied > MAX_COPY_BYTES:
                raise JSONPatchError(
                    f"Unable to complete the copy, the accumulated size increase of copy is {copied}, "
                    f"exceeding the limit {MAX_COPY_BYTES}"
                )
            _add(con, key, copy.deepcopy(value))
        elif kind == "test":
            _test(doc, op)
        else:
            raise JSONPatchError(f"Unexpected kind: {kind}")
    return doc


def _replace(doc: Any, op: dict[str, Any]) -> Any:
    path = _string_field(op, "path")
    value = op.get("value")
    if path == "":
        # the whole document; a scalar value is silently ignored (v4 wraps a nil error)
        return value if isinstance(value, _CONTAINERS) else doc
    con, key = _find(doc, path)
    if con is None:
        raise JSONPatchError(f"replace operation does not apply: doc is missing path: {path}")
    if isinstance(con, dict):
        con[key] = value
        return doc
    _get(con, key)  # the index must exist
    idx = _atoi(key)
    con[idx + len(con) if idx < 0 else idx] = value
    return doc


def _test(doc: Any, op: dict[str, Any]) -> None:
    path = _string_field(op, "path")
    has_value = "value" in op
    expected = op.get("value")
    if path == "":
        if not has_value or not _equal(doc, expected):
            raise JSONPatchError(f"testing value {path} failed")
        return
    con, key = _find(doc, path)
    if con is None:
        raise JSONPatchError(f"test operation does not apply: is missing path: {path}")
    actual = _get(con, key)
    if actual is None:
        if has_value and expected is None:
            return
        raise JSONPatchError(f"testing value {path} failed")
    if not has_value or expected is None or not _equal(actual, expected):
        raise JSONPatchError(f"testing value {path} failed")


# --- JSON merge patch ---------------------------------------------------------------------------


class MergePatchError(Exception):
    """jsonpatch.ErrBadJSONPatch: kube-apiserver answers 400 with this text."""

    def __init__(self) -> None:
        super().__init__("Invalid JSON Patch")


def apply_merge_patch(doc: dict[str, Any], patch: Any) -> Any:
    """jsonpatch.MergePatch of a decoded patch into doc (changed in place)."""
    if isinstance(patch, dict):
        _merge_docs(doc, patch)
        return doc
    if isinstance(patch, list):
        _prune_list_nulls(patch)
        return patch  # not an object: the patch is the new document
    raise MergePatchError()


def _merge_docs(doc: dict[str, Any], patch: dict[str, Any]) -> None:
    for k, v in patch.items():
        if v is None:
            doc.pop(k, None)
            continue
        cur = doc.get(k)
        if cur is None:
            _prune_nulls(v)
            doc[k] = v
        elif not isinstance(cur, dict):
            _prune_nulls(v)
            doc[k] = v
        elif not isinstance(v, dict):
            doc[k] = v
        else:
            _merge_docs(cur, v)


def _prune_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for k in [k for k, v in value.items() if v is None]:
            del value[k]
        for v in value.values():
            _prune_nulls(v)
    elif isinstance(value, list):
        _prune_list_nulls(value)


def _prune_list_nulls(items: list[Any]) -> None:
    for v in items:
        if v is not None:
            _prune_nulls(v)


# --- decoding a JSON patch body -----------------------------------------------------------------

MAX_JSON_PATCH_OPERATIONS = 10000
_OP_FIELDS = ("op", "path", "from", "value")


class PatchDecodeError(Exception):
    """The body is not a JSON patch; kube-apiserver answers 400 with str() as the message."""


def decode_json_patch(body: bytes, strict: bool) -> tuple[list[Any], list[str]]:
    """The operations of a JSON patch body and, when strict (fieldValidation Warn or Strict), the
    strict decoding problems of its operations (unknown and repeated members), worded as kube-apiserver
    words them. strict decodes first into handlers.jsonPatchOp structs, as kube-apiserver does."""
    try:
        doc = gojson.loads(body)
    except gojson.GoJSONError as e:
        raise PatchDecodeError(f"error decoding patch: {e}" if strict else str(e)) from None
    problems: list[str] = []
    if strict:
        first_error = _strict_type_error(doc)
        if first_error:
            raise PatchDecodeError(f"error decoding patch: {first_error}")
        if isinstance(doc, list) and doc:
            problems = [f"json patch {p}" for p in _strict_problems(body)]
    if doc is None:
        return [], problems
    if not isinstance(doc, list):
        raise PatchDecodeError(gojson.type_error(doc, "jsonpatch.Patch"))
    for op in doc:
        if op is not None and not isinstance(op, dict):
            raise PatchDecodeError(gojson.type_error(op, "jsonpatch.Operation"))
    return doc, problems


def _strict_type_error(doc: Any) -> str:
    if doc is None:
        return ""
    if not isinstance(doc, list):
        return gojson.type_error(doc, "[]handlers.jsonPatchOp")
    for op in doc:
        if op is None:
            continue
        if not isinstance(op, dict):
            return gojson.type_error(op, "handlers.jsonPatchOp")
        for name in ("op", "path", "from"):
            value = op.get(name)
            if value is not None and not isinstance(value, str):
                return f"json: cannot unmarshal {gojson.json_kind(value)} into Go struct field jsonPatchOp.{name} of type string"
    return ""


def _strict_problems(body: bytes) -> list[str]:
    """Unknown and repeated members of the operations, in document order (strict decoding matches
    member names case-sensitively). Only the operation objects are matched: values are free-form."""
    doc = stdjson.loads(body, object_pairs_hook=_Pairs)
    problems: list[str] = []
    for op in doc if isinstance(doc, list) else []:
        if not isinstance(op, _Pairs):
            continue
        seen: set[str] = set()
        for k in op.keys_in_order:
            if k not in _OP_FIELDS:
                problems.append(f'unknown field "{k}"')
            elif k in seen:
                problems.append(f'duplicate field "{k}"')
            seen.add(k)
    return problems


class _Pairs(dict):  # type: ignore[type-arg]
    """A decoded object that remembers its member names as written, repeats included."""

    def __init__(self, items: list[tuple[str, Any]]) -> None:
        super().__init__(items)
        self.keys_in_order = [k for k, _ in items]
