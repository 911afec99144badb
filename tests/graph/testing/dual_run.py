"""Runs one TF1-style test source under both backends and reports each test's outcome and message.

The source is exec'd as a module with ``tf`` bound to ``graph.compat.v1`` (ours) or to real
``tensorflow.compat.v1`` (theirs); its ``tf.test.TestCase`` subclasses then run through unittest's loader and
a result that records, per test method, ``(outcome, message)``: outcome one of "pass", "fail", "error",
"skip"; message the failure's exception text (a skip's reason).
"""

from __future__ import annotations

import contextlib
import io
import logging
import types
import unittest
import warnings

import graph.compat.v1 as ours

OURS_IMPORT = "import graph.compat.v1 as tf"
THEIRS_IMPORT = "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()"


class _Recorder(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes: dict[str, tuple[str, str]] = {}

    @staticmethod
    def _name(test) -> str:
        return f"{type(test).__name__}.{test._testMethodName}"

    def addSuccess(self, test):  # noqa: N802 - unittest's names
        self.outcomes[self._name(test)] = ("pass", "")

    def addFailure(self, test, err):  # noqa: N802
        self.outcomes[self._name(test)] = ("fail", str(err[1]))

    def addError(self, test, err):  # noqa: N802
        self.outcomes[self._name(test)] = ("error", f"{type(err[1]).__name__}: {err[1]}")

    def addSkip(self, test, reason):  # noqa: N802
        self.outcomes[self._name(test)] = ("skip", reason)


def load(source: str, tf_module, name: str) -> types.ModuleType:
    """``source`` exec'd as module ``name`` with ``tf`` already bound to ``tf_module``."""
    module = types.ModuleType(name)
    module.tf = tf_module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - the test's own source
    return module


def run_module(module: types.ModuleType, tf_module) -> dict[str, tuple[str, str]]:
    """Runs every ``tf.test.TestCase`` subclass of ``module``; ``{Class.method: (outcome, message)}``."""
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, tf_module.test.TestCase) and value is not \
                tf_module.test.TestCase:
            suite.addTests(loader.loadTestsFromTestCase(value))
    recorder = _Recorder()
    # Kernel errors are logged by the test sessions and prints go to stdout: keep pytest's output readable.
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.ERROR)
        try:
            suite.run(recorder)
        finally:
            logging.disable(logging.NOTSET)
    return recorder.outcomes


def run_source(source: str, tf_module, name: str = "tf1_test") -> dict[str, tuple[str, str]]:
    """``source`` (whose ``tf`` is bound by the caller: no import line of its own) run under ``tf_module``."""
    return run_module(load(source, tf_module, name), tf_module)


def run_both(source: str, tf_module) -> tuple[dict, dict]:
    """(ours, theirs): the outcomes of ``source`` under graph.compat.v1 and under ``tf_module`` (TensorFlow)."""
    return run_source(source, ours, "ours_tf1_test"), run_source(source, tf_module, "theirs_tf1_test")


def with_import(source: str, import_line: str) -> str:
    """``source`` with its ``import graph.compat.v1 as tf`` line replaced by ``import_line`` (one line changed).

    Raises:
        AssertionError: if the source does not hold that import exactly once.
    """
    lines = source.splitlines(keepends=True)
    matches = [index for index, line in enumerate(lines) if line.rstrip("\n") == OURS_IMPORT]
    assert len(matches) == 1, f"expected one line {OURS_IMPORT!r}, found {len(matches)}"
    lines[matches[0]] = import_line + "\n"
    return "".join(lines)
