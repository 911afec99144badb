"""PausedGC: the cyclic garbage collector paused for bulk work on a graph."""

from __future__ import annotations

import gc

__all__ = ["PausedGC"]


class PausedGC:
    """Pauses the cyclic garbage collector during bulk work on a graph (a Saver's build, a Session run, a
    .meta export): its full collections would rescan every op of a 10,000-variable graph again and again.
    Nothing is lost: what the work leaves unreachable is collected once the collector runs again."""

    __slots__ = ("_was_enabled",)

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info) -> None:
        if self._was_enabled:
            gc.enable()
