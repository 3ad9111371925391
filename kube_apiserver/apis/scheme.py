"""The Scheme of the built-in groups: every group package may have

  defaults.py    DEFAULTERS: dict[(version, kind), Defaulter]
                 STATUS_DEFAULTERS: dict[(version, kind), Defaulter]  (the status alone, see Scheme.default_status)
  validation.py  VALIDATORS: dict[(version, kind), Validator]
                 UPDATE_VALIDATORS: dict[(version, kind), UpdateValidator]
                 UPDATE_REPLACES_OBJECT_VALIDATION: set[(version, kind)]  the kinds whose update
                   validators check the new object in full, as upstream's ValidateXUpdate does when it
                   runs a relaxed ValidateX itself: on update the registry runs their VALIDATORS not at
                   all (the metadata is still validated), only their UPDATE_VALIDATORS. Any other kind
                   gets VALIDATORS on the new object and UPDATE_VALIDATORS for what only an update checks.
  conversion.py  CONVERTERS: dict[((version, kind), to_version), Converter]
  warnings.py    WARNERS: dict[(version, kind), Warner]

(or a package of that name, each of whose modules may have the tables); build_scheme() gathers them.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from kube_apiserver.runtime.scheme import Scheme

# Package name under kube_apiserver.apis → API group name.
GROUP_PACKAGES: dict[str, str] = {
    "core": "",
    "admissionregistration": "admissionregistration.k8s.io",
    "apiextensions": "apiextensions.k8s.io",
    "apiregistration": "apiregistration.k8s.io",
    "apps": "apps",
    "authentication": "authentication.k8s.io",
    "authorization": "authorization.k8s.io",
    "autoscaling": "autoscaling",
    "batch": "batch",
    "certificates": "certificates.k8s.io",
    "coordination": "coordination.k8s.io",
    "discovery": "discovery.k8s.io",
    "events": "events.k8s.io",
    "flowcontrol": "flowcontrol.apiserver.k8s.io",
    "networking": "networking.k8s.io",
    "node": "node.k8s.io",
    "policy": "policy",
    "rbac": "rbac.authorization.k8s.io",
    "scheduling": "scheduling.k8s.io",
    "storage": "storage.k8s.io",
}


_TABLES = ("DEFAULTERS", "STATUS_DEFAULTERS", "VALIDATORS", "UPDATE_VALIDATORS", "CONVERTERS", "WARNERS")
_SET_TABLES = ("UPDATE_REPLACES_OBJECT_VALIDATION",)


class _Tables:
    def __init__(self) -> None:
        for t in _TABLES:
            setattr(self, t, {})
        for t in _SET_TABLES:
            setattr(self, t, set())


def _module(package: str, name: str) -> Any:
    """The tables of apis/<package>/<name>.py, or of every module of the package apis/<package>/<name>/."""
    qualified = f"kube_apiserver.apis.{package}.{name}"
    try:
        mod = importlib.import_module(qualified)
    except ModuleNotFoundError as e:
        if e.name == qualified:
            return None
        raise
    if not hasattr(mod, "__path__"):
        return mod
    tables = _Tables()
    for info in pkgutil.iter_modules(mod.__path__):
        sub = importlib.import_module(f"{qualified}.{info.name}")
        for t in _TABLES + _SET_TABLES:
            getattr(tables, t).update(getattr(sub, t, ()))
    for t in _TABLES + _SET_TABLES:
        getattr(tables, t).update(getattr(mod, t, ()))
    return tables


@cache
def build_scheme() -> Scheme:
    scheme = Scheme()
    for package, group in GROUP_PACKAGES.items():
        defaults = _module(package, "defaults")
        for (version, kind), fn in getattr(defaults, "DEFAULTERS", {}).items():
            scheme.add_defaulter((group, version, kind), fn)
        for (version, kind), fn in getattr(defaults, "STATUS_DEFAULTERS", {}).items():
            scheme.add_status_defaulter((group, version, kind), fn)
        validation = _module(package, "validation")
        for (version, kind), fn in getattr(validation, "VALIDATORS", {}).items():
            scheme.add_validator((group, version, kind), fn)
        for (version, kind), fn in getattr(validation, "UPDATE_VALIDATORS", {}).items():
            scheme.add_update_validator((group, version, kind), fn)
        for version, kind in getattr(validation, "UPDATE_REPLACES_OBJECT_VALIDATION", ()):
            scheme.add_update_replaces_validation((group, version, kind))
        warnings = _module(package, "warnings")
        for (version, kind), fn in getattr(warnings, "WARNERS", {}).items():
            scheme.add_warner((group, version, kind), fn)
        conversion = _module(package, "conversion")
        for ((version, kind), to_version), fn in getattr(conversion, "CONVERTERS", {}).items():
            scheme.add_converter((group, version, kind), to_version, fn)
    return scheme
