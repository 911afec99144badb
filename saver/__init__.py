"""TensorFlow 1.x's name-based Saver and TensorFlow checkpoint files, without TensorFlow.

``from saver import Saver, load_checkpoint, write_checkpoint, latest_checkpoint, ...``:
the Saver (save / restore / retention / sharding), the checkpoint readers and writer,
checkpoint-state management, restores beyond TensorFlow (partial, renamed), TF2
object-graph reading and ``.meta`` files.  The error classes are TensorFlow's, from
``graph.errors`` (re-exported as ``saver.errors``).

Layers, bottom to top (each imports only the ones below it, and ``graph``'s public names)::

    format/      crc, coding, table, bundle entry/strings/files/writer/reader, merge, V1, messages
    storage/     state file, CheckpointReader (URLs read by byte ranges), object graph,
                 npz/safetensors export; remote writes streamed on top
    graph_ops/   SaveV2/RestoreV2/MergeV2Checkpoints/LoadAndRemapMatrix kernels, saveables, the save graph builder
    meta_graph.py, meta_graph_import.py   .meta messages and export; reading and import
    saver.py     Saver, import_meta_graph (beside the Saver, as TensorFlow has it)
    restore/     init_from_checkpoint, warm_start (vocabulary remapping), partial restores and their report
    cli/         the command line (``python -m saver``)

Files are read and written through ``graph.platform.file_io`` (local paths and fsspec URLs, the
one atomic write).  This package loads lazily: ``import saver.format.bundle_reader`` loads the
format layer only, and each name below is imported on first use.
"""

from __future__ import annotations

import importlib

# name -> module that defines it; loaded on first attribute access (PEP 562).
_EXPORTS = {
    "errors": "graph.errors",
    "OpError": "graph.errors", "NotFoundError": "graph.errors",
    "InvalidArgumentError": "graph.errors", "DataLossError": "graph.errors",
    "BundleReader": "saver.format.bundle", "BundleWriter": "saver.format.bundle", "Slice": "saver.format.bundle",
    "merge_bundles": "saver.format.bundle", "write_checkpoint": "saver.format.bundle",
    "create_global_step": "graph.train.global_step", "get_global_step": "graph.train.global_step",
    "get_or_create_global_step": "graph.train.global_step",
    "export_meta_graph": "saver.meta_graph", "import_graph_def": "graph.io.graph_import",
    "import_meta_graph": "saver.saver",
    "ObjectGraph": "saver.storage.object_graph", "object_graph_from_checkpoint": "saver.storage.object_graph",
    "CheckpointReader": "saver.storage.reader", "NewCheckpointReader": "saver.storage.reader",
    "list_variables": "saver.storage.reader", "load_checkpoint": "saver.storage.reader",
    "load_variable": "saver.storage.reader",
    "RestoreReport": "saver.restore", "init_from_checkpoint": "saver.restore", "restore_matching": "saver.restore",
    "warm_start": "saver.restore", "VocabInfo": "saver.restore",
    "Saver": "saver.saver", "SaverDef": "saver.saver",
    "CheckpointState": "saver.storage.state", "checkpoint_exists": "saver.storage.state",
    "checkpoints_iterator": "saver.storage.state", "generate_checkpoint_state_proto": "saver.storage.state",
    "get_checkpoint_mtimes": "saver.storage.state", "get_checkpoint_state": "saver.storage.state",
    "latest_checkpoint": "saver.storage.state", "remove_checkpoint": "saver.storage.state",
    "update_checkpoint_state": "saver.storage.state",
}

__all__ = [
    "Saver", "SaverDef",
    "load_checkpoint", "CheckpointReader", "NewCheckpointReader", "list_variables", "load_variable",
    "write_checkpoint", "BundleReader", "BundleWriter", "Slice", "merge_bundles",
    "latest_checkpoint", "get_checkpoint_state", "update_checkpoint_state", "generate_checkpoint_state_proto",
    "checkpoint_exists", "get_checkpoint_mtimes", "remove_checkpoint", "checkpoints_iterator", "CheckpointState",
    "restore_matching", "RestoreReport", "init_from_checkpoint", "warm_start", "VocabInfo",
    "get_global_step", "create_global_step", "get_or_create_global_step",
    "ObjectGraph", "object_graph_from_checkpoint",
    "export_meta_graph", "import_meta_graph", "import_graph_def",
    "errors", "OpError", "NotFoundError", "InvalidArgumentError", "DataLossError",
]


def __getattr__(name: str):
    """Imports the module defining ``name`` on first use and caches the value here."""
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if name == "errors" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
