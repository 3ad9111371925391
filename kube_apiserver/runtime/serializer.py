"""Wire encodings: JSON (orjson) and YAML (PyYAML's C loader and dumper)."""

from __future__ import annotations

import datetime
import re
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


# How deep a request body may nest arrays and objects. kube's decoders stop at 10000; here the limit is
# lower because orjson writes no more than 254 levels (a stored object is wrapped again in lists, watch
# events and Tables) and the server's own walkers recurse once or more per level. Real objects, CRDs with
# a pod template in their schema among them, stay well under 50.
MAX_NESTING_DEPTH = 100


def nesting_exceeds(value: Any, limit: int = MAX_NESTING_DEPTH) -> bool:
    """Whether arrays and objects nest more than limit levels (the outermost is level 1). Iterative,
    and it stops at the first level past the limit, so a cycle (a YAML alias of itself) ends too."""
    if not isinstance(value, dict | list):
        return False
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            return True
        for child in v.values() if isinstance(v, dict) else v:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def json_nesting_exceeds(value: Any, data: bytes) -> bool:
    """nesting_exceeds for a value decoded from the JSON text data: a text with no more brackets than
    the limit cannot nest deeper, which spares the walk for nearly every body."""
    if data.count(b"[") + data.count(b"{") <= MAX_NESTING_DEPTH:
        return False
    return nesting_exceeds(value)


def max_depth_message() -> str:
    return f"exceeded max depth of {MAX_NESTING_DEPTH}"


def decode_json(data: bytes) -> Any:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise new_bad_request(f"error decoding request body as JSON: {e}") from None
    if json_nesting_exceeds(value, data):
        raise new_bad_request(f"error decoding request body as JSON: {max_depth_message()}")
    return value


class _StrictLoader(_Loader):  # type: ignore[misc,valid-type]
    pass


# Plain scalars resolve as go-yaml v2 (sigs.k8s.io/yaml's parser) resolves them, not as PyYAML's YAML 1.1:
# y/Y/n/N are booleans too; an integer is what strconv.ParseInt(s, 0, 64) reads once the underscores are
# gone (0x, 0o, 0b, a leading 0 for octal; no sexagesimal 1:20); a float may have an exponent without a dot
# or a sign (1e5). Timestamps stay strings, as go-yaml leaves them when decoding into an interface.
_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_GO_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_GO_FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_GO_BOOL = re.compile("^(?:" + "|".join(sorted(_GO_TRUE | _GO_FALSE)) + ")$")
_GO_INT = re.compile(r"^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$")
_GO_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9_]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_StrictLoader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp) for tag, regexp in resolvers if tag not in (_BOOL, _INT, _FLOAT, "tag:yaml.org,2002:timestamp")
    ]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(_BOOL, _GO_BOOL, list("yYnNtTfFoO"))
_StrictLoader.add_implicit_resolver(_INT, _GO_INT, list("-+0123456789"))
_StrictLoader.add_implicit_resolver(_FLOAT, _GO_FLOAT, list("-+0123456789."))


def _go_int(text: str) -> int | float:
    """strconv.ParseInt(s, 0, 64) (or ParseUint) of the text less its underscores; what neither reads (a
    decimal with a leading 0 and an 8 or 9) is the float go-yaml falls back to."""
    plain = text.replace("_", "")
    sign, digits = (-1, plain[1:]) if plain[:1] == "-" else (1, plain.lstrip("+"))
    prefix = digits[:2].lower()
    try:
        if prefix in ("0x", "0o", "0b"):
            return sign * int(digits[2:], {"0x": 16, "0o": 8, "0b": 2}[prefix])
        if len(digits) > 1 and digits[0] == "0":
            return sign * int(digits[1:], 8)
        return sign * int(digits)
    except ValueError:
        return float(plain)


def _go_float(text: str) -> float:
    plain = text.replace("_", "")
    lowered = plain.lower()
    if lowered.endswith(".inf"):
        return float("-inf") if lowered.startswith("-") else float("inf")
    if lowered == ".nan":
        return float("nan")
    return float(plain)


_StrictLoader.add_constructor(_BOOL, lambda loader, node: loader.construct_scalar(node) in _GO_TRUE)
_StrictLoader.add_constructor(_INT, lambda loader, node: _go_int(loader.construct_scalar(node)))
_StrictLoader.add_constructor(_FLOAT, lambda loader, node: _go_float(loader.construct_scalar(node)))


class YAMLToJSONError(ValueError):
    """A YAML document with no JSON form (sigs.k8s.io/yaml's YAMLToJSON refuses it); the message is the
    text after "error converting YAML to JSON: "."""


# libyaml's composer recurses in C once per level: a document nested some 30,000 levels deep overflows the
# stack and kills the process. Its parser does not recurse, so a document that could nest that deep has
# its depth counted from the parser's events before it is composed.
_C_COMPOSER_SAFE_DEPTH = 10_000
_OPENING_EVENTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSING_EVENTS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _yaml_nesting_exceeds(data: bytes) -> bool:
    # Every level of a YAML document takes one of these characters ("- " or "[" for a sequence, ": ",
    # "? " or "{" for a mapping); with fewer of them than the composer handles, it is safe to compose.
    bound = sum(data.count(c) for c in (b"[", b"{", b"-", b":", b"?"))
    if bound <= _C_COMPOSER_SAFE_DEPTH:
        return False
    depth = 0
    for event in yaml.parse(data, Loader=_Loader):
        if isinstance(event, _OPENING_EVENTS):
            depth += 1
            if depth > MAX_NESTING_DEPTH:
                return True
        elif isinstance(event, _CLOSING_EVENTS):
            depth -= 1
    return False


def _go_float_key(value: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 32) with go-yaml's names for the infinities and NaN."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = f"{float(f'{value:.7g}')!r}"  # the shortest text of its float32 neighbourhood, roughly
    return text[:-2] if text.endswith(".0") else text


def _json_key(key: Any) -> str:
    """convertToJSONableObject's map keys: strings stay, numbers and booleans become their text."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _go_float_key(key)
    type_name = "<nil>" if key is None else type(key).__name__
    raise YAMLToJSONError(f"unsupported map key of type: {type_name}, key: {key!r}")


_INT64_MIN, _UINT64_MAX = -(2**63), 2**64 - 1


def _json_scalar(value: Any) -> Any:
    """A YAML scalar as YAMLToJSON leaves it: JSON's types, with go-yaml's readings of the rest."""
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, int):
        if _INT64_MIN <= value <= _UINT64_MAX:
            return value
        try:  # go-yaml reads an integer past 64 bits as a float, and one past a float as a string
            return float(value)
        except OverflowError:
            return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            go = "NaN" if value != value else ("+Inf" if value > 0 else "-Inf")
            raise YAMLToJSONError(f"json: unsupported value: {go}")
        if value.is_integer() and abs(value) < 1e21:
            return int(value)  # encoding/json writes an integral float64 as an integer (1e0 → 1)
        return value
    if isinstance(value, bytes):  # !!binary: go-yaml decodes it into a string
        return value.decode("utf-8", "replace")
    if isinstance(value, datetime.datetime):  # an explicit !!timestamp
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, datetime.date):
        return f"{value.isoformat()}T00:00:00Z"
    return str(value)


def yaml_to_json_value(doc: Any, source_size: int) -> Any:
    """The JSON value of a composed YAML document, as a fresh tree (an alias gets its own copy, as it
    does in JSON). Raises YAMLToJSONError for a document nested deeper than MAX_NESTING_DEPTH or whose
    aliases expand it far past its own size (go-yaml: "excessive aliasing")."""
    budget = 2 * source_size + 100_000  # without aliases a node takes at least one byte of the text
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(doc, root, 0, 1)]
    while stack:
        src, parent, slot, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise YAMLToJSONError("yaml: document contains excessive aliasing")
        if isinstance(src, dict | set | frozenset):
            if depth > MAX_NESTING_DEPTH:
                raise YAMLToJSONError(f"yaml: {max_depth_message()}")
            out: dict[str, Any] = {}
            parent[slot] = out
            items = src.items() if isinstance(src, dict) else ((k, None) for k in src)  # !!set: null values
            for k, v in items:
                key = _json_key(k)
                out[key] = None
                stack.append((v, out, key, depth + 1))
        elif isinstance(src, list | tuple):
            if depth > MAX_NESTING_DEPTH:
                raise YAMLToJSONError(f"yaml: {max_depth_message()}")
            seq: list[Any] = [None] * len(src)
            parent[slot] = seq
            stack.extend((v, seq, i, depth + 1) for i, v in enumerate(src))
        else:
            parent[slot] = _json_scalar(src)
    return root[0]


def load_yaml(data: bytes, loader: Any = None) -> Any:
    """One YAML document as JSON would have it (sigs.k8s.io/yaml's YAMLToJSON). Raises yaml.YAMLError
    for a document the parser refuses and YAMLToJSONError for one with no JSON form."""
    if _yaml_nesting_exceeds(data):
        raise YAMLToJSONError(f"yaml: {max_depth_message()}")
    return yaml_to_json_value(yaml.load(data, Loader=loader or _StrictLoader), len(data))


def go_yaml_message(e: yaml.YAMLError) -> str:
    """What go-yaml (the parser sigs.k8s.io/yaml uses, a port of libyaml like PyYAML's C loader) says of
    a document libyaml refuses: "yaml: line N: <libyaml's problem>", N taken as go-yaml's parser.fail
    takes it (the problem's line, counted from 0, one more for a scanner error; else the context's line;
    no line when that is 0)."""
    if not isinstance(e, yaml.MarkedYAMLError):
        return f"yaml: {str(e).splitlines()[0] if str(e) else 'unknown problem parsing YAML content'}"
    line = 0
    if e.problem_mark is not None and e.problem_mark.line:
        line = e.problem_mark.line + (1 if isinstance(e, yaml.scanner.ScannerError) else 0)
    elif e.context_mark is not None:
        line = e.context_mark.line
    where = f"line {line}: " if line else ""
    return f"yaml: {where}{e.problem or e.context or 'unknown problem parsing YAML content'}"


def yaml_to_json(data: bytes) -> Any:
    """load_yaml, or YAMLToJSONError with sigs.k8s.io/yaml's words for why the document has no JSON."""
    try:
        return load_yaml(data)
    except yaml.YAMLError as e:
        raise YAMLToJSONError(go_yaml_message(e)) from None


def decode_yaml(data: bytes) -> Any:
    try:
        return yaml_to_json(data)
    except YAMLToJSONError as e:
        raise new_bad_request(f"error converting YAML to JSON: {e}") from None


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
