"""Names and keys of a TF2 object graph: escaped local names, object paths, checkpoint keys.

A node's path is the chain of local names on its first breadth-first path from the root; each name is
escaped (``.`` -> ``..``, then ``/`` -> ``.S``) and joined with ``/``.  An attribute's key is
``<path>/.ATTRIBUTES/<escaped attribute name>``; a slot variable's path is
``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<escaped slot name>`` (trackable/trackable_utils.py).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "OBJECT_GRAPH_PROTO_KEY", "OBJECT_ATTRIBUTES_NAME", "OPTIMIZER_SLOTS_NAME", "SERIALIZE_TO_TENSORS_NAME",
    "VARIABLE_VALUE_KEY", "escape_local_name", "unescape_local_name", "object_path_to_string",
    "checkpoint_key", "slot_variable_key",
]

OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"  # trackable/base.py
_ESCAPE_CHAR = "."                                       # trackable/trackable_utils.py
OBJECT_ATTRIBUTES_NAME = _ESCAPE_CHAR + "ATTRIBUTES"
OPTIMIZER_SLOTS_NAME = _ESCAPE_CHAR + "OPTIMIZER_SLOT"
SERIALIZE_TO_TENSORS_NAME = _ESCAPE_CHAR + "TENSORS"
VARIABLE_VALUE_KEY = "VARIABLE_VALUE"                    # trackable/base.py, a variable's attribute


def escape_local_name(name: str) -> str:
    """Escapes a local name for a checkpoint key: ``.`` -> ``..``, then ``/`` -> ``.S``."""
    return name.replace(_ESCAPE_CHAR, _ESCAPE_CHAR + _ESCAPE_CHAR).replace("/", _ESCAPE_CHAR + "S")


def unescape_local_name(escaped: str) -> str:
    """Inverse of escape_local_name; raises ValueError on a ``.`` not followed by ``.`` or ``S``."""
    out, i = [], 0
    while i < len(escaped):
        char = escaped[i]
        if char != _ESCAPE_CHAR:
            out.append(char)
            i += 1
            continue
        follower = escaped[i + 1:i + 2]
        if follower not in (_ESCAPE_CHAR, "S"):
            raise ValueError("%r is not an escaped local name: '.' at %d is followed by %r, expected '.' or 'S'"
                             % (escaped, i, follower))
        out.append(_ESCAPE_CHAR if follower == _ESCAPE_CHAR else "/")
        i += 2
    return "".join(out)


def object_path_to_string(local_names: Sequence[str]) -> str:
    """Joins unescaped local names into an object path: ``("a/b", "c")`` -> ``a.Sb/c``."""
    return "/".join(escape_local_name(name) for name in local_names)


def checkpoint_key(object_path: str, local_name: str) -> str:
    """The key of attribute `local_name` of the object at (escaped) `object_path`, as TF builds it."""
    suffix = "" if local_name == SERIALIZE_TO_TENSORS_NAME else escape_local_name(local_name)
    return "{}/{}/{}".format(object_path, OBJECT_ATTRIBUTES_NAME, suffix)


def slot_variable_key(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    """The object path of a slot variable: ``<variable>/.OPTIMIZER_SLOT/<optimizer>/<escaped slot>``."""
    return "{}/{}/{}/{}".format(variable_path, OPTIMIZER_SLOTS_NAME, optimizer_path, escape_local_name(slot_name))
