"""The Scheme of the built-in groups: every group package may have

  defaults.py    DEFAULTERS: dict[(version, kind), Defaulter]
  validation.py  VALIDATORS: dict[(version, kind), Validator]
                 UPDATE_VALIDATORS: dict[(version, kind), UpdateValidator]
  conversion.py  CONVERTERS: dict[((version, kind), to_version), Converter]

(a package of the same name works as well); build_scheme() gathers them.
"""

from __future__ import annotations

import importlib
from functools import cache

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


def _module(package: str, name: str) -> object | None:
    try:
        return importlib.import_module(f"kube_apiserver.apis.{package}.{name}")
    except ModuleNotFoundError as e:
        if e.name == f"kube_apiserver.apis.{package}.{name}":
            return None
        raise


@cache
def build_scheme() -> Scheme:
    scheme = Scheme()
    for package, group in GROUP_PACKAGES.items():
        defaults = _module(package, "defaults")
        for (version, kind), fn in getattr(defaults, "DEFAULTERS", {}).items():
            scheme.add_defaulter((group, version, kind), fn)
        validation = _module(package, "validation")
        for (version, kind), fn in getattr(validation, "VALIDATORS", {}).items():
            scheme.add_validator((group, version, kind), fn)
        for (version, kind), fn in getattr(validation, "UPDATE_VALIDATORS", {}).items():
            scheme.add_update_validator((group, version, kind), fn)
        conversion = _module(package, "conversion")
        for ((version, kind), to_version), fn in getattr(conversion, "CONVERTERS", {}).items():
            scheme.add_converter((group, version, kind), to_version, fn)
    return scheme
