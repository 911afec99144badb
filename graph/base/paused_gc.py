"""PausedGC: the cyclic garbage collector paused for bulk work on a graph, safely across threads."""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["PausedGC", "gc_resumed"]

_lock = threading.Lock()
_depth = 0  # PausedGC blocks active in any thread (minus those waiting in gc_resumed)
_disabled_by_us = False  # whether the outermost block disabled the collector (it was enabled before)


def _enter() -> None:
    global _depth, _disabled_by_us
    with _lock:
        if _depth == 0 and gc.isenabled():
            gc.disable()
            _disabled_by_us = True
        _depth += 1


def _exit() -> None:
    global _depth, _disabled_by_us
    with _lock:
        _depth -= 1
        if _depth == 0 and _disabled_by_us:
            _disabled_by_us = False
            gc.enable()


class PausedGC:
    """Pauses the cyclic garbage collector during bulk work on a graph (a Saver's build, a Session run, a
    .meta export): its full collections would rescan every op of a 10,000-variable graph again and again.
    Nothing is lost: what the work leaves unreachable is collected once the collector runs again.

    Blocks nest and overlap across threads (Session.run is called from several at once): the collector
    runs again when the last active block ends."""

    __slots__ = ()

    def __enter__(self) -> None:
        _enter()

    def __exit__(self, *exc_info) -> None:
        _exit()


@contextlib.contextmanager
def gc_resumed():
    """Inside a PausedGC block, lifts this thread's pause while it waits (a blocked queue op), so a thread
    that waits for hours does not keep the collector off for everyone."""
    _exit()
    try:
        yield
    finally:
        _enter()
