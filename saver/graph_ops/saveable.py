"""Saveable objects: what a Saver saves, as TensorFlow's saveable_object_util normalises a var_list.

A Saver's ``var_list`` (None, a list, a dict ``{checkpoint name: variable}``, PartitionedVariables,
SaveableObjects) becomes a sorted list of :class:`SaveableObject`, each with one or more
:class:`SaveSpec` (tensor, shape-and-slice string, checkpoint name, dtype, device):

    op_list_to_dict(list)              -> {name: ref tensor | [slice variables] | PartitionedVariable}
    validate_and_slice_inputs(dict)    -> [SaveableObject] sorted by name, each op saved once

The rules, names and error messages are TensorFlow's (training/saving/saveable_object_util.py):
a plain variable is keyed by its op name (``w`` for ``w:0``), the slices of a partitioned variable
share their ``SaveSliceInfo.full_name`` and save with spec strings like ``"7 2 0,3:0,2"``.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Sequence

from graph.core import device as device_lib
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys, Tensor
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import resource_variable_ops
from graph.ops import state_ops
from graph.variables.partitioning import PartitionedVariable
from graph.variables.variables import Variable

__all__ = [
    "SaveSpec", "SaveableObject", "ReferenceVariableSaveable", "ResourceVariableSaveable", "op_list_to_dict",
    "validate_and_slice_inputs", "saveable_objects_for_op", "set_cpu0", "all_saveable_objects",
    "is_variable", "is_partitioned_variable", "slice_spec_string", "specs_of",
]

# Op types whose output is a variable that can be saved (saveable_object_util._VARIABLE_OPS).
_VARIABLE_OPS = frozenset(["Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp"])


# ----------------------------------------------------------------- variable kinds
def is_partitioned_variable(value) -> bool:
    """True for a PartitionedVariable (a list of slice variables saved under one name)."""
    return isinstance(value, PartitionedVariable)


def is_variable(value) -> bool:
    """True for a graph Variable object (not a Tensor, not a PartitionedVariable)."""
    return isinstance(value, Variable)


def _partition_list(value) -> list:
    if hasattr(value, "_get_variable_list"):
        return list(value._get_variable_list())
    return list(value)


def slice_spec_string(save_slice_info) -> str:
    """The ``"7 2 0,3:0,2"`` string of a SaveSliceInfo (its ``.spec``)."""
    spec = getattr(save_slice_info, "spec", None)
    if isinstance(spec, str):
        return spec
    full_shape = " ".join(str(int(d)) for d in save_slice_info.full_shape)
    extents = ":".join(f"{int(o)},{int(n)}" for o, n in zip(save_slice_info.var_offset, save_slice_info.var_shape))
    return f"{full_shape} {extents}"


def set_cpu0(device_string: str) -> str:
    """``device_string`` with its device replaced by CPU:0 (saveable_object_util.set_cpu0)."""
    spec = device_lib.DeviceSpecV2.from_string(device_string or "")
    spec = spec.replace(device_type="CPU", device_index=0)
    return spec.to_string()


# ----------------------------------------------------------------- SaveSpec / SaveableObject
class SaveSpec:
    """One tensor to save: the tensor (or a callable giving it), its slice spec and checkpoint name."""

    def __init__(self, tensor, slice_spec: str, name: str, dtype=None, device: str | None = None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        if callable(tensor) and not isinstance(tensor, Tensor) and not is_variable(tensor):
            if dtype is None or device is None:
                raise AssertionError("When passing a callable `tensor` to a SaveSpec, an explicit dtype and "
                                     "device must be provided.")
            self.dtype = dtype
            self.device = device
        else:
            self.dtype = dtype if dtype is not None else tensor.dtype
            self.device = device if device is not None else tensor.device

    @property
    def tensor(self):
        """The tensor to save (calls the callable if one was given)."""
        if callable(self._tensor) and not isinstance(self._tensor, Tensor) and not is_variable(self._tensor):
            return self._tensor()
        return self._tensor

    def __repr__(self) -> str:
        return f"SaveSpec(name={self.name!r}, slice_spec={self.slice_spec!r}, dtype={self.dtype!r})"


class SaveableObject:
    """Something saved under one name: ``op`` (the producer), its SaveSpecs, and how to restore it."""

    def __init__(self, op, specs: list[SaveSpec], name: str):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self) -> str:
        """The device of the SaveSpec tensors."""
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        """Returns an op restoring this object from ``restored_tensors``."""
        raise ValueError("Calling an abstract method.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} specs={self.specs!r}>"


class ReferenceVariableSaveable(SaveableObject):
    """A ref variable (VariableV2) or one slice of a partitioned variable; restored with ``Assign``."""

    def __init__(self, var, slice_spec: str, name: str):
        spec = SaveSpec(var, slice_spec, name, dtype=var.dtype)
        super().__init__(var, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        """``Assign(var, restored)`` (after a Reshape to ``restored_shapes[0]`` when given)."""
        restored_tensor = restored_tensors[0]
        if restored_shapes is not None:
            restored_tensor = array_ops.reshape(restored_tensor, restored_shapes[0])
        shape = self.op.get_shape() if hasattr(self.op, "get_shape") else self.op.shape
        validate_shape = restored_shapes is None and shape.is_fully_defined()
        if isinstance(self.op, Tensor) and self.op.dtype._is_ref_dtype:
            return _assign_ref(self.op, restored_tensor, validate_shape)
        return state_ops.assign(self.op, restored_tensor, validate_shape=validate_shape)


class ResourceVariableSaveable(SaveableObject):
    """A resource variable (or a slice of one): saves its ``Read/ReadVariableOp``, restores with AssignVariableOp."""

    def __init__(self, var, slice_spec: str, name: str):
        if isinstance(var, Tensor):  # a handle (VarHandleOp) or a read of one (ReadVariableOp), as TF accepts
            self.handle_op = var if var.op.type == "VarHandleOp" else var.op.inputs[0]
            tensor = var if var.op.type == "ReadVariableOp" else resource_variable_ops.read_variable_op(
                var, var.op.get_attr("dtype"))
            dtype, self._var_shape = tensor.dtype, tensor.shape
        else:
            self.handle_op = var.handle
            tensor, dtype, self._var_shape = var._graph_element, var.dtype, var.shape
        self._var_device = self.handle_op.device
        super().__init__(var, [SaveSpec(tensor, slice_spec, name, dtype=dtype, device=self._var_device)], name)

    def restore(self, restored_tensors, restored_shapes):
        """``AssignVariableOp(handle, Identity(restored))``, on the variable's device, as TF's saveable."""
        restored_tensor = restored_tensors[0]
        if restored_shapes is not None:
            restored_tensor = array_ops.reshape(restored_tensor, restored_shapes[0])
        with graph_lib.get_default_graph().device(self._var_device):
            restored_tensor = constant_ops.identity(restored_tensor)
            return resource_variable_ops.assign_variable_op(self.handle_op, restored_tensor)


def _is_resource(value) -> bool:
    """A resource variable object, or a tensor of one (its handle or a ReadVariableOp)."""
    if isinstance(value, Tensor):
        return value.op.type in ("VarHandleOp", "ReadVariableOp")
    return is_variable(value) and getattr(value, "dtype", None) is not None and \
        not value.dtype._is_ref_dtype and hasattr(value, "handle")


def _assign_ref(ref: Tensor, value: Tensor, validate_shape: bool) -> Tensor:
    """The ``Assign`` op state_ops.assign builds (same name, attrs, colocation), without its per-call
    conversions: a Saver creates one per variable, so this is on the 10,000-variable path."""
    if ref.dtype.base_dtype != value.dtype.base_dtype:
        raise ValueError(f"Assign of {value.name} ({value.dtype.name}) to variable {ref.op.name} "
                         f"({ref.dtype.base_dtype.name}): dtypes differ")
    if validate_shape and not ref.shape.is_compatible_with(value.shape):
        raise ValueError(f"Dimension mismatch in Assign 'Assign': shapes must be equal, but are "
                         f"{ref.shape} and {value.shape}.")
    shape = ref.shape.merge_with(value.shape) if validate_shape else value.shape
    attrs = {"validate_shape": validate_shape, "use_locking": True, "T": ref.dtype.base_dtype}
    op = ref.graph.create_op("Assign", [ref, value], [ref.dtype], name="Assign", attrs=attrs, shapes=[shape])
    return op._outputs[0]


# ----------------------------------------------------------------- var_list normalisation
def _comes_from_variable(value) -> bool:
    return isinstance(value, Tensor) and value.op.type in _VARIABLE_OPS


def _name_of(value) -> str:
    name = getattr(value, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"Variables to save should be passed in a dict or a list. Got {value!r}")
    return name


def _flatten(items) -> list:
    out = []
    for item in items:
        if isinstance(item, (list, tuple)) and not is_partitioned_variable(item):
            out.extend(_flatten(item))
        else:
            out.append(item)
    return out


def op_list_to_dict(op_list, convert_variable_to_tensor: bool = True) -> dict:
    """``{checkpoint name: ref tensor | [slice variables] | PartitionedVariable | SaveableObject}``.

    Raises:
        TypeError: if ``op_list`` is not a list, tuple or set, or holds a non-variable.
        ValueError: if two variables share a name ("At least two variables have the same name: w").
    """
    if not isinstance(op_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list. Got {op_list}")
    op_list = _flatten(list(op_list))
    op_list = sorted(op_list, key=_name_of)
    names_to_saveables: dict[str, Any] = {}
    for var in op_list:
        if isinstance(var, SaveableObject):
            names_to_saveables[var.name] = var
        elif is_partitioned_variable(var):
            if var.name in names_to_saveables:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            names_to_saveables[var.name] = var
        elif is_variable(var) and var._save_slice_info:
            name = var._save_slice_info.full_name
            if name in names_to_saveables:
                if not isinstance(names_to_saveables[name], list):
                    raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
                names_to_saveables[name].append(var)
            else:
                names_to_saveables[name] = [var]
        elif _is_resource(var) and not isinstance(var, Tensor):
            if var._shared_name in names_to_saveables:
                raise ValueError(f"At least two variables have the same name: {var._shared_name}")
            names_to_saveables[var._shared_name] = var
        else:
            if convert_variable_to_tensor:
                try:
                    var = graph_lib.convert_to_tensor(var, as_ref=True)
                except (TypeError, ValueError) as error:
                    raise TypeError(f"Variable to save is not a Variable: {var}") from error
                if not _comes_from_variable(var):
                    raise TypeError(f"Variable to save is not a Variable: {var}")
            if var.op.type == "ReadVariableOp":
                name = var.op.inputs[0].op.name
            else:
                name = var.op.name
            if name in names_to_saveables:
                raise ValueError(f"At least two variables have the same name: {name}")
            names_to_saveables[name] = var
    return names_to_saveables


def saveable_objects_for_op(op, name: str) -> Iterable[SaveableObject]:
    """Yields the SaveableObjects that save ``op`` (a variable, its slices, or a SaveableObject) as ``name``.

    Raises:
        TypeError: if ``name`` is not a string or ``op`` is not a variable.
        ValueError: for slices that are not all slices of one variable.
    """
    if not isinstance(name, str):
        raise TypeError("names_to_saveables must be a dict mapping string names to trackable operations. "
                        f"Name is not a string: {name}")
    if isinstance(op, SaveableObject):
        yield op
    elif isinstance(op, (list, tuple)) or is_partitioned_variable(op):
        if is_partitioned_variable(op):
            op = _partition_list(op)
        slice_name = None
        for variable in op:
            if isinstance(variable, SaveableObject):
                yield variable
                continue
            if not is_variable(variable):
                raise ValueError(f"Slices must all be Variables: {variable}")
            if not variable._save_slice_info:
                raise ValueError(f"Slices must all be slices: {variable}")
            if slice_name is None:
                slice_name = variable._save_slice_info.full_name
            elif slice_name != variable._save_slice_info.full_name:
                raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                                 f"{variable._save_slice_info.full_name}")
            saveable_class = ResourceVariableSaveable if _is_resource(variable) else ReferenceVariableSaveable
            yield saveable_class(variable, slice_spec_string(variable._save_slice_info), name)
    elif _is_resource(op):
        yield ResourceVariableSaveable(op, "", name)
    else:
        try:
            variable = graph_lib.convert_to_tensor(op, as_ref=True)
        except (TypeError, ValueError) as error:
            raise TypeError("names_to_saveables must be a dict mapping string names to Tensors/Variables. "
                            f"Not a variable: {op}") from error
        if not _comes_from_variable(variable):
            raise TypeError("names_to_saveables must be a dict mapping string names to Tensors/Variables. "
                            f"Not a variable: {variable}")
        yield ReferenceVariableSaveable(variable, "", name)


def validate_and_slice_inputs(names_to_saveables: dict) -> list[SaveableObject]:
    """The SaveableObjects of ``{name: variable}``, sorted by name, each op saved once.

    Raises:
        TypeError: for a non-string name or a non-variable value.
        ValueError: if one op is given twice ("The same saveable will be restored with two names: w").
    """
    saveables: list[SaveableObject] = []
    seen_ops: set[int] = set()
    keep_alive = []
    for name, op in sorted(names_to_saveables.items(), key=lambda item: item[0]):
        for saveable in saveable_objects_for_op(op, name):
            key = id(saveable.op) if saveable.op is not None else None
            if key is not None and key in seen_ops:
                raise ValueError(f"The same saveable will be restored with two names: {saveable.name}")
            saveables.append(saveable)
            if key is not None:
                seen_ops.add(key)
                keep_alive.append(saveable.op)
    return saveables


def all_saveable_objects(scope: str | None = None, graph=None) -> list:
    """GLOBAL_VARIABLES + SAVEABLE_OBJECTS of the graph (variables._all_saveable_objects)."""
    graph = graph or graph_lib.get_default_graph()
    return graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope) + \
        graph.get_collection(GraphKeys.SAVEABLE_OBJECTS, scope)


def specs_of(saveables: Sequence[SaveableObject]) -> list[SaveSpec]:
    """Every SaveSpec of ``saveables`` in order."""
    return [spec for saveable in saveables for spec in saveable.specs]
