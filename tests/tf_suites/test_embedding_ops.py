"""TensorFlow's embedding_lookup and scatter_add/sub suite, on both backends.

Port of tensorflow/python/kernel_tests/nn_ops/embedding_ops_test.py (tensorflow/tensorflow at 00ee1a9deea6):
ScatterAddSubTest and EmbeddingLookupTest with the same shapes, shardings, ids, references and tolerances,
rewritten against ``harness.tf`` (``embedding_ops.embedding_lookup`` is ``tf.nn.embedding_lookup``,
``state_ops.scatter_add`` is ``tf.scatter_add``, ``gradient_checker`` is ``tf.test``, ``linalg_ops.norm`` is
``tf.norm``).  EmbeddingLookupSparseTest and the later classes (safe_embedding_lookup_sparse, dynamic stitch) are
not ported yet.  The original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License,
Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, private, run_deprecated_v1, skip_ours, tf


def _AsLong(array):
    return [int(x) for x in array]


class ScatterAddSubTest(TestCase):

    def _TestCase(self, shape, indices, scatter_op="scatter_add"):
        """A random parameter array of ``shape`` updated at ``indices`` against numpy's result."""
        with self.cached_session():
            p_init = np.random.rand(*shape).astype("f")
            vals_shape = [len(indices)] + shape[1:]
            vals_init = np.random.rand(*vals_shape).astype("f")
            v_i = [float(x) for x in vals_init.ravel()]
            p = tf.Variable(p_init)
            vals = tf.constant(v_i, shape=vals_shape, name="vals")
            ind = tf.constant(indices, dtype=tf.int32)
            p2 = getattr(tf, scatter_op)(p, ind, vals, name="updated_p")
            self.evaluate(tf.global_variables_initializer())
            result = self.evaluate(p2)
        for i, ind in enumerate(indices):
            row = vals_init.reshape(vals_shape[0], -1)[i, :]
            if scatter_op == "scatter_add":
                p_init.reshape(shape[0], -1)[ind, :] += row
            else:
                p_init.reshape(shape[0], -1)[ind, :] -= row
        self.assertTrue(all((p_init == result).ravel()))

    @run_deprecated_v1
    def testNoRepetitions(self):
        self._TestCase([2, 2], [1])
        self._TestCase([4, 4, 4], [2, 0])
        self._TestCase([43, 20, 10, 10], [42, 5, 6, 1, 3, 5, 7, 9])

    @run_deprecated_v1
    def testWithRepetitions(self):
        self._TestCase([2, 2], [1, 1])
        self._TestCase([5, 3, 9, 5], [2, 0, 4, 1, 3, 1, 4, 0, 4, 3])
        self._TestCase([32, 4, 4], [31] * 8)

    @run_deprecated_v1
    def testRandom(self):
        for _ in range(5):
            shape = np.random.randint(1, 20, size=4)
            indices = np.random.randint(shape[0], size=2 * shape[0])
            self._TestCase(_AsLong(list(shape)), list(indices))

    @run_deprecated_v1
    def testSubRandom(self):
        for _ in range(5):
            shape = np.random.randint(1, 20, size=4)
            indices = np.random.randint(shape[0], size=2 * shape[0])
            self._TestCase(_AsLong(list(shape)), list(indices), "scatter_sub")

    @run_deprecated_v1
    def testWrongShape(self):
        var = tf.Variable(tf.zeros(shape=[1024, 64, 64], dtype=tf.float32))
        indices = tf.placeholder(tf.int32, shape=[32])
        values = tf.placeholder(tf.float32, shape=[33, 64, 64])
        with self.assertRaises(ValueError):  # indices and values disagree
            tf.scatter_add(var, indices, values)
        values = tf.placeholder(tf.float32, shape=[32, 64, 63])
        with self.assertRaises(ValueError):  # the variable and values disagree
            tf.scatter_add(var, indices, values)


def _PName(param_id):
    return "p" + str(param_id)


def _EmbeddingParams(num_shards, vocab_size, dtype=None, shape=None, use_shapeless_placeholder=False):
    """Shards of a vocab_size x shape table (extra rows on the first shards) and random values fed to them."""
    dtype = dtype or tf.float32
    p, params, feed_dict = [], {}, {}
    shape = shape or [10]
    for i in range(num_shards):
        shard_shape = [vocab_size // num_shards] + shape
        if i < vocab_size % num_shards:
            shard_shape[0] += 1
        param_name = _PName(i)
        if use_shapeless_placeholder:
            param = tf.placeholder(dtype, shape=None, name=param_name)
        else:
            param = tf.constant(1.0, shape=shard_shape, dtype=dtype, name=param_name)
        p.append(param)
        val = np.random.rand(*shard_shape).astype("f" if dtype == tf.float32 else "d") + 1
        params[param_name + ":0"] = val
        feed_dict[param.name] = val
    return p, params, feed_dict


def _EmbeddingParamsAsPartitionedVariable(num_shards, vocab_size, dtype=None, shape=None, use_resource=False):
    p, params, feed_dict = _EmbeddingParams(num_shards, vocab_size, dtype=dtype, shape=shape)
    shape = shape or [10]
    partitioned_variable = tf.get_variable(
        "p", shape=[vocab_size] + shape, initializer=tf.concat([params[p_i.name] for p_i in p], 0),
        partitioner=tf.min_max_variable_partitioner(max_partitions=num_shards, min_slice_size=1),
        use_resource=use_resource)
    return p, partitioned_variable, params, feed_dict


def _EmbeddingResult(params, id_vals, num_shards, vocab_size, partition_strategy="mod", weight_vals=None):
    """The lookups (and their weight sums) computed from the shards' values in numpy."""
    if weight_vals is None:
        weight_vals = np.copy(id_vals)
        weight_vals.fill(1)
    values, weights, weights_squared = [], [], []
    for ids, wts in zip(id_vals, weight_vals):
        value_aggregation = weight_aggregation = squared_weight_aggregation = None
        if isinstance(ids, (int, np.integer)):
            ids, wts = [ids], [wts]
        for i, weight_value in zip(ids, wts):
            if partition_strategy == "mod":
                val = np.copy(params[_PName(i % num_shards) + ":0"][i // num_shards, :]) * weight_value
            elif partition_strategy == "div":
                ids_per_partition, extras = divmod(vocab_size, num_shards)
                threshold = extras * (ids_per_partition + 1)
                if i < threshold:
                    partition, offset = i // (ids_per_partition + 1), i % (ids_per_partition + 1)
                else:
                    partition = extras + (i - threshold) // ids_per_partition
                    offset = (i - threshold) % ids_per_partition
                val = np.copy(params[_PName(partition) + ":0"][offset, :]) * weight_value
            else:
                raise AssertionError(partition_strategy)
            if value_aggregation is None:
                value_aggregation, weight_aggregation = val, weight_value
                squared_weight_aggregation = weight_value * weight_value
            else:
                value_aggregation += val
                weight_aggregation += weight_value
                squared_weight_aggregation += weight_value * weight_value
        values.append(value_aggregation)
        weights.append(weight_aggregation)
        weights_squared.append(squared_weight_aggregation)
    return (np.array(values).astype(np.float32), np.array(weights).astype(np.float32),
            np.array(weights_squared).astype(np.float32))


class EmbeddingLookupTest(TestCase):

    @run_deprecated_v1
    def testSimpleSharded(self):
        with self.cached_session():
            p, params, feed_dict = _EmbeddingParams(2, 4)
            id_vals = np.array([0, 0])
            embedding = tf.nn.embedding_lookup(p, tf.constant(list(id_vals), dtype=tf.int32))
            tf_result = embedding.eval(feed_dict=feed_dict)
        np_result, _, _ = _EmbeddingResult(params, id_vals, 2, 4)
        self.assertAllEqual(np_result, tf_result)
        self.assertShapeEqual(np_result, embedding)

    @run_deprecated_v1
    def testMaxNorm(self):
        with self.cached_session():
            embeddings = tf.constant([[2.0]])
            ids = tf.constant([0], dtype=tf.int32)
            self.assertAllEqual(tf.nn.embedding_lookup([embeddings], ids, max_norm=1.0), [[1.0]])

    @run_deprecated_v1
    def testMaxNormNontrivial(self):
        with self.cached_session():
            embeddings = tf.constant([[2.0, 4.0], [3.0, 1.0]])
            ids = tf.constant([0, 1], dtype=tf.int32)
            embedding = tf.nn.embedding_lookup([embeddings], ids, max_norm=2.0)
            norms = tf.sqrt(tf.reduce_sum(embeddings * embeddings, axis=1))
            normalized = embeddings / tf.stack([norms, norms], axis=1)
            self.assertAllClose(embedding, 2 * self.evaluate(normalized))

    def _partitioned(self, use_resource):
        with self.cached_session():
            p, p_variable, params, feed_dict = _EmbeddingParamsAsPartitionedVariable(2, 4, use_resource=use_resource)
            id_vals = np.array([0, 0])
            embedding = tf.nn.embedding_lookup(p_variable, tf.constant(list(id_vals), dtype=tf.int32))
            self.evaluate(tf.global_variables_initializer())
            params_values = [params[p_i.name] for p_i in p]
            p_var_val = self.evaluate(list(p_variable))  # the partitions hold the shards of p
            tf_result = embedding.eval(feed_dict=feed_dict) if not use_resource else self.evaluate(embedding)
        np_result, _, _ = _EmbeddingResult(params, id_vals, 2, 4)
        self.assertAllEqual(params_values, p_var_val)
        self.assertAllEqual(np_result, tf_result)
        self.assertShapeEqual(np_result, embedding)

    @run_deprecated_v1
    def testSimpleShardedPartitionedVariable(self):
        self._partitioned(use_resource=False)

    @run_deprecated_v1
    def testSimpleShardedPartitionedResourceVariable(self):
        self._partitioned(use_resource=True)

    def _sharded(self, ids_dtype, partition_strategy, shapeless=False):
        # 13 x 10 parameters in 5 shards (3, 3, 3, 2, 2 rows); 30 ids, so some repeat
        num_shards, vocab_size = 5, 13
        with self.cached_session():
            p, params, feed_dict = _EmbeddingParams(num_shards, vocab_size, use_shapeless_placeholder=shapeless)
            id_vals = np.random.randint(vocab_size, size=30)
            ids = tf.constant(list(id_vals), dtype=ids_dtype)
            embedding = tf.nn.embedding_lookup(p, ids, partition_strategy=partition_strategy)
            tf_result = embedding.eval(feed_dict=feed_dict)
        np_result, _, _ = _EmbeddingResult(params, id_vals, num_shards, vocab_size,
                                           partition_strategy=partition_strategy)
        self.assertAllEqual(np_result, tf_result)
        if not shapeless:
            self.assertShapeEqual(np_result, embedding)

    @run_deprecated_v1
    def testShardedModPartitioningInt32Ids(self):
        self._sharded(tf.int32, "mod")

    @run_deprecated_v1
    def testShardedModPartitioningInt64Ids(self):
        self._sharded(tf.int64, "mod")

    @run_deprecated_v1
    def testShardedDivPartitioningInt32Ids(self):
        self._sharded(tf.int32, "div")

    @run_deprecated_v1
    def testShardedDivPartitioningInt32IdsPartitionedVariable(self):
        num_shards, vocab_size = 5, 13
        with self.cached_session():
            _, p_variable, params, feed_dict = _EmbeddingParamsAsPartitionedVariable(num_shards, vocab_size)
            id_vals = np.random.randint(vocab_size, size=30)
            ids = tf.constant(list(id_vals), dtype=tf.int32)
            self.evaluate(tf.global_variables_initializer())
            embedding = tf.nn.embedding_lookup(p_variable, ids, partition_strategy="div")
            tf_result = embedding.eval(feed_dict=feed_dict)
        np_result, _, _ = _EmbeddingResult(params, id_vals, num_shards, vocab_size, partition_strategy="div")
        self.assertAllEqual(np_result, tf_result)
        self.assertShapeEqual(np_result, embedding)

    @run_deprecated_v1
    def testShardedDivPartitioningInt64Ids(self):
        self._sharded(tf.int64, "div")

    @run_deprecated_v1
    def testShardedDivPartitioningUnknownParamShape(self):
        self._sharded(tf.int64, "div", shapeless=True)

    @run_deprecated_v1
    def testGradientsEmbeddingLookup(self):
        vocab_size, num_ids = 9, 10
        id_vals = list(np.random.randint(vocab_size, size=num_ids))
        for ids_shape in [(10,), (2, 5)]:
            for num_shards in [1, 3]:
                with self.cached_session():
                    ids = tf.constant(id_vals, shape=ids_shape, dtype=tf.int32)
                    x, params, _ = _EmbeddingParams(num_shards, vocab_size, shape=[2])
                    y = tf.nn.embedding_lookup(x, ids)
                    y_shape = ids_shape + tuple(params[_PName(0) + ":0"].shape[1:])
                    x_init_value = [params[_PName(i) + ":0"] for i in range(num_shards)]
                    x_shape = [i.shape for i in x_init_value]
                    err = tf.test.compute_gradient_error(x, x_shape, y, y_shape, x_init_value=x_init_value)
                self.assertLess(err, 1e-4)

    @run_deprecated_v1
    def testGradientsEmbeddingLookupWithComputedParams(self):
        vocab_size, num_ids = 9, 5
        id_vals = list(np.random.randint(vocab_size, size=num_ids))
        for num_shards in [1, 3]:
            with self.cached_session():
                ids = tf.constant(id_vals, dtype=tf.int32)
                x, params, _ = _EmbeddingParams(num_shards, vocab_size, shape=[2])
                x_squared = [tf.square(elem) for elem in x]  # IndexedSlices converted to a Tensor
                y = tf.nn.embedding_lookup(x_squared, ids)
                y_shape = [num_ids] + list(params[_PName(0) + ":0"].shape[1:])
                x_init_value = [params[_PName(i) + ":0"] for i in range(num_shards)]
                x_shape = [i.shape for i in x_init_value]
                err = tf.test.compute_gradient_error(x, x_shape, y, y_shape, x_init_value=x_init_value)
            self.assertLess(err, 1e-3)

    def testConstructionNonSharded(self):
        with tf.Graph().as_default():
            p = tf.Variable(tf.zeros(shape=[100, 100], dtype=tf.float32))
            tf.nn.embedding_lookup([p], tf.constant([0, 1, 1, 7], dtype=tf.int32))

    def testConstructionSharded(self):
        with tf.Graph().as_default():
            p = []
            for _ in range(2):
                p += [tf.Variable(tf.zeros(shape=[100, 100], dtype=tf.float32))]
                ids = tf.constant([0, 1, 1, 17], dtype=tf.int32)
            tf.nn.embedding_lookup(p, ids)

    @run_deprecated_v1
    def testHigherRank(self):
        np.random.seed(8)
        with self.cached_session():
            for params_shape in (12,), (6, 3):
                params = np.random.randn(*params_shape)
                for ids_shape in (3, 2), (4, 3):
                    ids = np.random.randint(params.shape[0], size=np.prod(ids_shape)).reshape(ids_shape)
                    simple = tf.nn.embedding_lookup(params, ids)  # unsharded: a gather
                    self.assertAllEqual(simple, tf.gather(params, ids))
                    for procs in 1, 2, 3:
                        stride = procs * tf.range(params.shape[0] // procs)
                        split_params = [tf.gather(params, stride + p) for p in range(procs)]
                        self.assertAllEqual(simple, tf.nn.embedding_lookup(split_params, ids))

    @run_deprecated_v1
    def testHigherRankMaxNorm(self):
        np.random.seed(8)
        with self.cached_session():
            for params_shape in (12,), (6, 3), (6, 2, 3):  # embeddings of rank 0, 1, 2
                params = 2 * np.ones(params_shape)
                params_norm = params / np.sqrt(np.sum(params * params, tuple(range(params.ndim)[1:]), keepdims=True))
                for ids_shape in (), (3), (4, 3), (2, 3, 4):
                    ids = np.random.randint(params.shape[0], size=np.prod(ids_shape, dtype=np.int64)).reshape(
                        ids_shape)
                    simple = tf.nn.embedding_lookup(params, ids, max_norm=1.0)
                    self.assertAllClose(simple, tf.gather(params_norm, ids))  # square roots may differ slightly
                    for procs in 1, 2, 3:
                        stride = procs * tf.range(params.shape[0] // procs)
                        split_params = [tf.gather(params, stride + p) for p in range(procs)]
                        self.assertAllEqual(simple, tf.nn.embedding_lookup(split_params, ids, max_norm=1.0))

    @skip_ours("TF-private API (embedding_ops._embedding_lookup_and_transform)")
    @run_deprecated_v1
    def testTransform(self):
        lookup_and_transform = private("tensorflow.python.ops.embedding_ops:_embedding_lookup_and_transform",
                                       "graph.ops.embedding_ops:_embedding_lookup_and_transform")
        np.random.seed(8)
        l2_norm = 2.
        with self.cached_session():
            params = np.random.rand(6, 3) + l2_norm  # always clipped
            params_norm = l2_norm * params / np.sqrt(np.sum(params * params, axis=1, keepdims=True))
            params_norm = np.linalg.norm(params_norm, axis=1)  # the transform makes each embedding a scalar
            transform = lambda x: tf.norm(x, axis=1)  # noqa: E731
            for ids_shape in (), (3), (4, 3), (2, 3, 4):
                ids = np.random.randint(params.shape[0], size=np.prod(ids_shape, dtype=np.int64)).reshape(ids_shape)
                simple = lookup_and_transform(params, ids, max_norm=l2_norm, transform_fn=transform)
                self.assertAllClose(simple, tf.gather(params_norm, ids))
                for procs in 1, 2, 3:
                    stride = procs * tf.range(params.shape[0] // procs)
                    split_params = [tf.gather(params, stride + p) for p in range(procs)]
                    sharded = lookup_and_transform(split_params, ids, max_norm=l2_norm, transform_fn=transform)
                    self.assertAllClose(simple, sharded)

    @skip_ours("not yet emulated: RaggedTensor (tf.ragged.constant)")
    def testRaggedMaxNorm(self):
        embeddings = tf.constant([[2.0]])
        ids = tf.ragged.constant([[0, 0], [0]], dtype=tf.int32)
        embedding = tf.nn.embedding_lookup([embeddings], ids, max_norm=1.0)
        # the harness compares arrays: the ragged result is compared as RaggedTensorValue.to_list()'s nested lists
        self.assertEqual(self.evaluate(embedding).to_list(), [[[1.0], [1.0]], [[1.0]]])
