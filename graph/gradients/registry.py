"""The gradient registry: op type -> gradient function, as TensorFlow's ``ops.RegisterGradient``.

A gradient function has TensorFlow's signature ``fn(op, *grads) -> grads``: it receives the
forward Operation and one gradient per op output (None for an output nothing depends on)
and returns one gradient per op input (a Tensor, an IndexedSlices, or None for "no
gradient").  ``NotDifferentiable("Size")`` registers None: the op then propagates no
gradient at all, and tf.gradients does not raise for it.

The gradient modules (``math_grad``, ``array_grad``, ``nn_grad``, ...) fill this table at
import; ``graph.gradients.gradients_impl`` imports all of them.  A graph's
``gradient_override_map`` stamps a ``_gradient_op_type`` attr on the ops it creates, and
`get_gradient_function` looks that type up instead of the op's own.
"""

from __future__ import annotations

import traceback
from typing import TypeVar
from collections.abc import Callable

__all__ = ["RegisterGradient", "NotDifferentiable", "NoGradient", "no_gradient", "get_gradient_function",
           "lookup", "is_registered", "registered_types", "differentiable_types", "not_differentiable_types"]

_F = TypeVar("_F", bound=Callable)

# op type -> (gradient function or None, "file:line" of the registration for the duplicate message)
_REGISTRY: dict[str, tuple[Callable | None, str]] = {}


def _register(function: Callable | None, op_type: str) -> None:
    if op_type in _REGISTRY:
        # TF's framework/registry.py wording, naming where the first registration happened.
        raise KeyError(f"Registering two gradient with name '{op_type}'! "
                       f"(Previous registration was in {_REGISTRY[op_type][1]})")
    stack = traceback.extract_stack(limit=3)  # [registering module, __call__ / no_gradient, _register]
    frame = stack[0]
    _REGISTRY[op_type] = (function, f"{frame.name} {frame.filename}:{frame.lineno}")


class RegisterGradient:
    """A decorator registering the gradient function for an op type (``@tf.RegisterGradient("Sub")``)."""

    __slots__ = ("_op_type",)

    def __init__(self, op_type: str):
        """Creates a decorator for ops of type ``op_type``.

        Raises:
            TypeError: if ``op_type`` is not a string.
        """
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, function: _F) -> _F:
        """Registers ``function`` as the gradient of ``op_type`` and returns it unchanged.

        Raises:
            KeyError: if ``op_type`` already has a registration.
        """
        _register(function, self._op_type)
        return function


def no_gradient(op_type: str) -> None:
    """Declares ops of type ``op_type`` not differentiable: they propagate no gradient.

    Raises:
        TypeError: if ``op_type`` is not a string.
        KeyError: if ``op_type`` already has a registration.
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _register(None, op_type)


# TensorFlow's older names for no_gradient.
NotDifferentiable = no_gradient
NoGradient = no_gradient


def lookup(op_type: str | bytes) -> Callable | None:
    """The gradient function registered for ``op_type`` (None when declared not differentiable).

    Raises:
        LookupError: if ``op_type`` has no registration (TF's registry wording).
    """
    if isinstance(op_type, bytes):
        op_type = op_type.decode()
    try:
        return _REGISTRY[op_type][0]
    except KeyError:
        raise LookupError(f"gradient registry has no entry for: {op_type}") from None


def get_gradient_function(op) -> Callable | None:
    """The gradient function of ``op``, honoring its ``_gradient_op_type`` override; None without inputs.

    Raises:
        LookupError: if the (overridden) op type has no registration.
    """
    if not op.inputs:
        return None
    try:
        op_type = op.get_attr("_gradient_op_type")
    except ValueError:
        op_type = op.type
    return lookup(op_type)


def is_registered(op_type: str) -> bool:
    """True if ``op_type`` has a gradient function or is declared not differentiable."""
    return op_type in _REGISTRY


def registered_types() -> list[str]:
    """Every op type with a registration (gradient function or NotDifferentiable), sorted."""
    return sorted(_REGISTRY)


def differentiable_types() -> list[str]:
    """Op types with a gradient function, sorted."""
    return sorted(op_type for op_type, (function, _) in _REGISTRY.items() if function is not None)


def not_differentiable_types() -> list[str]:
    """Op types declared not differentiable, sorted."""
    return sorted(op_type for op_type, (function, _) in _REGISTRY.items() if function is None)
