"""The Scheme (k8s.io/apimachinery/pkg/runtime.Scheme): what the server knows per kind beyond
its schema — defaulting functions, validation functions and converters between the versions of
a group.

Objects are plain dicts; a kind is named by (group, version, kind). Each API group fills the
tables in its own modules (apis/<group>/defaults.py, validation.py, conversion.py) and
apis/scheme.py gathers them into one Scheme at start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.runtime.errors import StatusCause

GVK = tuple[str, str, str]  # (group, version, kind); group "" is the core group
Defaulter = Callable[[dict[str, Any]], None]  # fills defaults in place (SetObjectDefaults_<Kind>)
Validator = Callable[[dict[str, Any]], list[StatusCause]]  # Validate<Kind> on create
UpdateValidator = Callable[[dict[str, Any], dict[str, Any]], list[StatusCause]]  # (new, old)
Converter = Callable[[dict[str, Any]], dict[str, Any]]  # returns a new object in the target version
# Warnings for the client about an object being written: (new, old or None) → texts (WarningsOnCreate/Update).
Warner = Callable[[dict[str, Any], dict[str, Any] | None], list[str]]


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def gvk_of(obj: dict[str, Any]) -> GVK:
    group, version = split_api_version(str(obj.get("apiVersion") or ""))
    return group, version, str(obj.get("kind") or "")


@dataclass
class Scheme:
    defaulters: dict[GVK, list[Defaulter]] = field(default_factory=dict)
    validators: dict[GVK, list[Validator]] = field(default_factory=dict)
    update_validators: dict[GVK, list[UpdateValidator]] = field(default_factory=dict)
    # (from gvk, to version) → converter; conversions go through the hub the group names.
    converters: dict[tuple[GVK, str], Converter] = field(default_factory=dict)
    warners: dict[GVK, list[Warner]] = field(default_factory=dict)
    # The defaults of the status alone, for the kinds that declare them (see default_status).
    status_defaulters: dict[GVK, list[Defaulter]] = field(default_factory=dict)
    # The kinds whose update validators validate the new object themselves (see validates_on_update).
    update_replaces_validation: set[GVK] = field(default_factory=set)

    def add_defaulter(self, gvk: GVK, fn: Defaulter) -> None:
        self.defaulters.setdefault(gvk, []).append(fn)

    def add_status_defaulter(self, gvk: GVK, fn: Defaulter) -> None:
        self.status_defaulters.setdefault(gvk, []).append(fn)

    def add_validator(self, gvk: GVK, fn: Validator) -> None:
        self.validators.setdefault(gvk, []).append(fn)

    def add_update_validator(self, gvk: GVK, fn: UpdateValidator) -> None:
        self.update_validators.setdefault(gvk, []).append(fn)

    def add_update_replaces_validation(self, gvk: GVK) -> None:
        self.update_replaces_validation.add(gvk)

    def add_warner(self, gvk: GVK, fn: Warner) -> None:
        self.warners.setdefault(gvk, []).append(fn)

    def warnings(self, new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
        out: list[str] = []
        for fn in self.warners.get(gvk_of(new), ()):
            out.extend(fn(new, old))
        return out

    def add_converter(self, gvk: GVK, to_version: str, fn: Converter) -> None:
        self.converters[(gvk, to_version)] = fn

    def default(self, obj: dict[str, Any]) -> None:
        for fn in self.defaulters.get(gvk_of(obj), ()):
            fn(obj)

    def default_status(self, obj: dict[str, Any]) -> None:
        """Default an object again once prepare_for_create has reset its status, as kube does when
        it decodes what it stored. Defaulting is idempotent, so only the new status can change: a
        kind that declares the defaults of its status gets those alone, any other kind the whole
        defaulting again."""
        gvk = gvk_of(obj)
        fns = self.status_defaulters.get(gvk)
        for fn in self.defaulters.get(gvk, ()) if fns is None else fns:
            fn(obj)

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        causes: list[StatusCause] = []
        for fn in self.validators.get(gvk_of(obj), ()):
            causes.extend(fn(obj))
        return causes

    def validates_on_update(self, obj: dict[str, Any]) -> bool:
        """Whether an update runs validate() on its new object as well as validate_update(): not for a
        kind whose update validation replaces the create one (upstream's ValidateXUpdate that calls a
        relaxed ValidateX itself, as the webhook configurations' do)."""
        return gvk_of(obj) not in self.update_replaces_validation

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        causes: list[StatusCause] = []
        for fn in self.update_validators.get(gvk_of(new), ()):
            causes.extend(fn(new, old))
        return causes

    def converts(self, gvk: GVK, to_version: str) -> bool:
        return gvk[1] == to_version or (gvk, to_version) in self.converters

    def convert(self, obj: dict[str, Any], to_version: str) -> dict[str, Any]:
        """obj in to_version of its group (obj itself when it already is); KeyError if no converter."""
        gvk = gvk_of(obj)
        if gvk[1] == to_version:
            return obj
        return self.converters[(gvk, to_version)](obj)
