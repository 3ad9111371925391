"""The namespace labels of pod-security-admission/api (constants.go, helpers.go): levels, policy versions
and the policy a namespace's labels ask for, falling back to the plugin's defaults (privileged:latest)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kube_apiserver.runtime import errors

LEVEL_PRIVILEGED = "privileged"
LEVEL_BASELINE = "baseline"
LEVEL_RESTRICTED = "restricted"
VALID_LEVELS = (LEVEL_PRIVILEGED, LEVEL_BASELINE, LEVEL_RESTRICTED)

LABEL_PREFIX = "pod-security.kubernetes.io/"
ENFORCE_LEVEL_LABEL = LABEL_PREFIX + "enforce"
ENFORCE_VERSION_LABEL = LABEL_PREFIX + "enforce-version"
AUDIT_LEVEL_LABEL = LABEL_PREFIX + "audit"
AUDIT_VERSION_LABEL = LABEL_PREFIX + "audit-version"
WARN_LEVEL_LABEL = LABEL_PREFIX + "warn"
WARN_VERSION_LABEL = LABEL_PREFIX + "warn-version"

# Version: the minor of v1.<minor>, or LATEST (newer than any version, even future ones)
LATEST: int | None = None
_VERSION = re.compile(r"^v1\.([0-9]|[1-9][0-9]*)$")


def version_string(minor: int | None) -> str:
    return "latest" if minor is None else f"v1.{minor}"


@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: int | None  # None: latest

    def __str__(self) -> str:
        return f"{self.level}:{version_string(self.version)}"


@dataclass(frozen=True)
class Policy:
    enforce: LevelVersion
    audit: LevelVersion
    warn: LevelVersion

    def fully_privileged(self) -> bool:
        return all(lv.level == LEVEL_PRIVILEGED for lv in (self.enforce, self.audit, self.warn))


# the default configuration of kube-apiserver's PodSecurity plugin: privileged:latest for every mode
DEFAULT_POLICY = Policy(*(LevelVersion(LEVEL_PRIVILEGED, LATEST),) * 3)


def parse_level(level: str) -> tuple[str, str | None]:
    """ParseLevel: an unknown level is evaluated as restricted (fail closed), with an error."""
    if level in VALID_LEVELS:
        return level, None
    return LEVEL_RESTRICTED, "must be one of " + ", ".join(VALID_LEVELS)


def parse_version(version: str) -> tuple[int | None, str | None]:
    """ParseVersion: "latest" or "v1.x"; anything else is latest, with an error."""
    if version == "latest":
        return LATEST, None
    match = _VERSION.match(version)
    if match is None:
        return LATEST, 'must be "latest" or "v1.x"'
    return int(match.group(1)), None


def policy_to_evaluate(
    labels: dict[str, str] | None, defaults: Policy = DEFAULT_POLICY
) -> tuple[Policy, list[errors.StatusCause]]:
    """PolicyToEvaluate: always a usable policy, plus one field error per bad label (in label order)."""
    causes: list[errors.StatusCause] = []
    if not labels:
        return defaults, causes
    modes = {"enforce": defaults.enforce, "audit": defaults.audit, "warn": defaults.warn}
    for mode, level_label, version_label in (
        ("enforce", ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL),
        ("audit", AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL),
        ("warn", WARN_LEVEL_LABEL, WARN_VERSION_LABEL),
    ):
        lv = modes[mode]
        if level_label in labels:
            value = str(labels[level_label])
            level, err = parse_level(value)
            if err is not None:
                causes.append(errors.field_invalid(f"metadata.labels[{level_label}]", value, err))
                if mode != "enforce":
                    level = LEVEL_PRIVILEGED  # fail open for audit and warn
            lv = LevelVersion(level, lv.version)
        if version_label in labels:
            value = str(labels[version_label])
            version, err = parse_version(value)
            if err is not None:
                causes.append(errors.field_invalid(f"metadata.labels[{version_label}]", value, err))
            lv = LevelVersion(lv.level, version)
        modes[mode] = lv
    return Policy(modes["enforce"], modes["audit"], modes["warn"]), causes


def compare_levels(a: str, b: str) -> int:
    """CompareLevels: 0 if equal, -1 if a is less strict than b, +1 if stricter."""
    order = {LEVEL_PRIVILEGED: 0, LEVEL_BASELINE: 1, LEVEL_RESTRICTED: 2}
    if a == b:
        return 0
    return (order.get(a, 1) > order.get(b, 1)) - (order.get(a, 1) < order.get(b, 1))
