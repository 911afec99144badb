"""init_from_checkpoint: replaces variables' initializers so the next initializer run loads a checkpoint.

TensorFlow 1.x's rules (tensorflow/python/training/checkpoint_utils.py), reimplemented::

    assignment_map : dict or list of (tensor name in checkpoint, current variable or name), taken
                     in order of the checkpoint name
    'ckpt/name'  : variable | [partitions] | 'graph/name'   one tensor -> one variable (checked now)
    'ckpt_scope/': 'graph_scope/'                           every get_variable variable under the scope
    '/'          : 'graph_scope/'                           the checkpoint's root
    names        : looked up in the default variable store (get_variable), partitioned variables
                   as '<name>/part_<i>'

For each variable (each partition) the graph gains, under the current name scope::

    checkpoint_initializer[_N] = RestoreV2(prefix, [tensor], [slice spec], dtypes=[dtype])
                                 on device(variable.device) merged with /cpu:0
    Assign(variable, checkpoint_initializer)   -> variable._initializer_op (the op; TF keeps its output)
    variable._initial_value = checkpoint_initializer:0 (shape set to the variable's)

Errors are TensorFlow's ValueErrors ("Tensor x is not found in ... checkpoint {...}", "Shape of
variable ... doesn't match with shape of tensor ... from checkpoint reader.", ...).  As in
TensorFlow, variables handled before an error keep their new initializers.
"""

from __future__ import annotations

import logging
import os
from collections import abc
from graph.base import dtypes as dtypes_lib
from graph.ops import constant_ops as ops
from graph.platform import compat, file_io
from graph.variables import variable_scope_state
from graph.variables import variables
from saver.graph_ops import save_ops
from saver.graph_ops import saveable
from saver.storage import state
from saver.storage.reader import load_checkpoint

__all__ = ["init_from_checkpoint"]

_logger = logging.getLogger("graph")
_CHECKPOINT_INITIALIZER = "checkpoint_initializer"  # the op name TensorFlow uses


def _is_variable(value) -> bool:
    return isinstance(value, variables.Variable)


def _store_vars() -> dict:
    """name -> variable of the default variable store (variables made by get_variable)."""
    return variable_scope_state.get_variable_store_variables()


def _path_text(ckpt_dir_or_file) -> str:
    """A path given as str, bytes or os.PathLike as str (TF's gfile TypeError for None or a number)."""
    if isinstance(ckpt_dir_or_file, os.PathLike):
        ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    return compat.as_text(ckpt_dir_or_file)


def checkpoint_filename(ckpt_dir_or_file) -> str | None:
    """The checkpoint prefix: the latest checkpoint of a directory, else the path itself."""
    ckpt_dir_or_file = _path_text(ckpt_dir_or_file)
    if file_io.isdir(ckpt_dir_or_file):  # TF's gfile.IsDirectory: a local directory or one at an fsspec URL
        return state.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def _collect_partitioned_variable(name: str, all_vars: dict) -> list | None:
    """The variables '<name>/part_0', '<name>/part_1', ... of the store, or None."""
    if name + "/part_0" not in all_vars:
        return None
    parts, i = [], 0
    while name + "/part_%d" % i in all_vars:
        parts.append(all_vars[name + "/part_%d" % i])
        i += 1
    return parts


def _restore_v2(graph, prefix: str, tensor_names: list[str], shape_and_slices: list[str], dtypes: list,
                name: str):
    """A RestoreV2 op (saver.graph_ops.save_ops's builder) named as TF names it; returns its output tensors.

    The scope is opened here so that the prefix Const is '<name>/prefix', as TF's op wrapper names
    a Python string given for the ``prefix`` input.
    """
    with graph.name_scope(name) as scope:
        prefix_tensor = ops.constant(prefix, dtype=dtypes_lib.string, name="prefix")
        return save_ops.restore_v2(prefix_tensor, tensor_names, shape_and_slices, dtypes, name=scope)


def _slice_spec(variable) -> str:
    return saveable.slice_spec_string(variable._save_slice_info)


def _set_checkpoint_initializer(variable, ckpt_file: str, tensor_name: str, slice_spec: str,
                                name: str = _CHECKPOINT_INITIALIZER) -> None:
    """Makes ``variable``'s initializer assign the checkpoint tensor (a RestoreV2 op) to it."""
    graph = variable.graph
    base_type = variable.dtype.base_dtype
    # As TF: not colocated with the variable (RestoreV2 runs on the CPU); placed on the variable's
    # device with the device type forced to CPU:0.
    with graph.as_default(), graph.device(variable.device), graph.device("/cpu:0"):
        restore_op = _restore_v2(graph, ckpt_file, [tensor_name], [slice_spec], [base_type], name=name)[0]
        names_to_saveables = saveable.op_list_to_dict([variable])
        saveable_objects = []
        for saveable_name, op in names_to_saveables.items():
            saveable_objects.extend(saveable.saveable_objects_for_op(op, saveable_name))
        assert len(saveable_objects) == 1  # one variable
    with graph.as_default():
        init_op = saveable_objects[0].restore([restore_op], restored_shapes=None)
    # TF stores the Assign's output tensor here; this package's Variable.initializer is the Assign
    # op itself (variables_initializer and Variable.load rely on an Operation).
    variable._initializer_op = getattr(init_op, "op", init_op)
    restore_op.set_shape(variable.shape)
    variable._initial_value = restore_op


def _set_variable_or_list_initializer(variable_or_list, ckpt_file: str, tensor_name: str) -> None:
    """Sets the checkpoint initializer of a variable, or of each partition in a list.

    Raises:
        ValueError: if the partitions are not all slices of one tensor.
    """
    if isinstance(variable_or_list, (list, tuple)):
        slice_name = None
        for v in variable_or_list:
            slice_info = v._save_slice_info
            if slice_name is None:
                slice_name = slice_info.full_name
            elif slice_name != slice_info.full_name:
                raise ValueError("Slices must all be from the same tensor: %s != %s"
                                 % (slice_name, slice_info.full_name))
            _set_checkpoint_initializer(v, ckpt_file, tensor_name, _slice_spec(v))
    else:
        _set_checkpoint_initializer(variable_or_list, ckpt_file, tensor_name, "")


def init_from_checkpoint(ckpt_dir_or_file, assignment_map) -> None:
    """Replaces variable initializers so that they load from a checkpoint (TF1's rules).

    Values are not loaded now but when the initializers run (``global_variables_initializer``).

    Args:
        ckpt_dir_or_file: a directory (its latest checkpoint) or a checkpoint prefix/file.
        assignment_map: dict, or list of pairs, of checkpoint tensor names or scopes ('scope/',
            '/' for the root) to current variables, lists of partitions, variable names or scopes.

    Raises:
        ValueError: for a directory without checkpoints, a tensor not in the checkpoint, a shape
            mismatch, or a scope mapped to a non-scope (TensorFlow's messages).
        NotFoundError: if the checkpoint does not exist.
    """
    ckpt_file = checkpoint_filename(ckpt_dir_or_file)
    with load_checkpoint(_path_text(ckpt_dir_or_file)) as reader:
        variable_map = reader.get_variable_to_shape_map()
    if isinstance(assignment_map, abc.Mapping):
        assignment_map = assignment_map.items()
    store_vars = None
    for tensor_name_in_ckpt, current_var_or_name in sorted(assignment_map, key=lambda pair: pair[0]):
        if getattr(current_var_or_name, "_get_variable_list", None) is not None:
            # A PartitionedVariable (TF fails on it with an unrelated TypeError): its partitions.
            current_var_or_name = list(current_var_or_name._get_variable_list())
        if _is_variable(current_var_or_name) or (
                isinstance(current_var_or_name, list) and all(_is_variable(v) for v in current_var_or_name)):
            var = current_var_or_name
        else:
            store_vars = _store_vars()
            var = store_vars.get(current_var_or_name, None)
            if var is None:
                var = _collect_partitioned_variable(current_var_or_name, store_vars)
        if var is not None:
            if tensor_name_in_ckpt not in variable_map:
                raise ValueError("Tensor %s is not found in %s checkpoint %s"
                                 % (tensor_name_in_ckpt, ckpt_dir_or_file, variable_map))
            if _is_variable(var):
                if not var.get_shape().is_compatible_with(variable_map[tensor_name_in_ckpt]):
                    raise ValueError(
                        "Shape of variable %s (%s) doesn't match with shape of tensor %s (%s) from "
                        "checkpoint reader." % (var.name, str(var.get_shape()), tensor_name_in_ckpt,
                                                str(variable_map[tensor_name_in_ckpt])))
                var_name = var.name
            else:
                var_name = ",".join(v.name for v in var)
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name_in_ckpt)
            _logger.debug("Initialize variable %s from checkpoint %s with %s",
                          var_name, ckpt_dir_or_file, tensor_name_in_ckpt)
            continue
        scopes = ""
        if "/" in current_var_or_name:
            scopes = current_var_or_name[:current_var_or_name.rindex("/")]
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError("Assignment map with scope only name {} should map to scope only {}. "
                             "Should be 'scope/': 'other_scope/'.".format(scopes, tensor_name_in_ckpt))
        # Scope to scope: every store variable under the scope, partitions by their full name.
        scope_variables = set()
        for var_name in store_vars:
            if not scopes or var_name.startswith(scopes + "/"):
                if "/part_" in var_name:
                    var_name = var_name[:var_name.index("/part_")]
                scope_variables.add(var_name)
        for var_name in sorted(scope_variables):
            full_tensor_name = var_name[len(scopes):]
            if current_var_or_name != "/":
                full_tensor_name = full_tensor_name[1:]
            if tensor_name_in_ckpt != "/":
                full_tensor_name = tensor_name_in_ckpt + full_tensor_name
            if full_tensor_name.endswith("/"):
                full_tensor_name = full_tensor_name[:-1]
            if full_tensor_name not in variable_map:
                raise ValueError("Tensor %s (%s in %s) is not found in %s checkpoint"
                                 % (full_tensor_name, var_name[len(scopes) + 1:], tensor_name_in_ckpt,
                                    ckpt_dir_or_file))
            var = store_vars.get(var_name, None)
            if var is None:
                var = _collect_partitioned_variable(var_name, store_vars)
            _set_variable_or_list_initializer(var, ckpt_file, full_tensor_name)
            _logger.debug("Initialize variable %s from checkpoint %s with %s",
                          var_name, ckpt_dir_or_file, full_tensor_name)
