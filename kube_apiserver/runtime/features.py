"""Feature gates (component-base's featuregate; the gates of k8s.io/apiserver/pkg/features and pkg/features):
the gates whose switch changes what this server does, set once at start from --feature-gates.

The defaults are kube-apiserver 1.33's with one exception: WatchList is on (as in 1.32 and 1.34; 1.33 turned it
off again for a release), because streaming lists (a watch with sendInitialEvents=true) are among what this
server serves. --feature-gates=WatchList=false answers such a watch as 1.33 does by default (422)."""

from __future__ import annotations

from collections.abc import Mapping

WATCH_LIST = "WatchList"

DEFAULTS: dict[str, bool] = {WATCH_LIST: True}

_enabled: dict[str, bool] = dict(DEFAULTS)


def configure(gates: Mapping[str, bool]) -> list[str]:
    """Set the gates this server knows (the others keep their defaults); returns the names it does not know."""
    _enabled.clear()
    _enabled.update(DEFAULTS)
    unknown = []
    for name, value in gates.items():
        if name in DEFAULTS:
            _enabled[name] = value
        else:
            unknown.append(name)
    return unknown


def enabled(name: str) -> bool:
    return _enabled[name]
