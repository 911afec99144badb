"""The TF1 guide "Variables: creation, initialization, saving and restoring", run unchanged but for the import.

Each snippet below is the guide's code as a string, executed after one import line: ours
(``import graph.compat.v1 as tf``) and, as the oracle, real ``tensorflow.compat.v1``: both must
build the same ops, ours must compute the values the guide promises and, with a graph seed set,
the very numbers TensorFlow draws.
"""

import numpy as np
import pytest

OUR_IMPORT = "import graph.compat.v1 as tf"  # the one line a TF1 program changes
TF_IMPORT = "import tensorflow.compat.v1 as tf"

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


def execute(snippet: str, import_line: str = OUR_IMPORT, seed: int | None = None) -> dict:
    """Runs ``import_line`` then ``snippet`` in a fresh graph; returns its namespace (and the graph)."""
    namespace: dict = {}
    exec(import_line, namespace)  # noqa: S102
    tf = namespace["tf"]
    graph = tf.Graph()
    with graph.as_default():
        if seed is not None:
            tf.set_random_seed(seed)
        exec(snippet, namespace)  # noqa: S102  (the guide's code, verbatim)
    namespace["graph"] = graph
    return namespace


def ops_of(graph) -> list:
    return [(op.name, op.type, [t.name for t in op.inputs], op.device) for op in graph.get_operations()]


def test_creation():
    names = execute(CREATION)
    weights, biases = names["weights"], names["biases"]
    assert (weights.name, weights.shape.as_list(), weights.dtype.name) == ("weights:0", [784, 200], "float32_ref")
    assert (biases.name, biases.shape.as_list()) == ("biases:0", [200])
    assert names["graph"].get_collection("variables") == [weights, biases]


def test_device_placement():
    names = execute(DEVICE_PLACEMENT)
    placed = [(v.name, v.device) for v in names["graph"].get_collection("variables")]
    assert placed == [("Variable:0", "/device:CPU:0"), ("Variable_1:0", "/device:GPU:0"),
                      ("Variable_2:0", "/job:ps/task:7")]
    assert names["v"].initializer.device == names["v"].value().device == "/job:ps/task:7"


def test_initialization():
    names = execute(INITIALIZATION)
    weights, biases = names["values"]
    assert weights.shape == (784, 200) and weights.dtype == np.float32
    assert abs(weights.std() - 0.35) < 0.01 and abs(weights.mean()) < 0.01
    assert biases.tolist() == [0.0] * 200


def test_initialization_from_another_variable():
    weights, w2, w_twice = execute(FROM_ANOTHER_VARIABLE)["values"]
    np.testing.assert_array_equal(w2, weights)
    np.testing.assert_allclose(w_twice, 2.0 * weights, rtol=1e-6)
    assert weights.std() > 0.3  # a real random draw, shared by all three


@pytest.mark.tf
@pytest.mark.parametrize("snippet", [CREATION, DEVICE_PLACEMENT, INITIALIZATION, FROM_ANOTHER_VARIABLE],
                         ids=["creation", "device_placement", "initialization", "from_another_variable"])
def test_same_ops_as_tensorflow(tf_module, snippet):
    ours, theirs = execute(snippet), execute(snippet, TF_IMPORT)
    assert ops_of(ours["graph"]) == ops_of(theirs["graph"])
    if "values" in theirs:
        assert [v.shape for v in ours["values"]] == [v.shape for v in theirs["values"]]
        if len(theirs["values"]) == 3:  # the same relations hold in TensorFlow
            weights, w2, w_twice = theirs["values"]
            np.testing.assert_array_equal(w2, weights)
            np.testing.assert_allclose(w_twice, 2.0 * weights, rtol=1e-6)


@pytest.mark.tf
def test_same_numbers_as_tensorflow_with_a_graph_seed(tf_module):
    ours = execute(FROM_ANOTHER_VARIABLE, seed=1234)["values"]
    theirs = execute(FROM_ANOTHER_VARIABLE, TF_IMPORT, seed=1234)["values"]
    for mine, expected in zip(ours, theirs):
        np.testing.assert_array_equal(mine, expected)  # Philox streams and Box-Muller, bit for bit
