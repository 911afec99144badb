"""QueueRunner and start_queue_runners (graph/train/queue_runner.py): threads, closing, errors, collections."""

import pytest

import graph.compat.v1 as ours
from graph import errors


def _counter_pipeline(limit=10):
    counter = ours.Variable(0, name="counter")
    increment = ours.assign_add(counter, 1)
    guarded = ours.train.limit_epochs(increment, limit)
    queue = ours.FIFOQueue(limit + 5, ours.int32, shapes=[[]])
    return queue, queue.enqueue(guarded)


def test_runner_threads_fill_the_queue_and_close_it_at_the_end():
    with ours.Graph().as_default():
        queue, enqueue = _counter_pipeline()
        runner = ours.train.QueueRunner(queue, [enqueue, enqueue])
        with ours.Session() as sess:
            sess.run([ours.global_variables_initializer(), ours.local_variables_initializer()])
            threads = runner.create_threads(sess)
            assert runner.create_threads(sess) == []  # not again for a session it serves
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(5)
            assert runner.exceptions_raised == []
            assert sorted(sess.run(queue.dequeue_many(10)).tolist()) == list(range(1, 11))
            assert sess.run(queue.is_closed())


def test_errors_go_to_the_coordinator_and_the_cancel_op_unblocks_enqueues():
    with ours.Graph().as_default():
        queue, enqueue = _counter_pipeline()
        ours.train.add_queue_runner(ours.train.QueueRunner(queue, [enqueue]))
        assert len(ours.get_collection(ours.GraphKeys.QUEUE_RUNNERS)) == 1
        with ours.Session() as sess:  # variables never initialized: the enqueue fails
            coord = ours.train.Coordinator()
            threads = ours.train.start_queue_runners(sess, coord)
            with pytest.raises(errors.FailedPreconditionError, match="uninitialized value counter"):
                coord.join(threads, stop_grace_period_secs=5)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # TF re-raises in the thread
def test_without_coordinator_errors_are_kept():
    with ours.Graph().as_default():
        queue, enqueue = _counter_pipeline()
        runner = ours.train.QueueRunner(queue, [enqueue])
        with ours.Session() as sess:
            threads = runner.create_threads(sess, start=True)
            for thread in threads:
                thread.join(5)
            assert [type(e) for e in runner.exceptions_raised] == [errors.FailedPreconditionError]


def test_argument_checks():
    with ours.Graph().as_default():
        with pytest.raises(ValueError, match="Must provide queue and enqueue_ops"):
            ours.train.QueueRunner()
        queue = ours.FIFOQueue(1, ours.int32)
        with pytest.raises(TypeError, match="queue_closed_exception_types"):
            ours.train.QueueRunner(queue, [queue.enqueue(1)], queue_closed_exception_types=(ValueError,))
        with pytest.raises(ValueError, match="No default session is registered"):
            ours.train.start_queue_runners()


@pytest.mark.tf
def test_queue_runner_def_and_meta_graph_round_trip_with_tensorflow(tf1, tmp_path):
    def build(tf):
        tf.train.string_input_producer(["a", "b"], shuffle=False)
        return [qr.to_proto() for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]
    expected = [p.SerializeToString() for p in build(tf1)]
    tf1.train.export_meta_graph(str(tmp_path / "tf.meta"))
    with ours.Graph().as_default():
        assert [p.to_bytes() for p in build(ours)] == expected
        ours.train.export_meta_graph(str(tmp_path / "ours.meta"))
    with ours.Graph().as_default():  # TF's .meta: its queue runner comes back as a QueueRunner that runs
        ours.train.import_meta_graph(str(tmp_path / "tf.meta"))
        (runner,) = ours.get_collection(ours.GraphKeys.QUEUE_RUNNERS)
        assert isinstance(runner, ours.train.QueueRunner) and runner.name == "input_producer"
        names = ours.QueueBase([ours.string], [[]], None, runner.queue.outputs[0]).dequeue()
        with ours.Session() as sess:
            coord = ours.train.Coordinator()
            threads = ours.train.start_queue_runners(sess, coord)
            assert [sess.run(names) for _ in range(3)] == [b"a", b"b", b"a"]
            coord.request_stop()
            coord.join(threads)
    with tf1.Graph().as_default():  # ours read by TF
        tf1.train.import_meta_graph(str(tmp_path / "ours.meta"))
        (runner,) = tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)
        assert runner.name == "input_producer" and [op.name for op in runner.enqueue_ops] == [
            "input_producer/input_producer_EnqueueMany"]
