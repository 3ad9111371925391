"""Policy rule matching (rbac/v1 helpers: VerbMatches, ResourceMatches, ...) and rule coverage for
escalation checks (pkg/registry/rbac/validation: Covers, BreakdownRule, CompactRules, CompactString)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authorization.authorizer import Attributes

ALL = "*"


def _strs(value: Any) -> tuple[str, ...]:
    """A rule field as a tuple of strings; odd input (not a list of strings) matches nothing."""
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def normalize_rule(rule: Any) -> dict[str, tuple[str, ...]]:
    """A stored PolicyRule as tuples, so matching never trips over a missing or odd field."""
    r = rule if isinstance(rule, dict) else {}
    return {
        "verbs": _strs(r.get("verbs")),
        "apiGroups": _strs(r.get("apiGroups")),
        "resources": _strs(r.get("resources")),
        "resourceNames": _strs(r.get("resourceNames")),
        "nonResourceURLs": _strs(r.get("nonResourceURLs")),
    }


def verb_matches(rule: dict[str, tuple[str, ...]], verb: str) -> bool:
    verbs = rule["verbs"]
    return ALL in verbs or verb in verbs


def api_group_matches(rule: dict[str, tuple[str, ...]], group: str) -> bool:
    groups = rule["apiGroups"]
    return ALL in groups or group in groups


def resource_matches(rule: dict[str, tuple[str, ...]], combined: str, subresource: str) -> bool:
    for r in rule["resources"]:
        if r == ALL or r == combined:
            return True
        # "*/status" matches the status subresource of every resource
        if subresource and r == "*/" + subresource:
            return True
    return False


def resource_name_matches(rule: dict[str, tuple[str, ...]], name: str) -> bool:
    names = rule["resourceNames"]
    return not names or name in names


def non_resource_url_matches(rule: dict[str, tuple[str, ...]], path: str) -> bool:
    for url in rule["nonResourceURLs"]:
        if url == ALL or url == path:
            return True
        if url.endswith("*") and path.startswith(url[:-1]):
            return True
    return False


def rule_allows(attrs: Attributes, rule: dict[str, tuple[str, ...]]) -> bool:
    if not verb_matches(rule, attrs.verb):
        return False
    if attrs.is_resource_request:
        combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
        return (
            api_group_matches(rule, attrs.api_group)
            and resource_matches(rule, combined, attrs.subresource)
            and resource_name_matches(rule, attrs.name)
        )
    return non_resource_url_matches(rule, attrs.path)


class CompiledRule:
    """A normalized rule as sets, for the authorizer's hot path: None stands for "*" (any)."""

    __slots__ = ("verbs", "groups", "resources", "any_resource", "names", "urls", "url_prefixes", "any_url")

    def __init__(self, rule: dict[str, tuple[str, ...]]) -> None:
        self.verbs = None if ALL in rule["verbs"] else frozenset(rule["verbs"])
        self.groups = None if ALL in rule["apiGroups"] else frozenset(rule["apiGroups"])
        self.resources = frozenset(rule["resources"])
        self.any_resource = ALL in self.resources
        self.names = frozenset(rule["resourceNames"]) or None
        urls = rule["nonResourceURLs"]
        self.any_url = ALL in urls
        self.urls = frozenset(u for u in urls if not u.endswith("*"))
        self.url_prefixes = tuple(u[:-1] for u in urls if u.endswith("*") and u != ALL)

    def allows_resource(self, verb: str, group: str, combined: str, subresource: str, name: str) -> bool:
        if self.verbs is not None and verb not in self.verbs:
            return False
        if self.groups is not None and group not in self.groups:
            return False
        if not self.any_resource and combined not in self.resources:
            # "*/status" matches the status subresource of every resource
            if not subresource or "*/" + subresource not in self.resources:
                return False
        return self.names is None or name in self.names

    def allows_path(self, verb: str, path: str) -> bool:
        if self.verbs is not None and verb not in self.verbs:
            return False
        if self.any_url or path in self.urls:
            return True
        return any(path.startswith(p) for p in self.url_prefixes) if self.url_prefixes else False


def compile_rule(rule: dict[str, tuple[str, ...]]) -> CompiledRule:
    return CompiledRule(rule)


# --- coverage (escalation checks) ---


def breakdown_rule(rule: dict[str, tuple[str, ...]]) -> list[dict[str, tuple[str, ...]]]:
    """One rule per (group, resource, verb[, name]) and per (url, verb): coverage is decided piece by piece."""
    out = []
    for group in rule["apiGroups"]:
        for resource in rule["resources"]:
            for verb in rule["verbs"]:
                base = {"verbs": (verb,), "apiGroups": (group,), "resources": (resource,), "nonResourceURLs": ()}
                if rule["resourceNames"]:
                    out.extend({**base, "resourceNames": (n,)} for n in rule["resourceNames"])
                else:
                    out.append({**base, "resourceNames": ()})
    for url in rule["nonResourceURLs"]:
        for verb in rule["verbs"]:
            out.append(
                {"verbs": (verb,), "apiGroups": (), "resources": (), "resourceNames": (), "nonResourceURLs": (url,)}
            )
    return out


def _resource_covers(owner: tuple[str, ...], servant: str) -> bool:
    if ALL in owner or servant in owner:
        return True
    if "/" in servant:
        return "*/" + servant.split("/", 1)[1] in owner
    return False


def _url_covers(owner: str, servant: str) -> bool:
    return owner == servant or (owner.endswith("*") and servant.startswith(owner.rstrip("*")))


def rule_covers(owner: dict[str, tuple[str, ...]], sub: dict[str, tuple[str, ...]]) -> bool:
    if not (ALL in owner["verbs"] or all(v in owner["verbs"] for v in sub["verbs"])):
        return False
    if not (ALL in owner["apiGroups"] or all(g in owner["apiGroups"] for g in sub["apiGroups"])):
        return False
    if not all(_resource_covers(owner["resources"], r) for r in sub["resources"]):
        return False
    if not all(any(_url_covers(o, u) for o in owner["nonResourceURLs"]) for u in sub["nonResourceURLs"]):
        return False
    if not sub["resourceNames"]:
        return not owner["resourceNames"]
    return not owner["resourceNames"] or all(n in owner["resourceNames"] for n in sub["resourceNames"])


def covers(
    owner_rules: list[dict[str, tuple[str, ...]]], servant_rules: list[dict[str, tuple[str, ...]]]
) -> tuple[bool, list[dict[str, tuple[str, ...]]]]:
    """(whether the owner's rules cover every servant rule, the uncovered pieces)."""
    missing = []
    for servant in servant_rules:
        for sub in breakdown_rule(servant):
            if not any(rule_covers(o, sub) for o in owner_rules):
                missing.append(sub)
    return not missing, missing


def compact_rules(rules: list[dict[str, tuple[str, ...]]]) -> list[dict[str, tuple[str, ...]]]:
    """Merges the verbs of rules on one group and one resource (and at most one name), as CompactRules."""
    simple: dict[tuple[str, str, tuple[str, ...]], dict[str, tuple[str, ...]]] = {}
    out: list[dict[str, tuple[str, ...]]] = []
    for r in rules:
        if (
            len(r["apiGroups"]) == 1
            and len(r["resources"]) == 1
            and not r["nonResourceURLs"]
            and len(r["resourceNames"]) <= 1
        ):
            key = (r["apiGroups"][0], r["resources"][0], r["resourceNames"])
            if key in simple:
                simple[key] = {**simple[key], "verbs": simple[key]["verbs"] + r["verbs"]}
            else:
                simple[key] = dict(r)
        else:
            out.append(r)
    return out + list(simple.values())


def _go_quoted_list(values: tuple[str, ...]) -> str:
    # Go's %q of a []string: ["a" "b"]
    import json

    return "[" + " ".join(json.dumps(v) for v in values) + "]"


def compact_string(rule: dict[str, tuple[str, ...]]) -> str:
    parts = []
    for key, label in (
        ("apiGroups", "APIGroups"),
        ("resources", "Resources"),
        ("nonResourceURLs", "NonResourceURLs"),
        ("resourceNames", "ResourceNames"),
        ("verbs", "Verbs"),
    ):
        if rule[key]:
            parts.append(f"{label}:{_go_quoted_list(rule[key])}")
    return "{" + ", ".join(parts) + "}"


def to_api_rule(rule: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    return {k: list(v) for k, v in rule.items() if v}
