"""TensorFlow 1.x graph mode on numpy: Graph, ops, Variables, gradients, training and Session.

``import graph.compat.v1 as tf`` is the public face that mirrors ``tensorflow.compat.v1``.
This package face imports nothing itself: ``graph.Graph``, ``graph.Session``, ... load their
modules on first access, so ``import saver.format.bundle_reader`` never drags in the emulator.

The layers, bottom to top (each imports only the ones below it; tests/test_layering.py holds the
one declaration of this order and walks every import)::

    base       dtypes, shapes, the kernel registry, CRC-32C, the GC pause (and graph.errors: TF's error classes)
    platform   the one file-system layer (local paths, fsspec URLs, the one atomic write); tf.gfile, tf.app,
               tf.flags, tf.logging, tf.compat text helpers; TFRecord framing; PNG; JPEG
    proto      protobuf wire codec, text format, TensorFlow's framework and summary messages, the NodeDef encoder
    core       Tensor, Operation, Graph, default graph and session stacks, name scopes, devices, seeds,
               IndexedSlices, SparseTensor
    ops        op families, each with its builders and numpy kernels (importing one loads every kernel family)
    variables  Variable, its collections and initializers, variable_scope, partitioning
    gradients  the gradient registry and tf.gradients; one module of gradient functions per op family
    train      optimizers and slots, schedules, moving averages, global step, device setter
    runtime    config, execution plans, while-loop frames, the executor, Session
    summary    tf.summary.FileWriter: TensorBoard event files
    io         GraphDef import, control-flow contexts in MetaGraphDefs
    viz        pictures of graphs (Graphviz DOT, our own SVG layout)
    testing    tf.test: TestCase (sessions, evaluate, TF's assertions), tf.test.main, benchmarks
    compat     ``graph.compat.v1``: tensorflow.compat.v1's names over graph and saver (the top)
"""

import importlib as _importlib

__version__ = "0.1.0"

# Public name -> "module:attribute", resolved on first access (PEP 562).
_LAZY = {
    "Graph": "graph.core.graph:Graph",
    "Operation": "graph.core.operation:Operation",
    "Tensor": "graph.core.tensor:Tensor",
    "GraphKeys": "graph.core.graph_keys:GraphKeys",
    "get_default_graph": "graph.core.graph:get_default_graph",
    "reset_default_graph": "graph.core.graph:reset_default_graph",
    "Session": "graph.runtime.session:Session",
    "InteractiveSession": "graph.runtime.session:InteractiveSession",
    "Variable": "graph.variables.variables:Variable",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'graph' has no attribute {name!r}")
    module_name, _, attribute = target.partition(":")
    value = getattr(_importlib.import_module(module_name), attribute)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list:
    return sorted(list(globals()) + list(_LAZY))
