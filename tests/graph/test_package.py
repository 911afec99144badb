"""`import graph`: registers everything, imports neither TensorFlow nor saver, and defers networkx."""

import subprocess
import sys


def test_import_graph_pulls_in_nothing_heavy():
    code = ("import sys, graph, graph.compat.v1 as tf; "
            "print(sorted(m for m in ('tensorflow', 'saver', 'networkx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_compat_v1_resolves_the_guide_names():
    import graph.compat.v1 as tf
    for name in ("Variable", "Session", "random_normal", "zeros", "device", "global_variables_initializer",
                 "initialize_all_variables", "get_variable", "variable_scope", "placeholder", "GraphKeys",
                 "fixed_size_partitioner", "AUTO_REUSE", "name_scope", "constant", "matmul"):
        assert getattr(tf, name) is not None, name
    assert tf.nn.relu and tf.train.replica_device_setter and tf.errors.NotFoundError
    assert not tf.executing_eagerly()
