"""tf.data datasets against TensorFlow: the same elements in the same order, the same inferred structure."""

import collections
import threading

import numpy as np
import pytest

import graph.compat.v1 as ours
from tests.graph.data.data_oracle import assert_same_elements, both, drain

Point = collections.namedtuple("Point", ["x", "y"])
MATRIX = np.arange(24, dtype=np.float32).reshape(6, 4)


def _reduce_positive(tf, x):
    return tf.reduce_sum(x) > 0


CASES = {
    "slices": lambda tf: tf.data.Dataset.from_tensor_slices(MATRIX),
    "slices_tuple": lambda tf: tf.data.Dataset.from_tensor_slices((np.arange(4), np.array([b"a", b"b", b"c", b"d"]))),
    "slices_dict": lambda tf: tf.data.Dataset.from_tensor_slices({"b": np.arange(3.0), "a": np.eye(3, dtype=np.int32)}),
    "slices_namedtuple": lambda tf: tf.data.Dataset.from_tensor_slices(Point(np.arange(3), np.arange(3) * 2)),
    "slices_list_is_tensor": lambda tf: tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]),
    "tensors": lambda tf: tf.data.Dataset.from_tensors((MATRIX, 7)),
    "range1": lambda tf: tf.data.Dataset.range(5),
    "range3": lambda tf: tf.data.Dataset.range(10, 1, -3),
    "range_int32": lambda tf: tf.data.Dataset.range(2, 6, output_type=tf.int32),
    "zip": lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(3, 10).map(lambda x: x * 2))),
    "zip_dict": lambda tf: tf.data.Dataset.zip({"a": tf.data.Dataset.range(2), "b": tf.data.Dataset.from_tensors(1.0).repeat()}),
    "concatenate": lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 12)),
    "map_tuple_args": lambda tf: tf.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4.0))).map(
        lambda a, b: (tf.cast(a, tf.float64) * b, a + 1)),
    "map_dict": lambda tf: tf.data.Dataset.from_tensor_slices({"k": np.arange(3)}).map(lambda d: d["k"] * 3),
    "map_returns_dict": lambda tf: tf.data.Dataset.range(3).map(lambda x: {"sq": x * x, "neg": -x}),
    "map_python_constant": lambda tf: tf.data.Dataset.range(3).map(lambda x: (x, 1.5)),
    "map_capture": lambda tf: (lambda c: tf.data.Dataset.range(4).map(lambda x: x + c))(tf.constant(100, tf.int64)),
    "map_cond": lambda tf: tf.data.Dataset.range(6).map(lambda x: tf.cond(x > 2, lambda: x * 10, lambda: -x)),
    "filter": lambda tf: tf.data.Dataset.range(20).filter(lambda x: tf.equal(x % 3, 0)),
    "batch": lambda tf: tf.data.Dataset.range(10).batch(4),
    "batch_drop": lambda tf: tf.data.Dataset.range(10).batch(4, drop_remainder=True),
    "batch_nested": lambda tf: tf.data.Dataset.from_tensor_slices((MATRIX, np.arange(6))).batch(4),
    "padded_batch": lambda tf: tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None]),
    "padded_batch_fixed": lambda tf: tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(
        3, padded_shapes=[6], padding_values=tf.constant(-1, tf.int64)),
    "padded_batch_default": lambda tf: tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x, 2], tf.cast(x, tf.float32))).padded_batch(2),
    "shuffle": lambda tf: tf.data.Dataset.range(20).shuffle(7, seed=3),
    "shuffle_big_buffer": lambda tf: tf.data.Dataset.range(50).shuffle(1000, seed=42),
    "shuffle_no_reshuffle": lambda tf: tf.data.Dataset.range(12).shuffle(5, seed=9, reshuffle_each_iteration=False).repeat(2),
    "shuffle_repeat": lambda tf: tf.data.Dataset.range(8).shuffle(8, seed=1).repeat(3),
    "repeat_shuffle": lambda tf: tf.data.Dataset.range(8).repeat(3).shuffle(5, seed=11),
    "repeat": lambda tf: tf.data.Dataset.range(3).repeat(2),
    "repeat_forever_take": lambda tf: tf.data.Dataset.range(3).repeat().take(8),
    "repeat_empty_forever": lambda tf: tf.data.Dataset.range(0).repeat(),
    "take_skip": lambda tf: tf.data.Dataset.range(10).skip(3).take(4),
    "take_all_skip_none": lambda tf: tf.data.Dataset.range(4).take(-1).skip(0),
    "skip_all": lambda tf: tf.data.Dataset.range(4).skip(-1),
    "prefetch": lambda tf: tf.data.Dataset.range(5).prefetch(2),
    "flat_map": lambda tf: tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x)),
    "interleave": lambda tf: tf.data.Dataset.range(1, 5).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2),
    "interleave_block1": lambda tf: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.range(10 * x, 10 * x + x), cycle_length=3),
    "cache_repeat": lambda tf: tf.data.Dataset.range(4).map(lambda x: x + 1).cache().repeat(2),
    "unbatch": lambda tf: tf.data.Dataset.from_tensors((MATRIX[:3], np.arange(3))).unbatch(),
    "enumerate": lambda tf: tf.data.Dataset.from_tensor_slices(np.array([b"x", b"y"])).enumerate(start=5),
    "pipeline": lambda tf: tf.data.Dataset.from_tensor_slices((MATRIX, np.arange(6))).shuffle(6, seed=7).map(
        lambda x, y: (x * 2.0, y)).filter(lambda x, y: y < 5).batch(2).repeat(2),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_elements_as_tensorflow(tf1, name):
    mine, theirs = both(tf1, CASES[name], limit=200)
    assert_same_elements(mine, theirs)


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_structure_as_tensorflow(tf1, name):
    with ours.Graph().as_default():
        mine = CASES[name](ours)
        mine_types, mine_shapes = mine.output_types, mine.output_shapes
    theirs = CASES[name](tf1)
    assert repr(mine_types) == repr(theirs.output_types)
    assert str(mine_shapes) == str(theirs.output_shapes)


@pytest.mark.tf
def test_reinitializing_a_shuffled_iterator_restarts_its_order(tf1):
    def orders(tf):
        with tf.Graph().as_default():
            iterator = tf.data.make_initializable_iterator(tf.data.Dataset.range(10).shuffle(10, seed=4))
            element = iterator.get_next()
            with tf.Session() as session:
                result = []
                for _ in range(2):
                    session.run(iterator.initializer)
                    result.append([int(session.run(element)) for _ in range(10)])
                return result
    assert orders(ours) == orders(tf1)


@pytest.mark.tf
def test_random_ops_in_functions_restart_with_each_iterator(tf1):
    """TF instantiates a dataset's functions per iterator: a random op inside ``map`` draws the same numbers after
    each initialization, two iterators draw independently, and ``repeat`` / ``flat_map`` continue its stream."""
    def draws(tf):
        with tf.Graph().as_default():
            tf.set_random_seed(230)
            noisy = tf.data.Dataset.range(3).map(lambda i: tf.random_uniform([]))
            iterators = [tf.data.make_initializable_iterator(noisy) for _ in range(2)]
            first, second = (iterator.get_next() for iterator in iterators)
            repeated = tf.data.make_initializable_iterator(
                tf.data.Dataset.range(2).flat_map(lambda i: noisy).repeat(2))
            element = repeated.get_next()
            with tf.Session() as session:
                rounds = []
                for _ in range(2):  # initialized twice: each round draws the same
                    session.run([iterator.initializer for iterator in iterators])
                    rounds.append([float(v) for v in session.run([first, second]) + [session.run(first)]])
                session.run(repeated.initializer)
                return rounds, [float(session.run(element)) for _ in range(12)]
    mine, theirs = draws(ours), draws(tf1)
    assert mine == theirs
    (rounds, stream) = mine
    assert rounds[0] == rounds[1] and rounds[0][0] == rounds[0][1] != rounds[0][2] and len(set(stream)) == 12


@pytest.mark.tf
def test_graph_seed_sets_the_shuffle_order(tf1):
    def build(tf):
        tf.set_random_seed(1234)
        return tf.data.Dataset.range(15).shuffle(15)
    assert_same_elements(*both(tf1, build))


@pytest.mark.tf
def test_one_shot_iterator_draws_a_seed_as_tensorflow(tf1):
    """make_one_shot_iterator takes one op seed of the graph, so later seedless random ops draw what TF's do."""
    def run(tf):
        with tf.Graph().as_default():
            tf.set_random_seed(41)
            element = tf.data.Dataset.range(6).shuffle(6).make_one_shot_iterator().get_next()
            weights = tf.truncated_normal([4])
            [op] = [op for op in tf.get_default_graph().get_operations() if op.type == "TruncatedNormal"]
            with tf.Session() as session:
                return [int(session.run(element)) for _ in range(6)], session.run(weights), op.get_attr("seed2")
    (order, weights, seed2), (order_tf, weights_tf, seed2_tf) = run(ours), run(tf1)
    assert seed2 == seed2_tf == 2
    assert order == order_tf
    np.testing.assert_array_equal(weights, weights_tf)


def test_unseeded_shuffle_is_a_permutation():
    values = [int(v) for v in drain(ours, lambda tf: tf.data.Dataset.range(30).shuffle(30))]
    assert sorted(values) == list(range(30))


def test_get_next_past_the_end_raises_out_of_range_every_time():
    with ours.Graph().as_default():
        element = ours.data.make_one_shot_iterator(ours.data.Dataset.range(2)).get_next()
        with ours.Session() as session:
            assert [session.run(element) for _ in range(2)] == [0, 1]
            for _ in range(2):
                with pytest.raises(ours.errors.OutOfRangeError, match="End of sequence"):
                    session.run(element)


def test_uninitialized_iterator_is_a_failed_precondition():
    with ours.Graph().as_default():
        iterator = ours.data.Dataset.range(2).make_initializable_iterator()
        element = iterator.get_next()
        with ours.Session() as session:
            with pytest.raises(ours.errors.FailedPreconditionError, match="has not been initialized"):
                session.run(element)


def test_two_sessions_iterate_independently():
    with ours.Graph().as_default():
        element = ours.data.make_one_shot_iterator(ours.data.Dataset.range(3)).get_next()
        with ours.Session() as first, ours.Session() as second:
            assert first.run(element) == 0 and first.run(element) == 1
            assert second.run(element) == 0


@pytest.mark.tf
def test_initializable_iterator_with_fed_placeholders(tf1):
    def run(tf):
        with tf.Graph().as_default():
            data = tf.placeholder(tf.float32, [None, 2])
            dataset = tf.data.Dataset.from_tensor_slices(data).map(lambda x: x * 2.0).batch(2)
            iterator = dataset.make_initializable_iterator()
            element = iterator.get_next()
            out = []
            with tf.Session() as session:
                for rows in (3, 1):
                    session.run(iterator.initializer, {data: np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)})
                    while True:
                        try:
                            out.append(session.run(element))
                        except tf.errors.OutOfRangeError:
                            break
            return out, str(dataset.output_shapes)
    (mine, mine_shapes), (theirs, their_shapes) = run(ours), run(tf1)
    assert mine_shapes == their_shapes
    assert_same_elements(mine, theirs)


@pytest.mark.tf
def test_reinitializable_and_feedable_iterators(tf1):
    def run(tf):
        with tf.Graph().as_default():
            train = tf.data.Dataset.range(100).map(lambda x: x * 2)
            valid = tf.data.Dataset.range(3)
            iterator = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
            element = iterator.get_next()
            init_train, init_valid = iterator.make_initializer(train), iterator.make_initializer(valid)
            handle = tf.placeholder(tf.string, [])
            feedable = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
            fed_element = feedable.get_next()
            one = tf.data.make_one_shot_iterator(tf.data.Dataset.range(50, 60))
            other = tf.data.make_initializable_iterator(tf.data.Dataset.range(7, 9))
            out = []
            with tf.Session() as session:
                session.run(init_train)
                out += [session.run(element) for _ in range(3)]
                session.run(init_valid)
                out += [session.run(element) for _ in range(3)]
                one_handle, other_handle = session.run([one.string_handle(), other.string_handle()])
                session.run(other.initializer)
                out += [session.run(fed_element, {handle: h}) for h in (one_handle, other_handle, one_handle)]
            return [int(v) for v in out]
    assert run(ours) == run(tf1)


def test_make_initializer_rejects_other_types():
    with ours.Graph().as_default():
        iterator = ours.data.Iterator.from_structure(ours.int64, [])
        with pytest.raises(TypeError, match="Expected output types"):
            iterator.make_initializer(ours.data.Dataset.from_tensors(1.0))


@pytest.mark.tf
def test_from_generator(tf1):
    def generator():
        for i in range(4):
            yield i, [float(i)] * i

    def build(tf):
        return tf.data.Dataset.from_generator(generator, (tf.int64, tf.float32), (tf.TensorShape([]),
                                                                                  tf.TensorShape([None])))
    assert_same_elements(*both(tf1, build))


def _sentence_pairs(sources, targets, suffix):
    """A generator as Kyubyong's transformer writes one: it gets its args as numpy values (bytes for strings)."""
    for source, target in zip(sources, targets):
        ids = [len(word) for word in source.decode().split()] + [len(suffix)]
        yield (ids, len(ids), source), (ids[::-1], len(ids), target)


@pytest.mark.tf
def test_from_generator_nested_shapes_and_args(tf1):
    # output_shapes are read up to output_types' structure: [None] is one shape and () a scalar's, not nests
    shapes = (([None], (), ()), ([None], (), ()))

    def build(tf):
        types = ((tf.int32, tf.int32, tf.string), (tf.int32, tf.int32, tf.string))
        dataset = tf.data.Dataset.from_generator(_sentence_pairs, output_types=types, output_shapes=shapes,
                                                 args=(["a bb ccc", "dddd"], ["x", "y z"], "</s>"))
        assert [s.as_list() for s in tf.data.get_output_shapes(dataset)[0]] == [[None], [], []]
        return dataset.repeat(2).padded_batch(3, shapes, ((0, 0, ""), (-1, 0, "")))
    assert_same_elements(*both(tf1, build))


@pytest.mark.tf
def test_iterator_from_structure_reads_shapes_up_to_types(tf1):
    def shapes(tf):
        with tf.Graph().as_default():
            iterator = tf.data.Iterator.from_structure(((tf.int32, tf.string), tf.float32), (([None], ()), [2, 3]))
            return [[s.as_list() for s in part] if isinstance(part, tuple) else part.as_list()
                    for part in tf.data.get_output_shapes(iterator)]
    assert shapes(ours) == shapes(tf1) == [[[None], []], [2, 3]]


@pytest.mark.tf
def test_from_generator_element_of_another_structure(tf1):
    def pairs_as_lists():
        yield [1, 2]

    def build(tf):
        return tf.data.Dataset.from_generator(pairs_as_lists, (tf.int32, tf.int32), ([], []))
    for tf in (ours, tf1):
        with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected structure. The "
                           r"expected structure was \(tf.int32, tf.int32\), but the yielded element was \[1, 2\]"):
            drain(tf, build)


@pytest.mark.tf
def test_op_types_and_names_match_tensorflow(tf1):
    def ops(tf):
        with tf.Graph().as_default() as g:
            dataset = tf.data.Dataset.from_tensor_slices(MATRIX).shuffle(3, seed=1).repeat().batch(2)
            tf.data.make_one_shot_iterator(dataset).get_next()
            tf.data.make_initializable_iterator(dataset.prefetch(1).take(3).skip(1)).get_next()
            return [(op.type, op.name, [t.name for t in op.inputs]) for op in g.get_operations()]
    assert ops(ours) == ops(tf1)


def test_threads_share_one_iterator_without_losing_elements():
    with ours.Graph().as_default():
        element = ours.data.make_one_shot_iterator(ours.data.Dataset.range(400).map(lambda x: x * 2)).get_next()
        seen, failures = [], []
        with ours.Session() as session:
            def worker():
                try:
                    while True:
                        seen.append(int(session.run(element)))
                except ours.errors.OutOfRangeError:
                    pass
                except Exception as error:  # noqa: BLE001 - any other error fails the test below
                    failures.append(error)
            threads = [threading.Thread(target=worker) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    assert failures == []
    assert sorted(seen) == list(range(0, 800, 2))
