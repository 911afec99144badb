"""Variable state ops: VariableV2, Assign, AssignAdd, AssignSub, CountUpTo and IsVariableInitialized.

A ``VariableV2`` op outputs a ``*_ref`` tensor whose value in a Session is a
``kernels.VariableRef`` into that session's variable store (op name -> ndarray), so two
sessions on one graph hold independent values.  The assign ops take the ref at input 0
(``ref_inputs=(0,)``) and output it again, as TensorFlow's ref-typed Assign does.
"""

from __future__ import annotations

import contextlib
import sys
import threading

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph import errors
from graph.base import kernels
from graph.ops import constant_ops as ops
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.base.shapes import TensorShape, as_shape

__all__ = ["variable_op_v2", "assign", "assign_add", "assign_sub", "count_up_to", "is_variable_initialized"]


# ----------------------------------------------------------------- VariableV2
def _infer_variable(op):
    return [(op._attrs["dtype"]._as_ref, op._attrs["shape"])]


def _compute_variable(ctx, op, inputs):
    container = op._attrs["container"]  # tf.container's: its own store in the session's resource manager
    store = ctx.session._variable_store(op, container)  # on the task the op is placed on
    return kernels.VariableRef(store, op._attrs["shared_name"] or op._name, op)


kernels.register("VariableV2", infer=_infer_variable, compute=_compute_variable, stateful=True,
                 default_attrs={"container": "", "shared_name": ""})


def variable_op_v2(shape, dtype, name: str = "Variable", container: str = "", shared_name: str = "") -> Tensor:
    """A ``VariableV2`` op; returns its ``*_ref`` output tensor."""
    dtype = dtypes_lib.as_dtype(dtype).base_dtype
    shape = as_shape(shape)
    op = graph_lib.get_default_graph().create_op(
        "VariableV2", [], [dtype._as_ref], name=name,
        attrs={"shape": shape, "dtype": dtype, "container": container, "shared_name": shared_name},
        shapes=[shape])
    return op._outputs[0]


# ----------------------------------------------------------------- Assign, AssignAdd, AssignSub
def _compute_assign(ctx, op, inputs):
    ref, value = inputs
    ref = kernels.variable_ref(op, ref)
    value = np.asarray(value, dtype=op._attrs["T"].numpy_dtype)
    if op._attrs["validate_shape"]:
        # An uninitialized VariableV2 already has its declared shape in TF (the kernel allocates it).
        if ref.is_initialized:
            lhs_shape = ref.store[ref.name].shape
        else:
            declared = op._inputs[0].shape
            lhs_shape = tuple(declared.as_list()) if declared.is_fully_defined() else value.shape
        if lhs_shape != value.shape:
            raise errors.InvalidArgumentError(
                None, op, f"Assign requires shapes of both tensors to match. lhs shape= "
                f"{list(lhs_shape)} rhs shape= {list(value.shape)}")
    old = ref.store.get(ref.name)
    if (type(old) is np.ndarray and old.size == value.size and old.dtype == value.dtype and old.flags.writeable
            and old.flags.c_contiguous):
        # TF's AssignOp copies into the initialized buffer when the element counts match (reshaped when
        # validate_shape=False changes the shape): every read aliasing the variable sees the new value.
        if old.shape != value.shape:
            old = old.reshape(value.shape)  # a view of the same buffer
            ref.set(old)
        np.copyto(old, value)
    elif _forwardable(op, value):  # TF's forward_input: the variable takes over the input's buffer
        ref.set(value)
    else:  # uninitialized, or a new element count: a new buffer; earlier reads keep the old one
        ref.set(np.array(value, copy=True))
    return ref


# References to an input array while Assign runs, measured with the executor as it is (the run's value
# slot, the argument list, the kernel's local names); getrefcount and _forwardable's argument add two.
# Any more and something else holds it (tests/graph/ops/test_assign_forwarding.py checks both sides).
_RUN_HOLDERS = 4


def _forwardable(op, value) -> bool:
    """True when only this run and this op hold ``value`` and its writable buffer."""
    return (type(value) is np.ndarray and value.flags.writeable and value.flags.c_contiguous
            and len(op._inputs[1]._consumers) == 1 and sys.getrefcount(value) <= _RUN_HOLDERS + 2
            and _owns_buffer(value))


def _owns_buffer(value: np.ndarray) -> bool:
    """The array owns its buffer, or views it through same-size arrays (reshapes, a restored array's
    base-class view) each referenced only by the next."""
    view = value
    while view.base is not None:
        base = view.base
        # references to a base: the view's, this local name's and getrefcount's argument
        if not isinstance(base, np.ndarray) or base.nbytes != value.nbytes or sys.getrefcount(base) > 3:
            return False
        view = base
    return view.flags.owndata


# use_locking=True makes a write into a variable exclusive, as TF's per-variable mutex does (one lock for the
# process here: stricter than TF, never looser): numpy drops the GIL inside a large in-place add or copy, so
# concurrent unlocked updates may lose increments (TF's may too).
_UPDATE_LOCK = threading.Lock()


def exclusive_when_locking(compute):
    """``compute`` run under the update lock when its op's ``use_locking`` is set (the assign ops here, the
    training ops' Apply* kernels)."""
    def locked(ctx, op, inputs):
        with _UPDATE_LOCK if op._attrs.get("use_locking") else contextlib.nullcontext():
            return compute(ctx, op, inputs)
    return locked


def _compute_update(function):
    @exclusive_when_locking
    def compute(ctx, op, inputs):
        ref, value = inputs
        ref = kernels.variable_ref(op, ref)
        old = ref.get()
        value = np.asarray(value)
        if old.shape != value.shape:
            raise errors.InvalidArgumentError(
                None, op, f"Must have the same shape for {op.type}: lhs shape= {list(old.shape)} "
                f"rhs shape= {list(value.shape)}")
        if type(old) is np.ndarray and old.flags.writeable and np.can_cast(value.dtype, old.dtype, casting="same_kind"):
            # In place, as TF's kernel updates the ref's buffer: a `v/read` taken earlier in the run sees the
            # update (TF1's ref aliasing: `with control_dependencies([v.assign_add(1)]): tf.identity(v)`).
            function(old, value, out=old, casting="unsafe")
        else:
            ref.set(function(old, value).astype(old.dtype, copy=False))
        return ref
    return compute


def _infer_assign(op):
    ref, value = op._inputs
    if not op._attrs.get("validate_shape", True):
        return [(ref.dtype, value.shape)]
    return [(ref.dtype, ref.shape.merge_with(value.shape))]


def _infer_update(op):
    ref, value = op._inputs
    return [(ref.dtype, ref.shape.merge_with(value.shape))]


_ASSIGN_DEFAULTS = {"validate_shape": True, "use_locking": True}
kernels.register("Assign", infer=_infer_assign, compute=exclusive_when_locking(_compute_assign), ref_inputs=(0,),
                 default_attrs=_ASSIGN_DEFAULTS)
kernels.register("AssignAdd", infer=_infer_update, compute=_compute_update(np.add), ref_inputs=(0,),
                 default_attrs={"use_locking": False})
kernels.register("AssignSub", infer=_infer_update, compute=_compute_update(np.subtract), ref_inputs=(0,),
                 default_attrs={"use_locking": False})


def _ref_tensor(ref) -> Tensor:
    if isinstance(ref, Tensor):
        return ref
    if hasattr(ref, "_ref"):  # a Variable: its VariableV2 output
        return ref._ref()
    return convert_to_tensor(ref, as_ref=True)


def _is_ref(ref) -> bool:
    dtype = getattr(ref, "dtype", None)
    return isinstance(ref, Tensor) or dtype is None or dtype._is_ref_dtype or not hasattr(ref, "assign")


def _check_ref(op_type: str, ref: Tensor) -> None:
    if not ref.dtype._is_ref_dtype:
        raise TypeError(f"'{op_type}' Op requires that input 'ref' be a mutable tensor (e.g.: a tf.Variable) "
                        f"but got {ref.name} of dtype {ref.dtype.name}")


def _convert_value(op_type: str, value, dtype) -> Tensor:
    """The ``value`` input converted to the variable's dtype, failing with op_def_library's errors: a tensor or
    variable of another dtype is a TypeError naming both types, a Python value that does not convert one naming
    the parameter."""
    try:
        return convert_to_tensor(value, dtype=dtype, name="value")
    except TypeError as error:
        raise TypeError(f"Expected {dtype.name} passed to parameter 'value' of op '{op_type}', got {value!r} of type "
                        f"'{type(value).__name__}' instead. Error: {error}") from error
    except ValueError as error:
        try:
            observed = convert_to_tensor(value).dtype.name
        except ValueError as failure:
            raise ValueError(f"Tried to convert 'value' to a tensor and failed. Error: {failure}") from failure
        raise TypeError(f"Input 'value' of '{op_type}' Op has type {observed} that does not match type {dtype.name} "
                        "of argument 'ref'.") from error


def _create_update(op_type: str, ref, value, name, attrs) -> Tensor:
    """Builds ``op_type(ref, value)`` as TF's op_def_library does: inside ``name_scope(name or op_type)``, with a
    non-tensor value converted there as ``<scope>/value``; create_op colocates it with the variable."""
    ref = _ref_tensor(ref)
    _check_ref(op_type, ref)
    graph = ref.graph
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        value = _convert_value(op_type, value, ref.dtype.base_dtype)
        if op_type == "Assign" and attrs["validate_shape"] and not ref.shape.is_compatible_with(value.shape):
            raise ValueError(f"Dimension mismatch in {op_type} '{name or op_type}': shapes must be equal, but are "
                             f"{ref.shape.message_string()} and {value.shape.message_string()}.")
        if op_type != "Assign" and not ref.shape.is_compatible_with(value.shape):
            raise ValueError(f"Shapes {ref.shape} and {value.shape} are incompatible for {op_type} "
                             f"'{name or op_type}'.")
        attrs = dict(attrs, T=ref.dtype.base_dtype)
        return graph.create_op(op_type, [ref, value], name=scope, attrs=attrs)._outputs[0]


def assign(ref, value, validate_shape: bool | None = None, use_locking: bool | None = None,
           name: str | None = None) -> Tensor:
    """An ``Assign`` op storing ``value`` into the variable ``ref``; returns the ref (as TF1)."""
    if not _is_ref(ref):  # a resource-style object: delegate, as TF's state_ops does
        return ref.assign(value, use_locking=use_locking, name=name)
    attrs = {"validate_shape": True if validate_shape is None else bool(validate_shape),
             "use_locking": True if use_locking is None else bool(use_locking)}
    return _create_update("Assign", ref, value, name, attrs)


def assign_add(ref, value, use_locking: bool | None = None, name: str | None = None) -> Tensor:
    """An ``AssignAdd`` op: ``ref += value``; returns the ref."""
    if not _is_ref(ref):  # a resource-style object: delegate, as TF's state_ops does
        return ref.assign_add(value, use_locking=use_locking, name=name)
    return _create_update("AssignAdd", ref, value, name, {"use_locking": bool(use_locking)})


def assign_sub(ref, value, use_locking: bool | None = None, name: str | None = None) -> Tensor:
    """An ``AssignSub`` op: ``ref -= value``; returns the ref."""
    if not _is_ref(ref):  # a resource-style object: delegate, as TF's state_ops does
        return ref.assign_sub(value, use_locking=use_locking, name=name)
    return _create_update("AssignSub", ref, value, name, {"use_locking": bool(use_locking)})


# ----------------------------------------------------------------- CountUpTo
def _compute_count_up_to(ctx, op, inputs):
    ref = kernels.variable_ref(op, inputs[0])
    before = ref.get()
    limit = op._attrs["limit"]
    if before >= limit:
        raise errors.OutOfRangeError(None, op, f"Reached limit of {limit}")
    ref.set(np.asarray(before + 1, dtype=before.dtype))
    return np.array(before, copy=True)


def _infer_count_up_to(op):
    ref = op._inputs[0]
    if ref.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ref.shape.ndims} for '{{{{node {op.name}}}}} = "
                         f"CountUpTo[T={ref.dtype.base_dtype.name}, limit={op._attrs['limit']}]({ref.op.name})' "
                         f"with input shapes: {ref.shape}.")
    return [(ref.dtype.base_dtype, TensorShape([]))]


kernels.register("CountUpTo", infer=_infer_count_up_to, compute=_compute_count_up_to, ref_inputs=(0,))


def count_up_to(ref, limit: int, name: str | None = None) -> Tensor:
    """A ``CountUpTo`` op: outputs the variable's value, then adds 1; OutOfRangeError once it reaches ``limit``."""
    if not _is_ref(ref):  # a resource-style object: delegate, as TF's state_ops does
        return ref.count_up_to(limit)
    ref = _ref_tensor(ref)
    _check_ref("CountUpTo", ref)
    if ref.dtype.base_dtype not in (dtypes_lib.int32, dtypes_lib.int64):
        raise TypeError(f"Value passed to parameter 'ref' has DataType {ref.dtype.base_dtype.name} not in list of "
                        "allowed values: int32, int64")
    op = ops._scoped_op(ref.graph, "CountUpTo", [ref], name=name or "CountUpTo",
                        attrs={"limit": int(limit), "T": ref.dtype.base_dtype})
    return op._outputs[0]


# ----------------------------------------------------------------- IsVariableInitialized
def _compute_is_initialized(ctx, op, inputs):
    ref = inputs[0]
    if isinstance(ref, kernels.VariableRef):
        return np.array(ref.is_initialized)
    return np.array(True)  # a fed ref has a value


kernels.register("IsVariableInitialized", infer=lambda op: [(dtypes_lib.bool, TensorShape([]))],
                 compute=_compute_is_initialized, ref_inputs=(0,))


def is_variable_initialized(ref, name: str | None = None) -> Tensor:
    """An ``IsVariableInitialized`` op: a bool scalar, True once ``ref`` has a value in the session."""
    if not isinstance(ref, Tensor) and hasattr(ref, "is_initialized") and not _ref_tensor(ref).dtype._is_ref_dtype:
        return ref.is_initialized(name=name)  # a resource variable: its VarIsInitializedOp, as TF dispatches
    ref = _ref_tensor(ref)
    _check_ref("IsVariableInitialized", ref)
    op = ops._scoped_op(ref.graph, "IsVariableInitialized", [ref], name=name or "IsVariableInitialized",
                        attrs={"dtype": ref.dtype.base_dtype})
    return op._outputs[0]
