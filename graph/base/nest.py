"""Nested structures (lists, tuples, namedtuples, dicts) flattened and rebuilt, as TensorFlow's util/nest.

Dicts are walked in sorted key order, as TensorFlow's nest does, so two structures with the
same keys flatten alike whatever their insertion order.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

__all__ = ["flatten", "map_structure", "pack_sequence_as", "structure_signature"]


def flatten(structure) -> list:
    """The leaves of ``structure`` in order (a non-sequence is its own single leaf)."""
    if isinstance(structure, dict):
        return [item for key in sorted(structure) for item in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [item for part in structure for item in flatten(part)]
    return [structure]


def pack_sequence_as(structure, flat: list):
    """``flat``'s items arranged as ``structure`` (same container types, namedtuples included)."""
    iterator = iter(flat)

    def build(node):
        if isinstance(node, dict):
            return type(node)((key, build(node[key])) for key in sorted(node))
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
