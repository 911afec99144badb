"""The TF1 guide "Variables: creation, initialization, saving and restoring", run unchanged but for the import.

Each snippet below is the guide's code as a string, executed with ``tf`` bound to this
package's names (``guide_tf``) and, as the oracle, to real ``tensorflow.compat.v1``:
both must build the same ops, and ours must compute the values the guide promises.
"""

import types

import numpy as np
import pytest

from graph import array_ops, math_ops, ops, random_ops, state_ops  # noqa: F401  (register kernels)
from graph import graph as graph_lib
from graph import session as session_lib
from graph import variables

# The import line of the guide. The lead will replace this adapter with `import graph.compat.v1 as tf`.
guide_tf = types.SimpleNamespace(
    Variable=variables.Variable, random_normal=random_ops.random_normal, zeros=ops.zeros,
    device=graph_lib.device, global_variables_initializer=variables.global_variables_initializer,
    Session=session_lib.Session, Graph=graph_lib.Graph)

CREATION = '''
# Create two variables.
weights = tf.Variable(tf.random_normal([784, 200], stddev=0.35),
                      name="weights")
biases = tf.Variable(tf.zeros([200]), name="biases")
'''

DEVICE_PLACEMENT = '''
# Pin a variable to CPU.
with tf.device("/cpu:0"):
  v = tf.Variable(tf.zeros([10]))

# Pin a variable to GPU.
with tf.device("/gpu:0"):
  v = tf.Variable(tf.zeros([10]))

# Pin a variable to a particular parameter server task.
with tf.device("/job:ps/task:7"):
  v = tf.Variable(tf.zeros([10]))
'''

INITIALIZATION = '''
# Create two variables.
weights = tf.Variable(tf.random_normal([784, 200], stddev=0.35),
                      name="weights")
biases = tf.Variable(tf.zeros([200]), name="biases")
...
# Add an op to initialize the variables.
init_op = tf.global_variables_initializer()

# Later, when launching the model
with tf.Session() as sess:
  # Run the init operation.
  sess.run(init_op)
  ...
  # Use the model
  values = sess.run([weights, biases])
'''

FROM_ANOTHER_VARIABLE = '''
# Create a variable with a random value.
weights = tf.Variable(tf.random_normal([784, 200], stddev=0.35),
                      name="weights")
# Create another variable with the same value as 'weights'.
w2 = tf.Variable(weights.initialized_value(), name="w2")
# Create another variable with twice the value of 'weights'
w_twice = tf.Variable(weights.initialized_value() * 2.0, name="w_twice")

init_op = tf.global_variables_initializer()
with tf.Session() as sess:
  sess.run(init_op)
  values = sess.run([weights, w2, w_twice])
'''


def execute(snippet: str, tf) -> dict:
    """Runs ``snippet`` in a fresh graph with ``tf`` bound; returns its namespace (and the graph)."""
    namespace = {"tf": tf}
    graph = tf.Graph()
    with graph.as_default():
        exec(snippet, namespace)  # noqa: S102  (the guide's code, verbatim)
    namespace["graph"] = graph
    return namespace


def ops_of(graph) -> list:
    return [(op.name, op.type, [t.name for t in op.inputs], op.device) for op in graph.get_operations()]


def test_creation():
    names = execute(CREATION, guide_tf)
    weights, biases = names["weights"], names["biases"]
    assert (weights.name, weights.shape.as_list(), weights.dtype.name) == ("weights:0", [784, 200], "float32_ref")
    assert (biases.name, biases.shape.as_list()) == ("biases:0", [200])
    assert names["graph"].get_collection("variables") == [weights, biases]


def test_device_placement():
    names = execute(DEVICE_PLACEMENT, guide_tf)
    placed = [(v.name, v.device) for v in names["graph"].get_collection("variables")]
    assert placed == [("Variable:0", "/device:CPU:0"), ("Variable_1:0", "/device:GPU:0"),
                      ("Variable_2:0", "/job:ps/task:7")]
    assert names["v"].initializer.device == names["v"].value().device == "/job:ps/task:7"


def test_initialization():
    names = execute(INITIALIZATION, guide_tf)
    weights, biases = names["values"]
    assert weights.shape == (784, 200) and weights.dtype == np.float32
    assert abs(weights.std() - 0.35) < 0.01 and abs(weights.mean()) < 0.01
    assert biases.tolist() == [0.0] * 200


def test_initialization_from_another_variable():
    weights, w2, w_twice = execute(FROM_ANOTHER_VARIABLE, guide_tf)["values"]
    np.testing.assert_array_equal(w2, weights)
    np.testing.assert_allclose(w_twice, 2.0 * weights, rtol=1e-6)
    assert weights.std() > 0.3  # a real random draw, shared by all three


@pytest.mark.tf
@pytest.mark.parametrize("snippet", [CREATION, DEVICE_PLACEMENT, INITIALIZATION, FROM_ANOTHER_VARIABLE],
                         ids=["creation", "device_placement", "initialization", "from_another_variable"])
def test_same_ops_as_tensorflow(tf_module, snippet):
    ours, theirs = execute(snippet, guide_tf), execute(snippet, tf_module)
    assert ops_of(ours["graph"]) == ops_of(theirs["graph"])
    if "values" in theirs:
        assert [v.shape for v in ours["values"]] == [v.shape for v in theirs["values"]]
        if len(theirs["values"]) == 3:  # the same relations hold in TensorFlow
            weights, w2, w_twice = theirs["values"]
            np.testing.assert_array_equal(w2, weights)
            np.testing.assert_allclose(w_twice, 2.0 * weights, rtol=1e-6)
