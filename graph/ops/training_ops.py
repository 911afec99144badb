"""Training update ops: TensorFlow's ``Apply*`` and ``SparseApply*`` kernels, updating variables in place.

Each op takes its variable and slot variables as reference inputs (like ``Assign``, see
graph.ops.state_ops): in a Session they arrive as ``kernels.VariableRef`` values, the kernel
writes the new values back, and the op outputs the variable's ref.  Op types, input order
and attrs (``use_locking``, ``use_nesterov``, ``update_slots``, ``multiply_linear_by_lr``)
are TensorFlow's (tensorflow/core/ops/training_ops.cc).  The numerics follow TF's CPU
functors (tensorflow/core/kernels/training_ops.cc) in the variable's dtype, operation
by operation, e.g. Adam's ``alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``.

A ``SparseApply*`` op updates only the rows ``var[indices[i]]`` with the gradient row
``grad[i]``, one index after the other as TF's loop does (a repeated index updates twice).
The update formulas live in graph.ops.training_updates; this module holds the op table,
the builders, shape inference and the kernel plumbing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph import errors
from graph.base import kernels
from graph.base.shapes import TensorShape, debug_string
from graph.core.graph import Tensor, convert_to_tensor
from graph.ops import resource_variable_ops
from graph.ops.state_ops import exclusive_when_locking
from graph.ops import training_updates as updates

__all__ = [
    "apply_gradient_descent", "apply_proximal_gradient_descent", "apply_momentum", "apply_adam", "apply_adagrad",
    "apply_adagrad_da", "apply_proximal_adagrad", "apply_rms_prop", "apply_centered_rms_prop", "apply_adadelta",
    "apply_ftrl", "apply_ftrl_v2", "sparse_apply_proximal_gradient_descent", "sparse_apply_momentum",
    "sparse_apply_adagrad", "sparse_apply_adagrad_da", "sparse_apply_proximal_adagrad", "sparse_apply_rms_prop",
    "sparse_apply_centered_rms_prop", "sparse_apply_adadelta", "sparse_apply_ftrl", "sparse_apply_ftrl_v2",
]

_GRAD_NAMES = ("grad", "delta")


@dataclass(frozen=True)
class _Spec:
    """One training op: its inputs in TF's order, how many lead as refs, its bool attrs, its update."""

    op_type: str
    inputs: tuple[str, ...]
    refs: int
    attrs: tuple[tuple[str, bool], ...]
    update: Callable

    @property
    def sparse(self) -> bool:
        """True for the SparseApply* ops (they take row ``indices``)."""
        return "indices" in self.inputs

    @property
    def grad_name(self) -> str:
        """The gradient input's name: ``grad``, or ``delta`` for Apply(Proximal)GradientDescent."""
        return next(name for name in self.inputs if name in _GRAD_NAMES)

    @property
    def scalars(self) -> tuple[str, ...]:
        """The hyperparameter inputs, each a rank-0 tensor."""
        return tuple(name for name in self.inputs[self.refs:] if name not in _GRAD_NAMES and name != "indices")


_LOCK = (("use_locking", False),)
_NESTEROV = _LOCK + (("use_nesterov", False),)
_ADAGRAD = _LOCK + (("update_slots", True),)
_FTRL = _LOCK + (("multiply_linear_by_lr", False),)

_SPECS = {spec.op_type: spec for spec in (
    _Spec("ApplyGradientDescent", ("var", "alpha", "delta"), 1, _LOCK, updates.gradient_descent),
    _Spec("ApplyProximalGradientDescent", ("var", "alpha", "l1", "l2", "delta"), 1, _LOCK,
          updates.proximal_gradient_descent),
    _Spec("ApplyMomentum", ("var", "accum", "lr", "grad", "momentum"), 2, _NESTEROV, updates.momentum),
    _Spec("ApplyAdam", ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"), 3,
          _NESTEROV, updates.adam),
    _Spec("ApplyAdagrad", ("var", "accum", "lr", "grad"), 2, _ADAGRAD, updates.adagrad),
    _Spec("ApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1", "l2",
                             "global_step"), 3, _LOCK, updates.adagrad_da),
    _Spec("ApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad"), 2, _LOCK, updates.proximal_adagrad),
    _Spec("ApplyRMSProp", ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 3, _LOCK, updates.rms_prop),
    _Spec("ApplyCenteredRMSProp", ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 4, _LOCK,
          updates.centered_rms_prop),
    _Spec("ApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), 3, _LOCK,
          updates.adadelta),
    _Spec("ApplyFtrl", ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"), 3, _FTRL, updates.ftrl),
    _Spec("ApplyFtrlV2", ("var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"), 3, _FTRL,
          updates.ftrl),
    _Spec("SparseApplyProximalGradientDescent", ("var", "alpha", "l1", "l2", "grad", "indices"), 1, _LOCK,
          updates.proximal_gradient_descent),
    _Spec("SparseApplyMomentum", ("var", "accum", "lr", "grad", "indices", "momentum"), 2, _NESTEROV, updates.momentum),
    _Spec("SparseApplyAdagrad", ("var", "accum", "lr", "grad", "indices"), 2, _ADAGRAD, updates.sparse_adagrad),
    _Spec("SparseApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "indices",
                                   "lr", "l1", "l2", "global_step"), 3, _LOCK, updates.adagrad_da),
    _Spec("SparseApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad", "indices"), 2, _LOCK,
          updates.proximal_adagrad),
    _Spec("SparseApplyRMSProp", ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"), 3, _LOCK,
          updates.sparse_rms_prop),
    _Spec("SparseApplyCenteredRMSProp", ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad",
                                         "indices"), 4, _LOCK, updates.sparse_centered_rms_prop),
    _Spec("SparseApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad", "indices"), 3, _LOCK,
          updates.adadelta),
    _Spec("SparseApplyFtrl", ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "lr_power"), 3, _FTRL,
          updates.ftrl),
    _Spec("SparseApplyFtrlV2", ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "l2_shrinkage",
                                "lr_power"), 3, _FTRL, updates.ftrl),
)}


_SPECS_BY_TYPE = dict(_SPECS)  # op type (the ref and the Resource one) -> spec


# ----------------------------------------------------------------- shape inference
def _shape_error(op, message: str) -> ValueError:
    shapes = ", ".join(t.shape.message_string() for t in op._inputs)
    return ValueError(f"{message} for '{{{{node {op.name}}}}} = {op.type}[T={op._attrs['T'].name}]' "
                      f"with input shapes: {shapes}.")


def _infer(op):
    spec = _SPECS[op.type]
    named = dict(zip(spec.inputs, op._inputs))
    var_shape = named["var"].shape
    for name in spec.inputs[1:spec.refs]:
        try:
            var_shape = var_shape.merge_with(named[name].shape)
        except ValueError:
            raise _shape_error(op, f"Shapes of 'var' {named['var'].shape} and '{name}' {named[name].shape} "
                                   "must be equal") from None
    for name in spec.scalars:
        if named[name].shape.ndims not in (None, 0):
            raise _shape_error(op, f"Shape must be rank 0 but is rank {named[name].shape.ndims} for input '{name}'")
    grad_shape = named[spec.grad_name].shape
    if not spec.sparse:
        if not var_shape.is_compatible_with(grad_shape):
            raise _shape_error(op, f"Shapes of 'var' {var_shape} and '{spec.grad_name}' {grad_shape} must be equal")
        var_shape = var_shape.merge_with(grad_shape)
    else:
        indices_shape = named["indices"].shape
        if indices_shape.ndims not in (None, 1):
            raise _shape_error(op, f"Shape must be rank 1 but is rank {indices_shape.ndims} for input 'indices'")
        if var_shape.ndims is not None and grad_shape.ndims is not None:
            if var_shape.ndims == 0 or grad_shape.ndims != var_shape.ndims or \
                    not TensorShape(var_shape.dims[1:]).is_compatible_with(TensorShape(grad_shape.dims[1:])):
                raise _shape_error(op, f"Shapes of 'var' {var_shape} and 'grad' {grad_shape} differ past the first "
                                       "dimension")
        if grad_shape.ndims and indices_shape.ndims == 1 and \
                not TensorShape(grad_shape.dims[:1]).is_compatible_with(indices_shape):
            raise _shape_error(op, f"Dimension 0 of 'grad' {grad_shape} and 'indices' {indices_shape} must be equal")
    return [(named["var"].dtype, var_shape)]


# ----------------------------------------------------------------- kernel
def _read_refs(op, spec: _Spec, inputs) -> list[np.ndarray]:
    values = []
    for index, ref in enumerate(inputs[:spec.refs]):
        ref = kernels.variable_ref(op, ref, index, spec.inputs[index])
        if not ref.is_initialized:
            raise errors.FailedPreconditionError(None, op, kernels.uninitialized_message(ref.name, ref.op))
        value = ref.get()
        # Updates work on the variable's own array, as TF's kernels update the ref's buffer in place:
        # the store owns it (Assign and restores store fresh arrays). A read-only one is copied first, and
        # a resource variable's too: its earlier reads are snapshots (TF's copy-on-write).
        in_place = value.flags.writeable and type(ref) is kernels.VariableRef
        values.append(value if in_place else np.array(value, copy=True))
    return values


def _check_shapes(op, spec: _Spec, named: dict) -> None:
    var = named["var"]
    for name in spec.inputs[1:spec.refs]:
        if named[name].shape != var.shape:
            raise errors.InvalidArgumentError(
                None, op, f"var and {name} do not have the same shape{debug_string(var.shape)} "
                f"{debug_string(named[name].shape)}")
    for name in spec.scalars:
        if np.ndim(named[name]) != 0:
            raise errors.InvalidArgumentError(None, op, f"{name} is not a scalar: {debug_string(np.shape(named[name]))}")
    grad = named[spec.grad_name]
    if not spec.sparse:
        if grad.shape != var.shape:
            raise errors.InvalidArgumentError(
                None, op, f"var and {spec.grad_name} do not have the same shape{debug_string(var.shape)} "
                f"{debug_string(grad.shape)}")
        return
    indices = named["indices"]
    if var.ndim < 1:
        raise errors.InvalidArgumentError(None, op, "var must be at least 1 dimensional")
    if indices.ndim != 1:
        raise errors.InvalidArgumentError(None, op, f"indices must be one-dimensional: {debug_string(indices.shape)}")
    if grad.shape[1:] != var.shape[1:] or grad.ndim != var.ndim:
        raise errors.InvalidArgumentError(
            None, op, f"var and grad must match in dimension 1 and beyond: {debug_string(var.shape)} "
            f"{debug_string(grad.shape)}")
    if grad.shape[0] != indices.shape[0]:
        raise errors.InvalidArgumentError(
            None, op, f"grad must be the same size as indices in the first dimension: {debug_string(grad.shape)} "
            f"{debug_string(indices.shape)}")
    for offset, index in enumerate(indices):
        if not 0 <= index < var.shape[0]:
            raise errors.InvalidArgumentError(None, op, f"Index {int(index)} at offset {offset} in indices is out "
                                                        "of range")


@exclusive_when_locking
def _compute(ctx, op, inputs):
    spec = _SPECS_BY_TYPE[op.type]
    dtype = op._attrs["T"].numpy_dtype
    refs = _read_refs(op, spec, inputs)
    named = dict(zip(spec.inputs[:spec.refs], refs))
    for name, value in zip(spec.inputs[spec.refs:], inputs[spec.refs:]):
        value = np.asarray(value)
        named[name] = value if name in ("indices", "global_step") else value.astype(dtype, copy=False)
    _check_shapes(op, spec, named)
    flags = {name: op._attrs.get(name, default) for name, default in spec.attrs}
    scalars = {name: named[name][()] for name in spec.scalars}
    grad = named[spec.grad_name]
    slots = spec.inputs[:spec.refs]
    if not spec.sparse:
        scratches = ctx.op_state.setdefault(("training scratch", op, threading.get_ident()), {})
        results = updates.run_dense(spec.update, {name: named[name] for name in slots}, grad, {**scalars, **flags},
                                    scratches)
    else:
        results = updates.run_sparse(spec.update, {name: named[name] for name in slots}, grad, named["indices"],
                                     {**scalars, **flags})
    for ref, value in zip(inputs[:spec.refs], results):
        ref.set(np.asarray(value, dtype=dtype))
    return inputs[0]


def _compute_resource(ctx, op, inputs):
    _compute(ctx, op, inputs)
    return []


for _op_type, _spec in _SPECS.items():
    kernels.register(_op_type, infer=_infer, compute=_compute, ref_inputs=tuple(range(_spec.refs)),
                     default_attrs=dict(_spec.attrs))
    # TF's Resource<op>: the same update through resource handles (inputs of dtype resource), no outputs.
    kernels.register("Resource" + _op_type, infer=lambda op: [], compute=_compute_resource, stateful=True,
                     default_attrs=dict(_spec.attrs))
    _SPECS_BY_TYPE["Resource" + _op_type] = _spec


# ----------------------------------------------------------------- builders
def _ref_of(value) -> Tensor:
    if hasattr(value, "_ref") and not isinstance(value, Tensor):  # a Variable: its VariableV2 output (or handle)
        return value._ref()
    return convert_to_tensor(value, as_ref=True)


def _apply(op_type: str, values: tuple, attrs: dict, name: str | None) -> Tensor:
    """Builds ``op_type`` as TF's op_def_library does: inside ``name_scope(name or op_type)``, ref inputs checked to be
    mutable, the other inputs converted to the variable's dtype (Python numbers as ``<scope>/<input name>``)."""
    spec = _SPECS[op_type]
    var = _ref_of(values[0])
    resource = var.dtype == dtypes_lib.resource
    if resource:  # TF's Resource<op>: handles for the variable and its slots, no outputs
        op_type = "Resource" + op_type
    graph = var.graph
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        dtype = resource_variable_ops.handle_dtype_and_shape(var)[0] if resource else var.dtype.base_dtype
        tensors = []
        for input_name, value in zip(spec.inputs, values):
            is_ref = len(tensors) < spec.refs
            expected = dtypes_lib.int64 if input_name == "global_step" else dtype
            if is_ref:
                tensor = _ref_of(value)
            elif isinstance(value, Tensor) or hasattr(value, "_as_graph_element"):
                tensor = convert_to_tensor(value)
            else:  # a Python or numpy value becomes a Const named after the input
                tensor = convert_to_tensor(value, dtype=None if input_name == "indices" else expected,
                                           name=input_name)
            if is_ref and not tensor.dtype._is_ref_dtype and not (resource and tensor.dtype == dtypes_lib.resource):
                raise TypeError(f"'{op_type}' Op requires that input '{input_name}' be a mutable tensor (e.g.: a "
                                f"tf.Variable) but got {tensor.name} of dtype {tensor.dtype.name}")
            if input_name == "indices":
                if tensor.dtype.base_dtype not in (dtypes_lib.int32, dtypes_lib.int64):
                    raise TypeError(f"Value passed to parameter 'indices' has DataType {tensor.dtype.base_dtype.name}"
                                    " not in list of allowed values: int32, int64")
            elif tensor.dtype.base_dtype != expected and not (is_ref and resource):
                raise TypeError(f"Input '{input_name}' of '{op_type}' Op has type {tensor.dtype.base_dtype.name} that "
                                f"does not match type {expected.name} of argument 'var'.")
            tensors.append(tensor)
        op_attrs = {"T": dtype}
        if spec.sparse:
            op_attrs["Tindices"] = tensors[spec.inputs.index("indices")].dtype.base_dtype
        op_attrs.update({key: bool(attrs.get(key, default)) for key, default in spec.attrs})
        op = graph.create_op(op_type, tensors, [] if resource else None, name=scope, attrs=op_attrs)
        return op if resource else op._outputs[0]


def apply_gradient_descent(var, alpha, delta, use_locking: bool = False, name: str | None = None) -> Tensor:
    """``ApplyGradientDescent``: var -= alpha * delta."""
    return _apply("ApplyGradientDescent", (var, alpha, delta), {"use_locking": use_locking}, name)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking: bool = False,
                                    name: str | None = None) -> Tensor:
    """``ApplyProximalGradientDescent``: a gradient step, then FOBOS shrinkage by l1 and l2."""
    return _apply("ApplyProximalGradientDescent", (var, alpha, l1, l2, delta), {"use_locking": use_locking}, name)


def apply_momentum(var, accum, lr, grad, momentum, use_locking: bool = False, use_nesterov: bool = False,
                   name: str | None = None) -> Tensor:
    """``ApplyMomentum``: accum = accum * momentum + grad; var -= lr * accum (or Nesterov's step)."""
    return _apply("ApplyMomentum", (var, accum, lr, grad, momentum),
                  {"use_locking": use_locking, "use_nesterov": use_nesterov}, name)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking: bool = False,
               use_nesterov: bool = False, name: str | None = None) -> Tensor:
    """``ApplyAdam``: Adam's moment updates and bias-corrected step."""
    return _apply("ApplyAdam", (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad),
                  {"use_locking": use_locking, "use_nesterov": use_nesterov}, name)


def apply_adagrad(var, accum, lr, grad, use_locking: bool = False, update_slots: bool = True,
                  name: str | None = None) -> Tensor:
    """``ApplyAdagrad``: accum += grad^2; var -= lr * grad / sqrt(accum)."""
    return _apply("ApplyAdagrad", (var, accum, lr, grad), {"use_locking": use_locking, "update_slots": update_slots},
                  name)


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step,
                     use_locking: bool = False, name: str | None = None) -> Tensor:
    """``ApplyAdagradDA``: Adagrad dual averaging."""
    return _apply("ApplyAdagradDA", (var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
                                     global_step), {"use_locking": use_locking}, name)


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking: bool = False, name: str | None = None) -> Tensor:
    """``ApplyProximalAdagrad``: an Adagrad step, then FOBOS shrinkage."""
    return _apply("ApplyProximalAdagrad", (var, accum, lr, l1, l2, grad), {"use_locking": use_locking}, name)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking: bool = False,
                   name: str | None = None) -> Tensor:
    """``ApplyRMSProp``: mean-square scaled step with momentum."""
    return _apply("ApplyRMSProp", (var, ms, mom, lr, rho, momentum, epsilon, grad), {"use_locking": use_locking}, name)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, use_locking: bool = False,
                            name: str | None = None) -> Tensor:
    """``ApplyCenteredRMSProp``: RMSProp normalized by the estimated variance."""
    return _apply("ApplyCenteredRMSProp", (var, mg, ms, mom, lr, rho, momentum, epsilon, grad),
                  {"use_locking": use_locking}, name)


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking: bool = False,
                   name: str | None = None) -> Tensor:
    """``ApplyAdadelta``."""
    return _apply("ApplyAdadelta", (var, accum, accum_update, lr, rho, epsilon, grad), {"use_locking": use_locking},
                  name)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking: bool = False,
               multiply_linear_by_lr: bool = False, name: str | None = None) -> Tensor:
    """``ApplyFtrl``: FTRL-proximal."""
    return _apply("ApplyFtrl", (var, accum, linear, grad, lr, l1, l2, lr_power),
                  {"use_locking": use_locking, "multiply_linear_by_lr": multiply_linear_by_lr}, name)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, use_locking: bool = False,
                  multiply_linear_by_lr: bool = False, name: str | None = None) -> Tensor:
    """``ApplyFtrlV2``: FTRL-proximal with online L2 shrinkage."""
    return _apply("ApplyFtrlV2", (var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power),
                  {"use_locking": use_locking, "multiply_linear_by_lr": multiply_linear_by_lr}, name)


def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices, use_locking: bool = False,
                                           name: str | None = None) -> Tensor:
    """``SparseApplyProximalGradientDescent`` on the rows ``indices``."""
    return _apply("SparseApplyProximalGradientDescent", (var, alpha, l1, l2, grad, indices),
                  {"use_locking": use_locking}, name)


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking: bool = False,
                          use_nesterov: bool = False, name: str | None = None) -> Tensor:
    """``SparseApplyMomentum`` on the rows ``indices``."""
    return _apply("SparseApplyMomentum", (var, accum, lr, grad, indices, momentum),
                  {"use_locking": use_locking, "use_nesterov": use_nesterov}, name)


def sparse_apply_adagrad(var, accum, lr, grad, indices, use_locking: bool = False, update_slots: bool = True,
                         name: str | None = None) -> Tensor:
    """``SparseApplyAdagrad`` on the rows ``indices``."""
    return _apply("SparseApplyAdagrad", (var, accum, lr, grad, indices),
                  {"use_locking": use_locking, "update_slots": update_slots}, name)


def sparse_apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr, l1, l2,
                            global_step, use_locking: bool = False, name: str | None = None) -> Tensor:
    """``SparseApplyAdagradDA`` on the rows ``indices``."""
    return _apply("SparseApplyAdagradDA", (var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr,
                                           l1, l2, global_step), {"use_locking": use_locking}, name)


def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking: bool = False,
                                  name: str | None = None) -> Tensor:
    """``SparseApplyProximalAdagrad`` on the rows ``indices``."""
    return _apply("SparseApplyProximalAdagrad", (var, accum, lr, l1, l2, grad, indices), {"use_locking": use_locking},
                  name)


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking: bool = False,
                          name: str | None = None) -> Tensor:
    """``SparseApplyRMSProp`` on the rows ``indices``."""
    return _apply("SparseApplyRMSProp", (var, ms, mom, lr, rho, momentum, epsilon, grad, indices),
                  {"use_locking": use_locking}, name)


def sparse_apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices,
                                   use_locking: bool = False, name: str | None = None) -> Tensor:
    """``SparseApplyCenteredRMSProp`` on the rows ``indices``."""
    return _apply("SparseApplyCenteredRMSProp", (var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices),
                  {"use_locking": use_locking}, name)


def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices, use_locking: bool = False,
                          name: str | None = None) -> Tensor:
    """``SparseApplyAdadelta`` on the rows ``indices``."""
    return _apply("SparseApplyAdadelta", (var, accum, accum_update, lr, rho, epsilon, grad, indices),
                  {"use_locking": use_locking}, name)


def sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, use_locking: bool = False,
                      multiply_linear_by_lr: bool = False, name: str | None = None) -> Tensor:
    """``SparseApplyFtrl`` on the rows ``indices``."""
    return _apply("SparseApplyFtrl", (var, accum, linear, grad, indices, lr, l1, l2, lr_power),
                  {"use_locking": use_locking, "multiply_linear_by_lr": multiply_linear_by_lr}, name)


def sparse_apply_ftrl_v2(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power,
                         use_locking: bool = False, multiply_linear_by_lr: bool = False,
                         name: str | None = None) -> Tensor:
    """``SparseApplyFtrlV2`` on the rows ``indices``."""
    return _apply("SparseApplyFtrlV2", (var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power),
                  {"use_locking": use_locking, "multiply_linear_by_lr": multiply_linear_by_lr}, name)
