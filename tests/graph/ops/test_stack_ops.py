"""Stacks (StackV2, StackPushV2, StackPopV2, StackCloseV2): graphs, LIFO values per run and errors vs TF."""

from __future__ import annotations

import numpy as np
import pytest

from graph import errors
from graph.core import graph as graph_lib
from graph.ops import constant_ops, stack_ops
from graph.runtime.session import Session


def _lifo(push, pop, stack, control_dependencies):
    """Pushes 1, 2 then pops twice, each op ordered after the previous one; returns (pops, third pop)."""
    first = push(stack, 1.0)
    with control_dependencies([first]):
        second = push(stack, 2.0)
    with control_dependencies([second]):
        top = pop(stack)
    with control_dependencies([top]):
        bottom = pop(stack)
    with control_dependencies([bottom]):
        empty = pop(stack)
    return [top, bottom], empty


def _ours():
    graph = graph_lib.Graph()
    with graph.as_default():
        stack = stack_ops.stack_v2(-1, "float32", name="s")
        pops, empty = _lifo(stack_ops.stack_push_v2, lambda h: stack_ops.stack_pop_v2(h, "float32"), stack,
                            graph_lib.control_dependencies)
    return graph, stack, pops, empty


@pytest.mark.tf
def test_push_pop_lifo_and_empty_pop_match_tensorflow(tf1):
    from tensorflow.python.ops import gen_data_flow_ops as gen  # the oracle's raw stack ops

    stack = gen.stack_v2(max_size=-1, elem_type=tf1.float32, name="s")
    pops, empty = _lifo(gen.stack_push_v2, lambda h: gen.stack_pop_v2(h, tf1.float32), stack,
                        tf1.control_dependencies)
    with tf1.Session() as sess:
        theirs = sess.run(pops)
        with pytest.raises(tf1.errors.InvalidArgumentError, match=r"is empty when calling Pop\(\)"):
            sess.run(empty)
    graph, our_stack, our_pops, our_empty = _ours()
    assert [op.type for op in graph.get_operations()] == [op.type for op in tf1.get_default_graph().get_operations()]
    assert our_stack.shape.as_list() == stack.shape.as_list() == [2]
    with Session(graph=graph) as sess:
        np.testing.assert_array_equal(sess.run(our_pops), theirs)
        np.testing.assert_array_equal(sess.run(our_pops), theirs)  # each run has a fresh stack
        with pytest.raises(errors.InvalidArgumentError, match=r"Stack\[s\] is empty when calling Pop\(\)"):
            sess.run(our_empty)


def test_closed_stack_and_wrong_dtype_are_errors():
    graph = graph_lib.Graph()
    with graph.as_default():
        stack = stack_ops.stack_v2(-1, "float32", stack_name="history")
        close = stack_ops.stack_close_v2(stack)
        with graph_lib.control_dependencies([close]):
            late = stack_ops.stack_push_v2(stack, 1.0)
        wrong = stack_ops.stack_push_v2(stack, constant_ops.constant(1, name="int_value"))
    with Session(graph=graph) as sess:
        with pytest.raises(errors.InvalidArgumentError, match=r"Stack\[history\] has already been closed"):
            sess.run(late)
        with pytest.raises(errors.InvalidArgumentError, match="holds float32 elements.*pushes int32"):
            sess.run(wrong)


def test_max_size_must_be_a_scalar():
    with graph_lib.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            stack_ops.stack_v2(constant_ops.constant([1, 2]), "float32")
