"""TensorFlow 1.x's name-based Saver and TensorFlow checkpoint files, without TensorFlow.

``from saver import Saver, load_checkpoint, write_checkpoint, latest_checkpoint, ...``:
the Saver (save / restore / retention / sharding), the checkpoint readers and writer,
checkpoint-state management, restores beyond TensorFlow (partial, renamed), TF2
object-graph reading and ``.meta`` files.  The error classes are TensorFlow's, from
``graph.base.errors`` (re-exported as ``saver.errors``).
"""

from graph.base import errors  # noqa: F401  (saver.errors.NotFoundError, ...)
from graph.base.errors import DataLossError, InvalidArgumentError, NotFoundError, OpError  # noqa: F401
from saver.format.bundle import BundleReader, BundleWriter, Slice, merge_bundles, write_checkpoint
from graph.train.global_step import create_global_step, get_global_step, get_or_create_global_step
from saver.meta_graph import export_meta_graph, import_graph_def, import_meta_graph
from saver.storage.object_graph import ObjectGraph, object_graph_from_checkpoint
from saver.storage.reader import CheckpointReader, NewCheckpointReader, list_variables, load_checkpoint, load_variable
from saver.restore import RestoreReport, init_from_checkpoint, restore_matching
from saver.saver import Saver, SaverDef
from saver.storage.state import (CheckpointState, checkpoint_exists, checkpoints_iterator, generate_checkpoint_state_proto,
                         get_checkpoint_mtimes, get_checkpoint_state, latest_checkpoint, remove_checkpoint,
                         update_checkpoint_state)

__all__ = [
    "Saver", "SaverDef",
    "load_checkpoint", "CheckpointReader", "NewCheckpointReader", "list_variables", "load_variable",
    "write_checkpoint", "BundleReader", "BundleWriter", "Slice", "merge_bundles",
    "latest_checkpoint", "get_checkpoint_state", "update_checkpoint_state", "generate_checkpoint_state_proto",
    "checkpoint_exists", "get_checkpoint_mtimes", "remove_checkpoint", "checkpoints_iterator", "CheckpointState",
    "restore_matching", "RestoreReport", "init_from_checkpoint",
    "get_global_step", "create_global_step", "get_or_create_global_step",
    "ObjectGraph", "object_graph_from_checkpoint",
    "export_meta_graph", "import_meta_graph", "import_graph_def",
    "errors", "OpError", "NotFoundError", "InvalidArgumentError", "DataLossError",
]
