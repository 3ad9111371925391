"""The admission plugins this server runs, one module each; kube-apiserver has them all on by default."""

from __future__ import annotations

RUN = frozenset(
    {
        "NamespaceLifecycle",
        "LimitRanger",
        "TaintNodesByCondition",
        "Priority",
        "DefaultTolerationSeconds",
        "DefaultStorageClass",
    }
)
