"""graph.base.shapes: TensorShape and Dimension, printed and merged as TensorFlow 1.x does."""

import pytest

from graph.base.shapes import Dimension, TensorShape, as_shape, unknown_shape


def test_partial_shapes():
    shape = TensorShape([None, 3])
    assert shape.as_list() == [None, 3] and shape.ndims == 2
    assert shape[1] == 3 and shape[1].value == 3 and shape[0].value is None
    assert not shape.is_fully_defined() and shape.num_elements() is None
    assert str(shape) == "(?, 3)" and shape.message_string() == "[?,3]"
    assert shape.merge_with([4, None]).as_list() == [4, 3]
    assert shape.is_compatible_with([7, 3]) and not shape.is_compatible_with([7, 4])


def test_unknown_rank_and_scalars():
    assert str(unknown_shape()) == "<unknown>" and unknown_shape().ndims is None
    assert TensorShape([]).message_string() == "[]" and TensorShape([]).num_elements() == 1
    assert str(TensorShape([2])) == "(2,)"
    with pytest.raises(ValueError):
        unknown_shape().as_list()


def test_merge_conflict_raises():
    with pytest.raises(ValueError):
        TensorShape([2, 3]).merge_with([2, 4])
    with pytest.raises(ValueError):
        Dimension(-1)


def test_equality():
    assert as_shape((2, 3)) == TensorShape([2, 3]) and TensorShape([2]) != TensorShape([3])


@pytest.mark.tf
def test_printing_matches_tensorflow(tf1):
    for dims in ([None, 3], [2], [], None, [1, 2, 3]):
        assert str(TensorShape(dims)) == str(tf1.TensorShape(dims))
        assert repr(TensorShape(dims)) == repr(tf1.TensorShape(dims))
