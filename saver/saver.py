"""Saver: TensorFlow 1.x's tf.train.Saver — var_list to checkpoint names, save/restore, retention.

A Saver hands its var_list to a builder (saver.graph_ops.saver_builder: the ``save/...`` ops and the SaverDef
naming them, tf-checkpoint-format.md §7) and then only runs those ops: ``save()`` feeds the
checkpoint prefix to ``saver_def.filename_tensor_name`` and runs the save tensor, then writes the
``checkpoint`` state file and deletes old checkpoints exactly as TensorFlow does (§6);
``restore()`` runs ``save/restore_all`` and falls back to a TF2 object-based checkpoint's name
map (§8).  SaverDef, BaseSaverBuilder and BulkSaverBuilder are re-exported from here, where
TensorFlow users import them.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence

import numpy as np

from graph import errors
from graph.base.paused_gc import PausedGC
from graph.core import graph as graph_lib
from graph.core.name_scopes import prepend_name_scope, strip_name_scope
from graph.platform import file_io
from graph.proto.meta_graph import SaverDef
from graph.runtime import session as session_lib
from saver import meta_graph, meta_graph_import
from saver.meta_graph import export_meta_graph  # tf.train.export_meta_graph, here as in TensorFlow
from saver.format import v1 as v1_format
from saver.graph_ops import saveable as saveable_lib
from saver.graph_ops.saver_builder import BaseSaverBuilder, BulkSaverBuilder
from saver.storage import remote
from saver.storage import retention
from saver.storage import state as state_lib
from saver.storage.object_graph import object_graph_key_mapping
from saver.storage.reader import NewCheckpointReader

__all__ = [
    "Saver", "SaverDef", "BaseSaverBuilder", "BulkSaverBuilder", "CheckpointNotFoundError",
    "saver_from_object_based_checkpoint", "object_graph_key_mapping", "export_meta_graph", "import_meta_graph",
]

logger = logging.getLogger(__name__)


class CheckpointNotFoundError(errors.NotFoundError, ValueError):
    """No checkpoint at the path given to ``restore``: a NotFoundError, and a ValueError as in TensorFlow."""


# ----------------------------------------------------------------- Saver
def _is_session(sess) -> bool:
    return isinstance(sess, session_lib.BaseSession) or (hasattr(sess, "run") and hasattr(sess, "graph"))


def _as_str(value) -> str:
    if isinstance(value, np.ndarray):
        value = value.item()
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "surrogateescape")
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")  # TF: compat.as_bytes' error


class Saver:
    """Saves and restores variables (``tf.compat.v1.train.Saver``)."""

    def __init__(self, var_list=None, reshape: bool = False, sharded: bool = False, max_to_keep: int | None = 5,
                 keep_checkpoint_every_n_hours: float = 10000.0, name: str | None = None,
                 restore_sequentially: bool = False, saver_def: SaverDef | None = None, builder=None,
                 defer_build: bool = False, allow_empty: bool = False, write_version: int = SaverDef.V2,
                 pad_step_number: bool = False, save_relative_paths: bool = False, filename: str | None = None):
        """Creates a Saver and (unless ``defer_build``) adds its save/restore ops to the graph.

        Raises:
            TypeError: if ``var_list`` holds something that is not a variable.
            ValueError: for duplicate names, or no variables without ``allow_empty``.
        """
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either set "
                             "defer_build=False or var_list=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []
        self._written: set[str] = set()
        self._assign_targets: dict[str, tuple[str, str, str]] = {}
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths
        self._object_restore_saver = None

    # ------------------------------------------------------------- building
    def build(self) -> None:
        """Adds the save and restore ops (once)."""
        self._build(self._filename, build_save=True, build_restore=True)

    def _build(self, checkpoint_path, build_save, build_restore) -> None:
        if self._is_built:
            return
        with PausedGC():  # one Assign per variable: no full collections while adding them
            self._build_unpaused(checkpoint_path, build_save, build_restore)

    def _build_unpaused(self, checkpoint_path, build_save, build_restore) -> None:
        self._is_built = True
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                self._var_list = saveable_lib.all_saveable_objects()
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded, max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours, name=self._name,
                restore_sequentially=self._restore_sequentially, filename=checkpoint_path,
                build_save=build_save, build_restore=build_restore)
            self._assign_targets = dict(getattr(self._builder, "assign_targets", {}))
        elif self.saver_def and self._name:
            self.saver_def.filename_tensor_name = prepend_name_scope(self.saver_def.filename_tensor_name, self._name)
            self.saver_def.save_tensor_name = prepend_name_scope(self.saver_def.save_tensor_name, self._name)
            self.saver_def.restore_op_name = prepend_name_scope(self.saver_def.restore_op_name, self._name)
        self._check_saver_def()
        self._next_checkpoint_time = time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600

    def _check_saver_def(self) -> None:
        if not isinstance(self.saver_def, SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def as_saver_def(self) -> SaverDef:
        """The SaverDef naming this saver's filename tensor, save tensor and restore op."""
        return self.saver_def

    def to_proto(self, export_scope: str | None = None) -> SaverDef | None:
        """The SaverDef with ``export_scope`` stripped from its names (None if they are outside it)."""
        if export_scope is None:
            return self.saver_def
        if not (self.saver_def.filename_tensor_name.startswith(export_scope)
                and self.saver_def.save_tensor_name.startswith(export_scope)
                and self.saver_def.restore_op_name.startswith(export_scope)):
            return None
        saver_def = SaverDef()
        saver_def.CopyFrom(self.saver_def)
        saver_def.filename_tensor_name = strip_name_scope(saver_def.filename_tensor_name, export_scope)
        saver_def.save_tensor_name = strip_name_scope(saver_def.save_tensor_name, export_scope)
        saver_def.restore_op_name = strip_name_scope(saver_def.restore_op_name, export_scope)
        return saver_def

    @staticmethod
    def from_proto(saver_def: SaverDef, import_scope: str | None = None) -> Saver:
        """A Saver for an existing graph's save/restore ops described by ``saver_def``."""
        return Saver(saver_def=saver_def, name=import_scope)

    # ------------------------------------------------------------- retention
    @property
    def last_checkpoints(self) -> list[str]:
        """The not-yet-deleted checkpoint prefixes, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints: list[str]) -> None:
        """DEPRECATED: Use set_last_checkpoints_with_time (timestamps become +inf)."""
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(path, np.inf) for path in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list[tuple[str, float]]) -> None:
        """Sets the list of (checkpoint prefix, timestamp) this saver manages."""
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        """Recovers the managed list after a crash: the checkpoints that exist, with their mtimes."""
        self.set_last_checkpoints_with_time(retention.checkpoints_with_mtimes(checkpoint_paths))

    def _RecordLastCheckpoint(self, latest_save_path: str) -> None:  # noqa: N802 - TF's name
        if not self.saver_def.max_to_keep:
            return
        for entry in self._last_checkpoints[:]:
            if latest_save_path == entry[0]:
                self._last_checkpoints.remove(entry)
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _MaybeDeleteOldCheckpoints(self, meta_graph_suffix: str = "meta") -> None:  # noqa: N802 - TF's name
        while self._checkpoints_to_be_deleted:
            path, timestamp = self._checkpoints_to_be_deleted.pop(0)
            if not retention.belongs_to_run(path, self._written):
                # A recovered path may come from a state file anyone wrote: delete only this run's
                # checkpoints (TF deletes any). A skipped path does not use up this save's one deletion.
                logger.info("Not deleting %s: not a checkpoint of this Saver's run", path)
                continue
            if timestamp > self._next_checkpoint_time:
                self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
                return
            try:
                state_lib.remove_checkpoint(path, self.saver_def.version, meta_graph_suffix)
            except Exception as error:  # noqa: BLE001 - TF logs and ignores any failure here
                logger.warning("Ignoring: %s", error)
            return

    # ------------------------------------------------------------- save
    def save(self, sess, save_path, global_step=None, latest_filename: str | None = None,
             meta_graph_suffix: str = "meta", write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
        """Saves the variables; returns the checkpoint prefix (``model.ckpt-1000``), None for an empty saver.

        Raises:
            TypeError: if ``sess`` is not a Session.
            ValueError: if ``latest_filename`` has path components or collides with ``save_path``, or the
                parent directory of ``save_path`` does not exist.
            RuntimeError: if the saver was deferred and never built.
        """
        _as_str(save_path)  # TF: compat.as_bytes' TypeError for a path that is not a string, nothing written
        if file_io.is_url(save_path):  # fsspec URLs (memory://, s3:// ...): streamed to the store
            return remote.save(self, sess, save_path, global_step, write_meta_graph, latest_filename=latest_filename,
                               meta_graph_suffix=meta_graph_suffix, write_state=write_state,
                               strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if self._write_version != SaverDef.V2:
            logger.warning(v1_format.DEPRECATION_WARNING)
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _as_str(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)) or isinstance(global_step, bool):
                global_step = int(sess.run(global_step))
            if self._pad_step_number:
                checkpoint_file = f"{save_path}-{global_step:08d}"
            else:
                checkpoint_file = "%s-%d" % (save_path, global_step)
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': '{latest_filename}' and "
                                 f"'{save_path}'")
        if not _is_session(sess):
            raise TypeError(f"'sess' must be a Session; {sess}")
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                model_checkpoint_path = _as_str(sess.run(
                    self.saver_def.save_tensor_name, {self.saver_def.filename_tensor_name: checkpoint_file}))
                self._written.add(model_checkpoint_path)
                if write_state:
                    self._RecordLastCheckpoint(model_checkpoint_path)
                    state_lib.update_checkpoint_state_internal(
                        save_dir=save_path_parent, model_checkpoint_path=model_checkpoint_path,
                        all_model_checkpoint_paths=self.last_checkpoints, latest_filename=latest_filename,
                        save_relative_paths=self._save_relative_paths)
                    self._MaybeDeleteOldCheckpoints(meta_graph_suffix=meta_graph_suffix)
            except (errors.FailedPreconditionError, errors.NotFoundError, OSError) as exc:
                if not os.path.isdir(save_path_parent or "."):  # missing, or a file (TF's ValueError for both)
                    raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.") from exc
                raise file_io.os_error(exc, file_io.intended_name(exc.filename or checkpoint_file)) if isinstance(
                    exc, OSError) else exc  # disk full, permission denied: TF's class, naming the real file
        if write_meta_graph:
            filename = state_lib.meta_graph_filename(checkpoint_file, meta_graph_suffix=meta_graph_suffix)
            with sess.graph.as_default():
                self.export_meta_graph(filename, strip_default_attrs=strip_default_attrs,
                                       save_debug_info=save_debug_info)
        return None if self._is_empty else model_checkpoint_path

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """Writes this graph and SaverDef as a MetaGraphDef (saver.meta_graph.export_meta_graph)."""
        return meta_graph.export_meta_graph(filename=filename, saver_def=self.saver_def, graph=graph_lib.get_default_graph(),
                                 collection_list=collection_list, as_text=as_text, export_scope=export_scope,
                                 clear_devices=clear_devices, clear_extraneous_savers=clear_extraneous_savers,
                                 strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)

    # ------------------------------------------------------------- restore
    def restore(self, sess, save_path) -> None:
        """Restores the variables from checkpoint ``save_path`` (V2, V1 or sharded; TF2 object-based too).

        Raises:
            ValueError: if ``save_path`` is None.
            CheckpointNotFoundError: (a NotFoundError and a ValueError) if no checkpoint is there.
            NotFoundError: if a variable is missing from the checkpoint (naming the closest keys).
            InvalidArgumentError: for a shape or dtype mismatch (naming the variable and both shapes).
        """
        if file_io.is_url(save_path):  # fsspec URLs: V2 and V1 checkpoints read in place by byte ranges
            save_path = remote.in_place_prefix(save_path)
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        checkpoint_prefix = _as_str(save_path)
        if not state_lib.restorable_prefix(checkpoint_prefix):  # for x.index: says to pass the prefix x
            raise CheckpointNotFoundError(None, None, state_lib.not_a_checkpoint_message(checkpoint_prefix))
        logger.info("Restoring parameters from %s", checkpoint_prefix)
        try:
            sess.run(self.saver_def.restore_op_name, {self.saver_def.filename_tensor_name: checkpoint_prefix})
        except errors.NotFoundError as err:
            try:
                names_to_keys = object_graph_key_mapping(checkpoint_prefix)
            except errors.NotFoundError:
                raise _wrap_restore_error_with_msg(
                    err, "a Variable name or other graph key that is missing") from err
            logger.warning("Restoring an object-based checkpoint using a name-based saver. This may be somewhat "
                           "fragile, and will re-build the Saver. Instead, consider loading object-based "
                           "checkpoints using tf.train.Checkpoint().")
            self._object_restore_saver = saver_from_object_based_checkpoint(
                checkpoint_path=checkpoint_prefix, var_list=self._var_list, builder=self._builder,
                names_to_keys=names_to_keys, cached_saver=self._object_restore_saver)
            self._object_restore_saver.restore(sess=sess, save_path=checkpoint_prefix)
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error_with_msg(
                err, "a mismatch between the current graph and the graph",
                self._describe_assign(err, checkpoint_prefix)) from err

    def _describe_assign(self, err, checkpoint_prefix: str = "") -> str:
        """'Variable NAME has shape [..] but checkpoint key KEY holds [..]' for a failed restore Assign."""
        op = err.op
        target = self._assign_targets.get(getattr(op, "name", None))
        if target is None:
            return ""
        variable, key, slice_spec = target
        variable_shape = op.inputs[0].shape if op.inputs else None
        stored = "a tensor of another shape"
        try:
            with NewCheckpointReader(checkpoint_prefix) as reader:
                stored_shape = reader.get_variable_to_shape_map().get(key)
            if stored_shape is not None:
                stored = f"shape {list(stored_shape)}"
        except (errors.OpError, OSError, ValueError):  # the detail is a courtesy; the original error stands
            pass
        where = f" (restoring slice {slice_spec})" if slice_spec else ""
        return (f"\n\nVariable '{variable}' has shape {variable_shape.as_list() if variable_shape else '?'} but "
                f"checkpoint key '{key}' holds {stored}{where}. Build the variable with the checkpoint's shape, or "
                "use Saver(reshape=True) when only the layout differs.")


def _wrap_restore_error_with_msg(err, extra_verbiage: str, detail: str = ""):
    err_msg = ("Restoring from checkpoint failed. This is most likely due to {} from the checkpoint. Please "
               "ensure that you have not altered the graph expected based on the checkpoint. Original error:\n\n{}"
               ).format(extra_verbiage, err.message) + detail
    return err.__class__(err.node_def, err.op, err_msg)


# ----------------------------------------------------------------- TF2 object-based fallback
def saver_from_object_based_checkpoint(checkpoint_path, var_list=None, builder=None, names_to_keys=None,
                                       cached_saver=None) -> Saver:
    """A Saver whose names are the object-based checkpoint's keys for ``var_list``'s names.

    Raises:
        ValueError: if the checkpoint is not object-based.
        NotFoundError: if a variable's name has no key, listing the missing and the extra names.
    """
    if names_to_keys is None:
        try:
            names_to_keys = object_graph_key_mapping(checkpoint_path)
        except errors.NotFoundError as error:
            raise ValueError(f"Checkpoint in {checkpoint_path} not an object-based checkpoint.") from error
    if var_list is None:
        var_list = saveable_lib.all_saveable_objects()
    if builder is None:
        builder = BulkSaverBuilder()
    if not isinstance(var_list, dict):
        var_list = saveable_lib.op_list_to_dict(var_list)
    saveables = saveable_lib.validate_and_slice_inputs(var_list)
    current_names = {spec.name for saveable in saveables for spec in saveable.specs}
    previous_names = set(names_to_keys)
    missing_names = current_names - previous_names
    if missing_names:
        extra_names = previous_names - current_names
        intersecting = previous_names & current_names
        raise errors.NotFoundError(
            None, None,
            "\n\nExisting variables not in the checkpoint: %s\n\nVariables names when this checkpoint was written "
            "which don't exist now: %s\n\n(%d variable name(s) did match)\n\nCould not find some variables in the "
            "checkpoint (see names above). Saver was attempting to load an object-based checkpoint (saved using "
            "tf.train.Checkpoint or tf.keras.Model.save_weights) using variable names. If the checkpoint was "
            "written with eager execution enabled, it's possible that variable names have changed (for example "
            "missing a '_1' suffix). It's also possible that there are new variables which did not exist when the "
            "checkpoint was written. You can construct a Saver(var_list=...) with only the variables which "
            "previously existed, and if variable names have changed you may need to make this a dictionary with "
            "the old names as keys." % (", ".join(sorted(missing_names)), ", ".join(sorted(extra_names)),
                                        len(intersecting)))
    for saveable in saveables:
        for spec in saveable.specs:
            spec.name = names_to_keys[spec.name]
    if cached_saver is None:
        return Saver(saveables)
    return cached_saver


# ----------------------------------------------------------------- meta graphs
def import_meta_graph(meta_graph_or_file, clear_devices: bool = False, import_scope: str | None = None,
                      **kwargs) -> Saver | None:
    """Recreates the graph of a MetaGraphDef (or ``.meta`` file, binary or text) in the default graph and
    returns a Saver built from its saver_def (``tf.compat.v1.train.import_meta_graph``).

    Keyword args: ``graph`` (import there instead of the default graph), ``input_map``,
    ``unbound_inputs_col_name`` ("unbound_inputs"), ``restore_collections_predicate`` (key -> bool).

    Returns:
        A Saver, or None when the MetaGraphDef has no saver_def and the graph has no variables.

    Raises:
        OSError: if the file cannot be read; ValueError: for unbound inputs or an inconsistent graph.
    """
    meta, imported = meta_graph_import.import_scoped_meta_graph(
        meta_graph_or_file, lambda saver_def, scope: Saver(saver_def=saver_def, name=scope or None),
        clear_devices=clear_devices, import_scope=import_scope, **kwargs)
    if meta.saver_def is not None:
        saver_scope = import_scope
        if imported:  # the scope the import really used, as TF infers it
            key, variable = next(iter(imported.items()))
            saver_scope = variable.name[:-len(key)]
        return Saver(saver_def=SaverDef.from_bytes(meta.saver_def.to_bytes()), name=saver_scope or None)
    if imported:
        return Saver()
    logger.info("Saver not created because there are no variables in the graph to restore")
    return None
