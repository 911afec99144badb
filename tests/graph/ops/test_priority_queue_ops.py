"""Tests for graph/ops/priority_queue_ops.py and priority_queue_state.py: tf.PriorityQueue's graph, order, close
and cancel semantics and errors, each compared with TensorFlow's."""

import re
import threading
import time

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.ops.priority_queue_state import PriorityHeap
from tests.graph.graph_oracle import assert_same_graph_v1, import_and_run, raw_graph


def _error(error) -> tuple:
    """An error as (class, the message's line that says what failed), the same for both backends."""
    message = getattr(error, "message", str(error))
    lines = [line for line in message.splitlines() if line and not line.startswith(("\t", "Graph execution"))]
    # A queue without a shared_name is named by a process-wide counter ('_3_pq'): its value depends on what the
    # process built before, in TF and in ours alike.
    return type(error).__name__, re.sub(r"'_\d+_pq'", "'_N_pq'", lines[-1] if lines else message)


def _attempt(run):
    try:
        result = run()
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared with TF's
        return _error(error)
    return [np.asarray(value).tolist() for value in result] if isinstance(result, list) else result


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    def build(tf):
        q = tf.PriorityQueue(10, (tf.int32, tf.string), shapes=[(), (2,)], shared_name="pq_shared", name="pq")
        named = tf.PriorityQueue(-1, [tf.float32], shapes=[[3]], names=["priority", "x"])
        return [q.enqueue((1, 7, ["a", "b"])), q.enqueue_many(([3, 1], [1, 2], [["a", "b"], ["c", "d"]])),
                *q.dequeue(), *q.dequeue_many(2), *q.dequeue_up_to(3), q.close(), q.close(True), q.size(),
                q.is_closed(), named.enqueue({"priority": 5, "x": [1.0, 2.0, 3.0]}), *named.dequeue().values(),
                tf.queue.PriorityQueue is tf.PriorityQueue, tf.io.PriorityQueue is tf.PriorityQueue]

    (_, mine), (_, theirs) = assert_same_graph_v1(tf1, build)
    assert mine[-2:] == theirs[-2:] == [True, True]


def _interleaved(tf, seed: int) -> list:
    """Random enqueues (one or many) and dequeues (one, many, up to) of priorities with many ties."""
    rng = np.random.RandomState(seed)
    out = []
    with tf.Graph().as_default():
        q = tf.PriorityQueue(-1, [tf.int32], shapes=[()])
        priority = tf.placeholder(tf.int64, [None])
        value = tf.placeholder(tf.int32, [None])
        count = tf.placeholder(tf.int32, [])
        one_p, one_v = tf.placeholder(tf.int64, []), tf.placeholder(tf.int32, [])
        enqueue_many, enqueue = q.enqueue_many((priority, value)), q.enqueue((one_p, one_v))
        dequeue, dequeue_many, dequeue_up_to = q.dequeue(), q.dequeue_many(count), q.dequeue_up_to(count)
        size = q.size()
        with tf.Session() as session:
            serial = 0
            for _ in range(25):
                step = rng.randint(4)
                held = session.run(size)
                if step == 0:
                    n = rng.randint(1, 9)
                    session.run(enqueue_many, {priority: rng.randint(0, 3, n), value: np.arange(serial, serial + n)})
                    serial += n
                elif step == 1:
                    session.run(enqueue, {one_p: rng.randint(0, 3), one_v: serial})
                    serial += 1
                elif held and step == 2:
                    out.append([v.tolist() for v in session.run(dequeue)])
                elif held:
                    op = dequeue_many if rng.randint(2) else dequeue_up_to
                    out.append([v.tolist() for v in session.run(op, {count: rng.randint(0, held + 1)})])
            out.append([v.tolist() for v in session.run(dequeue_many, {count: session.run(size)})])
    return out


@pytest.mark.tf
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_priorities_dequeue_in_tensorflows_order(tf_module, seed):
    mine = _interleaved(ours, seed)
    assert mine == _interleaved(tf_module, seed)
    assert sum(np.size(values) for _, values in mine) > 20  # the sequence did move elements through


def test_heap_gives_smallest_priority_first():
    heap = PriorityHeap()
    for index, priority in enumerate([5, -2, 7, 0, -2, 9, 3]):
        heap.append((np.int64(priority), index))
    assert [int(heap.popleft()[0]) for _ in range(7)] == [-2, -2, 0, 3, 5, 7, 9]
    assert len(heap) == 0


def _close_and_errors(tf) -> list:
    results = []
    with tf.Graph().as_default():
        q = tf.PriorityQueue(4, (tf.int32,), shapes=((),), name="pq")
        fill = q.enqueue_many(([3, 1, 3, 2], [0, 1, 2, 3]))
        timeout = tf.RunOptions(timeout_in_ms=30)
        with tf.Session() as session:
            session.run(fill)
            results.append(_attempt(lambda: session.run(q.enqueue((0, 9)), options=timeout)))  # full
            session.run(q.dequeue())
            results.append(_attempt(lambda: session.run(q.dequeue_many(4), options=timeout)))  # never partial
            results.append(_attempt(lambda: session.run(q.size())))
            results.append(_attempt(lambda: session.run(q.dequeue_many(0))))
            results.append(_attempt(lambda: session.run(q.dequeue_up_to(-1))))
            up_to = q.dequeue_up_to(2)
            session.run(q.close())
            results.append(_attempt(lambda: session.run(up_to)))
            results.append(_attempt(lambda: session.run(q.dequeue_many(2))))  # one left: fails, keeps it
            results.append(_attempt(lambda: session.run(q.size())))
            results.append(_attempt(lambda: session.run(up_to)))  # takes the last, then fails: it is gone
            results.append(_attempt(lambda: session.run([q.size(), q.is_closed()])))
            results.append(_attempt(lambda: session.run(q.dequeue())))
            results.append(_attempt(lambda: session.run(q.enqueue((1, 1)))))
            results.append(_attempt(lambda: session.run(q.enqueue_many((np.zeros([0], np.int64), [])))))
            results.append(_attempt(lambda: session.run(q.close())))
    return results


@pytest.mark.tf
def test_close_and_run_time_errors_match_tensorflow(tf_module):
    mine = _close_and_errors(ours)
    assert mine == _close_and_errors(tf_module)
    assert mine[5] == [[2, 3], [3, 0]] and mine[8][0] == "OutOfRangeError" and mine[9] == [0, True]


def _close_with_a_waiting_enqueue(tf, cancel: bool) -> tuple:
    """A full queue, an enqueue waiting for room, then a close: what each run gives, and what is left after."""
    with tf.Graph().as_default():
        q = tf.PriorityQueue(1, (tf.int32,), shapes=((),), name="pq")
        enqueue, close, dequeue = q.enqueue((1, 1)), q.close(cancel_pending_enqueues=cancel), q.dequeue()
        with tf.Session() as session:
            session.run(q.enqueue((5, 5)))
            outcomes = {}

            def run_into(key, fetch):
                outcomes[key] = _attempt(lambda: session.run(fetch))

            threads = [threading.Thread(target=run_into, args=("enqueue", enqueue)),
                       threading.Thread(target=run_into, args=("close", close))]
            for thread in threads:
                thread.start()
                time.sleep(0.2)  # the enqueue waits for room before the close comes
            first = _attempt(lambda: session.run(dequeue))  # makes room: a close without cancel then completes
            for thread in threads:
                thread.join()
            rest = [_attempt(lambda: session.run(dequeue)) for _ in range(1 if cancel else 2)]
    return sorted(outcomes.items()), first, rest


@pytest.mark.tf
@pytest.mark.parametrize("cancel", [True, False])
def test_close_with_a_waiting_enqueue_matches_tensorflow(tf_module, cancel):
    mine = _close_with_a_waiting_enqueue(ours, cancel)
    assert mine == _close_with_a_waiting_enqueue(tf_module, cancel)
    assert mine[0][1] == ("enqueue", ("CancelledError", "Enqueue operation was cancelled") if cancel else None)


BUILD_ERRORS = {
    "shapes missing": lambda tf: tf.PriorityQueue(10, (tf.string,)),
    "shapes not a list": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=5),
    "partial shape": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[(None,)]),
    "too many shapes": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[(), ()]),
    "no types, shapes []": lambda tf: tf.PriorityQueue(10, [], shapes=[]),
    "names without the priority's": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[()], names=["a"]),
    "string priority": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[()]).enqueue(("x", "b")),
    "float priority": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[()]).enqueue((1.5, "b")),
    "vector priority": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[()]).enqueue(([1], "b")),
    "matrix priorities": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[()]).enqueue_many(([[1]], ["b"])),
    "tensor of another dtype": lambda tf: tf.PriorityQueue(10, (tf.int32,), shapes=[()]).enqueue(
        (tf.constant(1, tf.int64), tf.constant(1.5))),
    "int32 priority tensor": lambda tf: tf.PriorityQueue(10, (tf.int32,), shapes=[()]).enqueue(
        (tf.constant(1), tf.constant(1))),
    "dequeue_many(-1)": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[()]).dequeue_many(-1),
    "shapes [] is one scalar shape": lambda tf: tf.PriorityQueue(10, (tf.string,), shapes=[]).shapes,
}


@pytest.mark.tf
@pytest.mark.parametrize("case", list(BUILD_ERRORS))
def test_build_errors_match_tensorflow(tf_module, case):
    def outcome(tf):
        with tf.Graph().as_default():
            return _attempt(lambda: [s.as_list() for s in BUILD_ERRORS[case](tf)])

    assert outcome(ours) == outcome(tf_module)


def _feed_errors(tf) -> list:
    with tf.Graph().as_default():
        q = tf.PriorityQueue(10, (tf.string,), shapes=[()])
        p, o = tf.placeholder(tf.int64), tf.placeholder(tf.string)
        feeds = [(q.enqueue((p, o)), {p: [1, 2], o: "a"}), (q.enqueue_many((p, o)), {p: [[1, 2]], o: ["a"]}),
                 (q.enqueue_many((p, o)), {p: [1, 2], o: ["a"]}), (q.enqueue_many((p, o)), {p: [1], o: ["a", "b"]}),
                 (q.enqueue_many((p, o)), {p: np.zeros([0], np.int64), o: np.zeros([0], object)})]
        with tf.Session() as session:
            return [_attempt(lambda: session.run(op, feed)) for op, feed in feeds] + [session.run(q.size())]


@pytest.mark.tf
def test_fed_shape_errors_match_tensorflow(tf_module):
    assert _feed_errors(ours) == _feed_errors(tf_module)


def _shared(tf) -> list:
    with tf.Graph().as_default():
        first = tf.PriorityQueue(2, [tf.int32], shapes=[()], shared_name="sh", name="A")
        others = [tf.PriorityQueue(2, [tf.float32], shapes=[()], shared_name="sh", name="B"),
                  tf.PriorityQueue(2, [tf.int32], shapes=[(2,)], shared_name="sh", name="C"),
                  tf.PriorityQueue(3, [tf.int32], shapes=[()], shared_name="sh", name="D"),
                  tf.PriorityQueue(2, [tf.int32], shapes=[()], shared_name="sh", name="E")]
        with tf.Session() as session:
            session.run(first.enqueue((4, 4)))
            return [_attempt(lambda: session.run(q.size())) for q in others]


@pytest.mark.tf
def test_shared_queue_checks_match_tensorflow(tf_module):
    mine = _shared(ours)
    assert mine == _shared(tf_module)
    assert mine[-1] == 1


def _shared_with_a_fifo_queue(tf, priority_first: bool):
    with tf.Graph().as_default():
        fifo = tf.FIFOQueue(2, [tf.int64, tf.int32], shapes=[(), ()], shared_name="sh")
        priority = tf.PriorityQueue(2, [tf.int32], shapes=[()], shared_name="sh")
        first, second = (priority, fifo) if priority_first else (fifo, priority)
        with tf.Session() as session:
            session.run(first.size())
            return _attempt(lambda: session.run(second.size()))


@pytest.mark.tf
@pytest.mark.parametrize("priority_first", [True, False])
def test_a_fifo_queue_of_the_same_name_matches_tensorflow(tf_module, priority_first):
    mine = _shared_with_a_fifo_queue(ours, priority_first)
    assert mine == _shared_with_a_fifo_queue(tf_module, priority_first)
    assert mine[0] == "InvalidArgumentError"


def _unspecified_shapes_graph(raw_ops, tf):
    """A PriorityQueueV2 without shapes (only the raw op allows one) and its size."""
    queue = raw_ops.PriorityQueueV2(component_types=[tf.int32], shapes=[], name="raw")
    return [raw_ops.QueueSizeV2(handle=queue, name="size")]


@pytest.mark.tf
def test_queue_without_shapes_fails_as_in_tensorflow(tf_module):
    """TF checks a new queue against its op and, the priority's shape put in front, the request never matches."""
    data, names = raw_graph(tf_module, _unspecified_shapes_graph)

    def outcome(tf):
        shapes, (kind, message) = import_and_run(tf, data, names, {}, whole_message=True)
        line = [line for line in message.splitlines() if "Shared queue" in line][0]
        return shapes, kind, re.sub(r"'_\d+_raw'", "'_N_raw'", line)

    mine = outcome(ours)
    assert mine == outcome(tf_module)
    assert mine[2] == "Shared queue '_N_raw' has component shapes [] but requested component shapes were [[]]"
