"""``tf.test.main`` and the test process around it: its temporary directory and TF's test decorators.

``main(argv)`` is TF's: with ``--benchmark_filter=REGEX`` it runs the benchmarks, otherwise absl's ``app.run``
parses the flags (``tf.flags`` ones included) and absl's test runner runs the ``__main__`` module's tests, then
exits with their status; unittest's arguments (test names, ``-k`` patterns) pass through.  ``get_temp_dir()`` is
one directory per process, named with ``$TEST_TMPDIR`` as its prefix when set (as TF's ``mkdtemp``), else in the
system's temp dir named after the script, removed when the process exits.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from unittest import mock

from absl import app
from absl.testing import absltest

from graph.platform import tf_logging
from graph.testing import benchmark

__all__ = ["main", "get_temp_dir", "disable_with_predicate", "with_eager_op_as_function", "mock"]

_temp_dir: list[str] = []  # the process's directory, made on first use


def main(argv: list[str] | None = None) -> None:
    """Runs the ``__main__`` module's tests (or, with ``--benchmark_filter=``, its benchmarks), then exits.

    Args:
        argv: the command line (default ``sys.argv``): absl flags, unittest's arguments.
    """
    def run_tests() -> None:
        app.run(main=lambda args: absltest.main(argv=args), argv=sys.argv if argv is None else argv)

    benchmark.benchmarks_main(true_main=run_tests, argv=argv)


def _script_name() -> str:
    """The file of the outermost frame: the script the process runs (TF's tf_inspect.stack()[-1])."""
    frame = sys._getframe()
    while frame.f_back is not None:
        frame = frame.f_back
    return os.path.basename(frame.f_code.co_filename)


def _remove(directory: str) -> None:
    try:
        shutil.rmtree(directory)
    except OSError as error:
        tf_logging.error("Error removing %s: %s", directory, error)


def get_temp_dir() -> str:
    """This process's temporary directory for tests (the same on every call; removed at exit)."""
    if not _temp_dir:
        if os.environ.get("TEST_TMPDIR"):
            directory = tempfile.mkdtemp(prefix=os.environ["TEST_TMPDIR"])
        else:
            # TF strips the characters '.', 'p', 'y' from the end of the script's name (str.rstrip's set).
            directory = tempfile.mkdtemp(prefix=os.path.join(tempfile.gettempdir(), _script_name()).rstrip(".py"))
        directory = directory.replace("/", os.sep)
        atexit.register(_remove, directory)
        _temp_dir.append(directory)
    return _temp_dir[0]


def disable_with_predicate(pred: Callable[[], bool], skip_message: str):
    """A decorator skipping the test method with ``skip_message`` when ``pred()`` is true at run time."""
    def decorator_disable_with_predicate(func):
        @functools.wraps(func)
        def wrapper_disable_with_predicate(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper_disable_with_predicate
    return decorator_disable_with_predicate


def with_eager_op_as_function(cls: type | None = None, only_as_function: bool = False):
    """The class unchanged (TF keeps the decorator for old tests; there is no eager mode to vary here)."""
    del only_as_function

    def decorator(test_class: type) -> type:
        return test_class

    return decorator(cls) if cls is not None else decorator
