"""Control-flow contexts in a MetaGraphDef: the ``cond_context`` collection as CondContextDef bytes, both ways.

Layout (tensorflow/core/protobuf/control_flow.proto; proto3, wire format as graph/proto/protobuf.py)::

    ValuesDef             : 1 values string*, 2 external_values map<string, string>
    ControlFlowContextDef : oneof ctxt {1 cond_ctxt CondContextDef, 2 while_ctxt WhileContextDef}
    CondContextDef        : 1 context_name, 2 pred_name, 3 pivot_name, 4 branch int32,
                            5 values_def ValuesDef, 6 nested_contexts ControlFlowContextDef*
    WhileContextDef       : 1 context_name, 2 parallel_iterations int32, 3 back_prop bool, 4 swap_memory bool,
                            5 pivot_name, 6 pivot_for_pred_name, 7 pivot_for_body_name, 8 loop_exit_names*,
                            10 loop_enter_names*, 9 values_def ValuesDef, 11 maximum_iterations_name,
                            12 nested_contexts ControlFlowContextDef*

TensorFlow registers CondContext.to_proto / from_proto for ``cond_context`` (control_flow_ops.py):
``values`` are the context's tensor names sorted, ``external_values`` maps an outside tensor's name to
the Switch output that stands for it inside the branch, and a context lists the conds built inside
it as ``nested_contexts`` (written without the export scope, as TF does).  TensorFlow writes the
map in its hash table's order, which changes from run to run; we write it sorted (deterministic),
and a context imported from a file is written back as the very bytes read while it is unchanged.
A WhileContext is written as TF's WhileContextDef (WhileContext.to_proto) and read back as a WhileContext
over the imported loop's ops (WhileContext.from_proto, nested conds and loops included), so tf.gradients
differentiates a loop read from a ``.meta`` file; a context read from a file is written back as its bytes
while it is unchanged.
"""

from __future__ import annotations

from graph.core import graph as graph_lib
from graph.ops.control_flow_ops import CondContext, set_control_flow_context
from graph.ops.control_flow_while import WhileContext
from graph.core.graph import Operation
from graph.proto.protobuf import BOOL, INT32, STRING, Field, MapField, Message
from graph.core.name_scopes import prepend_name_scope, strip_name_scope

__all__ = ["ValuesDef", "ControlFlowContextDef", "CondContextDef", "WhileContextDef",
           "cond_context_to_proto", "while_context_to_proto", "cond_context_from_proto", "while_context_from_proto",
           "context_bytes", "context_from_bytes"]

class ValuesDef(Message):
    """control_flow.proto ValuesDef: the tensors seen in a context, and the inside stand-ins of outside ones."""
    values = Field(1, STRING, repeated=True)
    external_values = MapField(2, STRING, STRING)


class ControlFlowContextDef(Message):
    """control_flow.proto ControlFlowContextDef: one nested context, a cond or a while loop."""
    cond_ctxt = Field(1, lambda: CondContextDef, oneof="ctxt")
    while_ctxt = Field(2, lambda: WhileContextDef, oneof="ctxt")


class CondContextDef(Message):
    """control_flow.proto CondContextDef: one branch of a ``cond``."""
    context_name = Field(1, STRING)
    pred_name = Field(2, STRING)
    pivot_name = Field(3, STRING)
    branch = Field(4, INT32)
    values_def = Field(5, ValuesDef)
    nested_contexts = Field(6, ControlFlowContextDef, repeated=True)


class WhileContextDef(Message):
    """control_flow.proto WhileContextDef: a ``while_loop``."""
    context_name = Field(1, STRING)
    parallel_iterations = Field(2, INT32)
    back_prop = Field(3, BOOL)
    swap_memory = Field(4, BOOL)
    pivot_name = Field(5, STRING)
    pivot_for_pred_name = Field(6, STRING)
    pivot_for_body_name = Field(7, STRING)
    loop_exit_names = Field(8, STRING, repeated=True)
    loop_enter_names = Field(10, STRING, repeated=True)
    values_def = Field(9, ValuesDef)
    maximum_iterations_name = Field(11, STRING)
    nested_contexts = Field(12, ControlFlowContextDef, repeated=True)


# ------------------------------------------------------------------------------------- export


def _nested_contexts(context: CondContext) -> list:
    """The contexts created inside ``context``, in creation order (TF's ``_nested_contexts``).

    Each context is recorded on its pivot op when created, so first appearances in the graph's
    op -> context table follow creation order."""
    nested = context.__dict__.get("_nested_contexts")
    if nested is not None:  # rebuilt from a proto here
        return nested
    table = context._graph.__dict__.get("_op_control_flow_contexts", {})
    found: dict[int, CondContext] = {}
    for candidate in table.values():
        if candidate._outer_context is context and id(candidate) not in found:
            found[id(candidate)] = candidate
    return list(found.values())


def cond_context_to_proto(context: CondContext, export_scope: str | None = None) -> CondContextDef | None:
    """A CondContext as a CondContextDef, or None if its name is outside ``export_scope`` (CondContext.to_proto)."""
    if export_scope is not None and not context.name.startswith(export_scope):
        return None
    values_def = ValuesDef(
        values=[strip_name_scope(name, export_scope) for name in sorted(context._values)],
        external_values={strip_name_scope(key, export_scope): strip_name_scope(tensor.name, export_scope)
                         for key, tensor in context._external_values.items()})
    nested = [_nested_def(inner) for inner in _nested_contexts(context)]
    return CondContextDef(
        context_name=strip_name_scope(context.name, export_scope),
        pred_name=strip_name_scope(context.pred.name, export_scope),
        pivot_name=strip_name_scope(context.pivot.name, export_scope),
        branch=context.branch, values_def=values_def, nested_contexts=nested)


def _nested_def(context) -> ControlFlowContextDef:
    if isinstance(context, WhileContext):
        return ControlFlowContextDef(while_ctxt=while_context_to_proto(context))
    return ControlFlowContextDef(cond_ctxt=cond_context_to_proto(context))


def while_context_to_proto(context: WhileContext, export_scope: str | None = None) -> WhileContextDef | None:
    """A WhileContext as a WhileContextDef, or None if its name is outside ``export_scope`` (WhileContext.to_proto)."""
    if export_scope is not None and not context.name.startswith(export_scope):
        return None

    def strip(name: str) -> str:
        return strip_name_scope(name, export_scope)
    values_def = ValuesDef(values=[strip(name) for name in sorted(context._values)],
                           external_values={strip(key): strip(tensor.name)
                                            for key, tensor in context._external_values.items()})
    maximum = context.maximum_iterations
    return WhileContextDef(
        context_name=strip(context.name), parallel_iterations=context.parallel_iterations,
        maximum_iterations_name=strip(maximum.name) if maximum is not None else "",
        back_prop=context.back_prop, swap_memory=context.swap_memory,
        pivot_for_pred_name=strip(context._pivot_for_pred.name), pivot_for_body_name=strip(context._pivot_for_body.name),
        pivot_name=strip(context.pivot.name), loop_exit_names=[strip(t.name) for t in context.loop_exits],
        loop_enter_names=[strip(t.name) for t in context.loop_enters], values_def=values_def,
        nested_contexts=[_nested_def(inner) for inner in _nested_contexts(context)])


def context_bytes(item, export_scope: str | None = None) -> bytes | None:
    """One ``cond_context`` / ``while_context`` collection item as the bytes TF writes (None: left out).

    Raises:
        TypeError: for an item that is neither a CondContext nor bytes.
    """
    if isinstance(item, (bytes, bytearray)):
        return bytes(item)
    if isinstance(item, WhileContext):
        proto, message = while_context_to_proto(item, export_scope), WhileContextDef
    elif isinstance(item, CondContext):
        proto, message = cond_context_to_proto(item, export_scope), CondContextDef
    else:
        raise TypeError(f"a control-flow context collection holds CondContexts and WhileContexts, not "
                        f"{type(item).__name__}")
    if proto is None:
        return None
    original = item.__dict__.get("_imported_bytes")
    if original is not None and export_scope is None and message.from_bytes(original) == proto:
        return original  # unchanged since it was read: TF's bytes, map order and all
    return proto.to_bytes(deterministic=True)


# ------------------------------------------------------------------------------------- import


def _tensor(graph, name: str, context_def: CondContextDef):
    try:
        return graph.as_graph_element(name)
    except (KeyError, ValueError) as error:
        raise ValueError(f"cond context '{context_def.context_name}' names '{name}', which is not in the graph: "
                         f"{error}") from error


def _values_from_def(context, values_def: ValuesDef | None, context_def, import_scope: str | None) -> None:
    """A context's values and external values read back, its ops marked as inside it (TF's
    ControlFlowContext._init_values_from_proto)."""
    graph = context._graph
    values_def = values_def or ValuesDef()
    context._values = {prepend_name_scope(name, import_scope) for name in values_def.values}
    context._external_values = {
        prepend_name_scope(key, import_scope): _tensor(graph, prepend_name_scope(value, import_scope), context_def)
        for key, value in values_def.external_values.items()}
    for op_name in sorted({name.split(":")[0] for name in context._values - set(context._external_values)}):
        op = _tensor(graph, op_name, context_def)
        if isinstance(op, Operation):
            set_control_flow_context(op, context)


def _link_outer(context, graph) -> None:
    context._outer_context = graph._control_flow_context
    context._context_stack = []
    context._nested_contexts = []
    if context._outer_context is not None:
        context._outer_context.__dict__.setdefault("_nested_contexts", []).append(context)


def _nested_from_defs(context, nested_defs, import_scope: str | None) -> None:
    """Rebuilds the contexts nested in ``context`` inside it (TF's from_proto: Enter, each nested def, Exit)."""
    context.Enter()
    try:
        for nested in nested_defs:
            if nested.which_oneof("ctxt") == "while_ctxt":
                while_context_from_proto(nested.while_ctxt, import_scope)
            else:
                cond_context_from_proto(nested.cond_ctxt, import_scope)
    finally:
        context.Exit()


def cond_context_from_proto(context_def: CondContextDef, import_scope: str | None = None) -> CondContext:
    """Rebuilds a CondContext (and the contexts nested in it) over ops already in the default graph
    (CondContext.from_proto): its ops are marked as inside it, as TensorFlow's import does.

    Raises:
        ValueError: if the proto names a tensor or op that is not in the graph.
    """
    graph = graph_lib.get_default_graph()
    context = CondContext.__new__(CondContext)
    graph.unique_name("cond_text")  # TF's constructor reserves its default name before the proto's replaces it
    context._graph = graph
    context._name = prepend_name_scope(context_def.context_name, import_scope)
    context._pred = _tensor(graph, prepend_name_scope(context_def.pred_name, import_scope), context_def)
    context._pivot = _tensor(graph, prepend_name_scope(context_def.pivot_name, import_scope), context_def)
    context._branch = context_def.branch
    _link_outer(context, graph)
    _values_from_def(context, context_def.values_def, context_def, import_scope)
    _nested_from_defs(context, context_def.nested_contexts, import_scope)
    return context


def while_context_from_proto(context_def: WhileContextDef, import_scope: str | None = None) -> WhileContext:
    """Rebuilds a WhileContext (and the contexts nested in it) over a loop already in the default graph
    (WhileContext.from_proto): pivots, enters, exits and the iteration bound found by name, the loop's ops
    marked as inside it, so tf.gradients differentiates an imported loop as one built here.

    Raises:
        ValueError: if the proto names a tensor or op that is not in the graph.
    """
    graph = graph_lib.get_default_graph()
    context = WhileContext.__new__(WhileContext)
    context._graph = graph

    def element(name: str):
        return _tensor(graph, prepend_name_scope(name, import_scope), context_def)
    context._name = prepend_name_scope(context_def.context_name, import_scope)
    context._maximum_iterations = element(context_def.maximum_iterations_name) \
        if context_def.maximum_iterations_name else None
    context._parallel_iterations = context_def.parallel_iterations
    context._back_prop = context_def.back_prop
    context._swap_memory = context_def.swap_memory
    context._pivot_for_pred = element(context_def.pivot_for_pred_name)
    context._pivot_for_body = element(context_def.pivot_for_body_name)
    context._pivot = element(context_def.pivot_name)
    context._loop_exits = [element(name) for name in context_def.loop_exit_names]
    context._loop_enters = [element(name) for name in context_def.loop_enter_names]
    context._grad_state = None
    _link_outer(context, graph)
    _values_from_def(context, context_def.values_def, context_def, import_scope)
    if import_scope:  # the frame is renamed with the context, so the Enters name the imported frame
        for name in sorted(context._values):
            op = graph.as_graph_element(name).op
            if op.type in ("Enter", "RefEnter"):
                op._set_attr("frame_name", context._name.encode())
    _nested_from_defs(context, context_def.nested_contexts, import_scope)
    return context


def context_from_bytes(key: str, data: bytes, import_scope: str | None = None):
    """A ``cond_context`` or ``while_context`` item read from a MetaGraphDef, rebuilt as TF's CondContext or
    WhileContext (any other key: ``data`` itself)."""
    if key == graph_lib.GraphKeys.COND_CONTEXT:
        context = cond_context_from_proto(CondContextDef.from_bytes(data), import_scope)
    elif key == graph_lib.GraphKeys.WHILE_CONTEXT:
        context = while_context_from_proto(WhileContextDef.from_bytes(data), import_scope)
    else:
        return bytes(data)
    if not import_scope:
        context._imported_bytes = bytes(data)
    return context
