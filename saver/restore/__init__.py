"""Restore tools beyond Saver.restore: init_from_checkpoint, warm_start and partial restores with a report.

The code lives in modules of one idea each; this module is the public face that
``tf.train.init_from_checkpoint`` (graph.compat.v1) and users import:

* ``saver.restore.checkpoint_initializer``: ``init_from_checkpoint`` with TensorFlow 1.x's rules.
* ``saver.restore.partial_restore``: ``restore_matching`` and its ``RestoreReport``.
* ``saver.restore.warm_starting``: ``warm_start`` and ``VocabInfo`` (vocabulary remapping through
  ``saver.restore.remapped_initializer``).
"""

from __future__ import annotations

from saver.restore.checkpoint_initializer import init_from_checkpoint
from saver.restore.warm_starting import VocabInfo, warm_start
from saver.restore.partial_restore import (DtypeMismatch, IncompleteRestoreError, Missing, RestoreReport, Restored,
                                   ShapeMismatch, Skipped, compile_rename, restore_matching)

__all__ = ["init_from_checkpoint", "restore_matching", "RestoreReport", "Restored", "Missing",
           "ShapeMismatch", "DtypeMismatch", "Skipped", "IncompleteRestoreError", "compile_rename", "warm_start",
           "VocabInfo"]
