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
