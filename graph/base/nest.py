"""Nested structures (lists, tuples, namedtuples, dicts) flattened and rebuilt, as TensorFlow's util/nest.

Dicts are walked in sorted key order, as TensorFlow's nest does, so two structures with the
same keys flatten alike whatever their insertion order.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Mapping

__all__ = ["flatten", "map_structure", "pack_sequence_as", "structure_signature", "same_structure_message",
           "is_nested", "assert_same_structure"]


def flatten(structure) -> list:
    """The leaves of ``structure`` in order (a non-sequence is its own single leaf)."""
    if isinstance(structure, dict):
        return [item for key in sorted(structure) for item in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [item for part in structure for item in flatten(part)]
    return [structure]


def pack_sequence_as(structure, flat: list):
    """``flat``'s items arranged as ``structure`` (same container types, namedtuples included); a dict takes its
    values in sorted key order and keeps its own key order, as TF's nest."""
    iterator = iter(flat)

    def build(node):
        if isinstance(node, dict):
            built = {key: build(node[key]) for key in sorted(node)}
            return type(node)((key, built[key]) for key in node)
        if isinstance(node, (list, tuple)):
            items = [build(part) for part in node]
            if hasattr(node, "_fields"):
                return type(node)(*items)
            return type(node)(items)
        return next(iterator)
    return build(structure)


def map_structure(function: Callable[[Any], Any], structure):
    """``structure`` with ``function`` applied to every leaf."""
    return pack_sequence_as(structure, [function(item) for item in flatten(structure)])


def structure_signature(structure):
    """A hashable description of ``structure``'s shape (containers and keys, not leaves)."""
    if isinstance(structure, dict):
        return ("dict", tuple((key, structure_signature(structure[key])) for key in sorted(structure)))
    if isinstance(structure, (list, tuple)):
        return (type(structure).__name__, tuple(structure_signature(part) for part in structure))
    return "leaf"


class _Dot:
    def __repr__(self) -> str:
        return "."


def _dots(structure):
    """``structure`` with every leaf shown as ``.`` (TF's "Entire ... structure" lines)."""
    if isinstance(structure, dict):
        return {key: _dots(value) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        parts = [_dots(part) for part in structure]
        return type(structure)(*parts) if hasattr(structure, "_fields") else type(structure)(parts)
    return _Dot()


def _described(value) -> str:
    return f"type={type(value).__name__} str={value!r}"


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _first_difference(first, second, check_types: bool) -> tuple[type, str] | None:
    """Where two structures first differ, walked as TF's AssertSameStructureHelper: (the error class, TF's
    "More specifically" text), or None when they match."""
    nested_first, nested_second = is_nested(first), is_nested(second)
    if nested_first != nested_second:
        sequence, leaf = (first, second) if nested_first else (second, first)
        return ValueError, (f'Substructure "{_described(sequence)}" is a sequence, while substructure '
                            f'"{_described(leaf)}" is not')
    if not nested_first:
        return None
    if check_types:
        same_namedtuple = (_is_namedtuple(first) and _is_namedtuple(second) and type(first).__name__ ==
                           type(second).__name__ and first._fields == second._fields)
        mappings = isinstance(first, Mapping) and isinstance(second, Mapping)
        if type(first) is not type(second) and not same_namedtuple and not mappings:
            return TypeError, (f"The two namedtuples don't have the same sequence type. First structure "
                               f"{_described(first)} has type {type(first).__name__}, while second structure "
                               f"{_described(second)} has type {type(second).__name__}")
        if mappings and set(first) != set(second):
            return ValueError, (f"The two dictionaries don't have the same set of keys. First structure has keys "
                                f"{_described(list(first))}, while second structure has keys {_described(list(second))}")
    if len(first) != len(second):
        return ValueError, (f"The two structures don't have the same number of elements. First structure: "
                            f"{_described(first)}. Second structure: {_described(second)}")
    for part_first, part_second in zip(_children(first), _children(second)):
        found = _first_difference(part_first, part_second, check_types)
        if found is not None:
            return found
    return None


def _children(structure) -> list:
    return [structure[key] for key in sorted(structure)] if isinstance(structure, Mapping) else list(structure)


def _message(first, second, detail: str) -> str:
    return (f"The two structures don't have the same nested structure.\n\nFirst structure: {_described(first)}"
            f"\n\nSecond structure: {_described(second)}\n\nMore specifically: {detail}\nEntire first structure:\n"
            f"{_dots(first)!r}\nEntire second structure:\n{_dots(second)!r}")


def same_structure_message(first, second, check_types: bool = False) -> str:
    """TF's assert_same_structure message for ``first`` and ``second`` (which differ)."""
    found = _first_difference(first, second, check_types)
    return _message(first, second, found[1] if found else "")


def is_nested(seq) -> bool:
    """True for what nest walks into: lists, tuples (namedtuples too) and mappings; False for leaves (strings too)."""
    return isinstance(seq, (list, tuple, Mapping))


def assert_same_structure(nest1, nest2, check_types: bool = True, expand_composites: bool = False) -> None:
    """Raises unless ``nest1`` and ``nest2`` nest alike: the same sequences at the same places with the same lengths,
    and with ``check_types`` the same sequence types and dict keys (namedtuples of one name and fields match).

    Raises:
        ValueError: if the nesting or the lengths differ; TypeError: if, with ``check_types``, the types do.
    """
    del expand_composites  # composite tensors are leaves here
    found = _first_difference(nest1, nest2, check_types)
    if found is not None:
        error_class, detail = found
        raise error_class(_message(nest1, nest2, detail))
