"""Helpers shared by the Table printers (upstream: pkg/printers/internalversion/printers.go).

kube-apiserver always renders Tables with ``GenerateOptions{Wide: true}`` (pkg/printers/storage),
so every row carries the cells of every column, priority-1 ones included; clients hide those.

Objects are plain dicts decoded from JSON and may lack fields (defaults not applied, JSON nulls),
so every accessor here tolerates a missing or mistyped value.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from typing import Any

from kube_apiserver.registry.resource_spec import TableColumn, TablePrinter

# metav1.ObjectMeta{}.SwaggerDoc()["name"] and ["creationTimestamp"].
NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended for "
    "creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATION_TIMESTAMP_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is "
    "represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
CONTAINERS_DOC = "Names of each container in the template."
IMAGES_DOC = "Images referenced by each container in the template."

NAME_COLUMN = TableColumn(name="Name", type="string", format="name", description=NAME_DOC)
AGE_COLUMN = TableColumn(name="Age", type="string", description=CREATION_TIMESTAMP_DOC)


def col(name: str, type: str = "string", description: str = "", priority: int = 0, format: str = "") -> TableColumn:
    """Shorthand for a TableColumn (argument order follows how printers.go reads)."""
    return TableColumn(name=name, type=type, format=format, description=description, priority=priority)


# ---------------------------------------------------------------------------------------------
# Durations and timestamps


def human_duration(seconds: float) -> str:
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration for a duration given in seconds."""
    whole = int(seconds)  # Go's int(d.Seconds()) truncates toward zero
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 60 * 2:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        sec = whole % 60
        return f"{minutes}m" if sec == 0 else f"{minutes}m{sec}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        mins = minutes % 60
        return f"{hours}h" if mins == 0 else f"{hours}h{mins}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rem = hours % 24
        return f"{hours // 24}d" if rem == 0 else f"{hours // 24}d{rem}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if days == 0 else f"{hours // 24 // 365}y{days}d"
    return f"{hours // 24 // 365}y"


def parse_time(value: Any) -> float | None:
    """Seconds since the epoch of an RFC3339 (or MicroTime) string; None when unset or unparsable."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.UTC)
    return parsed.timestamp()


def since(value: Any, now: float) -> str:
    """translateTimestampSince: "<unknown>" for an unset time, else HumanDuration(now - t)."""
    t = parse_time(value)
    if t is None:
        return "<unknown>"
    return human_duration(now - t)


def age(obj: dict[str, Any], now: float) -> str:
    """The AGE cell: time since metadata.creationTimestamp."""
    return since(meta(obj).get("creationTimestamp"), now)


def created_at(obj: dict[str, Any]) -> str:
    """The default convertor's "Created At" cell: creationTimestamp in UTC, RFC3339 (zero time when unset)."""
    t = parse_time(meta(obj).get("creationTimestamp"))
    if t is None:
        return "0001-01-01T00:00:00Z"
    return _dt.datetime.fromtimestamp(int(t), tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------------------
# Tolerant accessors


def d(value: Any) -> dict[str, Any]:
    """The value if it is a dict, else an empty dict."""
    return value if isinstance(value, dict) else {}


def lst(value: Any) -> list[Any]:
    """The value if it is a list, else an empty list."""
    return value if isinstance(value, list) else []


def dicts(value: Any) -> list[dict[str, Any]]:
    """The dict items of a list value."""
    return [item for item in lst(value) if isinstance(item, dict)]


def text(value: Any, default: str = "") -> str:
    """A string field (numbers are formatted, other types give the default)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return default
    if isinstance(value, int | float):
        return str(value)
    return default


def num(value: Any, default: int = 0) -> int:
    """An integer field."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return default
    return default


def get(obj: Any, *path: str) -> Any:
    """obj[path[0]][path[1]]...; None as soon as a level is missing or not a dict."""
    cur = obj
    for key in path:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(key)
    return cur


def meta(obj: dict[str, Any]) -> dict[str, Any]:
    return d(obj.get("metadata"))


def name(obj: dict[str, Any]) -> str:
    return text(meta(obj).get("name"))


def is_deleting(obj: dict[str, Any]) -> bool:
    return meta(obj).get("deletionTimestamp") is not None


# ---------------------------------------------------------------------------------------------
# Formatting helpers mirroring apimachinery / printers.go


def format_labels(labels: Any) -> str:
    """labels.FormatLabels: sorted "k=v" pairs joined by ",", "<none>" when empty."""
    pairs = d(labels)
    if not pairs:
        return "<none>"
    return ",".join(f"{k}={text(pairs[k])}" for k in sorted(pairs))


_OPERATORS = {"In": " in ", "NotIn": " notin ", "Exists": "", "DoesNotExist": ""}


def selector_string(selector: Any) -> str | None:
    """metav1.LabelSelectorAsSelector(selector).String(); None when the selector is invalid."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in sorted(d(selector.get("matchLabels")).items()):
        requirements.append((key, f"{key}={text(value)}"))
    for expr in dicts(selector.get("matchExpressions")):
        key = text(expr.get("key"))
        op = text(expr.get("operator"))
        if op not in _OPERATORS:
            return None
        values = sorted(text(v) for v in lst(expr.get("values")))
        if op == "Exists":
            requirements.append((key, key))
        elif op == "DoesNotExist":
            requirements.append((key, "!" + key))
        else:
            requirements.append((key, f"{key}{_OPERATORS[op]}({','.join(values)})"))
    requirements.sort(key=lambda item: item[0])
    return ",".join(r for _, r in requirements)


def format_label_selector(selector: Any) -> str:
    """metav1.FormatLabelSelector: "<error>" if invalid, "<none>" if it selects everything/nothing."""
    rendered = selector_string(selector)
    if rendered is None:
        return "<error>"
    return rendered or "<none>"


def layout_containers(containers: Any) -> tuple[str, str]:
    """layoutContainerCells: container names and images, each joined by ","."""
    items = dicts(containers)
    return ",".join(text(c.get("name")) for c in items), ",".join(text(c.get("image")) for c in items)


def template_containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """spec.template.spec.containers of a workload."""
    return dicts(get(obj, "spec", "template", "spec", "containers"))


def print_bool(value: bool) -> str:
    return "True" if value else "False"


def print_bool_ptr(value: Any) -> str:
    return print_bool(value) if isinstance(value, bool) else "<unset>"


def quantity(value: Any) -> str:
    """resource.Quantity.String() of a serialized quantity (the zero Quantity prints as "0")."""
    if value is None:
        return "0"
    return text(value, "0") or "0"


def int_or_string(value: Any) -> str:
    """intstr.IntOrString.String()."""
    if isinstance(value, bool):
        return ""
    if isinstance(value, int | float):
        return str(int(value))
    return text(value)


def list_with_more(items: list[str], more: bool, count: int, limit: int) -> str:
    """listWithMoreString."""
    ret = ",".join(items)
    if more:
        return f"{ret} + {count - limit} more..."
    return ret or "<unset>"


def first_non_empty(*values: str) -> str:
    for value in values:
        if value:
            return value
    return ""


def condition(conditions: Any, type_: str) -> dict[str, Any] | None:
    """The first condition of the given type."""
    for cond in dicts(conditions):
        if cond.get("type") == type_:
            return cond
    return None


def join(values: Iterable[str], sep: str = ",") -> str:
    return sep.join(values)


# ---------------------------------------------------------------------------------------------
# The generic apiserver's default convertor (rest.NewDefaultTableConvertor): NAME and CREATED AT.
# Used upstream by every resource without a printer (roles, clusterroles, CRDs, limitranges, ...).


def _default_row(obj: dict[str, Any], now: float) -> list[Any]:
    return [name(obj), created_at(obj)]


DEFAULT_TABLE_PRINTER = TablePrinter(
    columns=(NAME_COLUMN, TableColumn(name="Created At", type="date", description=CREATION_TIMESTAMP_DOC)),
    row=_default_row,
)
