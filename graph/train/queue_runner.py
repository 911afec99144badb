"""tf.train.QueueRunner, add_queue_runner and start_queue_runners: threads that keep a queue filled.

A QueueRunner holds a queue, its enqueue ops (one thread each) and two closing ops.  Each thread runs its
enqueue op until the queue is closed (OutOfRangeError, say from an input producer's epoch limit, ends that
thread cleanly; the last thread to end closes the queue so its consumers drain it and then get
OutOfRangeError).  With a Coordinator, any other error is reported to it, and a further thread waits for
the stop request and runs the cancel op (close with ``cancel_pending_enqueues``), so blocked enqueues end.

A QueueRunner is exported into a MetaGraphDef's ``queue_runners`` collection as TF's QueueRunnerDef
(core/protobuf/queue_runner.proto)::

    QueueRunnerDef : 1 queue_name string, 2 enqueue_op_name string*, 3 close_op_name string,
                     4 cancel_op_name string, 5 queue_closed_exception_types error.Code* (packed)
"""

from __future__ import annotations

import threading
import weakref

from graph import errors
from graph.core import default_session
from graph.core import graph as graph_lib
from graph.core.graph_keys import GraphKeys
from graph.core.name_scopes import prepend_name_scope, strip_name_scope
from graph.platform import tf_logging as logging
from graph.proto.protobuf import ENUM, STRING, Field, Message

__all__ = ["QueueRunner", "QueueRunnerDef", "add_queue_runner", "start_queue_runners"]


class QueueRunnerDef(Message, full_name="tensorflow.QueueRunnerDef"):
    """A QueueRunner by the names of its queue and ops, and the error codes that mean 'queue closed'."""
    queue_name = Field(1, STRING)
    enqueue_op_name = Field(2, STRING, repeated=True)
    close_op_name = Field(3, STRING)
    cancel_op_name = Field(4, STRING)
    queue_closed_exception_types = Field(5, ENUM, repeated=True)


class QueueRunner:
    """Holds a list of enqueue operations for a queue, each to be run in a thread."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        """``queue`` and its ``enqueue_ops``; close/cancel ops default to the queue's close ops.

        Raises:
            ValueError: without a queue or enqueue ops.  TypeError: for bad ``queue_closed_exception_types``.
        """
        self._lock = threading.Lock()
        self._runs_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []
        if queue_runner_def is not None:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
            return
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        if queue_closed_exception_types is not None and (
                not isinstance(queue_closed_exception_types, tuple) or not queue_closed_exception_types
                or not all(isinstance(t, type) and issubclass(t, errors.OpError) for t in queue_closed_exception_types)):
            raise TypeError("queue_closed_exception_types, when provided, must be a tuple of tf.error types, but "
                            f"saw: {queue_closed_exception_types}")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))

    def _init_from_proto(self, queue_runner_def: QueueRunnerDef, import_scope: str | None) -> None:
        graph = graph_lib.get_default_graph()
        element = lambda name: graph.as_graph_element(prepend_name_scope(name, import_scope))  # noqa: E731
        self._queue = element(queue_runner_def.queue_name)  # the queue op: its .name is what runners use
        self._enqueue_ops = [element(name) for name in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(code) for code in queue_runner_def.queue_closed_exception_types
        ) or (errors.OutOfRangeError,)  # QueueRunnerDefs older than the field mean OutOfRangeError

    def to_proto(self, export_scope: str | None = None) -> QueueRunnerDef | None:
        """This runner as a QueueRunnerDef (None if its queue is outside ``export_scope``)."""
        if export_scope is not None and not self.name.startswith(export_scope):
            return None
        return QueueRunnerDef(
            queue_name=strip_name_scope(self.name, export_scope),
            enqueue_op_name=[strip_name_scope(op.name, export_scope) for op in self._enqueue_ops],
            close_op_name=strip_name_scope(self._close_op.name, export_scope),
            cancel_op_name=strip_name_scope(self._cancel_op.name, export_scope),
            queue_closed_exception_types=[errors.error_code_from_exception_type(t)
                                          for t in self._queue_closed_exception_types])

    @staticmethod
    def from_proto(queue_runner_def: QueueRunnerDef, import_scope: str | None = None) -> QueueRunner:
        """A QueueRunner for the ops a QueueRunnerDef names in the default graph."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

    queue = property(lambda self: self._queue, doc="The queue this runner fills.")
    enqueue_ops = property(lambda self: self._enqueue_ops, doc="The enqueue ops, one thread each.")
    close_op = property(lambda self: self._close_op, doc="The op closing the queue when all threads are done.")
    cancel_op = property(lambda self: self._cancel_op, doc="The op closing the queue and cancelling enqueues.")
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types,
                                            doc="Exceptions that mean the queue was closed.")
    name = property(lambda self: self._queue.name, doc="The string name of the underlying Queue.")

    @property
    def exceptions_raised(self) -> list:
        """Exceptions raised by the threads when no coordinator was given."""
        return self._exceptions_raised

    def _run(self, sess, enqueue_op, coord=None) -> None:
        decremented = False
        try:
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:  # the last thread closes the queue
                            try:
                                sess.run(self._close_op)
                            except Exception as error:  # noqa: BLE001 - TF ignores close errors (closed already)
                                logging.vlog(1, "Ignored exception: %s", str(error))
                    return
        except Exception as error:  # noqa: BLE001 - reported to the coordinator, or kept and re-raised
            if coord:
                coord.request_stop(error)
            else:
                logging.error("Exception in QueueRunner: %s", str(error))
                with self._lock:
                    self._exceptions_raised.append(error)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord) -> None:
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as error:  # noqa: BLE001 - TF ignores cancel errors (queue closed, session closed)
            logging.vlog(1, "Ignored exception: %s", str(error))

    def create_threads(self, sess, coord=None, daemon: bool = False, start: bool = False) -> list:
        """Threads running the enqueue ops in ``sess`` (plus one closing the queue on ``coord``'s stop).

        Returns an empty list if this runner's threads already run in ``sess``.
        """
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}") for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for thread in threads:
            if coord:
                coord.register_thread(thread)
            if daemon:
                thread.daemon = True
            if start:
                thread.start()
        return threads


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds ``qr`` to the graph's ``collection`` (QUEUE_RUNNERS), for start_queue_runners."""
    graph_lib.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon: bool = True, start: bool = True,
                        collection: str = GraphKeys.QUEUE_RUNNERS) -> list:
    """Starts the threads of every QueueRunner in ``collection`` of ``sess``'s graph; returns them.

    Raises:
        ValueError: without a session and no default one.  TypeError: if ``sess`` is not a Session.
    """
    if sess is None:
        sess = default_session.get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
        return []  # TF: a monitored session started its queue runners itself
    if not (hasattr(sess, "run") and hasattr(sess, "graph")):
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    runners = sess.graph.get_collection(collection)
    if not runners:
        logging.warning("`tf.train.start_queue_runners()` was called when no queue runners were defined. You can "
                        "safely remove the call to this deprecated function.")
    threads = []
    with sess.graph.as_default():
        for runner in runners:
            threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
