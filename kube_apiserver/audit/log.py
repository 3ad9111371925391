"""The log backend (plugin/pkg/audit/log): one line per event, as JSON (the Event with its TypeMeta) or in the
legacy one-line text format (audit.EventString), to stdout or to a file rotated as lumberjack rotates it."""

from __future__ import annotations

import os
import sys
import threading
from datetime import UTC, datetime
from typing import Any, BinaryIO

import orjson

from kube_apiserver.audit.backend import Event, handle_plugin_error
from kube_apiserver.audit.rotate import RotatingFile
from kube_apiserver.runtime.labels import go_quote

PLUGIN_NAME = "log"
FORMAT_LEGACY, FORMAT_JSON = "legacy", "json"
ALLOWED_FORMATS = (FORMAT_LEGACY, FORMAT_JSON)


def _rfc3339_nano(stamp: str) -> str:
    """time.RFC3339Nano of the request's receive time, in the server's local zone (trailing zeros dropped)."""
    dt = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).astimezone()
    text = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if dt.microsecond:
        text += f".{dt.microsecond:06d}".rstrip("0")
    offset = dt.utcoffset()
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{text}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _quoted_list(values: list[str]) -> str:
    return ",".join(go_quote(v) for v in values)


def event_string(ev: Event) -> str:
    """audit.EventString: the legacy format's line."""
    user = ev.get("user") or {}
    username, groups = "<none>", "<none>"
    if user.get("username"):
        username = user["username"]
        if user.get("groups"):
            groups = _quoted_list(user["groups"])
    asuser, asgroups = "<self>", "<lookup>"
    impersonated = ev.get("impersonatedUser")
    if impersonated is not None:
        asuser = impersonated.get("username", "")
        if impersonated.get("groups") is not None:
            asgroups = _quoted_list(impersonated["groups"])
    namespace = (ev.get("objectRef") or {}).get("namespace") or "<none>"
    status = ev.get("responseStatus")
    response = str(status.get("code", 0)) if status is not None else "<deferred>"
    ips = ev.get("sourceIPs") or []
    ip = ips[0] if ips else "<unknown>"
    q = go_quote
    return (
        f"{_rfc3339_nano(ev['requestReceivedTimestamp'])} AUDIT: id={q(ev['auditID'])} stage={q(ev['stage'])} "
        f"ip={q(ip)} method={q(ev['verb'])} user={q(username)} groups={q(groups)} as={q(asuser)} "
        f"asgroups={q(asgroups)} user-agent={q(ev.get('userAgent', ''))} namespace={q(namespace)} "
        f'uri={q(ev["requestURI"])} response="{response}"'
    )


class LogBackend:
    """Writes each event as one line. A file write is a syscall on the event loop: cheap next to a request, and
    what kube's blocking mode does too (in batch mode the batcher thread writes)."""

    def __init__(self, out: BinaryIO | RotatingFile, fmt: str, group_version: str) -> None:
        self.out = out
        self.format = fmt
        self._prefix = b'{"kind":"Event","apiVersion":"' + group_version.encode() + b'",'
        # the batcher thread and the event loop may both write (blocking and batch backends never share a file,
        # but a union of two log backends could): lines must not interleave
        self._lock = threading.Lock()

    def encode(self, ev: Event) -> bytes:
        if self.format == FORMAT_LEGACY:
            return event_string(ev).encode("utf-8", "replace") + b"\n"
        return self._prefix + orjson.dumps(ev)[1:] + b"\n"

    def process_events(self, events: list[Event]) -> bool:
        ok = True
        for ev in events:
            try:
                line = self.encode(ev)
                with self._lock:
                    self.out.write(line)
                    self.out.flush()
            except (OSError, ValueError, TypeError) as e:
                handle_plugin_error(PLUGIN_NAME, e, [ev])
                ok = False
        return ok

    def run(self) -> None:
        pass

    def shutdown(self) -> None:
        if isinstance(self.out, RotatingFile):
            self.out.close()
        else:
            self.out.flush()


def new_writer(path: str, max_age: int, max_backups: int, max_size: int, compress: bool) -> Any:
    """getWriter: "-" is standard out, anything else a lumberjack-style rotating file."""
    if path == "-":
        return sys.stdout.buffer
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    return RotatingFile(path, max_size=max_size, max_age=max_age, max_backups=max_backups, compress=compress)
