"""Tests for graph/testing/runner.py: tf.test.main run as a script (tests, flags, benchmarks, exit status), the
process temp dir and TF's test decorators."""

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import graph.compat.v1 as tf
from tests.graph.testing import dual_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

SCRIPT = textwrap.dedent('''
    import graph.compat.v1 as tf

    tf.flags.DEFINE_integer("answer", 0, "A flag the tests read.")
    FLAGS = tf.flags.FLAGS


    class MainTest(tf.test.TestCase):

        def testFlagParsed(self):
            self.assertEqual(FLAGS.answer, 42)

        def testFails(self):
            self.assertAllEqual([1, 2], [1, 3])


    class SomeBenchmark(tf.test.Benchmark):

        def benchmarkAdd(self):
            with tf.Session() as sess:
                self.run_op_benchmark(sess, tf.add(1.0, 2.0), min_iters=3, store_memory_usage=False,
                                      extras={"note": "x"})


    if __name__ == "__main__":
        tf.test.main()
''')


def _run(script_path, *args, import_line=None, env=None):
    source = SCRIPT if import_line is None else dual_run.with_import(SCRIPT, import_line)
    with open(script_path, "w", encoding="utf-8") as script:
        script.write(source)
    return subprocess.run([sys.executable, script_path, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})})


def test_main_runs_the_tests_with_flags_and_exits_with_their_status(tmp_path):
    completed = _run(str(tmp_path / "main_test.py"), "--answer=42")
    assert completed.returncode == 1
    assert "Ran 3 tests" in completed.stderr and "FAILED (failures=1, skipped=1)" in completed.stderr
    assert "FAIL: testFails (__main__.MainTest" in completed.stderr
    selected = _run(str(tmp_path / "main_test.py"), "--answer=42", "MainTest.testFlagParsed")
    assert selected.returncode == 0 and "Ran 1 test" in selected.stderr and "OK" in selected.stderr


def test_main_runs_benchmarks_instead_when_asked(tmp_path):
    completed = _run(str(tmp_path / "bench_test.py"), "--benchmark_filter=SomeBenchmark")
    assert completed.returncode == 0, completed.stderr
    assert 'entry {\n  name: "SomeBenchmark.benchmarkAdd"\n  iters: 3\n' in completed.stdout
    assert 'extras {\n    key: "note"\n    value {\n      string_value: "x"\n' in completed.stdout
    assert "Ran " not in completed.stderr
    unmatched = _run(str(tmp_path / "bench_test.py"), "--benchmark_filter=Nothing")
    assert unmatched.returncode != 0 and "No benchmarks matched the pattern: 'Nothing'" in unmatched.stderr


@pytest.mark.tf
def test_main_ends_as_tensorflows(tmp_path):
    ours = _run(str(tmp_path / "ours_test.py"), "--answer=42")
    theirs = _run(str(tmp_path / "theirs_test.py"), "--answer=42", import_line=dual_run.THEIRS_IMPORT)
    assert ours.returncode == theirs.returncode == 1
    summary = [line for line in theirs.stderr.splitlines() if line.startswith(("Ran ", "FAILED", "OK"))]
    assert summary == ["Ran 3 tests in " + summary[0].split(" in ")[1], "FAILED (failures=1, skipped=1)"]
    assert [line for line in ours.stderr.splitlines() if line.startswith(("FAILED", "OK"))] == summary[1:]


def test_process_temp_dir_honours_test_tmpdir(tmp_path):
    probe = ("import graph.compat.v1 as tf, os; d = tf.test.get_temp_dir(); print(d); "
             "print(d == tf.test.get_temp_dir(), os.path.isdir(d))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                               env={**os.environ, "PYTHONPATH": ROOT, "TEST_TMPDIR": str(tmp_path / "pre")})
    directory, checks = completed.stdout.splitlines()
    assert os.path.basename(directory).startswith("pre") and os.path.dirname(directory) == str(tmp_path)
    assert checks == "True True"
    assert not os.path.exists(directory)  # removed when the process exited


def test_process_temp_dir_is_named_after_the_script():
    directory = tf.test.get_temp_dir()
    assert os.path.dirname(directory) == tempfile.gettempdir() and os.path.isdir(directory)
    assert directory == tf.test.get_temp_dir()


def test_disable_with_predicate_skips_at_run_time():
    source = '''
state = {"skip": False}


class PredicateTest(tf.test.TestCase):

    @tf.test.disable_with_predicate(lambda: state["skip"], "skipped by predicate")
    def testMaybe(self):
        self.assertTrue(True)


@tf.test.with_eager_op_as_function
class Decorated(tf.test.TestCase):

    def testKept(self):
        pass


@tf.test.with_eager_op_as_function(only_as_function=True)
class DecoratedWithArguments(tf.test.TestCase):

    def testKept(self):
        pass
'''
    module = dual_run.load(source, tf, "predicate_test")
    assert dual_run.run_module(module, tf)["PredicateTest.testMaybe"] == ("pass", "")
    module.state["skip"] = True
    outcomes = dual_run.run_module(module, tf)
    assert outcomes["PredicateTest.testMaybe"] == ("skip", "skipped by predicate")
    assert outcomes["Decorated.testKept"] == outcomes["DecoratedWithArguments.testKept"] == ("pass", "")
