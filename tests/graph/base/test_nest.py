"""Tests for graph/base/nest.py's tf.nest names: assert_same_structure and is_nested, against TensorFlow."""

import collections

import pytest

from graph.base import nest

Point = collections.namedtuple("Point", "a b")
Other = collections.namedtuple("Other", "a b")
SameName = collections.namedtuple("Point", "a b")  # another class of Point's name and fields

PAIRS = [((1, 2), [1, 2]), ((1, 2), (3, 4)), ((1, (2, 3)), (1, 2)), ({"a": 1}, {"b": 1}),
         ({"a": 1}, {"a": 1, "b": 2}), (Point(1, 2), (1, 2)), (Point(1, 2), Other(1, 2)), (Point(1, 2), SameName(3, 4)),
         ([1, [2]], [1, [2, 3]]), (1, [1]), ("ab", "cd"), ({"a": [1]}, {"a": 1}), ({"b": 1, "a": (2,)}, {"a": (3,), "b": 4}),
         ([(1, {"k": [2, 3]})], [(1, {"k": [2]})]), ([], ()), (None, 5)]


def _outcome(function):
    try:
        function()
    except (TypeError, ValueError) as error:
        return type(error).__name__, str(error)
    return "ok"


@pytest.mark.tf
@pytest.mark.parametrize("check_types", [True, False])
@pytest.mark.parametrize("first, second", PAIRS)
def test_assert_same_structure_raises_what_tensorflow_raises(tf_module, first, second, check_types):
    theirs = _outcome(lambda: tf_module.nest.assert_same_structure(first, second, check_types=check_types))
    assert _outcome(lambda: nest.assert_same_structure(first, second, check_types=check_types)) == theirs


@pytest.mark.tf
def test_is_nested_as_tensorflow(tf_module):
    for value in ([1], (), {}, "s", b"b", 1, Point(1, 2), None, {1, 2}, collections.OrderedDict(a=1)):
        assert nest.is_nested(value) == tf_module.nest.is_nested(value), value
