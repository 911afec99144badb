"""TF1-era TensorFlow kernel tests (tests/graph/testing/ported/) run unchanged but for their import line.

Each file imports ``graph.compat.v1 as tf`` and nothing else of a TensorFlow: exec'd as written it runs on this
package; with that one line replaced by ``import tensorflow.compat.v1 as tf`` it runs on TensorFlow, and every
test method must end alike.  Run as a script, ``tf.test.main()`` runs it through absl's test runner.
"""

import os
import subprocess
import sys

import pytest

import graph.compat.v1 as tf
from tests.graph.testing import dual_run

PORTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ported")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(PORTED))))  # the repository
FILES = {
    "relu_op_test.py": 23,  # tests unittest collects: 19 methods and each class's test_session (skipped)
    "dense_update_ops_test.py": 7,
}


def _source(name: str) -> str:
    with open(os.path.join(PORTED, name), encoding="utf-8") as source:
        return source.read()


def _outcomes(source: str, tf_module) -> dict:
    return dual_run.run_module(dual_run.load(source, tf_module, "ported_module"), tf_module)


@pytest.mark.parametrize("name", sorted(FILES))
def test_ported_file_passes_on_graph_compat_v1(name):
    outcomes = _outcomes(_source(name), tf)
    assert len(outcomes) == FILES[name]
    failed = {test: result for test, result in outcomes.items() if result[0] not in ("pass", "skip")}
    assert failed == {}
    assert {test for test, result in outcomes.items() if result[0] == "skip"} == \
        {test for test in outcomes if test.endswith(".test_session")}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(FILES))
def test_ported_file_ends_alike_on_tensorflow(tf_module, name):
    source = _source(name)
    ours = _outcomes(source, tf)
    theirs = _outcomes(dual_run.with_import(source, dual_run.THEIRS_IMPORT), tf_module)
    assert {test: result[0] for test, result in theirs.items()} == {test: result[0] for test, result in ours.items()}


def test_ported_file_runs_as_a_script():
    """``python relu_op_test.py``: tf.test.main() runs the file's tests and exits 0."""
    completed = subprocess.run([sys.executable, os.path.join(PORTED, "relu_op_test.py")], capture_output=True,
                               text=True, timeout=120, cwd=os.path.dirname(PORTED),
                               env={**os.environ, "PYTHONPATH": ROOT})
    assert completed.returncode == 0, completed.stderr
    assert "Ran 23 tests" in completed.stderr and "OK (skipped=4)" in completed.stderr
