"""Checkpoint retention after a restart: recovering the kept list and deciding what retention may delete.

TensorFlow's ``Saver.recover_last_checkpoints(paths)`` takes the paths a ``checkpoint`` state file lists
(``SessionManager._restore_checkpoint`` passes ``ckpt.all_model_checkpoint_paths`` after a restore), keeps
those that exist with their modification times, and from then on deletes them as they fall out of
``max_to_keep``, exactly like checkpoints it wrote itself.

TensorFlow deletes any recovered path. A state file is data anyone could have written (``../elsewhere``,
a V1 glob such as ``dir/*``), so here a path this Saver did not write is deleted only when it belongs to
the run: it names the same directory as a checkpoint this Saver wrote and the same name up to its
numbers (``model.ckpt-0`` next to a written ``model.ckpt-12``). That is every path a TF1 restart
recovers, so the files left on disk are TensorFlow's, and nothing outside the run is touched.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from graph import errors
from saver.storage import state as state_lib

__all__ = ["checkpoints_with_mtimes", "belongs_to_run"]

_NUMBER = re.compile(r"\d+")
_GLOB_CHARACTERS = re.compile(r"[*\[\]]")  # '?' is legitimate: a V1 sharded prefix ends in -?????-of-0000N


def checkpoints_with_mtimes(checkpoint_paths: Sequence[str]) -> list[tuple[str, float]]:
    """The (prefix, mtime) pairs of the checkpoints in `checkpoint_paths` that exist, in order, as TF's."""
    recovered = []
    for path in checkpoint_paths:
        try:
            mtime = state_lib.get_checkpoint_mtimes([path])
        except errors.NotFoundError:
            continue
        if mtime:
            recovered.append((path, mtime[0]))
    return recovered


def _run_key(path: str) -> tuple[str, str]:
    """A checkpoint's run: its normalized directory and its file name with every number made one symbol."""
    directory, name = os.path.split(path)
    return os.path.normcase(os.path.abspath(directory or ".")), _NUMBER.sub("#", name)


def belongs_to_run(path: str, written: Iterable[str]) -> bool:
    """Whether retention may delete `path`: written by this Saver, or a sibling of one it wrote (same run)."""
    written = set(written)
    if path in written:
        return True
    if not path or _GLOB_CHARACTERS.search(os.path.basename(path)):
        return False
    key = _run_key(path)
    return any(_run_key(own) == key for own in written)
