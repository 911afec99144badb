"""Sampled losses as TensorFlow builds them (nn_impl.py): nce_loss and sampled_softmax_loss.

Both score each example against its true classes and ``num_sampled`` classes drawn once per
batch (log-uniform by default), from rows of ``weights``/``biases`` looked up together
(``_compute_sampled_logits``)::

    logits = [x . w_true + b_true - log Q(true), x . w_sampled + b_sampled - log Q(sampled)]
    labels = [1 / num_true ..., 0 ...]

``remove_accidental_hits`` pushes a sampled class that is also a true class of the row to
-FLT_MAX (``ComputeAccidentalHits`` then ``SparseToDense``).  nce_loss sums the logistic losses
of each row; sampled_softmax_loss takes the softmax cross entropy of each row.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.ops import array_concat_ops, array_fill_ops, array_index_ops, array_ops, candidate_sampling_ops
from graph.ops import constant_ops, embedding_ops, linalg_ops, math_ops, nn_impl, nn_xent_ops, sparse_ops

__all__ = ["nce_loss", "sampled_softmax_loss"]

def _stack(values: list) -> Tensor:
    """TF's ``stack(values)`` on axis 0: the autopacking conversion (Python items become Consts ``stack/<i>``)."""
    return convert_to_tensor(values, name="stack")



def _sum_rows(x: Tensor) -> Tensor:
    """Each row's sum as ``x @ ones`` (TF prefers its gradient to reduce_sum's)."""
    cols = array_ops.shape(x)[1]
    ones = array_fill_ops.ones(_stack([cols, 1]), x.dtype)
    return array_ops.reshape(linalg_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled: int, num_classes: int, num_true: int = 1,
                            sampled_values=None, subtract_log_q: bool = True, remove_accidental_hits: bool = False,
                            partition_strategy: str = "mod", name: str | None = None, seed=None):
    """(logits, labels) of the true and sampled classes, both [batch_size, num_true + num_sampled]."""
    weights = embedding_ops.as_shard_list(weights)
    with graph_lib.name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        if not hasattr(labels, "dtype"):  # TF reads labels.dtype: a list has none, an ndarray is used as it is
            labels = convert_to_tensor(labels)
        if dtypes_lib.as_dtype(labels.dtype) != dtypes_lib.int64:
            labels = math_ops.cast(labels, dtypes_lib.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True, range_max=num_classes,
                seed=seed)
        sampled, true_expected_count, sampled_expected_count = (constant_ops.stop_gradient(s)
                                                                for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes_lib.int64)
        all_ids = array_concat_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_ops.embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        inputs = convert_to_tensor(inputs)
        if all_w.dtype != inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        true_w = array_index_ops.slice(all_w, [0, 0],
                                       _stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = array_index_ops.slice(all_w, _stack([array_ops.shape(labels_flat)[0], 0]),
                                          [-1, -1])
        sampled_logits = linalg_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_ops.embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = array_index_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_index_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_concat_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                          array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_concat_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            sampled_logits += _accidental_hit_mask(labels, sampled, num_true, num_sampled, sampled_logits.dtype)
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_concat_ops.concat([true_logits, sampled_logits], 1)
        # The true classes share probability 1 per example; the sampled ones get 0.
        out_labels = array_concat_ops.concat([array_fill_ops.ones_like(true_logits) / num_true,
                                              array_fill_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def _accidental_hit_mask(labels: Tensor, sampled: Tensor, num_true: int, num_sampled: int, dtype) -> Tensor:
    """-FLT_MAX where a sampled class is one of the row's true classes, else 0, as [batch_size, num_sampled]."""
    acc_indices, acc_ids, acc_weights = candidate_sampling_ops.compute_accidental_hits(labels, sampled,
                                                                                       num_true=num_true)
    acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
    acc_ids_2d_int32 = array_ops.reshape(math_ops.cast(acc_ids, dtypes_lib.int32), [-1, 1])
    sparse_indices = array_concat_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1, "sparse_indices")
    sampled_logits_shape = array_concat_ops.concat(
        [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
    if dtype != acc_weights.dtype:
        acc_weights = math_ops.cast(acc_weights, dtype)
    return sparse_ops.sparse_to_dense(sparse_indices, sampled_logits_shape, acc_weights, default_value=0.0,
                                      validate_indices=False)


def nce_loss(weights, biases, labels, inputs, num_sampled: int, num_classes: int, num_true: int = 1,
             sampled_values=None, remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss") -> Tensor:
    """Noise-contrastive estimation loss per example: [batch_size] (TF1 ``tf.nn.nce_loss``).

    Args:
        weights: [num_classes, dim] class embeddings (a tensor, a list of shards or a PartitionedVariable).
        biases: [num_classes] class biases.
        labels: int64 [batch_size, num_true] target classes.
        inputs: [batch_size, dim] input activations.
        num_sampled: classes to sample per batch.
        num_classes: number of possible classes.
        num_true: target classes per example.
        sampled_values: a (sampled, true_expected_count, sampled_expected_count) triple; None samples
            log-uniformly (unique, seedless).
        remove_accidental_hits: whether a sampled class equal to a target is dropped.
        partition_strategy: ``"mod"`` or ``"div"``, for sharded ``weights``.
        name: the scope of the ops.
    """
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name)
    sampled_losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled: int, num_classes: int, num_true: int = 1,
                         sampled_values=None, remove_accidental_hits: bool = True, partition_strategy: str = "mod",
                         name: str = "sampled_softmax_loss", seed=None) -> Tensor:
    """Softmax cross entropy over the true and sampled classes per example: [batch_size].

    Args are those of `nce_loss`, with accidental hits removed by default and ``seed`` for the sampler.
    """
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name, seed=seed)
    labels = constant_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_xent_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
