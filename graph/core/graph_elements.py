"""Graph elements by name or object: TensorFlow's rules and messages for Graph.as_graph_element."""

from __future__ import annotations

from graph.core.operation import Operation
from graph.core.tensor import Tensor

__all__ = ["as_graph_element"]


def as_graph_element(graph, obj, allow_tensor: bool = True, allow_operation: bool = True):
    """Resolves a Tensor, Operation, object with `_as_graph_element` or name in ``graph`` (Graph.as_graph_element)."""
    types_str = " or ".join(
        t for t, allowed in (("Tensor", allow_tensor), ("Operation", allow_operation)) if allowed)
    if allow_tensor and hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
        obj = obj._as_graph_element()
    if isinstance(obj, str):
        name = obj
        if ":" in name and allow_tensor:
            op_name, _, index = name.partition(":")
            try:
                out_n = int(index)
            except ValueError as error:
                raise ValueError(
                    f"The name {name!r} looks a like a Tensor name, but is not a valid one. "
                    "Tensor names must be of the form \"<op_name>:<output_index>\".") from error
            op = graph._ops_by_name.get(op_name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, does not exist in the graph.")
            if not 0 <= out_n < len(op._outputs):
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                               f"{op_name!r}, exists but only has {len(op._outputs)} outputs.")
            return op._outputs[out_n]
        if ":" in name and not allow_tensor:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {types_str}.")
        if ":" not in name and allow_operation:
            op = graph._ops_by_name.get(name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
            return op
        if name in graph._ops_by_name:
            raise ValueError(
                f"The name {name!r} refers to an Operation, not a {types_str}. Tensor names must be of the "
                "form \"<op_name>:<output_index>\".")
        raise ValueError(
            f"The name {name!r} looks like an (invalid) Operation name, not a {types_str}. Tensor names "
            "must be of the form \"<op_name>:<output_index>\".")
    if isinstance(obj, Tensor) and allow_tensor:
        if obj.graph is not graph:
            raise ValueError(f"Tensor {obj} is not an element of this graph.")
        return obj
    if isinstance(obj, Operation) and allow_operation:
        if obj.graph is not graph:
            raise ValueError(f"Operation {obj} is not an element of this graph.")
        return obj
    raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")
