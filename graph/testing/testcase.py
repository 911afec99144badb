"""``tf.test.TestCase``: absl's TestCase (unittest's, with absl's assertions) plus TF 2.21's graph-mode test_util.

Each test starts in a fresh default graph whose seed is TF's ``DEFAULT_GRAPH_SEED``, with Python's and numpy's
generators seeded alike.  ``cached_session()`` opens one Session per test on the graph that is the default when
it is first asked for, and hands it out again until ``tearDown`` closes it (asking again with another graph,
config or ``force_gpu`` is TF's ValueError); ``session()`` opens a new one for its block.  Both make the session
and its graph the defaults inside the block, and run with TF's test config: soft placement unless
``force_gpu``, Grappler's constant folding off.  ``use_gpu=False`` pins the block's ops to the CPU,
``force_gpu=True`` to ``/device:GPU:0`` (this emulator has no GPU, so such ops fail to place, as on a CPU-only
TensorFlow).  ``evaluate`` runs tensors (any nest of them) in the default session, else the cached one.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import tempfile
import threading
import time
import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from absl.testing import absltest

from graph import errors
from graph.base import nest
from graph.core import default_session
from graph.core import graph as graph_lib
from graph.core import random_seed
from graph.core.device_spec import canonical_name
from graph.core.graph_class import default_graph_stack
from graph.platform import deprecation, tf_logging
from graph.proto.config import ConfigProto, GPUOptions, RewriterConfig
from graph.runtime.session import Session
from graph.testing import environment, runner
from graph.testing.array_assertions import ArrayAssertions
from graph.testing.proto_assertions import ProtoAssertions

__all__ = ["TestCase"]

_RESERVED_TEST_NAME = ".test_session"  # TF's session helper is named like a test; unittest collects it


class _ErrorLoggingSession(Session):
    """A Session that logs the errors of its runs before raising them (TF's ErrorLoggingSession)."""

    def run(self, *args, **kwargs):
        """Session.run, logging the error of a failed run (OutOfRangeError, an input's normal end, is not)."""
        try:
            return super().run(*args, **kwargs)
        except Exception as error:
            if not isinstance(error, errors.OutOfRangeError):
                tf_logging.error(str(error))
            raise


class CapturedWrites:
    """What a stream received inside ``captureWritesToStream``."""

    def __init__(self, capture_location: str):
        self.capture_location = capture_location

    def contents(self) -> str:
        """The captured text."""
        with open(self.capture_location, encoding="utf-8") as captured:
            return captured.read()


def _test_config(config: ConfigProto | None, force_gpu: bool) -> ConfigProto:
    """TF's test session config: its eager context's default (one CPU, no GPU, soft placement unless
    ``force_gpu``) when none is given, with optimization level L0 and constant folding off."""
    allow_soft_placement = not force_gpu
    if config is None or (not allow_soft_placement and config.allow_soft_placement):
        # TF replaces a config that allows soft placement under force_gpu by its default one.
        config = ConfigProto(device_count={"CPU": 1, "GPU": 0},
                             gpu_options=GPUOptions(experimental=GPUOptions.Experimental()),
                             allow_soft_placement=allow_soft_placement, experimental=ConfigProto.Experimental(),
                             pluggable_device_options=GPUOptions(experimental=GPUOptions.Experimental()))
    # A given config is edited in place, as TF does.
    config.graph_options.optimizer_options.opt_level = -1
    config.graph_options.rewrite_options.constant_folding = RewriterConfig.OFF
    config.graph_options.rewrite_options.pin_to_host_optimization = RewriterConfig.OFF
    return config


class TestCase(ArrayAssertions, ProtoAssertions, absltest.TestCase):
    """Base class for tests of graphs: sessions, ``evaluate`` and TF's assertions."""

    def __init__(self, methodName: str = "runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._threads: list[TestCase._CheckedThread] = []
        self._tempdir: str | None = None
        self._cached_session: Session | None = None
        self._test_start_time: float | None = None
        self._set_default_seed = True  # TF's switch for the graph seed setUp sets

    def setUp(self) -> None:
        """A fresh default graph seeded with TF's default seed; Python's and numpy's generators seeded too."""
        super().setUp()
        self._ClearCachedSession()
        random.seed(random_seed.DEFAULT_GRAPH_SEED)
        np.random.seed(random_seed.DEFAULT_GRAPH_SEED)
        # A test that failed inside `with graph.as_default()` (e.g. under assertRaises) may leave it entered.
        default_graph_stack.stack.clear()
        graph_lib.reset_default_graph()
        if self._set_default_seed:
            random_seed.set_random_seed(random_seed.DEFAULT_GRAPH_SEED)
        if self.id().endswith(_RESERVED_TEST_NAME):
            self.skipTest("Not a test.")
        self._test_start_time = time.time()

    def tearDown(self) -> None:
        """Checks that every checked thread was joined, then closes the cached session."""
        if self._test_start_time is not None:
            tf_logging.info("time(%s): %ss", self.id(), round(time.time() - self._test_start_time, 2))
        for thread in self._threads:
            thread.check_termination()
        self._ClearCachedSession()
        super().tearDown()

    def _ClearCachedSession(self) -> None:  # noqa: N802 - TF's name
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    def get_temp_dir(self) -> str:
        """A directory of this test's own (the same for every call in the test), inside the run's temp dir."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(dir=runner.get_temp_dir())
        return self._tempdir

    @contextlib.contextmanager
    def captureWritesToStream(self, stream) -> Iterator[CapturedWrites]:  # noqa: N802
        """Redirects ``stream``'s file descriptor into a file while the block runs; yields what it captured."""
        stream.flush()
        descriptor = stream.fileno()
        capture, capture_path = tempfile.mkstemp(dir=self.get_temp_dir())
        original = os.dup(descriptor)
        os.dup2(capture, descriptor)
        try:
            yield CapturedWrites(capture_path)
        finally:
            os.close(capture)
            os.dup2(original, descriptor)
            os.close(original)

    def assertStartsWith(self, actual, expected_start, msg=None) -> None:  # noqa: N802
        """``actual.startswith(expected_start)`` (TF's wording, not absl's)."""
        if not actual.startswith(expected_start):
            fail_msg = "%r does not start with %r" % (actual, expected_start)
            fail_msg += " : %r" % (msg,) if msg else ""
            self.fail(fail_msg)

    # ------------------------------------------------------------------ sessions
    def evaluate(self, tensors):
        """The values of ``tensors`` (a graph value or any nest of them) from the default session, else from
        this test's cached session."""
        session = default_session.get_default_session()
        flattened = nest.flatten(tensors)
        if session is None:
            with self._test_session() as session:  # test_session's semantics, without its deprecation notice
                results = session.run(flattened)
        else:
            results = session.run(flattened)
        return nest.pack_sequence_as(tensors, results)

    @contextlib.contextmanager
    def _constrain_devices_and_set_default(self, sess: Session, use_gpu: bool, force_gpu: bool):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device(environment.gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    def _create_session(self, graph, config, force_gpu: bool) -> Session:
        return _ErrorLoggingSession(graph=graph, config=_test_config(config, force_gpu))

    def _get_cached_session(self, graph=None, config=None, force_gpu: bool = False,
                            crash_if_inconsistent_args: bool = True) -> Session:
        if self._cached_session is None:
            self._cached_session = self._create_session(graph=graph, config=config, force_gpu=force_gpu)
            self._cached_graph, self._cached_config, self._cached_force_gpu = graph, config, force_gpu
            return self._cached_session
        if crash_if_inconsistent_args and self._cached_graph is not graph:
            raise ValueError("The graph used to get the cached session is different than the one that was used to "
                             "create the session. Maybe create a new session with self.session()")
        if crash_if_inconsistent_args and self._cached_config is not config:
            raise ValueError("The config used to get the cached session is different than the one that was used to "
                             "create the session. Maybe create a new session with self.session()")
        if crash_if_inconsistent_args and self._cached_force_gpu is not force_gpu:
            raise ValueError("The force_gpu value used to get the cached session is different than the one that was "
                             "used to create the session. Maybe create a new session with self.session()")
        return self._cached_session

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu: bool = True, force_gpu: bool = False) -> Iterator[Session]:
        """A new Session on ``graph`` (the default graph) for the block, made the default with its graph.

        Args:
            graph: the graph to run; the default graph when None.
            config: a ConfigProto (edited in place to TF's test settings).
            use_gpu: False pins the block's ops to the CPU.
            force_gpu: pins the block's ops to ``/device:GPU:0`` without soft placement.
        """
        with self._create_session(graph, config, force_gpu) as sess:
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu: bool = True,
                       force_gpu: bool = False) -> Iterator[Session]:
        """This test's one Session (opened on first use, closed in ``tearDown``), default inside the block.

        Raises:
            ValueError: if ``graph``, ``config`` (by identity) or ``force_gpu`` differ from the first call's.
        """
        sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=True)
        with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
            yield cached

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu: bool = True,
                     force_gpu: bool = False) -> Iterator[Session]:
        """The cached session, whatever arguments it was opened with; with ``graph`` a new session
        (deprecated: TF's older spelling of ``cached_session``)."""
        deprecation.deprecated_call("TensorFlowTestCase.test_session", "tensorflow.python.framework.test_util",
                                    None, "Use `self.session()` or `self.cached_session()` instead.", depth=2)
        with self._test_session(graph, config, use_gpu, force_gpu) as sess:
            yield sess

    @contextlib.contextmanager
    def _test_session(self, graph=None, config=None, use_gpu: bool = True, force_gpu: bool = False):
        if self.id().endswith(_RESERVED_TEST_NAME):
            self.skipTest('Tests that have the name "test_session" are automatically skipped by TensorFlow test '
                          "fixture, as the name is reserved for creating sessions within tests. Please rename your "
                          "test if you have a test with this name.")
        if graph is None:
            sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=False)
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
                yield cached
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    # ------------------------------------------------------------------ threads
    class _CheckedThread:
        """A thread whose exception fails the test at ``join``; one never joined fails it at ``tearDown``."""

        def __init__(self, testcase: TestCase, target: Callable, args: tuple | None = None,
                     kwargs: dict | None = None):
            self._testcase = testcase
            self._target = target
            self._args = () if args is None else args
            self._kwargs = {} if kwargs is None else kwargs
            self._thread = threading.Thread(target=self._protected_run)
            self._exception: Exception | None = None
            self._is_thread_joined = False

        def _protected_run(self) -> None:
            try:
                self._target(*self._args, **self._kwargs)
            except Exception as error:  # noqa: BLE001 - handed to the joining test
                self._exception = error

        def start(self) -> None:
            """Starts the thread (at most once)."""
            self._thread.start()

        def join(self) -> None:
            """Waits for the thread; fails the test if its target raised."""
            self._is_thread_joined = True
            self._thread.join()
            if self._exception is not None:
                self._testcase.fail("Error in checkedThread: %s" % str(self._exception))

        def is_alive(self) -> bool:
            """Whether the thread is running."""
            return self._thread.is_alive()

        def check_termination(self) -> None:
            """Fails the test for a thread never joined; RuntimeError for one joined but still running."""
            if self._is_thread_joined:
                if self.is_alive():
                    raise RuntimeError("Thread was not joined with main thread, and is still running when the test "
                                       "finished.")
            else:
                self._testcase.fail("A checked thread was not joined.")

    def checkedThread(self, target: Callable, args: tuple | None = None,  # noqa: N802
                      kwargs: dict | None = None) -> TestCase._CheckedThread:
        """A thread wrapper (``start``, ``join``, ``is_alive``) whose target's exception fails the test."""
        thread = TestCase._CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # ------------------------------------------------------------------ errors and devices
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        """A block expected to raise ``exception_type`` whose message matches a regex (searched, with the failing
        op's name and its origins appended for an OpError) or for which a predicate holds.

        Raises:
            AssertionError: "Exception of type ..." when the block raised something else or nothing.
        """
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(error) -> Any:
                if isinstance(error, errors.OpError):
                    err_str, op = error.message, error.op
                else:
                    err_str, op = str(error), None
                while op is not None:
                    err_str += "\nCaused by: " + op.name
                    op = getattr(op, "_original_op", None)
                tf_logging.info("Searching within error strings: '%s' within '%s'", expected_err_re_or_predicate,
                                err_str)
                return re.search(expected_err_re_or_predicate, err_str)
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as error:  # noqa: BLE001 - TF judges every exception, its own failure included
            if not isinstance(error, exception_type) or not predicate(error):
                raise AssertionError("Exception of type %s: %s" % (str(type(error)), str(error))) from error

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """assertRaisesWithPredicateMatch for ``tf.errors.OpError``."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=errors.InvalidArgumentError):  # noqa: N802
        """A block expected to raise TF's incompatible-shapes error."""
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes")

    def assertDeviceEqual(self, device1, device2, msg=None) -> None:  # noqa: N802
        """Two device strings or DeviceSpecs name one device once canonicalized."""
        device1, device2 = canonical_name(device1), canonical_name(device2)
        self.assertEqual(device1, device2, "Devices %s and %s are not equal. %s" % (device1, device2, msg))

    assertRaisesRegexp = unittest.TestCase.assertRaisesRegex  # noqa: N815 - TF keeps the old spelling
    assertItemsEqual = unittest.TestCase.assertCountEqual  # noqa: N815 - and unittest's count-equality for it
