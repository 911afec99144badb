"""``import graph.compat.v1 as tf``: the ``tensorflow.compat.v1`` names, backed by this package.

An adapter and nothing more: every name resolves to an object defined in a real module
of ``graph`` (or, for ``tf.train``'s checkpoint functions, of ``saver``, imported lazily
on first use so that ``graph`` keeps not depending on ``saver``).  Top-level names are
looked up in the op modules' ``__all__``; sub-namespaces (``tf.nn``, ``tf.train``, ...)
are tables below.
"""

from __future__ import annotations

import importlib
import logging as _logging
import sys
import types

import graph  # noqa: F401  (registers every kernel and Tensor operator)
from graph import errors  # noqa: F401  (tf.errors)

# Modules whose public names (``__all__``) appear at the top level of tf, first match wins.
_TOP_LEVEL_MODULES = (
    "graph.graph", "graph.dtypes", "graph.shapes", "graph.ops", "graph.state_ops", "graph.math_ops",
    "graph.array_ops", "graph.nn_ops", "graph.random_ops", "graph.control_flow_ops", "graph.variables",
    "graph.variable_scope", "graph.partitioning", "graph.initializers", "graph.session", "graph.device",
)

# Top-level names whose TensorFlow spelling differs from the defining module's, or which need a home.
_TOP_LEVEL_ALIASES = {
    "random_normal": "graph.random_ops:random_normal",
    "truncated_normal": "graph.random_ops:truncated_normal",
    "random_uniform": "graph.random_ops:random_uniform",
    "Session": "graph.session:Session",
    "InteractiveSession": "graph.session:InteractiveSession",
    "ConfigProto": "graph.session:ConfigProto",
    "get_default_session": "graph.session:get_default_session",
    "DeviceSpec": "graph.device:DeviceSpec",
    "TensorShape": "graph.shapes:TensorShape",
    "Dimension": "graph.shapes:Dimension",
    "DType": "graph.dtypes:DType",
    "as_dtype": "graph.dtypes:as_dtype",
    "set_random_seed": "graph.graph:set_random_seed",
    "import_graph_def": "saver.meta_graph:import_graph_def",
}

_NAMESPACES = {
    "nn": ("graph.nn_ops", {
        "softmax_cross_entropy_with_logits_v2": "graph.nn_ops:softmax_cross_entropy_with_logits",
    }),
    "math": ("graph.math_ops", {}),
    "dtypes": ("graph.dtypes", {}),
    "random": ("graph.random_ops", {
        "normal": "graph.random_ops:random_normal",
        "truncated_normal": "graph.random_ops:truncated_normal",
        "uniform": "graph.random_ops:random_uniform",
        "set_random_seed": "graph.graph:set_random_seed",
        "get_seed": "graph.graph:get_seed",
    }),
    "initializers": ("graph.initializers", {
        "zeros": "graph.initializers:zeros_initializer",
        "ones": "graph.initializers:ones_initializer",
        "constant": "graph.initializers:constant_initializer",
        "random_normal": "graph.initializers:random_normal_initializer",
        "truncated_normal": "graph.initializers:truncated_normal_initializer",
        "random_uniform": "graph.initializers:random_uniform_initializer",
        "glorot_uniform": "graph.initializers:glorot_uniform_initializer",
        "glorot_normal": "graph.initializers:glorot_normal_initializer",
        "variance_scaling": "graph.initializers:variance_scaling_initializer",
        "global_variables": "graph.variables:global_variables_initializer",
        "local_variables": "graph.variables:local_variables_initializer",
        "variables": "graph.variables:variables_initializer",
    }),
    "train": (None, {
        "replica_device_setter": "graph.device:replica_device_setter",
        "ClusterSpec": "graph.device:ClusterSpec",
        "Saver": "saver.saver:Saver",
        "SaverDef": "saver.saver:SaverDef",
        "latest_checkpoint": "saver.state:latest_checkpoint",
        "get_checkpoint_state": "saver.state:get_checkpoint_state",
        "update_checkpoint_state": "saver.state:update_checkpoint_state",
        "generate_checkpoint_state_proto": "saver.state:generate_checkpoint_state_proto",
        "checkpoint_exists": "saver.state:checkpoint_exists",
        "get_checkpoint_mtimes": "saver.state:get_checkpoint_mtimes",
        "remove_checkpoint": "saver.state:remove_checkpoint",
        "checkpoints_iterator": "saver.state:checkpoints_iterator",
        "NewCheckpointReader": "saver.reader:NewCheckpointReader",
        "load_checkpoint": "saver.reader:load_checkpoint",
        "list_variables": "saver.reader:list_variables",
        "load_variable": "saver.reader:load_variable",
        "init_from_checkpoint": "saver.restore:init_from_checkpoint",
        "get_or_create_global_step": "saver.global_step:get_or_create_global_step",
        "get_global_step": "saver.global_step:get_global_step",
        "create_global_step": "saver.global_step:create_global_step",
        "global_step": "saver.global_step:global_step",
        "assert_global_step": "saver.global_step:assert_global_step",
        "import_meta_graph": "saver.meta_graph:import_meta_graph",
        "export_meta_graph": "saver.meta_graph:export_meta_graph",
    }),
}


def _resolve(target: str):
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


class _Namespace(types.ModuleType):
    """A lazily resolved sub-namespace such as ``tf.train``."""

    def __init__(self, name: str, module_name: str | None, aliases: dict[str, str]):
        super().__init__(f"{__name__}.{name}")
        self._module_name = module_name
        self._aliases = aliases

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._aliases:
            value = _resolve(self._aliases[name])
        elif self._module_name is not None and name in _public_names(self._module_name):
            value = getattr(importlib.import_module(self._module_name), name)
        else:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}' "
                                 "(not emulated; see README for what is covered)")
        setattr(self, name, value)
        return value

    def __dir__(self):
        names = set(self._aliases)
        if self._module_name is not None:
            names |= set(_public_names(self._module_name))
        return sorted(names)


def _public_names(module_name: str) -> list[str]:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            return []
        raise
    return list(getattr(module, "__all__", ()))


for _name, (_module, _aliases) in _NAMESPACES.items():
    globals()[_name] = _Namespace(_name, _module, _aliases)


class _Logging(types.ModuleType):
    """``tf.logging``: TF1's logging names over Python's logging module."""

    DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARNING, _logging.ERROR, _logging.FATAL

    def __init__(self):
        super().__init__(f"{__name__}.logging")
        self._logger = _logging.getLogger("graph")

    def set_verbosity(self, level):
        self._logger.setLevel(level)

    def get_verbosity(self):
        return self._logger.getEffectiveLevel()

    def debug(self, msg, *args):
        self._logger.debug(msg, *args)

    def info(self, msg, *args):
        self._logger.info(msg, *args)

    def warning(self, msg, *args):
        self._logger.warning(msg, *args)

    warn = warning

    def error(self, msg, *args):
        self._logger.error(msg, *args)


logging = _Logging()


def disable_eager_execution() -> None:
    """Accepted for TF1 scripts; this emulator always builds graphs."""


def disable_v2_behavior() -> None:
    """Accepted for TF1 scripts; this emulator always behaves like TF1."""


def disable_v2_tensorshape() -> None:
    """Accepted for TF1 scripts; shapes already index as Dimensions."""


def executing_eagerly() -> bool:
    """Always False: graph mode only."""
    return False


def __getattr__(name: str):
    if name in _TOP_LEVEL_ALIASES:
        value = _resolve(_TOP_LEVEL_ALIASES[name])
    else:
        for module_name in _TOP_LEVEL_MODULES:
            if name in _public_names(module_name):
                value = getattr(importlib.import_module(module_name), name)
                break
        else:
            raise AttributeError(f"module '{__name__}' has no attribute '{name}' "
                                 "(not emulated; see README for what is covered)")
    setattr(sys.modules[__name__], name, value)
    return value


def __dir__():
    names = set(globals()) | set(_TOP_LEVEL_ALIASES)
    for module_name in _TOP_LEVEL_MODULES:
        names |= set(_public_names(module_name))
    return sorted(n for n in names if not n.startswith("_"))

