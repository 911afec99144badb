"""Trackable objects: named dependencies between Python objects, the edges of a TF2 object graph.

A ``Trackable`` keeps an ordered list of ``(local name, child)`` dependencies (TensorFlow's
``trackable/base.py``); autotrackable adds one whenever an attribute is assigned a trackable value
(lists, dicts and tuples are wrapped first, see data_structures).  Variables and TF1 optimizers are
trackable without deriving from ``Trackable``: ``trackable_children`` gives their view (a variable has no
children; an optimizer's children are its non-slot variables of the current graph, by name, as TF1's
``Optimizer._trackable_children``).  ``list_objects`` walks everything reachable, slot variables included.
"""

from __future__ import annotations

from collections import deque
from graph.core import graph as graph_lib
from graph.train.optimizer import Optimizer
from graph.variables.variables import Variable

__all__ = [
    "Trackable", "NoDependency", "is_trackable", "trackable_children",
    "breadth_first_objects", "slot_variables_of", "list_objects", "update_uid", "set_update_uid",
]


class NoDependency:
    """Wraps a value assigned to an AutoTrackable attribute so that it is stored untracked."""

    def __init__(self, value):
        self.value = value


class Trackable:
    """An object with named dependencies on other trackable objects (TF's trackable Base)."""

    _self_setattr_tracking = True

    def _maybe_initialize_trackable(self) -> None:
        if "_self_unconditional_checkpoint_dependencies" in self.__dict__:
            return
        object.__setattr__(self, "_self_setattr_tracking", True)
        object.__setattr__(self, "_self_unconditional_checkpoint_dependencies", [])
        object.__setattr__(self, "_self_update_uid", -1)

    @property
    def _unconditional_checkpoint_dependencies(self) -> list[tuple[str, object]]:
        self._maybe_initialize_trackable()
        return self._self_unconditional_checkpoint_dependencies

    def _track_trackable(self, trackable, name: str, overwrite: bool = False):
        """Declares `trackable` a dependency named `name`; returns it.

        Raises:
          TypeError: if `trackable` is not trackable.
          ValueError: if `name` is taken by another object and `overwrite` is False.
        """
        if not is_trackable(trackable):
            raise TypeError(f"Trackable._track_trackable() can only be used to track objects of type Trackable. "
                            f"Got type {type(trackable).__name__}.")
        dependencies = self._unconditional_checkpoint_dependencies
        for index, (existing_name, existing) in enumerate(dependencies):
            if existing_name == name:
                if existing is not trackable and not overwrite:
                    raise ValueError(f"Called Trackable._track_trackable() with name='{name}', but a Trackable "
                                     "with this name is already declared as a dependency. Names must be unique "
                                     "(or overwrite=True).")
                dependencies[index] = (name, trackable)  # an overwrite keeps its place, as in TF
                return trackable
        dependencies.append((name, trackable))
        return trackable

    def _delete_tracking(self, name: str) -> None:
        dependencies = self._unconditional_checkpoint_dependencies
        dependencies[:] = [(n, d) for n, d in dependencies if n != name]

    def _lookup_dependency(self, name: str):
        for existing_name, dependency in self._unconditional_checkpoint_dependencies:
            if existing_name == name:
                return dependency
        return None

    def _trackable_children(self) -> dict[str, object]:
        """{local name: child} in the order the dependencies were declared."""
        return dict(self._unconditional_checkpoint_dependencies)


def is_trackable(value) -> bool:
    """True for Trackables, Variables and TF1 optimizers: the objects an object graph holds."""
    return isinstance(value, (Trackable, Variable, Optimizer))


def trackable_children(obj) -> dict[str, object]:
    """The named dependencies of a trackable object, in TF's order."""
    if isinstance(obj, Trackable):
        return obj._trackable_children()
    if isinstance(obj, Optimizer):
        current = graph_lib.get_default_graph()
        return {name: variable for (name, graph), variable in sorted(obj._non_slot_dict.items(),
                                                                     key=lambda item: item[0][0])
                if graph is current or graph is None}
    return {}


def breadth_first_objects(root) -> tuple[list, list[tuple[str, ...]]]:
    """Every object reachable from `root`, numbered breadth-first as TF numbers object-graph nodes, and
    the local names on each one's first path."""
    objects, paths, seen = [root], [()], {id(root)}
    queue = deque([0])
    while queue:
        index = queue.popleft()
        for name, child in trackable_children(objects[index]).items():
            if id(child) not in seen:
                seen.add(id(child))
                objects.append(child)
                paths.append(paths[index] + (name,))
                queue.append(len(objects) - 1)
    return objects, paths


def slot_variables_of(objects: list) -> list[tuple[int, int, str, Variable]]:
    """(optimizer index, variable index, slot name, slot variable) over `objects`, in TF's order: optimizers
    in node order, slot names sorted, variables in node order (util.serialize_slot_variables)."""
    found = []
    for optimizer_index, optimizer in enumerate(objects):
        if not isinstance(optimizer, Optimizer):
            continue
        for slot_name in optimizer.get_slot_names():
            for variable_index, variable in enumerate(objects):
                if not isinstance(variable, Variable):
                    continue
                slot = optimizer.get_slot(variable, slot_name)
                if slot is not None:
                    found.append((optimizer_index, variable_index, slot_name, slot))
    return found


def list_objects(root) -> list:
    """Every trackable reachable from `root`, then the slot variables (util.list_objects)."""
    objects, _ = breadth_first_objects(root)
    seen = {id(o) for o in objects}
    for _, _, _, slot in slot_variables_of(objects):
        if id(slot) not in seen:
            seen.add(id(slot))
            objects.append(slot)
    return objects


def update_uid(obj) -> int:
    """The uid of the newest restore that assigned `obj` a value (-1: none)."""
    return getattr(obj, "_self_update_uid", -1)


def set_update_uid(obj, uid: int) -> None:
    """Records that restore `uid` assigned `obj` (kept at the newest)."""
    if uid > update_uid(obj):
        object.__setattr__(obj, "_self_update_uid", uid)
