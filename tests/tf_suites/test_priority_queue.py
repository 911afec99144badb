"""TensorFlow's PriorityQueue suite, on both backends.

Port of tensorflow/python/kernel_tests/data_structures/priority_queue_test.py (tensorflow/tensorflow at
0304934138cb): every method of PriorityQueueTest (all graph mode: the class is ``run_v1_only``), with the same
inputs and expectations, rewritten against ``harness.tf``.  The original is Copyright 2016 The TensorFlow
Authors, licensed under the Apache License, Version 2.0.  ``checkedThread`` is the harness's (a thread whose
failure fails the test at ``join``); the original's ``switch_to_thread_local()`` is left out, as the threads
here only run ops and build nothing.  Nothing is excluded.
"""

import copy
import random
import threading

import numpy as np

from tests.tf_suites.harness import TestCase, tf


def _side_values(elem, side_value_0, side_value_1):
    """Each priority's allowed (side value 0, side value 1) pairs, and the set of every pair."""
    allowed, every = {}, set()
    for e, v0, v1 in zip(elem, side_value_0, side_value_1):
        allowed.setdefault(e, set()).add((v0, v1))
        every.add((v0, v1))
    return allowed, every


class PriorityQueueTest(TestCase):

    def _run_threads(self, threads):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _check_sorted_with_side_values(self, deq, elem, side_value_0, side_value_1, all_taken=True):
        deq_elem, deq_value_0, deq_value_1 = deq
        allowed, missed = _side_values(elem, side_value_0, side_value_1)
        self.assertAllEqual(deq_elem, sorted(elem))
        for e, dv0, dv1 in zip(deq_elem, deq_value_0, deq_value_1):
            self.assertTrue((dv0, dv1) in allowed[e])
            if all_taken:
                missed.remove((dv0, dv1))
        if all_taken:
            self.assertEqual(missed, set())

    def _string_queue_inputs(self, size, low, high):
        q = tf.PriorityQueue(2000, (tf.string, tf.string), ((), ()))
        elem = np.random.randint(low, high, size=size).astype(np.int64)
        side_value_0 = np.random.rand(size).astype(bytes)
        side_value_1 = np.random.rand(size).astype(bytes)
        return q, elem, side_value_0, side_value_1

    def testRoundTripInsertReadOnceSorts(self):
        with self.cached_session():
            q, elem, side_value_0, side_value_1 = self._string_queue_inputs(100, -5, 5)
            enq_list = [q.enqueue((e, tf.constant(v0), tf.constant(v1)))
                        for e, v0, v1 in zip(elem, side_value_0, side_value_1)]
            for enq in enq_list:
                enq.run()
            deq = q.dequeue_many(100)
            self._check_sorted_with_side_values(self.evaluate(deq), elem, side_value_0, side_value_1)

    def testRoundTripInsertMultiThreadedReadOnceSorts(self):
        with self.cached_session():
            q, elem, side_value_0, side_value_1 = self._string_queue_inputs(100, -5, 5)
            enqueue_ops = [q.enqueue((e, tf.constant(v0), tf.constant(v1)))
                           for e, v0, v1 in zip(elem, side_value_0, side_value_1)]
            dequeue_op = q.dequeue_many(100)
            enqueue_threads = [self.checkedThread(target=self.evaluate, args=(op,)) for op in enqueue_ops]
            for t in enqueue_threads:  # one producer per element, while the dequeue waits for all of them
                t.start()
            deq = self.evaluate(dequeue_op)
            for t in enqueue_threads:
                t.join()
            self._check_sorted_with_side_values(deq, elem, side_value_0, side_value_1)

    def _many_producers_and_consumers(self, capacity):
        q = tf.PriorityQueue(capacity, (tf.int64), (()))
        num_threads = 40
        enqueue_counts = np.random.randint(10, size=num_threads)
        enqueue_values = [np.random.randint(5, size=count) for count in enqueue_counts]
        enqueue_ops = [q.enqueue_many((values, values)) for values in enqueue_values]
        shuffled_counts = copy.deepcopy(enqueue_counts)
        random.shuffle(shuffled_counts)
        dequeue_ops = [q.dequeue_many(count) for count in shuffled_counts]
        return enqueue_ops, dequeue_ops, np.hstack(enqueue_values)

    def testRoundTripFillsCapacityMultiThreadedEnqueueAndDequeue(self):
        with self.cached_session():
            enqueue_ops, dequeue_ops, all_enqueued_values = self._many_producers_and_consumers(10)
            dequeued = []

            def dequeue(dequeue_op):
                dequeue_indices, dequeue_values = self.evaluate(dequeue_op)
                self.assertAllEqual(dequeue_indices, dequeue_values)
                dequeued.extend(dequeue_indices)

            enqueue_threads = [self.checkedThread(target=self.evaluate, args=(op,)) for op in enqueue_ops]
            dequeue_threads = [self.checkedThread(target=dequeue, args=(op,)) for op in dequeue_ops]
            for t in dequeue_threads:  # consumers first: they wait while the capacity-10 queue fills
                t.start()
            for t in enqueue_threads:
                t.start()
            for t in enqueue_threads:
                t.join()
            for t in dequeue_threads:
                t.join()
            self.assertAllEqual(sorted(dequeued), sorted(all_enqueued_values))

    def testRoundTripInsertManyMultiThreadedReadManyMultithreadedSorts(self):
        with self.cached_session():
            enqueue_ops, dequeue_ops, all_enqueued_values = self._many_producers_and_consumers(2000)
            dequeue_wait = threading.Condition()
            dequeued = []

            def dequeue(dequeue_op):
                dequeue_indices, dequeue_values = self.evaluate(dequeue_op)
                self.assertAllEqual(dequeue_indices, dequeue_values)
                with dequeue_wait:
                    dequeued.extend(dequeue_indices)

            self._run_threads([self.checkedThread(target=self.evaluate, args=(op,)) for op in enqueue_ops])
            self._run_threads([self.checkedThread(target=dequeue, args=(op,)) for op in dequeue_ops])
            # The consumers' extends may interleave in any order: only the set of values is certain.
            self.assertAllEqual(set(dequeued), set(all_enqueued_values))

    def testRoundTripInsertManyMultiThreadedReadOnceSorts(self):
        with self.cached_session():
            q, elem, side_value_0, side_value_1 = self._string_queue_inputs(100, -5, 5)
            batch = 5
            enqueue_ops = [q.enqueue_many((elem[i * batch:(i + 1) * batch], side_value_0[i * batch:(i + 1) * batch],
                                           side_value_1[i * batch:(i + 1) * batch])) for i in range(20)]
            dequeue_op = q.dequeue_many(100)
            enqueue_threads = [self.checkedThread(target=self.evaluate, args=(op,)) for op in enqueue_ops]
            for t in enqueue_threads:
                t.start()
            deq = self.evaluate(dequeue_op)
            for t in enqueue_threads:
                t.join()
            self._check_sorted_with_side_values(deq, elem, side_value_0, side_value_1)

    def testRoundTripInsertOnceReadOnceSorts(self):
        with self.cached_session():
            q, elem, side_value_0, side_value_1 = self._string_queue_inputs(1000, -100, 100)
            q.enqueue_many((elem, side_value_0, side_value_1)).run()
            deq = q.dequeue_many(1000)
            # Here the original checks only that each pair belongs to its priority.
            self._check_sorted_with_side_values(self.evaluate(deq), elem, side_value_0, side_value_1,
                                                all_taken=False)

    def testRoundTripInsertOnceReadManySorts(self):
        with self.cached_session():
            q = tf.PriorityQueue(2000, (tf.int64), (()))
            elem = np.random.randint(-100, 100, size=1000).astype(np.int64)
            q.enqueue_many((elem, elem)).run()
            deq_values = np.hstack([q.dequeue_many(100)[0].eval() for _ in range(10)])
            self.assertAllEqual(deq_values, sorted(elem))

    def testRoundTripInsertOnceReadOnceLotsSorts(self):
        with self.cached_session():
            q = tf.PriorityQueue(2000, (tf.int64), (()))
            elem = np.random.randint(-100, 100, size=1000).astype(np.int64)
            q.enqueue_many((elem, elem)).run()
            dequeue_op = q.dequeue()
            deq_values = np.hstack([dequeue_op[0].eval() for _ in range(1000)])
            self.assertAllEqual(deq_values, sorted(elem))

    def testInsertingNonInt64Fails(self):
        with self.cached_session():
            q = tf.PriorityQueue(2000, (tf.string), (()))
            with self.assertRaises(TypeError):
                q.enqueue_many((["a", "b", "c"], ["a", "b", "c"])).run()

    def testInsertingNonScalarFails(self):
        with self.cached_session() as sess:
            input_priority = tf.placeholder(tf.int64)
            input_other = tf.placeholder(tf.string)
            q = tf.PriorityQueue(2000, (tf.string,), (()))
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        r"Shape mismatch in tuple component 0. Expected \[\], got \[2\]"):
                sess.run([q.enqueue((input_priority, input_other))],
                         feed_dict={input_priority: np.array([0, 2], dtype=np.int64),
                                    input_other: np.random.rand(3, 5).astype(bytes)})
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        r"Shape mismatch in tuple component 0. Expected \[2\], got \[2,2\]"):
                sess.run([q.enqueue_many((input_priority, input_other))],
                         feed_dict={input_priority: np.array([[0, 2], [3, 4]], dtype=np.int64),
                                    input_other: np.random.rand(2, 3).astype(bytes)})
