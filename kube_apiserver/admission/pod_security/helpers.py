"""What every check shares (policy/checks.go, helpers.go, visitor.go): the result type, the wording helpers
and the container visitor, over pod specs as plain dicts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]


@dataclass(frozen=True)
class CheckResult:
    allowed: bool
    forbidden_reason: str = ""
    forbidden_detail: str = ""


ALLOWED = CheckResult(True)
UNKNOWN_FORBIDDEN_REASON = "unknown forbidden reason"


@dataclass
class AggregateCheckResult:
    allowed: bool = True
    forbidden_reasons: list[str] = field(default_factory=list)
    forbidden_details: list[str] = field(default_factory=list)

    def forbidden_reason(self) -> str:
        return ", ".join(self.forbidden_reasons)

    def forbidden_detail(self) -> str:
        """Reasons joined by ", ", each followed by its non-empty detail in parentheses."""
        return ", ".join(
            f"{reason} ({detail})" if detail else reason
            for reason, detail in zip(self.forbidden_reasons, self.forbidden_details, strict=True)
        )


def aggregate_check_results(results: list[CheckResult]) -> AggregateCheckResult:
    out = AggregateCheckResult()
    for result in results:
        if not result.allowed:
            out.forbidden_reasons.append(result.forbidden_reason or UNKNOWN_FORBIDDEN_REASON)
            out.forbidden_details.append(result.forbidden_detail)
    out.allowed = not out.forbidden_reasons
    return out


def join_quote(items: list[str]) -> str:
    """joinQuote: each item in double quotes (not escaped), joined by ", "."""
    return '"' + '", "'.join(items) + '"' if items else ""


def pluralize(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def go_quote(value: str) -> str:
    """fmt's %q for the strings a pod carries (JSON quoting agrees with strconv.Quote for them)."""
    return json.dumps(value, ensure_ascii=False)


def d(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[Obj]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def name(container: Obj) -> str:
    return str(container.get("name") or "")


def visit_containers(spec: Obj) -> Iterator[Obj]:
    """visitContainers: init containers, then containers, then ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from items(spec.get(key))


def security_context(container: Obj) -> Obj | None:
    sc = container.get("securityContext")
    return sc if isinstance(sc, dict) else None


def pod_security_context(spec: Obj) -> Obj | None:
    sc = spec.get("securityContext")
    return sc if isinstance(sc, dict) else None


def is_windows(spec: Obj) -> bool:
    """From policy v1.25, the Linux-only restricted checks skip pods that declare spec.os.name=windows."""
    return d(spec.get("os")).get("name") == "windows"


def setters_detail(setters: list[str], containers: list[str]) -> str:
    """The "pod and containers "a", "b"" subject several checks put before their complaint."""
    out = list(setters)
    if containers:
        out.append(f"{pluralize('container', 'containers', len(containers))} {join_quote(containers)}")
    return " and ".join(out)
