"""TensorFlow's queue-based input pipeline suite (first part: producers, helpers and tf.train.batch), both backends.

Port of tensorflow/python/training/input_test.py (tensorflow/tensorflow at 0304934138cb): MatchFilenamesOnceTest,
LimitEpochsTest, InputProducerTest, StringInputProducerTest, RangeInputProducerTest, SliceInputProducerTest,
DictHelperTest and BatchTest with the same inputs, steps and expectations, rewritten against ``harness.tf``.
The original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
``input``'s private ``_as_tensor_list`` / ``_as_original_type`` come from each backend through
``harness.private``; ``variables.local_variables_initializer().run()`` is run through ``self.evaluate``.
"""

import itertools
import os

import numpy as np
import pytest

from tests.tf_suites.harness import TestCase, private, tf


def _input_private(name):
    return private(f"tensorflow.python.training.input:{name}", f"graph.train.input:{name}")


def _initialize(case):
    case.evaluate(tf.global_variables_initializer())
    case.evaluate(tf.local_variables_initializer())


class MatchFilenamesOnceTest(TestCase):

    def test(self):
        temp_dir = self.get_temp_dir()
        filenames = [os.path.join(temp_dir, n) for n in os.listdir(temp_dir)]
        additional = [os.path.join(temp_dir, "match_filenames.%d" % i) for i in range(3)]
        for name in additional:
            with open(name, "w") as file:
                file.write("Some contents")
        filenames = list(set(filenames + additional))
        with tf.Graph().as_default(), self.cached_session():
            star = tf.train.match_filenames_once(os.path.join(temp_dir, "*"))
            question = tf.train.match_filenames_once(os.path.join(temp_dir, "match_filenames.?"))
            one = tf.train.match_filenames_once(additional[1])
            _initialize(self)
            assert sorted(self.evaluate(star)) == sorted(f.encode() for f in filenames)
            assert sorted(self.evaluate(question)) == sorted(f.encode() for f in additional)
            assert list(self.evaluate(one)) == [additional[1].encode()]


class LimitEpochsTest(TestCase):

    def testNoLimit(self):
        with tf.Graph().as_default(), self.cached_session():
            seven_forever = tf.train.limit_epochs(tf.constant(7))
            self.evaluate(tf.local_variables_initializer())
            for _ in range(100):
                assert self.evaluate(seven_forever) == 7

    def testLimit(self):
        with tf.Graph().as_default(), self.cached_session():
            love_me_two_times = tf.train.limit_epochs(tf.constant("Love Me"), num_epochs=2)
            _initialize(self)
            assert self.evaluate(love_me_two_times) == b"Love Me"
            assert self.evaluate(love_me_two_times) == b"Love Me"
            with pytest.raises(tf.errors.OutOfRangeError):
                self.evaluate(love_me_two_times)


def _drain(case, queue, expected, dequeue_count=None):
    """Dequeues all of `expected` at once, then expects OutOfRangeError; joins the runner threads."""
    dequeue_many = queue.dequeue_many(dequeue_count or len(expected))
    dequeue = queue.dequeue()
    _initialize(case)
    threads = tf.train.start_queue_runners()
    case.assertAllEqual(expected, case.evaluate(dequeue_many))
    with pytest.raises(tf.errors.OutOfRangeError):
        case.evaluate(dequeue)
    for thread in threads:
        thread.join()


def _frequencies_even(case, fetch_key, expected, rounds, limit_fetch):
    """Every round's order is one of `expected`, each about equally often; then the input is exhausted."""
    frequency = dict.fromkeys(expected, 0)
    for _ in range(rounds):
        key = fetch_key()
        assert key in expected
        frequency[key] += 1
    expected_frequency = rounds / len(expected)
    margin = expected_frequency * 0.4
    for key in expected:
        assert expected_frequency - margin < frequency[key] < expected_frequency + margin, frequency
    with pytest.raises(tf.errors.OutOfRangeError):
        case.evaluate(limit_fetch)


class InputProducerTest(TestCase):

    def testNoShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            input_tensor = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
            queue = tf.train.input_producer(input_tensor, num_epochs=2, shuffle=False)
            _drain(self, queue, input_tensor * 2)

    def testNoShapeInference(self):
        with tf.Graph().as_default(), self.cached_session():
            input_value = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
            input_tensor = tf.placeholder_with_default(input_value, shape=None)  # no static shape
            queue = tf.train.input_producer(input_tensor, element_shape=[4], num_epochs=2, shuffle=False)
            _drain(self, queue, input_value * 2)

    def testShapeError(self):
        with tf.Graph().as_default():
            input_tensor = tf.placeholder(tf.float32, None)
            with pytest.raises(ValueError, match="fully defined shape"):
                tf.train.input_producer(input_tensor)


class StringInputProducerTest(TestCase):

    def testNoShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            strings = [b"to", b"be", b"or", b"not", b"to", b"be"]
            queue = tf.train.string_input_producer(strings, num_epochs=3, shuffle=False)
            _drain(self, queue, strings * 3)

    def testShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            strings = [b"a", b"b", b"c"]
            num_epochs = 600
            queue = tf.train.string_input_producer(strings, num_epochs=num_epochs, shuffle=True, seed=271828)
            dequeue_many = queue.dequeue_many(len(strings))
            dequeue = queue.dequeue()
            _initialize(self)
            threads = tf.train.start_queue_runners()
            # shuffled within each epoch only: every epoch is one of the six orders
            expected = [b"abc", b"acb", b"bac", b"bca", b"cab", b"cba"]
            _frequencies_even(self, lambda: b"".join(self.evaluate(dequeue_many)), expected, num_epochs, dequeue)
            for thread in threads:
                thread.join()

    def testNullStringPython(self):
        with self.cached_session():
            with pytest.raises(ValueError):
                tf.train.string_input_producer([])

    def testNullString(self):
        # the runner fails its assertion on the empty input, so the dequeue ends with OutOfRangeError
        with tf.Graph().as_default(), self.cached_session():
            coord = tf.train.Coordinator()
            queue = tf.train.string_input_producer(tf.constant([], dtype=tf.string))
            dequeue = queue.dequeue()
            _initialize(self)
            threads = tf.train.start_queue_runners(coord=coord)
            with pytest.raises(tf.errors.OutOfRangeError):
                self.evaluate(dequeue)
            coord.request_stop()
            for thread in threads:
                thread.join()

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            strings = [b"to", b"be", b"or", b"not", b"to", b"be"]
            queue = tf.train.string_input_producer(strings, shared_name="SHARED_NAME_XYZ", name="Q")
            assert queue.queue_ref.op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"

    def testConstructionRace(self):
        with tf.Graph().as_default(), self.cached_session() as sess:
            strings = [b"to", b"be", b"or", b"not", b"to", b"be"]
            queue = tf.train.string_input_producer(strings, shuffle=False)
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            for _ in range(2):
                for string in strings:
                    # a new dequeue op per step, built while the runner threads run (not advised, but common)
                    assert self.evaluate(queue.dequeue()) == string
            coord.request_stop()
            coord.join(threads)


class RangeInputProducerTest(TestCase):

    def testNoShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            queue = tf.train.range_input_producer(5, num_epochs=3, shuffle=False)
            _drain(self, queue, list(range(5)) * 3)

    def testShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            num_epochs = 200
            queue = tf.train.range_input_producer(2, num_epochs=num_epochs, shuffle=True, seed=314159)
            dequeue_many = queue.dequeue_many(2)
            dequeue = queue.dequeue()
            _initialize(self)
            threads = tf.train.start_queue_runners()

            def key():
                output = self.evaluate(dequeue_many)
                return 10 * (output[0] + 1) + (output[1] + 1)
            _frequencies_even(self, key, [12, 21], num_epochs, dequeue)
            for thread in threads:
                thread.join()

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            queue = tf.train.range_input_producer(5, shared_name="SHARED_NAME_XYZ", name="Q")
            assert queue.queue_ref.op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"


class SliceInputProducerTest(TestCase):

    def testNoShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            source_strings = [b"Alpha", b"Beta", b"Delta", b"Gamma"]
            source_ints = [2, 3, 5, 7]
            slices = tf.train.slice_input_producer([source_strings, source_ints], num_epochs=3, shuffle=False)
            _initialize(self)
            threads = tf.train.start_queue_runners()
            output = [self.evaluate(slices) for _ in range(len(source_strings) * 3)]
            out_strings, out_ints = zip(*output)
            self.assertAllEqual(source_strings * 3, out_strings)
            self.assertAllEqual(source_ints * 3, out_ints)
            with pytest.raises(tf.errors.OutOfRangeError):
                self.evaluate(slices)
            for thread in threads:
                thread.join()

    def testShuffle(self):
        with tf.Graph().as_default(), self.cached_session():
            num_epochs = 1200
            slices = tf.train.slice_input_producer([["A", "B", "D", "G"], [7, 3, 5, 2]], num_epochs=num_epochs,
                                                   shuffle=True, seed=161803)
            _initialize(self)
            threads = tf.train.start_queue_runners()
            expected = [b",".join(x) for x in itertools.permutations([b"A7", b"B3", b"D5", b"G2"])]

            def key():
                output = [self.evaluate(slices) for _ in range(4)]
                return b",".join(s + str(i).encode() for s, i in output)
            _frequencies_even(self, key, expected, num_epochs, slices)
            for thread in threads:
                thread.join()

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            slices = tf.train.slice_input_producer([["A", "B", "D", "G"], [7, 3, 5, 2]],
                                                   shared_name="SHARED_NAME_XYZ", name="sip")
            queue_op = slices[0].op.inputs[1].op.inputs[0].op
            assert queue_op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"


class DictHelperTest(TestCase):

    def _round_trip(self, original, expected_list):
        as_list = _input_private("_as_tensor_list")(original)
        assert as_list == expected_list
        assert _input_private("_as_original_type")(original, as_list) == original

    def testListInputs(self):
        self._round_trip([1, 2, 3, 11, 22, 33], [1, 2, 3, 11, 22, 33])

    def testDictInputs(self):
        self._round_trip({"a": 1, "b": 2, "c": 3, "aa": 11, "bb": 22, "cc": 33}, [1, 11, 2, 22, 3, 33])

    def testHeterogeneousKeysDictInputs(self):
        self._round_trip({"z": 1, 1: 42, ("a", "b"): 100}, [100, 42, 1])
