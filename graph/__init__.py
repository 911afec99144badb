"""TensorFlow 1.x graph mode on numpy: Graph, ops, Variables, devices and Session.

``import graph.compat.v1 as tf`` is the public face that mirrors
``tensorflow.compat.v1``; importing this package registers every op kernel and the
Tensor operators.
"""

from graph.base import errors
from graph.base import dtypes
from graph.base import shapes
from graph.base import kernels  # noqa: F401  (foundation, in dependency order)
from graph.core import graph as _graph_module  # noqa: F401
from graph.core import device
from graph.ops import constant_ops as ops
from graph.ops import state_ops
from graph.ops import math_ops
from graph.ops import array_ops
from graph.ops import nn_ops
from graph.ops import random_ops  # noqa: F401
from graph.ops import control_flow_ops
from graph.variables import variables
from graph.variables import partitioning
from graph.variables import initializers
from graph.variables import variable_scope  # noqa: F401
from graph.runtime import session  # noqa: F401
from graph.core.graph import Graph, Operation, Tensor, GraphKeys, get_default_graph, reset_default_graph  # noqa: F401
from graph.runtime.session import Session, InteractiveSession  # noqa: F401
from graph.variables.variables import Variable  # noqa: F401

__version__ = "0.1.0"
