"""Transitional: a Graph's ops as NodeDef / GraphDef messages, for core until core keeps its own NodeDef cache.

Core's ``Operation.node_def`` and ``Graph.as_graph_def`` call ``node_def_of`` / ``graph_def_of`` here.
These read an op's plain values (duck-typed: this layer imports nothing from graph/core), encode them
with the NodeDef encoder (graph/proto/node_def.py) and keep the bytes in the op's ``_encoded`` slot,
which every Operation method that changes the op resets (and ``Tensor.set_shape``, since
``_output_shapes`` follows the shapes).  That cache belongs to core: once ``Operation`` keeps it and
calls ``encode_node_def`` itself, this module and its re-exports of the old graph_def names go.
Messages: graph/proto/framework.py; conversions: graph/proto/values.py.
"""

from __future__ import annotations

from graph.base import kernels
from graph.proto.framework import (GRAPH_DEF_VERSION, AttrValue, DataType, GraphDef, NameAttrList, NodeDef, OpDef,
                                   OpList, ResourceHandleProto, SaveSliceInfoDef, TensorProto, TensorShapeProto,
                                   VariableDef, VariantTensorDataProto, VersionDef)
from graph.proto.node_def import EncodedGraphDef, encode_graph_def, encode_node_def
from graph.proto.values import (attr_value_of, ndarray_of, python_value_of, shape_proto_of, tensor_proto_of,
                                tensor_shape_of)

__all__ = [
    "node_def_bytes", "node_def_of", "graph_def_bytes", "graph_def_of",
    # the old module's names, for importers not yet moved to framework / values:
    "DataType", "VersionDef", "TensorShapeProto", "ResourceHandleProto", "TensorProto", "VariantTensorDataProto",
    "AttrValue", "NameAttrList", "NodeDef", "GraphDef", "OpDef", "OpList", "VariableDef", "SaveSliceInfoDef",
    "GRAPH_DEF_VERSION", "attr_value_of", "python_value_of", "tensor_proto_of", "ndarray_of",
    "shape_proto_of", "tensor_shape_of",
]


def _input_names(op) -> list[str]:
    """NodeDef inputs: 'x' for output 0, 'x:1' for others, then '^c' per control input."""
    names = [tensor._op._name if tensor._value_index == 0 else f"{tensor._op._name}:{tensor._value_index}"
             for tensor in op._inputs]
    for control in op._control_inputs:
        names.append("^" + control._name)
    return names


def node_def_bytes(op, add_shapes: bool = False) -> bytes:
    """The NodeDef wire bytes of ``op`` (see node_def_of), from the op's cache when nothing changed since.

    ``op._encoded`` holds (kernel, bytes) per ``add_shapes``; a kernel registered or replaced since
    (its default attrs go into the NodeDef) is noticed here.  The op's own fields are read directly,
    as the Operation method this is to become will: exporting a 10,000-variable graph reads 50,000 ops."""
    kernel = kernels.lookup(op._type)
    encoded = op._encoded
    if encoded is not None:
        cached = encoded[add_shapes]
        if cached is not None and cached[0] is kernel:
            return cached[1]
    shapes = [tensor._shape for tensor in op._outputs] if add_shapes else None
    data = encode_node_def(op._name, op._type, _input_names(op), op._device, op._attrs, shapes)
    if encoded is None:
        encoded = op._encoded = [None, None]
    encoded[add_shapes] = (kernel, data)
    return data


def node_def_of(op, add_shapes: bool = False) -> NodeDef:
    """``op`` as a NodeDef: TF's op type, inputs ('^name' for control inputs), device and every attr
    (sorted by name), with the defaults its kernel registers for attrs the op does not set;
    ``add_shapes`` adds ``_output_shapes``.  None-valued attrs and private ('_') attrs holding
    Python objects no AttrValue can hold are left out.

    Raises:
        TypeError: naming the op and attr when an attr value cannot be written.
    """
    return NodeDef.from_bytes(node_def_bytes(op, add_shapes))


def graph_def_bytes(graph, add_shapes: bool = False) -> bytes:
    """``graph`` as serialized GraphDef bytes, nodes in creation order (the fast path of graph_def_of)."""
    return encode_graph_def([node_def_bytes(op, add_shapes) for op in graph.get_operations()])


def graph_def_of(graph, add_shapes: bool = False) -> GraphDef:
    """``graph`` as a GraphDef, nodes in creation order (Graph.as_graph_def); decoded lazily."""
    return EncodedGraphDef(graph_def_bytes(graph, add_shapes))
