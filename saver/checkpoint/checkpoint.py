"""tf.train.Checkpoint in graph mode (TF's CheckpointV1): save, write, restore and the lazy save_counter.

``write(prefix)`` serializes the object graph of the live objects (object_graph_view), then runs one
``SaveV2`` over ``{checkpoint key: variable}`` plus ``_CHECKPOINTABLE_OBJECT_GRAPH``; the op is built once
per set of variables and the object graph bytes and prefix are fed each time, as TF's graph-mode
TrackableSaver does.  ``save(prefix)`` bumps ``save_counter``, writes ``<prefix>-<n>`` and records it
(alone) in the ``checkpoint`` state file with a relative path.  ``restore(path)`` returns a load status
(saver.checkpoint.restore); restore ops run in the user's session.
"""

from __future__ import annotations

import itertools
import os

from graph.base import dtypes
from graph.core import graph as graph_lib
from graph.ops import constant_ops
from graph.platform import file_io
from graph.runtime.session import Session
from graph.tracking import AutoTrackable, NoDependency, is_trackable
from graph.variables.variables import Variable
from saver.checkpoint.name_based import NameBasedSaverStatus
from saver.checkpoint.object_graph_view import serialize
from saver.checkpoint.restore import (CheckpointLoadStatus, InitializationOnlyStatus, RestoreCoordinator,
                                      file_prefix_tensor, session_or_default)
from saver.graph_ops import save_ops
from saver.storage import state as state_lib
from saver.storage.object_graph import object_graph_from_checkpoint
from saver.storage.object_graph_keys import OBJECT_GRAPH_PROTO_KEY
from saver.storage.reader import NewCheckpointReader

__all__ = ["Checkpoint", "TrackableSaver"]

_RESTORE_UIDS = itertools.count()  # restore uids grow across every Checkpoint, as TF's ops.uid()


class TrackableSaver:
    """Saves and restores the object graph rooted at one object, in graph mode (TF's TrackableSaver)."""

    def __init__(self, root):
        self._root = root
        self._save_ops: dict[tuple, tuple] = {}  # (graph id, keys, variable ids) -> (prefix, graph bytes, out)
        self._prefix_tensors: dict[int, object] = {}  # graph id -> the restore ops' prefix Const

    def save(self, file_prefix: str, session: Session | None = None) -> str:
        """Writes a checkpoint of every object reachable from the root; returns its prefix.

        Raises:
          FailedPreconditionError: if a variable is not initialized in `session`.
          ValueError: if a tracked list or dict cannot be saved.
        """
        session = session_or_default(session)
        view = serialize(self._root)
        names = list(view.keys_to_variables)  # node order
        variables = [view.keys_to_variables[name] for name in names]
        graph = session.graph
        cache_key = (id(graph), tuple(names), tuple(id(v) for v in variables))
        if cache_key not in self._save_ops:
            self._save_ops[cache_key] = self._build_save_op(graph, names, variables)
        prefix_tensor, graph_tensor, output = self._save_ops[cache_key]
        result = session.run(output, feed_dict={prefix_tensor: os.fspath(file_prefix),
                                                graph_tensor: view.graph.to_bytes()})
        return result.decode("utf-8") if isinstance(result, bytes) else str(result)

    @staticmethod
    def _build_save_op(graph, names: list[str], variables: list[Variable]) -> tuple:
        with graph.as_default(), graph_lib.name_scope(None, "save"), graph_lib.device("/cpu:0"):
            prefix = constant_ops.placeholder(dtypes.string, shape=[], name="file_prefix")
            object_graph = constant_ops.placeholder(dtypes.string, shape=[], name="object_graph")
            tensors = [graph_lib.convert_to_tensor(v) for v in variables] + [object_graph]
            # Node order, the object graph last: the order TF's saver writes the data file in.
            keys = names + [OBJECT_GRAPH_PROTO_KEY]
            save = save_ops.save_v2(prefix, keys, [""] * len(keys), tensors)
            with graph_lib.control_dependencies([save]):
                output = constant_ops.identity(prefix)
        return prefix, object_graph, output

    def restore(self, save_path: str | None):
        """A load status for `save_path` (None: an InitializationOnlyStatus).

        Raises:
          NotFoundError: if there is no checkpoint at `save_path`.
        """
        restore_uid = next(_RESTORE_UIDS)
        if save_path is None:
            return InitializationOnlyStatus(self._root, restore_uid)
        save_path = os.fspath(save_path)
        reader = NewCheckpointReader(save_path)
        try:
            if not reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
                return NameBasedSaverStatus(self._root, save_path, reader.get_variable_to_dtype_map(), restore_uid)
            graph = object_graph_from_checkpoint(reader)
        finally:
            reader.close()
        coordinator = RestoreCoordinator(self._root, save_path, graph, restore_uid, self._prefix_tensor())
        coordinator.match()
        return CheckpointLoadStatus(coordinator)

    def _prefix_tensor(self):
        graph = graph_lib.get_default_graph()
        if id(graph) not in self._prefix_tensors:
            self._prefix_tensors[id(graph)] = file_prefix_tensor(graph)
        return self._prefix_tensors[id(graph)]


class Checkpoint(AutoTrackable):
    """Groups trackable objects, saving and restoring them (tf.compat.v1.train.Checkpoint, graph mode)."""

    def __init__(self, **kwargs):
        """Tracks each keyword argument under its name (sorted by name, as TF).

        Raises:
          ValueError: if a value is not trackable.
        """
        super().__init__()
        for name, value in sorted(kwargs.items(), key=lambda item: item[0]):
            setattr(self, name, value)
            if not is_trackable(getattr(self, name)):
                raise ValueError("`Checkpoint` was expecting a trackable object (an object derived from "
                                 f"`Trackable`), got {value}. If you believe this object should be trackable "
                                 "(i.e. it is part of the TensorFlow Python API and manages state), please open "
                                 "an issue.")
        self._save_counter = None  # created lazily, so a restore can bind it before it exists
        self._save_assign_op = None
        self._saver = NoDependency(TrackableSaver(self))

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            with graph_lib.device("/cpu:0"):
                counter = Variable(0, dtype=dtypes.int64, name="save_counter", trainable=False)
            self._save_counter = NoDependency(counter)
            self._track_trackable(counter, name="save_counter")

    @property
    def save_counter(self) -> Variable:
        """An int64 variable counting ``save()`` calls (created on first use)."""
        self._maybe_create_save_counter()
        return self._save_counter

    def write(self, file_prefix: str, session: Session | None = None) -> str:
        """Writes a checkpoint at exactly `file_prefix`, without touching save_counter or the state file."""
        return self._saver.save(file_prefix, session=session)

    def save(self, file_prefix: str, session: Session | None = None) -> str:
        """Saves to ``<file_prefix>-<save_counter>`` and records it in the directory's ``checkpoint`` file.

        Returns:
          The checkpoint's prefix.
        """
        session = session_or_default(session)
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        if self._save_assign_op is None:
            with graph_lib.colocate_with(self.save_counter.op):
                self._save_assign_op = NoDependency(self.save_counter.assign_add(1, read_value=True))
        checkpoint_number = session.run(self._save_assign_op)
        file_path = self.write("%s-%d" % (os.fspath(file_prefix), checkpoint_number), session=session)
        state_lib.update_checkpoint_state_internal(
            save_dir=file_io.split(os.fspath(file_prefix))[0], model_checkpoint_path=file_path,
            all_model_checkpoint_paths=[file_path], save_relative_paths=True)
        return file_path

    def restore(self, save_path: str | None):
        """Restores the objects from `save_path` (a prefix, e.g. ``tf.train.latest_checkpoint(dir)``).

        Returns:
          A CheckpointLoadStatus (InitializationOnlyStatus for None; NameBasedSaverStatus for a TF1
          name-based checkpoint) whose ``run_restore_ops`` / ``initialize_or_restore`` run in a session.
        """
        status = self._saver.restore(save_path)
        self._maybe_create_save_counter()
        if isinstance(status, NameBasedSaverStatus):
            status.add_to_optionally_restored(self.save_counter)
        return status
