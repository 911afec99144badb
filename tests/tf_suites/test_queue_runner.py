"""TensorFlow's QueueRunner suite, on both backends.

Port of tensorflow/python/training/queue_runner_test.py (tensorflow/tensorflow at 091ed8cd4db8): the same
test methods, inputs and expectations, rewritten against ``harness.tf``.  The original is Copyright 2015
The TensorFlow Authors, licensed under the Apache License, Version 2.0.  ``initialize_all_variables`` is
spelled ``global_variables_initializer`` (2.21 has only the new name).
"""

import time

import pytest

from tests.tf_suites.harness import TestCase, skip_both, tf



def _run_threads(threads):
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


class QueueRunnerTest(TestCase):

    def _counter(self, limit):
        var = tf.Variable(tf.constant(0, dtype=tf.int64))
        return var, var.count_up_to(limit)

    def testBasic(self):
        with self.cached_session() as sess:
            var, count_up_to = self._counter(3)  # CountUpTo raises OUT_OF_RANGE at the count
            queue = tf.FIFOQueue(10, tf.float32)
            self.evaluate(tf.global_variables_initializer())
            qr = tf.train.QueueRunner(queue, [count_up_to])
            _run_threads(qr.create_threads(sess))
            assert len(qr.exceptions_raised) == 0
            assert self.evaluate(var) == 3

    def testTwoOps(self):
        with self.cached_session() as sess:
            var0, count_up_to_3 = self._counter(3)
            var1, count_up_to_30 = self._counter(30)
            queue = tf.FIFOQueue(10, tf.float32)
            qr = tf.train.QueueRunner(queue, [count_up_to_3, count_up_to_30])
            threads = qr.create_threads(sess)
            self.evaluate(tf.global_variables_initializer())
            _run_threads(threads)
            assert len(qr.exceptions_raised) == 0
            assert self.evaluate(var0) == 3
            assert self.evaluate(var1) == 30

    @skip_both("outdated: TensorFlow 2.21 names each runner thread after its op's .name, so create_threads "
               "fails with AttributeError on the string 'ops' this test passes")
    def testExceptionsCaptured(self):
        with self.cached_session() as sess:
            queue = tf.FIFOQueue(10, tf.float32)
            qr = tf.train.QueueRunner(queue, ["i fail", "so fail"])
            threads = qr.create_threads(sess)
            self.evaluate(tf.global_variables_initializer())
            _run_threads(threads)
            exceptions = qr.exceptions_raised
            assert len(exceptions) == 2
            assert "Operation not in the graph" in str(exceptions[0])
            assert "Operation not in the graph" in str(exceptions[1])

    def testRealDequeueEnqueue(self):
        with self.cached_session() as sess:
            q0 = tf.FIFOQueue(3, tf.float32)
            enqueue0 = q0.enqueue((10.0,))
            close0 = q0.close()
            q1 = tf.FIFOQueue(30, tf.float32)
            enqueue1 = q1.enqueue((q0.dequeue(),))
            dequeue1 = q1.dequeue()
            qr = tf.train.QueueRunner(q1, [enqueue1])
            threads = qr.create_threads(sess)
            for thread in threads:
                thread.start()
            self.evaluate(enqueue0)  # two values, then close queue0
            self.evaluate(enqueue0)
            self.evaluate(close0)
            for thread in threads:
                thread.join()
            assert len(qr.exceptions_raised) == 0  # ended cleanly
            assert self.evaluate(dequeue1) == 10.0
            assert self.evaluate(dequeue1) == 10.0
            with pytest.raises(tf.errors.OutOfRangeError, match="is closed"):  # the runner closed queue1
                self.evaluate(dequeue1)

    def testRespectCoordShouldStop(self):
        with self.cached_session() as sess:
            var, count_up_to = self._counter(3)
            queue = tf.FIFOQueue(10, tf.float32)
            self.evaluate(tf.global_variables_initializer())
            qr = tf.train.QueueRunner(queue, [count_up_to])
            coord = tf.train.Coordinator()
            coord.request_stop()  # asked to stop before it starts: the runner finishes at once
            threads = qr.create_threads(sess, coord)
            for thread in threads:
                thread.start()
            coord.join(threads)
            assert len(qr.exceptions_raised) == 0
            assert self.evaluate(var) == 0

    @skip_both("outdated: TensorFlow 2.21 names each runner thread after its op's .name, so create_threads "
               "fails with AttributeError on the string 'ops' this test passes")
    def testRequestStopOnException(self):
        with self.cached_session() as sess:
            queue = tf.FIFOQueue(10, tf.float32)
            qr = tf.train.QueueRunner(queue, ["not an op"])
            coord = tf.train.Coordinator()
            threads = qr.create_threads(sess, coord)
            for thread in threads:
                thread.start()
            with pytest.raises(ValueError, match="Operation not in the graph"):  # re-raised by join
                coord.join(threads)

    def testGracePeriod(self):
        with self.cached_session() as sess:
            queue = tf.FIFOQueue(2, tf.float32)  # the enqueue blocks quickly
            enqueue = queue.enqueue((10.0,))
            dequeue = queue.dequeue()
            qr = tf.train.QueueRunner(queue, [enqueue])
            coord = tf.train.Coordinator()
            threads = qr.create_threads(sess, coord, start=True)
            self.evaluate(dequeue.op)
            time.sleep(0.02)
            coord.request_stop()
            # The stop closes the queue (cancel op), which ends the blocked enqueue.
            coord.join(threads, stop_grace_period_secs=0.5)  # TF's 0.05, with slack for a loaded machine

    @skip_both("outdated: TensorFlow 2.21's create_threads returns [] for a session it serves, it no longer "
               "raises 'Threads are already running'")
    def testNoMultiThreads(self):
        with self.cached_session() as sess:
            var, count_up_to = self._counter(3)
            queue = tf.FIFOQueue(10, tf.float32)
            self.evaluate(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            qr = tf.train.QueueRunner(queue, [count_up_to])
            threads = list(qr.create_threads(sess, coord=coord))
            with pytest.raises(RuntimeError, match="Threads are already running"):
                threads.extend(qr.create_threads(sess, coord=coord))
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=0.5)

    @skip_both("outdated: TensorFlow 2.21 names each runner thread after its op's .name, so create_threads "
               "fails with AttributeError on the string 'ops' this test passes")
    def testThreads(self):
        with self.cached_session() as sess:
            var, count_up_to = self._counter(3)
            queue = tf.FIFOQueue(10, tf.float32)
            self.evaluate(tf.global_variables_initializer())
            qr = tf.train.QueueRunner(queue, [count_up_to, "bad op"])
            for _ in range(2):  # the second round reports only its own error
                threads = qr.create_threads(sess, start=True)
                for thread in threads:
                    thread.join()
                exceptions = qr.exceptions_raised
                assert len(exceptions) == 1
                assert "Operation not in the graph" in str(exceptions[0])

    def testName(self):
        with tf.name_scope("scope"):
            queue = tf.FIFOQueue(10, tf.float32, name="queue")
        qr = tf.train.QueueRunner(queue, [tf.no_op()])
        assert qr.name == "scope/queue"
        tf.train.add_queue_runner(qr)
        assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS, "scope")) == 1
