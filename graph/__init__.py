"""TensorFlow 1.x graph mode on numpy: Graph, ops, Variables, devices and Session.

``import graph.compat.v1 as tf`` is the public face that mirrors
``tensorflow.compat.v1``; importing this package registers every op kernel and the
Tensor operators.
"""

from graph import errors, dtypes, shapes, kernels  # noqa: F401  (foundation, in dependency order)
from graph import graph as _graph_module  # noqa: F401
from graph import device, ops, state_ops, math_ops, array_ops, nn_ops, random_ops  # noqa: F401
from graph import control_flow_ops, variables, partitioning, initializers, variable_scope  # noqa: F401
from graph import session  # noqa: F401
from graph.graph import Graph, Operation, Tensor, GraphKeys, get_default_graph, reset_default_graph  # noqa: F401
from graph.session import Session, InteractiveSession  # noqa: F401
from graph.variables import Variable  # noqa: F401

__version__ = "0.1.0"
