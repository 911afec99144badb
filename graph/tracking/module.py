"""tf.Module: a named container of variables and submodules with its own name scope (TF's module/module.py).

``variables``, ``trainable_variables``, ``non_trainable_variables`` and ``submodules`` walk the module's
attributes in sorted name order, through nested lists, tuples and dicts, then recurse into submodules, each
object once, exactly as TensorFlow's ``_flatten_module``; the checkpoint dependencies are AutoTrackable's
(assignment order).  In graph mode a module opens its name scope once, at construction, so a second
``Net()`` gets ``net_1/`` and ``with net.name_scope:`` re-enters the scope it got.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from graph.core import graph as graph_lib
from graph.tracking.autotrackable import AutoTrackable
from graph.variables.variables import Variable

__all__ = ["Module", "camel_to_snake", "valid_identifier"]

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """``"MyDense"`` -> ``"my_dense"``: a module's default name from its class name."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def valid_identifier(name: str) -> bool:
    """True if `name` may name a module (a Python identifier)."""
    return bool(_VALID_IDENTIFIER.match(name))


class Module(AutoTrackable):
    """Base neural network module class (tf.Module): name scope, variables, submodules, tracking."""

    # Tracking state is not module content; TF excludes the same names from _flatten.
    _TF_MODULE_IGNORED_PROPERTIES = frozenset((
        "_self_unconditional_checkpoint_dependencies", "_self_setattr_tracking", "_self_update_uid",
    ))

    def __init__(self, name: str | None = None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not valid_identifier(name):
            raise ValueError("%r is not a valid module name. Module names must be valid Python identifiers "
                             "(e.g. a valid class name)." % name)
        self._name = name
        with graph_lib.name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        """The module's name (not unique; the name scope is)."""
        return self._name

    @property
    def name_scope(self) -> graph_lib.name_scope:
        """A `tf.name_scope` re-entering this module's scope."""
        return graph_lib.name_scope(self._scope_name)

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable of this module and its submodules, each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The trainable ones of `variables`."""
        return tuple(self._flatten(predicate=lambda obj: _is_variable(obj) and obj.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        """The non-trainable ones of `variables`."""
        return tuple(self._flatten(predicate=lambda obj: _is_variable(obj) and not obj.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every module reachable through attributes, breadth first by module, each once."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive: bool = True, predicate: Callable[[object], bool] | None = None,
                 attribute_traversal_key=None, with_path: bool = False) -> Iterator:
        """Leaves of this module's attributes that satisfy `predicate` (with their paths if `with_path`)."""
        return _flatten_module(self, recursive=recursive, predicate=predicate or (lambda _: True),
                               attribute_traversal_key=attribute_traversal_key, with_path=with_path,
                               module_path=(), seen={id(self)}, recursion_stack=[])

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorates a method to run inside the module's name scope."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope


def _is_variable(obj) -> bool:
    return isinstance(obj, Variable)


def _is_module(obj) -> bool:
    return isinstance(obj, Module)


def _leaves_with_paths(structure, path: tuple = ()) -> Iterator[tuple[tuple, object]]:
    """nest.flatten_with_tuple_paths: dicts by sorted key, sequences by index."""
    if isinstance(structure, dict):
        for key in sorted(structure):
            yield from _leaves_with_paths(structure[key], path + (key,))
    elif isinstance(structure, (list, tuple)):
        for index, item in enumerate(structure):
            yield from _leaves_with_paths(item, path + (index,))
    else:
        yield path, structure


def _flatten_module(module: Module, recursive: bool, predicate, attribute_traversal_key, with_path: bool,
                    module_path: tuple, seen: set, recursion_stack: list) -> Iterator:
    if id(module) in recursion_stack:
        recursive = False
    submodules = []
    module_dict = vars(module)
    for key in sorted(module_dict, key=attribute_traversal_key):
        if key in module._TF_MODULE_IGNORED_PROPERTIES:
            continue
        for leaf_path, leaf in _leaves_with_paths(module_dict[key], (key,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(id(module))
    for submodule_path, submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, attribute_traversal_key, with_path,
                                   submodule_path, seen, recursion_stack)
    recursion_stack.pop()
