"""Tests for graph/initialization_order.py: the cycle check that needs networkx only to report a cycle."""

import sys

import pytest

import graph.compat.v1 as tf
from graph.variables import initialization_order
from graph.variables.initialization_order import _has_dependency_cycle, check_no_initialization_cycle


@pytest.mark.parametrize("successors, cyclic", [
    ({}, False),
    ({"a": ["b"], "b": ["c"]}, False),
    ({"a": ["b", "c"], "b": ["d"], "c": ["d"]}, False),  # a diamond revisits d: no cycle
    ({"a": ["a"]}, True),
    ({"a": ["b"], "b": ["c"], "c": ["a"]}, True),
    ({"x": ["y"], "a": ["b"], "b": ["a"]}, True),
])
def test_has_dependency_cycle(successors, cyclic):
    assert _has_dependency_cycle(successors) is cyclic


def test_long_chain_is_checked_without_recursion_or_networkx(monkeypatch):
    chain = {f"v{i}": [f"v{i + 1}"] for i in range(50_000)}
    assert not _has_dependency_cycle(chain)
    with tf.Graph().as_default():
        variables = [tf.Variable(tf.zeros([2]), name=f"w{i}") for i in range(3)]
        monkeypatch.setitem(sys.modules, "networkx", None)  # importing networkx would now fail
        check_no_initialization_cycle(variables)


def test_dependency_lists_follow_reads():
    with tf.Graph().as_default():
        a = tf.Variable(tf.zeros([2]), name="a")
        b = tf.Variable(a.initialized_value() + 1.0, name="b")
        c = tf.Variable(tf.zeros([2]), name="c")
        names, readers = initialization_order._dependency_lists([a, b, c])
        assert names == ["a", "b", "c"]
        assert readers == {"a": ["b"]}
