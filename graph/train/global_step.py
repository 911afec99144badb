"""The global step: TF1's ``training_util`` (get/create/get_or_create_global_step, global_step, assert).

The global step is the int64 scalar variable ``global_step`` (``GraphKeys.GLOBAL_STEP``), created
with ``get_variable`` (so under the current *variable* scope, with the name scope cleared), a
zeros initializer, not trainable, in the collections GLOBAL_VARIABLES and GLOBAL_STEP.  It is
found first in the GLOBAL_STEP collection, else by the tensor name ``global_step:0``; rules and
messages follow tensorflow/python/training/training_util.py.
"""

from __future__ import annotations

import logging

from graph.base import dtypes
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys, Tensor
from graph.variables import initializers
from graph.variables import variable_scope
from graph.variables import variables

__all__ = ["global_step", "get_global_step", "create_global_step", "get_or_create_global_step",
           "assert_global_step", "GLOBAL_STEP_READ_KEY"]

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"  # training_util.GLOBAL_STEP_READ_KEY

_logger = logging.getLogger("graph")


def _is_variable(value) -> bool:
    return isinstance(value, variables.Variable)


def global_step(sess, global_step_tensor) -> int:
    """The value of the global step in ``sess`` as a Python int.

    Args:
        sess: a Session.
        global_step_tensor: the global step Variable or Tensor, or its tensor name.
    """
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor) -> None:
    """Checks that ``global_step_tensor`` is a scalar integer Variable or Tensor.

    Raises:
        TypeError: with TensorFlow's messages, if it is not a Variable/Tensor, not an integer, or
            has a fully defined non-scalar shape.
    """
    if not (_is_variable(global_step_tensor) or isinstance(global_step_tensor, Tensor)):
        raise TypeError('Existing "global_step" must be a Variable or Tensor: {}.'.format(global_step_tensor))
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError('Existing "global_step" does not have integer type: {}'.format(global_step_tensor.dtype))
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError('Existing "global_step" is not scalar: {}'.format(shape))


def get_global_step(graph: graph_lib.Graph | None = None):
    """The global step variable (or tensor) of ``graph`` (default graph), or None if there is none.

    Looks in the GLOBAL_STEP collection, then for the tensor ``global_step:0``; more than one item
    in the collection logs an error and gives None, as TensorFlow does.

    Raises:
        TypeError: if what is found is not a scalar integer Variable or Tensor.
    """
    graph = graph or graph_lib.get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        tensor = found[0]
    elif not found:
        try:
            tensor = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        _logger.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(tensor)
    return tensor


def create_global_step(graph: graph_lib.Graph | None = None):
    """Creates the global step variable in ``graph`` (default graph) and returns it.

    Raises:
        ValueError: '"global_step" already exists.' if the graph already has one.
    """
    graph = graph or graph_lib.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default() as g, g.name_scope(None):
        return variable_scope.get_variable(
            GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
            initializer=initializers.zeros_initializer(), trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
            aggregation=variables.VariableAggregation.ONLY_FIRST_REPLICA)


def get_or_create_global_step(graph: graph_lib.Graph | None = None):
    """The global step of ``graph`` (default graph), created first if it does not exist."""
    graph = graph or graph_lib.get_default_graph()
    tensor = get_global_step(graph)
    if tensor is None:
        tensor = create_global_step(graph)
    return tensor
