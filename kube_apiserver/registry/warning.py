"""Warnings for the client (k8s.io/apiserver/pkg/warning): code deep in the registry adds a warning
to the request being served without the request being passed down. The endpoint layer installs
a recorder per request (a context variable: each request runs in its own task)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

_recorder: ContextVar[Callable[[str], None] | None] = ContextVar("warning_recorder", default=None)


def set_recorder(recorder: Callable[[str], None]) -> None:
    _recorder.set(recorder)


def add_warning(text: str) -> None:
    recorder = _recorder.get()
    if recorder is not None and text:
        recorder(text)
