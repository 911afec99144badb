"""The save graph builder: BaseSaverBuilder / BulkSaverBuilder, and the SaverDef naming what they build
(the SaverDef message is declared in graph/proto/meta_graph.py).

``build()`` adds TensorFlow's save graph (training/saver.py, tf-checkpoint-format.md §7) under a
``save`` name scope and returns the SaverDef a Saver runs it by::

    save/filename/input  Const "model"           save/filename  PlaceholderWithDefault
    save/Const           PlaceholderWithDefault  <- the filename_tensor_name fed by save()/restore()
    save/SaveV2          SaveV2(save/Const, tensor_names, shape_and_slices, tensors...)
    save/control_dependency  Identity(save/Const, ^save/SaveV2)  <- save_tensor_name
    save/RestoreV2       RestoreV2 on /device:CPU:0 -> save/Assign, save/Assign_1, ...
    save/restore_all     NoOp(^save/Assign...)  <- restore_op_name

``sharded=True`` groups the saveables per canonical device (sorted), saves shard k to
``<prefix>_temp/part-0000k-of-0000N`` and merges them with MergeV2Checkpoints (§3); the save tensor
is then ``save/Identity``.
"""

from __future__ import annotations

import os
from collections import defaultdict

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape
from graph.core import device as device_lib
from graph.core import graph as graph_lib
from graph.core.graph import Operation, Tensor
from graph.ops import array_index_ops
from graph.ops import array_ops
from graph.ops import constant_ops as ops
from graph.ops import control_flow_ops
from graph.proto.meta_graph import SaverDef
from graph.variables.partitioning import PartitionedVariable
from saver.graph_ops import save_ops
from saver.graph_ops import saveable as saveable_lib

__all__ = ["BaseSaverBuilder", "BulkSaverBuilder"]

_SHARDED_TEMP_SUFFIX = os.path.normpath("_temp/part")  # _AddShardedSaveOpsForV2
_S3_TEMP_SUFFIX = ".part"

class BaseSaverBuilder:
    """Builds the save and restore ops of a Saver (TensorFlow's BaseSaverBuilder)."""

    SaveSpec = saveable_lib.SaveSpec
    SaveableObject = saveable_lib.SaveableObject
    VariableSaveable = saveable_lib.ReferenceVariableSaveable

    def __init__(self, write_version: int = SaverDef.V2):
        self._write_version = write_version
        self.assign_targets: dict[str, tuple[str, str, str]] = {}  # Assign op -> (variable, key, slice)

    def save_op(self, filename_tensor: Tensor, saveables):
        """A SaveV2 (V1: SaveSlices) op saving every SaveSpec of ``saveables``."""
        specs = saveable_lib.specs_of(saveables)
        tensor_names = [spec.name for spec in specs]
        tensor_slices = [spec.slice_spec for spec in specs]
        tensors = [spec.tensor for spec in specs]  # calls a callable SaveSpec's tensor, in spec order
        if self._write_version == SaverDef.V1:
            return save_ops.save_slices(filename_tensor, tensor_names, tensor_slices, tensors, name="save")
        if self._write_version == SaverDef.V2:
            return save_ops.save_v2(filename_tensor, tensor_names, tensor_slices, tensors)
        raise RuntimeError(f"Unexpected write_version: {self._write_version}")

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        """One RestoreV2 per SaveSpec (BulkSaverBuilder reads them all in one op)."""
        del restore_sequentially
        all_tensors = []
        for saveable in saveables:
            device = saveable_lib.set_cpu0(saveable.device) if saveable.device else None
            with graph_lib.device(device):
                all_tensors.extend(self.restore_op(filename_tensor, saveable, preferred_shard))
        return all_tensors

    def restore_op(self, filename_tensor, saveable, preferred_shard):
        """RestoreV2 ops for one saveable."""
        del preferred_shard
        return [save_ops.restore_v2(filename_tensor, [spec.name], [spec.slice_spec], [spec.dtype])[0]
                for spec in saveable.specs]

    def sharded_filename(self, filename_tensor, shard, num_shards):
        """ShardedFilename(filename, shard, num_shards)."""
        return save_ops.sharded_filename(filename_tensor, shard, num_shards)

    def _AddSaveOps(self, filename_tensor, saveables):  # noqa: N802 - TF's name
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    def _AddShardedSaveOpsForV2(self, checkpoint_prefix, per_device):  # noqa: N802 - TF's name
        with graph_lib.device("CPU"):
            suffix = array_index_ops.where(
                save_ops.static_regex_full_match(checkpoint_prefix, "^s3://.*"),
                ops.constant(_S3_TEMP_SUFFIX), ops.constant(_SHARDED_TEMP_SUFFIX))
            tmp_checkpoint_prefix = save_ops.string_join([checkpoint_prefix, suffix])
        num_shards = len(per_device)
        sharded_saves, sharded_prefixes = [], []
        num_shards_tensor = ops.constant(num_shards, name="num_shards")
        last_device = None
        for shard, (device, saveables) in enumerate(per_device):
            last_device = device
            with graph_lib.device(saveable_lib.set_cpu0(device)):
                sharded_filename = self.sharded_filename(tmp_checkpoint_prefix, shard, num_shards_tensor)
                sharded_prefixes.append(sharded_filename)
                sharded_saves.append(self._AddSaveOps(sharded_filename, saveables))
        with graph_lib.control_dependencies([x.op for x in sharded_saves]):
            with graph_lib.device(saveable_lib.set_cpu0(last_device)):
                merge_step = save_ops.merge_v2_checkpoints(sharded_prefixes, checkpoint_prefix,
                                                           delete_old_dirs=True)
                with graph_lib.control_dependencies([merge_step]):
                    return ops.identity(checkpoint_prefix)

    def _AddShardedSaveOps(self, filename_tensor, per_device):  # noqa: N802 - TF's name
        if self._write_version == SaverDef.V2:
            return self._AddShardedSaveOpsForV2(filename_tensor, per_device)
        num_shards = len(per_device)
        sharded_saves = []
        num_shards_tensor = ops.constant(num_shards, name="num_shards")
        for shard, (device, saveables) in enumerate(per_device):
            with graph_lib.device(device):
                sharded_filename = self.sharded_filename(filename_tensor, shard, num_shards_tensor)
                sharded_saves.append(self._AddSaveOps(sharded_filename, saveables))
        with graph_lib.control_dependencies([x.op for x in sharded_saves]):
            return save_ops.sharded_filespec(filename_tensor, num_shards_tensor)

    def _AddRestoreOps(self, filename_tensor, saveables, restore_sequentially, reshape,  # noqa: N802
                       preferred_shard=-1, name="restore_all"):
        all_tensors = self.bulk_restore(filename_tensor, saveables, preferred_shard, restore_sequentially)
        assign_ops = []
        index = 0
        for saveable in saveables:
            shapes = None
            if reshape:
                shapes = []
                for spec in saveable.specs:
                    value = spec.tensor
                    shape = value.get_shape()
                    if not shape.is_fully_defined():
                        shape = array_ops.shape(value)
                    shapes.append(shape)
            saveable_tensors = all_tensors[index:index + len(saveable.specs)]
            index += len(saveable.specs)
            restore = saveable.restore(saveable_tensors, shapes)
            assign_ops.append(restore)
            restore_op = restore.op if isinstance(restore, Tensor) else restore
            if isinstance(restore_op, Operation) and len(saveable.specs) == 1:
                variable = saveable.op
                variable_name = getattr(variable, "op", None)
                variable_name = variable_name.name if variable_name is not None else str(variable)
                spec = saveable.specs[0]
                self.assign_targets[restore_op.name] = (variable_name, spec.name, spec.slice_spec)
        return _group(assign_ops, name)

    def _AddShardedRestoreOps(self, filename_tensor, per_device, restore_sequentially, reshape):  # noqa: N802
        sharded_restores = []
        for shard, (device, saveables) in enumerate(per_device):
            with graph_lib.device(device):
                sharded_restores.append(self._AddRestoreOps(
                    filename_tensor, saveables, restore_sequentially, reshape, preferred_shard=shard,
                    name="restore_shard"))
        return _group(sharded_restores, "restore_all")

    def _GroupByDevices(self, saveables):  # noqa: N802 - TF's name
        """[(canonical device, [saveables])] sorted by device string.

        Raises:
            ValueError: if the tensors of one saveable are on different devices.
        """
        per_device = defaultdict(list)
        for saveable in saveables:
            canonical = {device_lib.canonical_name(spec.device) for spec in saveable.specs}
            if len(canonical) != 1:
                raise ValueError(f"All tensors of a saveable object must be on the same device: {saveable.name}")
            per_device[canonical.pop()].append(saveable)
        return sorted(per_device.items(), key=lambda item: item[0])

    def build(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
              keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
              filename="model") -> SaverDef:
        """Adds the save and restore ops; returns the SaverDef naming them."""
        return self._build_internal(names_to_saveables, reshape=reshape, sharded=sharded,
                                    max_to_keep=max_to_keep,
                                    keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours, name=name,
                                    restore_sequentially=restore_sequentially, filename=filename)

    def _build_internal(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
                        keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                        filename="model", build_save=True, build_restore=True) -> SaverDef:
        if not build_save or not build_restore:
            raise ValueError("save and restore operations need to be built together  when eager execution is "
                             "not enabled.")
        if not isinstance(names_to_saveables, dict):
            names_to_saveables = saveable_lib.op_list_to_dict(names_to_saveables)
        saveables = saveable_lib.validate_and_slice_inputs(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        graph = _graph_of_saveables(saveables)
        with graph.as_default(), graph_lib.name_scope(name, "save", []) as name:
            filename_tensor = _placeholder_with_default(filename or "model", "filename")
            filename_tensor = _placeholder_with_default(filename_tensor, "Const")
            if sharded:
                per_device = self._GroupByDevices(saveables)
                save_tensor = self._AddShardedSaveOps(filename_tensor, per_device)
                restore_op = self._AddShardedRestoreOps(filename_tensor, per_device, restore_sequentially, reshape)
            else:
                save_tensor = self._AddSaveOps(filename_tensor, saveables)
                restore_op = self._AddRestoreOps(filename_tensor, saveables, restore_sequentially, reshape)
        _concat_collected_partitioned_variables(graph_lib.get_default_graph())
        return SaverDef(filename_tensor_name=filename_tensor.name, save_tensor_name=save_tensor.name,
                        restore_op_name=restore_op.name, max_to_keep=max_to_keep, sharded=bool(sharded),
                        keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours, version=self._write_version)


class BulkSaverBuilder(BaseSaverBuilder):
    """The default builder: one RestoreV2 op on /device:CPU:0 reads every tensor."""

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        del restore_sequentially, preferred_shard
        specs = saveable_lib.specs_of(saveables)
        with graph_lib.device("cpu:0"):
            return save_ops.restore_v2(filename_tensor, [spec.name for spec in specs],
                                       [spec.slice_spec for spec in specs], [spec.dtype for spec in specs])


def _group(ops_list, name: str) -> Operation:
    """``tf.group(*ops_list, name=name)`` as TensorFlow builds it (one NoOp per device, sorted, when the ops
    span devices), attaching the control inputs in linear time: a Saver groups one Assign per variable."""
    graph = graph_lib.get_default_graph()
    ops_list = [item.op if isinstance(item, Tensor) else item for item in ops_list if item is not None]
    with graph_lib.name_scope(name, "group_deps", ops_list) as scope:
        by_device: dict[str, list] = {}
        for op in ops_list:
            by_device.setdefault(op.device or "", []).append(op)
        if len(by_device) <= 1:
            device = next(iter(by_device), "")
            with graph_lib.device(device):
                return _no_op_after(graph, ops_list, scope)
        per_device = []
        for device in sorted(by_device):
            with graph_lib.device(device):
                per_device.append(_no_op_after(graph, by_device[device], "NoOp"))
        return _no_op_after(graph, per_device, scope)


def _no_op_after(graph, deps, name: str) -> Operation:
    """A NoOp that runs after ``deps``."""
    with graph.control_dependencies(deps):
        return graph.create_op("NoOp", [], [], name=name)


def _concat_collected_partitioned_variables(graph) -> None:
    """Builds the concat read (an Identity named as the variable) of each PartitionedVariable in a collection.

    A MetaGraph lists such a variable by that name, so importing it looks the op up; TF builds it here.
    """
    for key in graph.get_all_collection_keys():
        for element in graph.get_collection(key):
            if isinstance(element, PartitionedVariable):
                try:
                    graph.get_operation_by_name(element.name)
                except KeyError:
                    element.as_tensor()


def _graph_of_saveables(saveables) -> graph_lib.Graph:
    for saveable in saveables:
        for candidate in (saveable.op, saveable.specs[0]._tensor if saveable.specs else None):
            graph = getattr(candidate, "graph", None)
            if isinstance(graph, graph_lib.Graph):
                return graph
    return graph_lib.get_default_graph()


def _placeholder_with_default(value, name: str) -> Tensor:
    """``PlaceholderWithDefault`` named as TF's op wrapper names it (the default Const is ``<name>/input``)."""
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name) as scope:
        if not isinstance(value, Tensor):
            value = ops.constant(value, dtype=dtypes_lib.string, name="input")
        return graph.create_op("PlaceholderWithDefault", [value], [dtypes_lib.string], name=scope,
                               attrs={"dtype": dtypes_lib.string, "shape": TensorShape([])},
                               shapes=[TensorShape([])]).outputs[0]
