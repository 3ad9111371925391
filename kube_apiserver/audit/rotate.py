"""A file that rotates itself as gopkg.in/natefinch/lumberjack.v2's Logger does (kube's audit log writer):

- a write that would take the file past max_size megabytes (0: 100) first renames the file to
  <name>-<UTC time as 2006-01-02T15-04-05.000><ext> and starts a new one (mode 0600, or the old file's mode);
- after a rotation, old backups are gzip-compressed (compress), and removed when more than max_backups exist
  or their name's time is older than max_age days (0 keeps them all);
- a single write larger than max_size fails.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import stat
import threading
import time
from datetime import UTC, datetime, timedelta

log = logging.getLogger("kube_apiserver.audit")

MEGABYTE = 1024 * 1024
DEFAULT_MAX_SIZE = 100
BACKUP_TIME_FORMAT = "%Y-%m-%dT%H-%M-%S"
COMPRESS_SUFFIX = ".gz"


class RotatingFile:
    def __init__(
        self, filename: str, max_size: int = 0, max_age: int = 0, max_backups: int = 0, compress: bool = False
    ):
        self.filename = filename
        self.max_bytes = (max_size or DEFAULT_MAX_SIZE) * MEGABYTE
        self.max_age = max_age
        self.max_backups = max_backups
        self.compress = compress
        self._fd: int | None = None
        self._size = 0
        self._mill_lock = threading.Lock()
        self._mill_wake = threading.Event()
        self._mill_thread: threading.Thread | None = None

    # -- writing --------------------------------------------------------------------------------------------------

    def write(self, data: bytes) -> int:
        n = len(data)
        if n > self.max_bytes:
            raise ValueError(f"write length {n} exceeds maximum file size {self.max_bytes}")
        if self._fd is None:
            self._open_existing_or_new(n)
        elif self._size + n > self.max_bytes:
            self._rotate()
        assert self._fd is not None
        written = os.write(self._fd, data)
        while written < n:  # a short write (a full disk raises instead)
            written += os.write(self._fd, data[written:])
        self._size += n
        return n

    def flush(self) -> None:
        """Every write is a write(2) already."""

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open_existing_or_new(self, write_len: int) -> None:
        self._mill()
        try:
            info = os.stat(self.filename)
        except FileNotFoundError:
            self._open_new()
            return
        if info.st_size + write_len >= self.max_bytes:
            self._rotate()
            return
        try:
            self._fd = os.open(self.filename, os.O_APPEND | os.O_WRONLY)
            self._size = info.st_size
        except OSError:
            # lumberjack ignores the error and starts a new file
            self._open_new()

    def _open_new(self) -> None:
        mode = 0o600
        try:
            info = os.stat(self.filename)
            mode = stat.S_IMODE(info.st_mode)
            os.rename(self.filename, self.backup_name(time.time()))
        except FileNotFoundError:
            pass
        self._fd = os.open(self.filename, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, mode)
        self._size = 0

    def _rotate(self) -> None:
        self.close()
        self._open_new()
        self._mill()

    def backup_name(self, t: float) -> str:
        directory, base = os.path.split(self.filename)
        prefix, ext = os.path.splitext(base)
        dt = datetime.fromtimestamp(t, UTC)
        stamp = dt.strftime(BACKUP_TIME_FORMAT) + f".{dt.microsecond // 1000:03d}"
        return os.path.join(directory, f"{prefix}-{stamp}{ext}")

    # -- the mill: compression and removal of old backups, off the writer's path --------------------------------

    def _mill(self) -> None:
        if not (self.max_backups or self.max_age or self.compress):
            return
        if self._mill_thread is None:
            self._mill_thread = threading.Thread(target=self._mill_loop, name="audit-log-mill", daemon=True)
            self._mill_thread.start()
        self._mill_wake.set()

    def _mill_loop(self) -> None:
        while True:
            self._mill_wake.wait()
            self._mill_wake.clear()
            try:
                self.mill_run_once()
            except OSError as e:
                log.error("audit log rotation: %s", e)

    def old_log_files(self) -> list[tuple[datetime, str]]:
        """The backups, newest first, with the time in their names."""
        directory, base = os.path.split(self.filename)
        prefix, ext = os.path.splitext(base)
        prefix += "-"
        out = []
        for name in os.listdir(directory or "."):
            for suffix in (ext, ext + COMPRESS_SUFFIX):
                if name.startswith(prefix) and name.endswith(suffix):
                    stamp = name[len(prefix) : len(name) - len(suffix)]
                    try:
                        t = datetime.strptime(stamp, BACKUP_TIME_FORMAT + ".%f").replace(tzinfo=UTC)
                    except ValueError:
                        continue
                    out.append((t, os.path.join(directory, name)))
                    break
        out.sort(reverse=True)
        return out

    def mill_run_once(self) -> None:
        with self._mill_lock:
            files = self.old_log_files()
            remove: list[str] = []
            if self.max_backups and len(files) > self.max_backups:
                kept: set[str] = set()
                keep: list[tuple[datetime, str]] = []
                for t, path in files:
                    # a backup and its compressed form count once
                    key = path[: -len(COMPRESS_SUFFIX)] if path.endswith(COMPRESS_SUFFIX) else path
                    if key in kept:
                        remove.append(path)
                        continue
                    kept.add(key)
                    if len(kept) > self.max_backups:
                        remove.append(path)
                    else:
                        keep.append((t, path))
                files = keep
            if self.max_age:
                cutoff = datetime.now(UTC) - timedelta(days=self.max_age)
                keep = []
                for t, path in files:
                    (remove.append(path) if t < cutoff else keep.append((t, path)))
                files = keep
            for path in remove:
                try:
                    os.remove(path)
                except FileNotFoundError:
                    pass
            if self.compress:
                for _, path in files:
                    if not path.endswith(COMPRESS_SUFFIX):
                        _compress(path, path + COMPRESS_SUFFIX)


def _compress(src: str, dst: str) -> None:
    info = os.stat(src)
    with open(src, "rb") as f, gzip.open(dst, "wb") as out:
        shutil.copyfileobj(f, out)
    os.chmod(dst, stat.S_IMODE(info.st_mode))
    os.remove(src)
