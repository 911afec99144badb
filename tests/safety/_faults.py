"""Fault injection: count file-system mutations and SIGKILL the process at the Nth one.

``install(kill_at)`` wraps ``builtins.open`` and ``os.open`` (write modes; each ``write`` to the
returned file or descriptor is an event too), ``os.replace``, ``os.rename``, ``os.remove``, ``os.unlink``, ``os.rmdir`` and ``os.mkdir``.
Event N (1-based) kills the process *before* the call runs, so events 1..N-1 happened and event N did
not.  With ``kill_at=None`` nothing is killed and the events are only logged (a dry run).
Python-level buffering is left alone: bytes still in a BufferedWriter are lost on SIGKILL exactly as
they would be in a real crash; bytes handed to the kernel survive, as they do when a process dies.
"""

from __future__ import annotations

import builtins
import os
import re
import signal

__all__ = ["install", "uninstall", "EVENTS", "normalize"]

EVENTS: list[tuple[str, str]] = []   # (kind, normalized path) of every event so far
_state = {"kill_at": None, "count": 0, "saved": None}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_KINDS = ("replace", "rename", "remove", "unlink", "rmdir", "mkdir")
_RANDOM = re.compile(r"(\.tempstate)\d+|(\.tmp)[0-9a-f]{32}")


def normalize(path) -> str:
    """The path's basename (with its parent when it is a ``_temp`` dir), random temp suffixes masked."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8", "surrogateescape")
    parent = os.path.basename(os.path.dirname(path))
    name = os.path.basename(path)
    if parent.endswith("_temp"):
        name = parent + "/" + name
    return _RANDOM.sub(lambda m: (m.group(1) or m.group(2)) + "*", name)


def _event(kind: str, path) -> None:
    _state["count"] += 1
    if _state["kill_at"] is not None and _state["count"] >= _state["kill_at"]:
        os.kill(os.getpid(), signal.SIGKILL)
    EVENTS.append((kind, normalize(path)))


class _File:
    """A write-mode file whose every ``write`` is an event."""

    def __init__(self, file, path):
        self._file = file
        self._path = path

    def write(self, data):
        _event("write", self._path)
        return self._file.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()
        return False

    def __getattr__(self, name):
        return getattr(self._file, name)

    def __iter__(self):
        return iter(self._file)


def install(kill_at: int | None) -> None:
    """Starts counting events; kills this process at event ``kill_at`` (None: never)."""
    if _state["saved"] is not None:
        uninstall()
    _state.update(kill_at=kill_at, count=0)
    EVENTS.clear()
    saved = {"open": builtins.open, "os_open": os.open, "write": os.write}
    saved.update((kind, getattr(os, kind)) for kind in _KINDS)
    _state["saved"] = saved
    written_fds: dict[int, str] = {}

    def wrapped_os_open(path, flags, *args, **kwargs):
        if flags & _WRITE_FLAGS:
            _event("open", path)
            fd = saved["os_open"](path, flags, *args, **kwargs)
            written_fds[fd] = os.fspath(path)
            return fd
        return saved["os_open"](path, flags, *args, **kwargs)

    def wrapped_write(fd, data):
        if fd in written_fds:
            _event("write", written_fds[fd])
        return saved["write"](fd, data)

    def wrapped_open(file, mode="r", *args, **kwargs):
        writing = any(c in mode for c in "wax+")
        if writing:
            _event("open", file)
        result = saved["open"](file, mode, *args, **kwargs)
        return _File(result, file) if writing and not isinstance(file, int) else result

    def wrap(kind):
        original = saved[kind]

        def call(path, *args, **kwargs):
            _event(kind, path if kind not in ("replace", "rename") else args[0] if args else path)
            return original(path, *args, **kwargs)
        return call

    builtins.open = wrapped_open
    os.open = wrapped_os_open
    os.write = wrapped_write
    for kind in _KINDS:
        setattr(os, kind, wrap(kind))


def uninstall() -> None:
    """Restores the real functions."""
    saved = _state["saved"]
    if saved is None:
        return
    builtins.open = saved["open"]
    os.open = saved["os_open"]
    os.write = saved["write"]
    for kind in _KINDS:
        setattr(os, kind, saved[kind])
    _state["saved"] = None
