"""Trackable lists, dicts and tuples: what a list or dict assigned to a tf.Module attribute becomes.

As TensorFlow's ``trackable/data_structures.py``: a ``list`` becomes a ``ListWrapper`` whose trackable
elements are children named by index (``net/layers/0/kernel``), a ``dict`` a ``_DictWrapper`` whose
trackable values are children named by key, and a tuple holding trackables a ``_TupleWrapper``.  Nested
containers are wrapped too.  Lists are append-only for checkpointing: replacing, deleting or moving a
trackable element makes saving fail, because restore-on-create matches elements by index.
"""

from __future__ import annotations

from graph.tracking.base import NoDependency, Trackable, is_trackable

__all__ = ["ListWrapper", "NoDependency", "wrap_or_unwrap", "sticky_attribute_assignment"]


class ListWrapper(list, Trackable):
    """A list tracking its trackable elements as children ``"0"``, ``"1"``, ... (TF's ListWrapper)."""

    def __init__(self, wrapped_list=()):
        super().__init__(wrap_or_unwrap(value) for value in wrapped_list)
        self._maybe_initialize_trackable()
        object.__setattr__(self, "_self_non_append_mutation", False)

    def _has_mutation_or_trackable(self) -> bool:
        return self._self_non_append_mutation or any(is_trackable(element) for element in self)

    def _mark_mutation(self) -> None:
        object.__setattr__(self, "_self_non_append_mutation", True)

    def _trackable_children(self) -> dict[str, object]:
        if self._self_non_append_mutation:
            raise ValueError(
                f"Unable to save the object {self!r} (a list wrapper constructed to track trackable TensorFlow "
                "objects). A list element was replaced (__setitem__, __setslice__), deleted (__delitem__, "
                "__delslice__), or moved (sort). In order to support restoration on object creation, tracking "
                "is exclusively for append-only data structures.\n\nIf you don't need this list checkpointed, "
                "wrap it in a non-trackable object; it will be subsequently ignored.")
        return {str(index): element for index, element in enumerate(self) if is_trackable(element)}

    def append(self, value) -> None:
        super().append(wrap_or_unwrap(value))

    def extend(self, values) -> None:
        super().extend(wrap_or_unwrap(value) for value in values)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __setitem__(self, key, value) -> None:
        if isinstance(key, slice):
            before = list(self)
            super().__setitem__(key, [wrap_or_unwrap(v) for v in value])
            if any(is_trackable(v) for v in before):  # as TF: any slice write over trackables
                self._mark_mutation()
            return
        if is_trackable(self[key]):
            self._mark_mutation()
        super().__setitem__(key, wrap_or_unwrap(value))

    def __delitem__(self, key) -> None:
        if self._has_mutation_or_trackable():
            self._mark_mutation()
        super().__delitem__(key)

    def __imul__(self, factor: int):
        if factor <= 0 and self._has_mutation_or_trackable():
            self._mark_mutation()
        return super().__imul__(factor)

    def insert(self, index: int, value) -> None:
        value = wrap_or_unwrap(value)
        if self._has_mutation_or_trackable() or is_trackable(value):
            self._mark_mutation()
        super().insert(index, value)

    def sort(self, *args, **kwargs) -> None:
        if self._has_mutation_or_trackable():
            self._mark_mutation()
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        if self._has_mutation_or_trackable():
            self._mark_mutation()
        super().reverse()

    def pop(self, index: int = -1):
        if self._has_mutation_or_trackable():
            self._mark_mutation()
        return super().pop(index)

    def remove(self, value) -> None:
        if self._has_mutation_or_trackable():
            self._mark_mutation()
        super().remove(value)

    def clear(self) -> None:
        if self._has_mutation_or_trackable():
            self._mark_mutation()
        super().clear()

    __hash__ = None  # compares like a list, so like a list it is unhashable

    def __repr__(self) -> str:
        return "ListWrapper(%s)" % list.__repr__(self)


class _DictWrapper(dict, Trackable):
    """A dict tracking its trackable values as children named by key, in insertion order."""

    def __init__(self, wrapped_dict=None):
        super().__init__((key, wrap_or_unwrap(value)) for key, value in dict(wrapped_dict or {}).items())
        self._maybe_initialize_trackable()

    def _trackable_children(self) -> dict[str, object]:
        children = {}
        for key, value in self.items():
            if not is_trackable(value):
                continue
            if not isinstance(key, str):
                raise ValueError(
                    f"Unable to save the object {self!r} (a dictionary wrapper constructed automatically on "
                    "attribute assignment). The wrapped dictionary contains a non-string key which maps to a "
                    "trackable object or mutable data structure.\n\nIf you don't need this dictionary "
                    "checkpointed, wrap it in a non-trackable object; it will be subsequently ignored.")
            children[key] = value
        return children

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, wrap_or_unwrap(value))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    __hash__ = None

    def __repr__(self) -> str:
        return "DictWrapper(%s)" % dict.__repr__(self)


class _TupleWrapper(tuple, Trackable):
    """A tuple (not a namedtuple) holding trackables: its trackable elements are children by index."""

    def __new__(cls, original=()):
        return super().__new__(cls, (wrap_or_unwrap(value) for value in original))

    def __init__(self, original=()):
        del original
        self._maybe_initialize_trackable()

    def _trackable_children(self) -> dict[str, object]:
        return {str(index): element for index, element in enumerate(self) if is_trackable(element)}

    def __repr__(self) -> str:
        return "_TupleWrapper(%s)" % tuple.__repr__(self)


def _should_wrap_tuple(value: tuple) -> bool:
    return any(is_trackable(element) or type(element) in (list, dict, tuple) and
               (not isinstance(element, tuple) or _should_wrap_tuple(element)) for element in value)


def wrap_or_unwrap(value):
    """A list, dict or (trackable-holding) tuple wrapped for tracking; a NoDependency unwrapped."""
    if isinstance(value, NoDependency):
        return value.value
    if isinstance(value, Trackable):
        return value
    if type(value) is dict:
        return _DictWrapper(value)
    if type(value) is list:
        return ListWrapper(value)
    if type(value) is tuple and _should_wrap_tuple(value):
        return _TupleWrapper(value)
    return value


def sticky_attribute_assignment(trackable: Trackable, name: str, value):
    """What `trackable.name = value` stores, tracking it as a dependency named `name` when trackable."""
    if isinstance(value, NoDependency):
        return value.value
    value = wrap_or_unwrap(value)
    if is_trackable(value):
        trackable._track_trackable(value, name=name, overwrite=True)
    return value
