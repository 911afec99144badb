"""tf.Module and attribute tracking against real TensorFlow: names and scopes, variables, submodules,
with_name_scope, wrapped lists/dicts/tuples and the dependency names that become checkpoint keys."""

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.tracking import ListWrapper, NoDependency, breadth_first_objects, trackable_children


def _program(tf):
    class Dense(tf.Module):
        def __init__(self, units, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.kernel = tf.Variable(np.ones((2, units), np.float32), name="kernel")
                self.bias = tf.Variable(np.zeros(units, np.float32), name="bias", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.matmul(x, self.kernel) + self.bias

    class MLPNet(tf.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.layers = [Dense(2), Dense(2, name="out")]
                self.table = {"b": tf.Variable(1.0, name="b"), "a": [tf.Variable(2.0, name="a")], "n": 3}
                self.pair = (tf.Variable(3.0, name="p"), 4)
                self.numbers = (1, 2)
                self.same = self.layers[0]  # one object, two names

    net = MLPNet()
    second = MLPNet()
    y = net.layers[0](tf.zeros([1, 2]))
    return {
        "names": (net.name, second.name, net.layers[1].name, type(net).__name__),
        "variables": [v.name for v in net.variables],
        "trainable": [v.name for v in net.trainable_variables],
        "non_trainable": [v.name for v in net.non_trainable_variables],
        "submodules": [m.name for m in net.submodules],
        "call": y.op.name,
        "second": [v.name for v in second.variables][:2],
        "layers_type": type(net.layers).__name__,
        "layers_equal": net.layers == list(net.layers),
    }


@pytest.mark.tf
def test_module_matches_tensorflow(tf1):
    with ours.Graph().as_default():
        assert _program(ours) == _program(tf1)


@pytest.mark.tf
def test_dependency_paths_match_tensorflow_object_graph(tf1, tmp_path):
    """The BFS paths of our objects equal the checkpoint keys TF writes for the same program."""
    def build(tf):
        net = tf.Module(name="net")
        net.w = tf.Variable(1.0, name="w")
        net.blocks = [[tf.Variable(2.0, name="i")], {"k": tf.Variable(3.0, name="k")}]
        net.t = (tf.Variable(4.0, name="t"), "text")
        net.hidden = NoDependency(tf.Variable(5.0, name="hidden")) if tf is ours else \
            _tf_no_dependency()(tf.Variable(5.0, name="hidden"))
        net.empty = []
        return net
    net = build(tf1)
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        path = tf1.train.Checkpoint(net=net).write(str(tmp_path / "tf"), session=sess)
    tf_keys = sorted(k for k, _ in tf1.train.list_variables(path) if not k.startswith("_CHECKPOINTABLE"))
    with ours.Graph().as_default():
        objects, paths = breadth_first_objects(ours.train.Checkpoint(net=build(ours)))
        our_keys = sorted("/".join(p) + "/.ATTRIBUTES/VARIABLE_VALUE" for o, p in zip(objects, paths)
                          if isinstance(o, ours.Variable))
    assert our_keys == tf_keys
    assert "net/blocks/0/0/.ATTRIBUTES/VARIABLE_VALUE" in tf_keys


def _tf_no_dependency():
    from tensorflow.python.trackable.data_structures import NoDependency as TFNoDependency
    return TFNoDependency


def test_list_wrapper_mutations_block_saving():
    with ours.Graph().as_default():
        net = ours.Module(name="net")
        net.layers = [ours.Variable(1.0)]
        assert isinstance(net.layers, ListWrapper) and repr(net.layers).startswith("ListWrapper([")
        net.layers.append([ours.Variable(2.0)])
        assert isinstance(net.layers[1], ListWrapper)
        assert list(trackable_children(net.layers)) == ["0", "1"]
        net.layers[0] = ours.Variable(3.0)
        with pytest.raises(ValueError, match="A list element was replaced"):
            trackable_children(net.layers)
        net.table = {1: ours.Variable(4.0)}
        with pytest.raises(ValueError, match="non-string key"):
            trackable_children(net.table)
        net.plain = [1, 2]
        net.plain.sort()  # no trackables: free to mutate
        assert trackable_children(net.plain) == {}
        with pytest.raises(TypeError, match="unhashable"):
            hash(net.plain)


def test_module_names_are_validated():
    with pytest.raises(ValueError, match="'1abc' is not a valid module name"):
        ours.Module(name="1abc")
    with ours.Graph().as_default():
        assert ours.Module().name == "module"
        del_me = ours.Module(name="m")
        del_me.v = ours.Variable(1.0)
        del del_me.v
        assert trackable_children(del_me) == {}
