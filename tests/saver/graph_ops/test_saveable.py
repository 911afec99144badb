"""saver.graph_ops.saveable: var_list normalisation with TensorFlow's names, order and errors."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.variables.partitioning import fixed_size_partitioner
from saver.graph_ops import saveable


@pytest.fixture
def g():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def test_list_keys_by_op_name_sorted(g):
    b = tf.Variable(1.0, name="b")
    a = tf.Variable([1, 2], name="scope/a")
    names = saveable.op_list_to_dict([b, a])
    assert list(names) == ["b", "scope/a"]
    assert names["b"] is b._ref() and names["scope/a"].name == "scope/a:0"


def test_nested_lists_and_sets_are_flattened(g):
    a, b, c = (tf.Variable(float(i), name=n) for i, n in enumerate("abc"))
    assert sorted(saveable.op_list_to_dict([a, [b, (c,)]])) == ["a", "b", "c"]
    assert sorted(saveable.op_list_to_dict({a, b})) == ["a", "b"]


def test_duplicate_names(g):
    w = tf.Variable(1.0, name="w")
    with pytest.raises(ValueError, match="At least two variables have the same name: w"):
        saveable.op_list_to_dict([w, w])


def test_same_op_under_two_names(g):
    w = tf.Variable(1.0, name="w")
    with pytest.raises(ValueError, match="The same saveable will be restored with two names: b"):
        saveable.validate_and_slice_inputs({"a": w, "b": w})


def test_non_variables(g):
    c = tf.constant(1.0)
    with pytest.raises(TypeError, match="Variable to save is not a Variable"):
        saveable.op_list_to_dict([c])
    with pytest.raises(TypeError, match="names_to_saveables must be a dict mapping string names to Tensors/Variables"):
        saveable.validate_and_slice_inputs({"a": c})
    with pytest.raises(TypeError, match="should be passed in a dict or a list"):
        saveable.op_list_to_dict(tf.Variable(1.0, name="v"))
    with pytest.raises(TypeError, match="Name is not a string"):
        saveable.validate_and_slice_inputs({3: tf.Variable(1.0, name="x")})


def test_dict_renames_and_sorts(g):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2, name="b")
    saveables = saveable.validate_and_slice_inputs({"zz": a, "net/b": b})
    assert [s.name for s in saveables] == ["net/b", "zz"]
    assert [s.specs[0].slice_spec for s in saveables] == ["", ""]
    assert saveables[0].specs[0].dtype.base_dtype == tf.int32


def test_partitioned_variable_slices(g):
    emb = tf.get_variable("emb", [7, 2], partitioner=fixed_size_partitioner(3))
    names = saveable.op_list_to_dict([emb])
    assert list(names) == ["emb"]
    saveables = saveable.validate_and_slice_inputs(names)
    assert [s.specs[0].slice_spec for s in saveables] == ["7 2 0,3:0,2", "7 2 3,2:0,2", "7 2 5,2:0,2"]
    assert {s.name for s in saveables} == {"emb"}
    # The parts on their own are grouped under the full name as well.
    parts = saveable.op_list_to_dict(list(emb))
    assert list(parts) == ["emb"] and len(parts["emb"]) == 3


def test_mixing_slices_and_plain(g):
    emb = tf.get_variable("emb", [4, 2], partitioner=fixed_size_partitioner(2))
    with pytest.raises(ValueError, match="Slices must all be from the same tensor"):
        other = tf.get_variable("other", [4, 2], partitioner=fixed_size_partitioner(2))
        list(saveable.saveable_objects_for_op([list(emb)[0], list(other)[0]], "x"))
    plain = tf.Variable(1.0, name="plain")
    with pytest.raises(ValueError, match="Slices must all be slices"):
        list(saveable.saveable_objects_for_op([plain], "x"))


def test_all_saveable_objects(g):
    a = tf.Variable(1.0, name="a")
    local = tf.Variable(1.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert saveable.all_saveable_objects() == [a]
    del local


def test_set_cpu0():
    assert saveable.set_cpu0("/job:ps/task:1/device:GPU:3") == "/job:ps/task:1/device:CPU:0"
    assert saveable.set_cpu0("") == "/device:CPU:0"


def test_slice_spec_string(g):
    emb = tf.get_variable("e", [5, 3], partitioner=fixed_size_partitioner(2, axis=1))
    assert [saveable.slice_spec_string(p._save_slice_info) for p in emb] == ["5 3 0,5:0,2", "5 3 0,5:2,1"]
    assert np.prod([5, 3]) == 15
