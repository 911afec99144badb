"""TensorFlow's FIFOQueue suite, on both backends.

Port of tensorflow/python/kernel_tests/data_structures/fifo_queue_test.py (tensorflow/tensorflow at
3a2c6ae8b910): the graph-mode halves of FIFOQueueTest and the first part of UnconvertedFIFOQueueTests
(through testEnqueueDequeueMultipleComponent), with the same inputs and expectations, rewritten against
``harness.tf``.  The original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License,
Version 2.0.  ``assertProtoEquals`` on the queue's NodeDef is checked field by field; the two tests TensorFlow
wraps in a ``tf.function`` (testEnqueueManyEmptyTypeConversion, testEnqueueWrongType) build in the test's graph.
"""

import random

import numpy as np
import pytest

from tests.tf_suites.harness import TestCase, excluded, tf


def _shapes_attr(op):
    shapes = op.get_attr("shapes")
    return [[d.size for d in s.dim] if hasattr(s, "dim") else s.as_list() for s in shapes]


class FIFOQueueTest(TestCase):

    def _check_node_def(self, q, types, shapes, capacity, shared_name):
        op = q.queue_ref.op
        assert isinstance(q.queue_ref, tf.Tensor)
        assert (op.name, op.type) == ("Q", "FIFOQueueV2")
        assert [t.name for t in op.get_attr("component_types")] == types
        assert _shapes_attr(op) == shapes
        assert op.get_attr("capacity") == capacity
        assert op.get_attr("container") in (b"", "")
        assert op.get_attr("shared_name") in (shared_name.encode(), shared_name)

    def testConstructor(self):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(10, tf.float32, name="Q")
        self._check_node_def(q, ["float32"], [], 10, "")

    def testMultiQueueConstructor(self):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(5, (tf.int32, tf.float32), shared_name="foo", name="Q")
        self._check_node_def(q, ["int32", "float32"], [], 5, "foo")

    def testConstructorWithShapes(self):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(5, (tf.int32, tf.float32), shapes=(tf.TensorShape([1, 1, 2, 3]), tf.TensorShape([5, 8])),
                             name="Q")
        self._check_node_def(q, ["int32", "float32"], [[1, 1, 2, 3], [5, 8]], 5, "")

    def testEnqueue(self):
        q = tf.FIFOQueue(10, tf.float32)
        self.evaluate(q.enqueue((10.0,)))

    def testEnqueueHalf(self):
        q = tf.FIFOQueue(10, tf.float16)
        self.evaluate(q.enqueue((10.0,)))

    def testEnqueueWithShape(self):
        q = tf.FIFOQueue(10, tf.float32, shapes=(3, 2))
        self.evaluate(q.enqueue(([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],)))
        with pytest.raises(ValueError):
            q.enqueue(([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],))
        assert self.evaluate(q.size()) == 1

    def testEnqueueManyWithShape(self):
        q = tf.FIFOQueue(10, [tf.int32, tf.int32], shapes=[(), (2,)])
        self.evaluate(q.enqueue_many([[1, 2, 3, 4], [[1, 1], [2, 2], [3, 3], [4, 4]]]))
        assert self.evaluate(q.size()) == 4

    def testMultipleDequeues(self):
        q = tf.FIFOQueue(10, [tf.int32], shapes=[()])
        self.evaluate(q.enqueue_many([[1, 2, 3]]))
        a, b, c = self.evaluate([q.dequeue(), q.dequeue(), q.dequeue()])
        assert {int(a), int(b), int(c)} == {1, 2, 3}

    def testQueuesDontShare(self):
        q = tf.FIFOQueue(10, [tf.int32], shapes=[()])
        self.evaluate(q.enqueue(1))
        q2 = tf.FIFOQueue(10, [tf.int32], shapes=[()])
        self.evaluate(q2.enqueue(2))
        self.assertAllEqual(self.evaluate(q2.dequeue()), 2)
        self.assertAllEqual(self.evaluate(q.dequeue()), 1)

    testQueueInFunction = excluded("eager", "queues created inside a tf.function of a tf.Module, and their "
                                   "resources destroyed with the module in eager mode")

    def testEnqueueDictWithoutNames(self):
        q = tf.FIFOQueue(10, tf.float32)
        with pytest.raises(ValueError, match="must have names"):
            q.enqueue({"a": 12.0})
        with pytest.raises(ValueError, match="must have names"):
            q.enqueue_many({"a": [12.0, 13.0]})

    def _dequeue_in_order(self, dtype):
        q = tf.FIFOQueue(10, dtype)
        elems = [10.0, 20.0, 30.0]
        for x in elems:
            self.evaluate(q.enqueue((x,)))
        for i in range(len(elems)):
            assert [elems[i]] == self.evaluate(q.dequeue())

    def testDequeue(self):
        self._dequeue_in_order(tf.float32)

    def testDequeueHalf(self):
        self._dequeue_in_order(tf.float16)

    def testMultiEnqueueAndDequeue(self):
        q = tf.FIFOQueue(10, (tf.int32, tf.float32))
        elems = [(5, 10.0), (10, 20.0), (15, 30.0)]
        for x in elems:
            self.evaluate(q.enqueue(x))
        for i in range(len(elems)):
            x_val, y_val = self.evaluate(q.dequeue())
            x, y = elems[i]
            assert [x] == x_val
            assert [y] == y_val

    def testQueueSizeEmpty(self):
        q = tf.FIFOQueue(10, tf.float32)
        assert [0] == self.evaluate(q.size())

    def testQueueSizeAfterEnqueueAndDequeue(self):
        q = tf.FIFOQueue(10, tf.float32)
        assert q.size().get_shape() == []
        self.evaluate(q.enqueue((10.0,)))
        assert self.evaluate(q.size()) == 1
        self.evaluate(q.dequeue())
        assert self.evaluate(q.size()) == 0

    def testEnqueueMany(self):
        q = tf.FIFOQueue(10, tf.float32)
        elems = [10.0, 20.0, 30.0, 40.0]
        self.evaluate(q.enqueue_many((elems,)))
        self.evaluate(q.enqueue_many((elems,)))
        for i in range(8):
            assert [elems[i % 4]] == self.evaluate(q.dequeue())

    def testEmptyEnqueueMany(self):
        q = tf.FIFOQueue(10, tf.float32)
        empty_t = tf.constant([], dtype=tf.float32, shape=[0, 2, 3])
        assert [0] == self.evaluate(q.size())
        self.evaluate(q.enqueue_many((empty_t,)))
        assert [0] == self.evaluate(q.size())

    def testEmptyDequeueMany(self):
        q = tf.FIFOQueue(10, tf.float32, shapes=())
        assert self.evaluate(q.dequeue_many(0)).tolist() == []
        self.evaluate(q.enqueue((10.0,)))
        assert self.evaluate(q.dequeue_many(0)).tolist() == []

    def testEmptyDequeueUpTo(self):
        q = tf.FIFOQueue(10, tf.float32, shapes=())
        assert self.evaluate(q.dequeue_up_to(0)).tolist() == []
        self.evaluate(q.enqueue((10.0,)))
        assert self.evaluate(q.dequeue_up_to(0)).tolist() == []

    def testEmptyDequeueManyWithNoShape(self):
        q = tf.FIFOQueue(10, tf.float32)
        with self.assertRaisesOpError("specified shapes"):  # the shape is not constrained
            self.evaluate(q.dequeue_many(0))

    def testMultiEnqueueMany(self):
        q = tf.FIFOQueue(10, (tf.float32, tf.int32))
        float_elems = [10.0, 20.0, 30.0, 40.0]
        int_elems = [[1, 2], [3, 4], [5, 6], [7, 8]]
        self.evaluate(q.enqueue_many((float_elems, int_elems)))
        self.evaluate(q.enqueue_many((float_elems, int_elems)))
        for i in range(8):
            float_val, int_val = self.evaluate(q.dequeue())
            assert float_elems[i % 4] == float_val
            self.assertAllEqual(int_elems[i % 4], int_val)

    def _dequeue_four_twice(self, method):
        q = tf.FIFOQueue(10, tf.float32, ())
        elems = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0]
        self.evaluate(q.enqueue_many((elems,)))
        self.assertAllEqual(elems[0:4], self.evaluate(getattr(q, method)(4)))
        self.assertAllEqual(elems[4:8], self.evaluate(getattr(q, method)(4)))

    def testDequeueMany(self):
        self._dequeue_four_twice("dequeue_many")

    def testDequeueUpToNoBlocking(self):
        self._dequeue_four_twice("dequeue_up_to")

    FLOATS = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0]
    INTS = [[2 * i + 1, 2 * i + 2] for i in range(10)]

    def testMultiDequeueMany(self):
        q = tf.FIFOQueue(10, (tf.float32, tf.int32), shapes=((), (2,)))
        self.evaluate(q.enqueue_many((self.FLOATS, self.INTS)))
        dequeued_t = q.dequeue_many(4)
        float_val, int_val = self.evaluate(dequeued_t)
        self.assertAllEqual(self.FLOATS[0:4], float_val)
        self.assertAllEqual(self.INTS[0:4], int_val)
        assert float_val.shape == tuple(dequeued_t[0].get_shape().as_list())
        assert int_val.shape == tuple(dequeued_t[1].get_shape().as_list())
        float_val, int_val = self.evaluate(q.dequeue_many(4))
        self.assertAllEqual(self.FLOATS[4:8], float_val)
        self.assertAllEqual(self.INTS[4:8], int_val)
        dequeued_single_t = q.dequeue()
        float_val, int_val = self.evaluate(dequeued_single_t)
        self.assertAllEqual(self.FLOATS[8], float_val)
        self.assertAllEqual(self.INTS[8], int_val)
        assert np.shape(float_val) == tuple(dequeued_single_t[0].get_shape().as_list())
        assert int_val.shape == tuple(dequeued_single_t[1].get_shape().as_list())

    def testMultiDequeueUpToNoBlocking(self):
        q = tf.FIFOQueue(10, (tf.float32, tf.int32), shapes=((), (2,)))
        self.evaluate(q.enqueue_many((self.FLOATS, self.INTS)))
        dequeued_t = q.dequeue_up_to(4)
        float_val, int_val = self.evaluate(dequeued_t)
        self.assertAllEqual(self.FLOATS[0:4], float_val)
        self.assertAllEqual(self.INTS[0:4], int_val)
        assert dequeued_t[0].get_shape().as_list() == [None]
        assert dequeued_t[1].get_shape().as_list() == [None, 2]
        float_val, int_val = self.evaluate(q.dequeue_up_to(4))
        self.assertAllEqual(self.FLOATS[4:8], float_val)
        self.assertAllEqual(self.INTS[4:8], int_val)

    def testHighDimension(self):
        q = tf.FIFOQueue(10, tf.int32, (4, 4, 4, 4))
        elems = np.array([[[[[x] * 4] * 4] * 4] * 4 for x in range(10)], np.int32)
        self.evaluate(q.enqueue_many((elems,)))
        self.assertAllEqual(self.evaluate(q.dequeue_many(10)), elems)

    def testEnqueueWrongShape(self):
        q = tf.FIFOQueue(10, (tf.int32, tf.int32), ((), (2)))
        with pytest.raises(ValueError):
            q.enqueue(([1, 2], [2, 2]))
        with pytest.raises(ValueError):
            q.enqueue_many((7, [[1, 2], [3, 4], [5, 6]]))

    def testEnqueueManyEmptyTypeConversion(self):
        q = tf.FIFOQueue(10, (tf.int32, tf.float32), ((), ()))
        enq = q.enqueue_many(([], []))
        assert enq.inputs[1].dtype == tf.int32
        assert enq.inputs[2].dtype == tf.float32

    def testEnqueueWrongType(self):
        q = tf.FIFOQueue(10, (tf.int32, tf.float32), ((), ()))
        with pytest.raises(ValueError):
            q.enqueue((tf.placeholder(tf.int32), tf.placeholder(tf.int32)))
        with pytest.raises(ValueError):
            q.enqueue_many((tf.placeholder(tf.int32), tf.placeholder(tf.int32)))


class GPUCompatibleFIFOQueueTests(TestCase):
    testEnqueueWithShape = excluded("GPU", "GPUCompatibleFIFOQueue enqueue with a shape")
    testEnqueueDequeue = excluded("GPU", "GPUCompatibleFIFOQueue keeps values on the GPU")


class UnconvertedFIFOQueueTests(TestCase):

    def testDequeueManyWithTensorParameter(self):
        with self.cached_session():
            dequeue_counts = [random.randint(1, 10) for _ in range(100)]  # a first queue of counts
            count_q = tf.FIFOQueue(100, tf.int32, ())
            enqueue_counts_op = count_q.enqueue_many((dequeue_counts,))
            total_count = sum(dequeue_counts)
            elems = [random.randint(0, 100) for _ in range(total_count)]  # a second queue of elements
            q = tf.FIFOQueue(total_count, tf.int32, ())
            enqueue_elems_op = q.enqueue_many((elems,))
            dequeued_t = q.dequeue_many(count_q.dequeue())  # dequeue a count, then that many elements
            self.evaluate(enqueue_counts_op)
            self.evaluate(enqueue_elems_op)
            dequeued_elems = []
            for _ in dequeue_counts:
                dequeued_elems.extend(self.evaluate(dequeued_t))
            assert elems == dequeued_elems

    def testDequeueFromClosedQueue(self):
        with self.cached_session():
            q = tf.FIFOQueue(10, tf.float32)
            elems = [10.0, 20.0, 30.0, 40.0]
            enqueue_op = q.enqueue_many((elems,))
            close_op = q.close()
            dequeued_t = q.dequeue()
            self.evaluate(enqueue_op)
            self.evaluate(close_op)
            for elem in elems:
                assert [elem] == self.evaluate(dequeued_t)
            with pytest.raises(tf.errors.OutOfRangeError, match="is closed and has insufficient"):
                self.evaluate(dequeued_t)

    def testDoesNotLoseValue(self):
        with self.cached_session():
            q = tf.FIFOQueue(1, tf.float32)
            enqueue_op = q.enqueue((10.0,))
            size_t = q.size()
            self.evaluate(enqueue_op)
            for _ in range(500):
                assert self.evaluate(size_t) == [1]

    def testSharedQueueSameSession(self):
        with self.cached_session():
            q1 = tf.FIFOQueue(1, tf.float32, shared_name="shared_queue")
            self.evaluate(q1.enqueue((10.0,)))
            q2 = tf.FIFOQueue(1, tf.float32, shared_name="shared_queue")
            q1_size_t, q2_size_t = q1.size(), q2.size()
            assert self.evaluate(q1_size_t) == [1]
            assert self.evaluate(q2_size_t) == [1]
            assert self.evaluate(q2.dequeue()) == [10.0]
            assert self.evaluate(q1_size_t) == [0]
            assert self.evaluate(q2_size_t) == [0]
            self.evaluate(q2.enqueue((20.0,)))
            assert self.evaluate(q1_size_t) == [1]
            assert self.evaluate(q2_size_t) == [1]
            assert self.evaluate(q1.dequeue()) == [20.0]
            assert self.evaluate(q1_size_t) == [0]
            assert self.evaluate(q2_size_t) == [0]

    def testIncompatibleSharedQueueErrors(self):
        with self.cached_session():
            cases = [((10, tf.float32, None), (15, tf.float32, None), "capacity"),
                     ((10, tf.float32, None), (10, tf.int32, None), "component types"),
                     ((10, tf.float32, None), (10, tf.float32, [(1, 1, 2, 3)]), "component shapes"),
                     ((10, tf.float32, [(1, 1, 2, 3)]), (10, tf.float32, None), "component shapes"),
                     ((10, tf.float32, [(1, 1, 2, 3)]), (10, tf.float32, [(1, 1, 2, 4)]), "component shapes"),
                     ((10, tf.float32, None), (10, (tf.float32, tf.int32), None), "component types")]
            for index, (first, second, message) in enumerate(cases):
                name = f"q_{'abcdef'[index]}"
                q_1 = tf.FIFOQueue(first[0], first[1], shapes=first[2], shared_name=name)
                q_2 = tf.FIFOQueue(second[0], second[1], shapes=second[2], shared_name=name)
                self.evaluate(q_1.queue_ref.op)
                with self.assertRaisesOpError(message):
                    self.evaluate(q_2.queue_ref.op)

    def testSelectQueue(self):
        with self.cached_session():
            qlist = [tf.FIFOQueue(10, tf.float32) for _ in range(10)]
            for _ in range(20):
                q = tf.FIFOQueue.from_list(np.random.randint(10), qlist)
                self.evaluate(q.enqueue((10.0,)))
                assert self.evaluate(q.dequeue()) == 10.0

    def testSelectQueueOutOfRange(self):
        with self.cached_session():
            q1 = tf.FIFOQueue(10, tf.float32)
            q2 = tf.FIFOQueue(15, tf.float32)
            enq_q = tf.FIFOQueue.from_list(3, [q1, q2])
            with self.assertRaisesOpError("is not in"):
                self.evaluate(enq_q.dequeue())

    def testDtypes(self):
        with self.cached_session():
            dtypes = [tf.float32, tf.float64, tf.int32, tf.uint8, tf.int16, tf.int8, tf.int64, tf.uint16, tf.bool,
                      tf.complex64, tf.complex128]
            shape = (32, 4, 128)
            q = tf.FIFOQueue(32, dtypes, [shape[1:]] * len(dtypes))
            input_tuple = []
            for dtype in dtypes:
                np_array = np.random.randint(-10, 10, shape)
                if dtype == tf.bool:
                    np_array = np_array > 0
                elif dtype in (tf.complex64, tf.complex128):
                    np_array = np.sqrt(np_array.astype(dtype.as_numpy_dtype))
                else:
                    np_array = np_array.astype(dtype.as_numpy_dtype)
                input_tuple.append(np_array)
            self.evaluate(q.enqueue_many(input_tuple))
            output_tuple = self.evaluate(q.dequeue_many(32))
            for input_elem, output_elem in zip(input_tuple, output_tuple):
                self.assertAllEqual(input_elem, output_elem)

    def testEnqueueDequeueOneComponent(self):
        with self.cached_session() as sess:
            q = tf.FIFOQueue(10, tf.float32, shapes=((),), names="f")
            for bad in (10.0, (10.0,)):  # with names, enqueue takes a dictionary ...
                with pytest.raises(ValueError, match="enqueue a dictionary"):
                    q.enqueue(bad)
            for bad in ({}, {"x": 12}, {"f": 10.0, "s": "aa"}):  # ... whose keys are the names
                with pytest.raises(ValueError, match="match names of Queue"):
                    q.enqueue(bad)
            ops = [q.enqueue({"f": 10.0}), q.enqueue({"f": 20.0}), q.enqueue({"f": 30.0})]
            with pytest.raises(ValueError, match="enqueue a dictionary"):
                q.enqueue_many([40.0, 50.0])
            for bad in ({}, {"x": 12}, {"f": [40.0, 50.0], "s": ["aa", "bb"]}):
                with pytest.raises(ValueError, match="match names of Queue"):
                    q.enqueue_many(bad)
            ops.append(q.enqueue_many({"f": [40.0, 50.0]}))
            dequeue, dequeue_2 = q.dequeue(), q.dequeue_many(2)
            for op in ops:
                self.evaluate(op)
            assert sess.run(dequeue["f"]) == 10.0
            assert list(sess.run(dequeue_2["f"])) == [20.0, 30.0]
            assert list(sess.run(dequeue_2["f"])) == [40.0, 50.0]

    def testEnqueueDequeueMultipleComponent(self):
        with self.cached_session() as sess:
            q = tf.FIFOQueue(10, (tf.float32, tf.int32, tf.string), shapes=((), (), ()), names=("f", "i", "s"))
            with pytest.raises(ValueError, match="enqueue a dictionary"):
                q.enqueue((10.0, 123, "aa"))
            for bad in ({}, {"x": 10.0}, {"i": 12, "s": "aa"}, {"i": 123, "s": "aa", "f": 10.0, "x": 10.0}):
                with pytest.raises(ValueError, match="match names of Queue"):
                    q.enqueue(bad)
            ops = [q.enqueue({"i": 123, "s": "aa", "f": 10.0}), q.enqueue({"i": 124, "s": "bb", "f": 20.0}),
                   q.enqueue({"i": 125, "s": "cc", "f": 30.0})]
            with pytest.raises(ValueError, match="enqueue a dictionary"):
                q.enqueue_many(([40.0, 50.0], [126, 127], ["dd", "ee"]))
            for bad in ({}, {"x": [10.0, 20.0]}, {"i": [12, 12], "s": ["aa", "bb"]},
                        {"f": [40.0, 50.0], "i": [126, 127], "s": ["dd", "ee"], "x": [1, 2]}):
                with pytest.raises(ValueError, match="match names of Queue"):
                    q.enqueue_many(bad)
            ops.append(q.enqueue_many({"f": [40.0, 50.0], "i": [126, 127], "s": ["dd", "ee"]}))
            dequeue, dequeue_2 = q.dequeue(), q.dequeue_many(2)
            for op in ops:
                self.evaluate(op)
            i, f, s = sess.run([dequeue["i"], dequeue["f"], dequeue["s"]])
            assert (i, f, s) == (123, 10.0, b"aa")
            i, f, s = sess.run([dequeue_2["i"], dequeue_2["f"], dequeue_2["s"]])
            assert list(i) == [124, 125] and list(f) == [20.0, 30.0] and list(s) == [b"bb", b"cc"]
            i, f, s = sess.run([dequeue_2["i"], dequeue_2["f"], dequeue_2["s"]])
            assert list(i) == [126, 127] and list(f) == [40.0, 50.0] and list(s) == [b"dd", b"ee"]
