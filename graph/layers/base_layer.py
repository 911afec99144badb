"""The TF1 ``tf.layers.Layer``: a callable owning a variable scope, its weights, losses and updates.

Semantics follow TensorFlow 2.21's legacy layers (``tf_keras/src/legacy_tf_layers/base.py`` over Keras'
v1 base layer), the oracle of the tests:

- A layer's ``name`` comes from a per-graph counter per class name, one-based (``dense_1``, ``dense_2``,
  as TF 2.21 numbers them), while its variable scope is opened on the first call (or first
  ``add_weight``) with ``variable_scope(None, default_name=name)``, so scopes are uniquified separately:
  the first Dense of a graph is named ``dense_1`` and owns ``dense/kernel``.
- The first call builds the layer (``build(input_shape)``) inside that scope; later calls reopen the
  scope with ``reuse=True``, so calling a layer twice shares its weights.  Ops of every call go under
  the scope's original name scope (``dense/MatMul``, ``dense/MatMul_1``).
- ``add_weight`` creates weights with ``get_variable``; a regularizer's loss is built under
  ``<scope>/<weight>/Regularizer`` and added to ``GraphKeys.REGULARIZATION_LOSSES``; ``add_update``
  updates land in ``GraphKeys.UPDATE_OPS`` after each call.
"""

from __future__ import annotations

import inspect
import re
import weakref
from collections import defaultdict
from typing import Any

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.base import nest
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys, Operation, Tensor
from graph.layers.input_spec import InputSpec, assert_input_compatibility
from graph.ops import array_ops, math_ops
from graph.variables import initializers as init_ops
from graph.variables import variable_scope as vs
from graph.variables.partitioning import PartitionedVariable
from graph.variables.variable_collections import global_variables, trainable_variables

__all__ = ["Layer", "InputSpec"]

# Per-graph counters of layer names, keyed by the snake-case class name (Keras' PER_GRAPH_OBJECT_NAME_UIDS).
_LAYER_NAME_UIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# Keyword arguments Keras' base layer accepts beside trainable/name/dtype (others are a TypeError).
_ALLOWED_KWARGS = frozenset(("input_shape", "batch_input_shape", "batch_size", "weights", "activity_regularizer",
                             "autocast", "dynamic", "implementation"))


def to_snake_case(name: str) -> str:
    """Keras' class-name-to-layer-name rule: ``BatchNormalization`` -> ``batch_normalization``."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def unique_layer_name(base_name: str) -> str:
    """``base_name_N`` with N counting layers of that base name in the default graph, from 1."""
    uids = _LAYER_NAME_UIDS.setdefault(graph_lib.get_default_graph(), defaultdict(int))
    uids[base_name] += 1
    return f"{base_name}_{uids[base_name]}"


def _add_elements_to_collection(elements, collection_name: str) -> None:
    collection = graph_lib.get_collection_ref(collection_name)
    present = {id(element) for element in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


def _call_argument_names(function) -> list[str]:
    return list(inspect.signature(function).parameters)


class Layer:
    """Base class of ``tf.layers``: ``build`` creates weights once, ``call`` computes, ``__call__`` scopes both."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None, **kwargs):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        for kwarg in kwargs:
            if kwarg not in _ALLOWED_KWARGS:
                raise TypeError(f"Keyword argument not understood: {kwarg}")
        self._activity_regularizer = kwargs.get("activity_regularizer")
        self._trainable = trainable
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self._input_spec = None
        self.built = False
        self.supports_masking = False
        self._dtype = None if dtype is None else dtypes_lib.as_dtype(dtype).base_dtype
        self._init_set_name(name)
        self._call_argument_names = _call_argument_names(self.call)
        self._call_has_scope_arg = "scope" in self._call_argument_names
        self._expects_training_arg = "training" in self._call_argument_names
        if scope:
            with vs.variable_scope(scope) as captured_scope:
                self._scope = captured_scope
        else:
            self._scope = None
        self._current_scope = None
        self._always_reuse_variable_scope = None

    def _init_set_name(self, name) -> None:
        if isinstance(name, vs.VariableScope):
            self._base_name = name.name
            self._name = unique_layer_name(to_snake_case(type(self).__name__))
        elif name:
            self._base_name = self._name = name
        else:
            self._base_name = to_snake_case(type(self).__name__)
            self._name = unique_layer_name(self._base_name)

    # Properties -----------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The layer's name (``dense_1``); the variable scope may differ, see ``scope_name``."""
        return self._name

    @property
    def dtype(self) -> str | None:
        """The weights' dtype name, or None until the first input fixes it."""
        return self._dtype.name if self._dtype is not None else None

    @property
    def trainable(self) -> bool:
        """Whether the layer's weights are trained (and its updates run)."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)

    @property
    def activity_regularizer(self):
        """The function of each output whose mean over the batch is added as a loss, or None."""
        return self._activity_regularizer

    @property
    def input_spec(self):
        """The InputSpec (or list of them) inputs are checked against."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value) -> None:
        for spec in nest.flatten(value):
            if spec is not None and not isinstance(spec, InputSpec):
                raise TypeError(f"Layer input_spec must be an instance of InputSpec. Got: {spec}")
        self._input_spec = value

    @property
    def scope_name(self) -> str:
        """The full name of the layer's variable scope (``dense``, ``outer/dense_1``).

        Raises:
            ValueError: before the layer was first called.
        """
        if not self._scope:
            raise ValueError('No name available for layer scope because the layer "' + self._name +
                             '" has not been used yet. The scope name  is determined the first time the '
                             "layer instance is called. You must therefore call the layer before querying "
                             "`scope_name`.")
        return self._scope.name

    @property
    def trainable_weights(self) -> list:
        """Weights trained by optimizers: the layer's trainable weights if it is trainable, else none."""
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        """Weights not trained (all of them if the layer is not trainable)."""
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def weights(self) -> list:
        """Trainable then non-trainable weights."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self) -> list:
        """Update ops added by ``add_update`` (none while the layer is frozen)."""
        return list(self._updates) if self.trainable else []

    @property
    def losses(self) -> list:
        """Loss tensors from regularizers and ``add_loss``.

        TF re-runs a weight regularizer each time this is read (new ops named ``<weight>/Regularizer``
        at the caller's name scope); these are the tensors built when the weight was created, the ones
        in ``GraphKeys.REGULARIZATION_LOSSES``.
        """
        return list(self._losses)

    # Weights, losses, updates ------------------------------------------------------------------------
    def _set_scope(self, scope=None) -> None:
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as captured_scope:
                    self._scope = captured_scope
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured_scope:
                    self._scope = captured_scope

    def _name_scope(self) -> str:
        return self._current_scope.original_name_scope

    def add_weight(self, name: str, shape, dtype=None, initializer=None, regularizer=None,
                   trainable: bool | None = None, constraint=None, use_resource=None,
                   synchronization=vs.VariableSynchronization.AUTO,
                   aggregation=vs.VariableAggregation.NONE, partitioner=None, **kwargs):
        """Creates the weight ``<scope>/name`` with ``get_variable`` (or returns it when reused).

        Raises:
            ValueError: ``trainable=True`` with ``ON_READ`` synchronization.
        """
        for kwarg in kwargs:
            if kwarg != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", kwarg)
        if synchronization == vs.VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ only for "
                                 "non-trainable variables. You have specified trainable=True and "
                                 "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        graph = graph_lib.get_default_graph()
        existing_variables = set(map(id, global_variables()))
        if dtype is None:
            dtype = self._dtype or dtypes_lib.float32
        dtype = dtypes_lib.as_dtype(dtype)
        self._set_scope(None)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with graph_lib.name_scope(self._name_scope()):
                if initializer is None:
                    initializer = scope.initializer
                if initializer is None:
                    initializer = self._default_initializer(dtype)
                variable = vs.get_variable(
                    name, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable and self.trainable,
                    constraint=constraint, partitioner=partitioner, use_resource=use_resource,
                    synchronization=synchronization, aggregation=aggregation)
                parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
                target = self._trainable_weights if trainable and self.trainable else self._non_trainable_weights
                for part in parts:
                    if not any(part is known for known in self._trainable_weights + self._non_trainable_weights):
                        target.append(part)
                if regularizer and not any(id(part) in existing_variables for part in parts):
                    self._handle_weight_regularization(name, variable, regularizer)
                if trainable and self.trainable:
                    # A scope may have made the variable non-trainable after all (TF moves it over).
                    with graph.as_default():
                        trainable_ids = set(map(id, trainable_variables()))
                    for part in parts:
                        if id(part) not in trainable_ids and any(part is w for w in self._trainable_weights):
                            self._trainable_weights.remove(part)
                            self._non_trainable_weights.append(part)
        return variable

    add_variable = add_weight  # TF's deprecated alias, still used by rnn cells

    @staticmethod
    def _default_initializer(dtype: dtypes_lib.DType):
        # Keras' defaults; other dtypes (strings) are left to get_variable, as TF leaves them.
        if dtype.is_floating:
            return init_ops.GlorotUniform()
        if dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
            return init_ops.Zeros()
        return None

    def _handle_weight_regularization(self, name: str, variable, regularizer) -> None:
        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        for part in parts:
            with graph_lib.name_scope(name + "/Regularizer"):
                loss = regularizer(part)
            if loss is not None:
                self.add_loss(loss)

    def add_loss(self, losses, inputs=None) -> None:
        """Adds loss tensors (or callables returning them) to the layer and to REGULARIZATION_LOSSES."""
        del inputs  # conditional losses are a Keras model feature; every loss is kept
        new_losses = []
        for loss in nest.flatten(losses):
            if callable(loss):
                loss = loss()
            if loss is None:
                continue
            new_losses.append(graph_lib.convert_to_tensor(loss))
        self._losses.extend(new_losses)
        _add_elements_to_collection(new_losses, GraphKeys.REGULARIZATION_LOSSES)

    def add_update(self, updates, inputs=None) -> None:
        """Records update ops (tensors count by their op), which each call adds to UPDATE_OPS."""
        del inputs
        for update in nest.flatten(updates):
            if callable(update):
                update = update()
            if isinstance(update, Operation):
                self._updates.append(update)
            elif isinstance(update, Tensor) or hasattr(update, "op"):
                self._updates.append(update.op)
            else:
                self._updates.append(graph_lib.convert_to_tensor(update).op)

    # Build and call ---------------------------------------------------------------------------------
    def build(self, input_shape) -> None:
        """Creates the layer's weights; subclasses override it and set ``self.built``."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation; subclasses override it."""
        return inputs

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (subclasses define it)."""
        raise NotImplementedError(f"Please run in eager mode or implement the compute_output_shape method on "
                                  f"your layer ({type(self).__name__}).")

    def apply(self, inputs, *args, **kwargs):
        """Same as ``__call__`` (TF's deprecated alias)."""
        return self(inputs, *args, **kwargs)

    def __call__(self, inputs, *args, **kwargs):
        """Builds on the first call and runs ``call`` in the layer's variable and name scope.

        Raises:
            ValueError: inputs that break ``input_spec``, or ``call`` returning None.
        """
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        if self.built:
            if self._always_reuse_variable_scope is None:
                self._always_reuse_variable_scope = vs.variable_scope(
                    self._scope, reuse=True, auxiliary_name_scope=False)
            scope_context_manager = self._always_reuse_variable_scope
        else:
            scope_context_manager = vs.variable_scope(self._scope, reuse=self._reuse, auxiliary_name_scope=False)
        with scope_context_manager as entered_scope:
            self._current_scope = entered_scope
            if self._call_has_scope_arg:
                kwargs["scope"] = entered_scope
            if "training" in kwargs and not self._expects_training_arg:
                kwargs.pop("training")
            outputs = self._call_in_name_scope(inputs, args, kwargs)
        _add_elements_to_collection(self.updates, GraphKeys.UPDATE_OPS)
        return outputs

    def _call_in_name_scope(self, inputs, args, kwargs):
        if any(isinstance(x, (np.ndarray, float, int)) for x in nest.flatten(inputs)):
            inputs = nest.map_structure(
                lambda x: graph_lib.convert_to_tensor(x) if isinstance(x, (np.ndarray, float, int)) else x, inputs)
        assert_input_compatibility(self.input_spec, inputs, self.name)
        with graph_lib.name_scope(self._name_scope()):
            if not self.built:
                self._maybe_build(inputs)
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError("A layer's `call` method should return a Tensor or a list of Tensors, not None "
                                 "(layer: " + self.name + ").")
            if self._activity_regularizer is not None:
                for output in nest.flatten(outputs):
                    with graph_lib.name_scope("ActivityRegularizer"):
                        activity_loss = self._activity_regularizer(output)
                        batch_size = math_ops.cast(array_ops.shape(output)[0], activity_loss.dtype)
                        self.add_loss(math_ops.truediv(activity_loss, batch_size))
        return outputs

    def _maybe_build(self, inputs) -> None:
        flat = nest.flatten(inputs)
        if flat and self._dtype is None:
            dtype = getattr(flat[0], "dtype", None)
            if dtype is not None:
                self._dtype = dtypes_lib.as_dtype(dtype).base_dtype
        input_shapes = None
        if any(hasattr(x, "shape") for x in flat):
            input_shapes = nest.map_structure(
                lambda x: TensorShape(x.shape) if hasattr(x, "shape") else None, inputs)
        self.build(input_shapes)
        self.built = True

    def count_params(self) -> int:
        """The number of scalars in the layer's weights.

        Raises:
            ValueError: before the layer is built.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the layer isn't built. "
                             "You can build it manually via: `" + self.name + ".build(batch_input_shape)`.")
        return int(sum(np.prod(w.shape.as_list()) for w in self.weights))

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments common to every layer."""
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object name={self.name!r}>"

