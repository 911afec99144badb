"""FixedUnigramCandidateSampler and AllCandidateSampler, bit-exact with TF's kernels (range_sampler.cc,
distribution_sampler.cc); the run, reservation and expected counts are candidate_sampling_ops'.

Fixed unigram: ``num_reserved_ids`` weights of 0, then the ``unigrams`` (or the last comma-separated field of
each line of ``vocab_file``) raised to ``distortion`` in float32, keeping only ids with ``id % num_shards ==
shard``; their float32 running sum is the total.  Draws use Walker's alias table over the weights::

    p_i = float32(w_i * n) / sum_i(double w_i)      low (< 1) and high lists, paired from their backs
    draw: r = RandFloat() (one uint32); i = Uniform(n) (ExactUniformInt: the low bits for a power of two,
          else uint32 draws below (2^32 - 1) % n + 1 rejected, then % n); i if r < prob_i else alt_i
    P(v) = w_v / total (float32)

All: the classes ``0 .. num_sampled - 1`` in order with every expected count 1, no random numbers read.
"""

from __future__ import annotations

import math

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core import random_seed
from graph.core.graph import convert_to_tensor
from graph.ops import philox
from graph.ops.nn_batchnorm_ops import _shape_error
from graph.ops.candidate_sampling_ops import (SAMPLES_PER_CANDIDATE, _WordStream, sampler_outputs,
                                              _check_true_classes, _expected_counts, _sample)

__all__ = ["fixed_unigram_candidate_sampler", "all_candidate_sampler"]

_WORDS_PER_BLOCK = 4


class _AliasTable:
    """random::DistributionSampler over float32 weights: per bucket a float32 probability and an alias."""

    def __init__(self, weights: np.ndarray):
        count = len(weights)
        total = 0.0
        for weight in weights.tolist():
            total += weight
        scaled = [float(np.float32(weight * np.float32(count))) / total for weight in weights]
        alias = [-1] * count
        low = [i for i, p in enumerate(scaled) if p < 1.0]
        high = [i for i, p in enumerate(scaled) if p >= 1.0]
        while high and low:
            small, large = low.pop(), high.pop()
            alias[small] = large
            scaled[large] -= 1.0 - scaled[small]
            (low if scaled[large] < 1.0 else high).append(large)
        for index in high + low:  # rounding left these unpaired: each its own alias, always kept
            scaled[index], alias[index] = 1.0, index
        self.probability = np.asarray(scaled, np.float64).astype(np.float32)
        self.alias = alias

    def draw(self, stream: _WordStream, count: int) -> list[int]:
        size = len(self.alias)
        values = []
        for _ in range(count):
            threshold = philox.uint32_to_float(stream.take(1))[0]
            bucket = _exact_uniform(stream, size)
            values.append(bucket if threshold < self.probability[bucket] else self.alias[bucket])
        return values


def _exact_uniform(stream: _WordStream, size: int) -> int:
    """random::ExactUniformInt<uint32>: an unbiased draw below ``size``."""
    if size & (size - 1) == 0:
        return int(stream.take(1)[0]) & (size - 1)
    floor = (0xFFFFFFFF % size) + 1
    word = int(stream.take(1)[0])
    while word < floor:
        word = int(stream.take(1)[0])
    return word % size


def _vocab_weights(op, path: str) -> list[float]:
    try:
        with open(path, "rb") as file:
            lines = file.read().split(b"\n")
    except OSError as error:
        raise errors.NotFoundError(None, op, f"{path}; No such file or directory") from error
    if lines and lines[-1] == b"":  # ReadLine yields no line after a final newline
        lines.pop()
    weights = []
    for line in lines:
        line = line.rstrip(b"\r")
        try:
            weights.append(float(np.float32(line.split(b",")[-1])))
        except ValueError as error:
            raise errors.InvalidArgumentError(
                None, op, f"Wrong vocabulary format at line: {line.decode(errors='replace')}") from error
    return weights


def _fixed_weights(op) -> tuple[np.ndarray, np.float32]:
    """FixedUnigramSampler's weights and float32 total, checked as its kernel's constructor checks them."""
    attrs = op._attrs
    vocab_file = attrs["vocab_file"].decode() if isinstance(attrs["vocab_file"], bytes) else attrs["vocab_file"]
    unigrams = list(attrs["unigrams"])
    if not vocab_file and not unigrams:
        raise errors.InvalidArgumentError(None, op, "Must provide either vocab_file or unigrams.")
    if vocab_file and unigrams:
        raise errors.InvalidArgumentError(None, op, "Must only provide one of vocab_file and unigrams.")
    shards, shard, distortion = attrs["num_shards"], attrs["shard"], np.float32(attrs["distortion"])
    weights = [0.0 for word in range(attrs["num_reserved_ids"]) if word % shards == shard]
    total = np.float32(0.0)
    raw = _vocab_weights(op, vocab_file) if vocab_file else unigrams
    for word, weight in enumerate(raw, start=len(weights)):
        if word % shards == shard:
            weight = np.float32(math.pow(float(np.float32(weight)), float(distortion)))  # std::pow(float, float)
            total = np.float32(total + weight)
            weights.append(float(weight))
    if attrs["range_max"] != len(weights):
        raise errors.InvalidArgumentError(
            None, op, f"range is {attrs['range_max']} must be equal to weights size  {len(weights)}")
    return np.asarray(weights, np.float32), total


def _compute_fixed(ctx, op, inputs):
    true_classes = _checked_classes(op, inputs[0], op._attrs["range_max"])
    key = op._name + ":alias_table"
    if key not in ctx.op_state:  # built once per session, as TF's kernel builds it when constructed
        weights, total = _fixed_weights(op)
        ctx.op_state[key] = (weights, total, _AliasTable(weights))
    weights, total, table = ctx.op_state[key]
    num_sampled, unique = op._attrs["num_sampled"], op._attrs["unique"]
    reserved = philox.session_generator(ctx, op).reserve(-(-SAMPLES_PER_CANDIDATE * num_sampled // _WORDS_PER_BLOCK))
    sampled, tries = _sample(_WordStream(reserved), lambda stream, count, *_: np.asarray(
        table.draw(stream, count), np.int64), len(weights), num_sampled, unique, None)

    def probability(values):
        return (weights[values] / total).astype(np.float32)

    return [sampled, _expected_counts(probability(true_classes), num_sampled, tries),
            _expected_counts(probability(sampled), num_sampled, tries)]


def _checked_classes(op, value, range_max: int) -> np.ndarray:
    """BaseCandidateSamplerOp's checks of ``true_classes`` against the attrs and the sampler's range."""
    true_classes = np.asarray(value)
    num_true, num_sampled = op._attrs["num_true"], op._attrs["num_sampled"]
    if true_classes.ndim != 2:
        raise errors.InvalidArgumentError(None, op, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, op, f"true_classes must have num_true columns, expected: {true_classes.shape[1]} was: {num_true}")
    if op._attrs["unique"] and num_sampled > range_max:
        raise errors.InvalidArgumentError(None, op, "Sampler's range is too small.")
    _check_true_classes(op, true_classes, range_max)
    return true_classes.astype(np.int64)


def _compute_all(ctx, op, inputs):
    num_sampled = op._attrs["num_sampled"]
    true_classes = _checked_classes(op, inputs[0], num_sampled)
    return [np.arange(num_sampled, dtype=np.int64), np.ones(true_classes.shape, np.float32),
            np.ones(num_sampled, np.float32)]


def _infer(op):
    """CandidateSamplerShapeFn (true classes are checked only when the kernel runs)."""
    true_classes = op._inputs[0].shape
    if true_classes.ndims not in (None, 2):
        raise _shape_error(op, f"Shape must be rank 2 but is rank {true_classes.ndims}")
    batch = true_classes[0] if true_classes.ndims == 2 else None
    num_sampled = op._attrs["num_sampled"]
    return [(dtypes_lib.int64, TensorShape([num_sampled])),
            (dtypes_lib.float32, TensorShape([batch, op._attrs["num_true"]])),
            (dtypes_lib.float32, TensorShape([num_sampled]))]


kernels.register("FixedUnigramCandidateSampler", infer=_infer, compute=_compute_fixed, stateful=True,
                 default_attrs={"seed": 0, "seed2": 0, "vocab_file": b"", "distortion": 1.0,
                                "num_reserved_ids": 0, "num_shards": 1, "shard": 0, "unigrams": []})
kernels.register("AllCandidateSampler", infer=_infer, compute=_compute_all, stateful=True,
                 default_attrs={"seed": 0, "seed2": 0})


def _build(op_type: str, true_classes, attrs: dict, seed, name) -> tuple:
    for attr in ("num_true", "num_sampled", "range_max", "num_shards"):
        if attr in attrs and int(attrs[attr]) < 1:
            raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed {attrs[attr]} less than minimum 1.")
    for attr in ("num_reserved_ids", "shard"):
        if attr in attrs and int(attrs[attr]) < 0:
            raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed {attrs[attr]} less than minimum 0.")
    seed1, seed2 = random_seed.get_seed(seed)
    graph = graph_lib.get_graph_from_inputs([true_classes])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        true_classes = convert_to_tensor(true_classes, dtype=dtypes_lib.int64, name="true_classes")
        op = graph.create_op(op_type, [true_classes], name=scope,
                             attrs={**attrs, "seed": seed1 or 0, "seed2": seed2 or 0})
    return sampler_outputs(op)


def fixed_unigram_candidate_sampler(true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int,
                                    vocab_file: str = "", distortion: float = 1.0, num_reserved_ids: int = 0,
                                    num_shards: int = 1, shard: int = 0, unigrams=(), seed=None,
                                    name: str | None = None) -> tuple:
    """Classes drawn by fixed unigram weights (``unigrams`` or a CSV ``vocab_file``) raised to ``distortion``
    (``FixedUnigramCandidateSampler``)."""
    # float attrs are float32 in the NodeDef
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
             "range_max": int(range_max),
             "vocab_file": vocab_file.encode() if isinstance(vocab_file, str) else bytes(vocab_file),
             "distortion": float(np.float32(distortion)), "num_reserved_ids": int(num_reserved_ids),
             "num_shards": int(num_shards), "shard": int(shard), "unigrams": [float(np.float32(u)) for u in unigrams]}
    return _build("FixedUnigramCandidateSampler", true_classes, attrs, seed, name)


def all_candidate_sampler(true_classes, num_true: int, num_sampled: int, unique: bool, seed=None,
                          name: str | None = None) -> tuple:
    """Every class ``0 .. num_sampled - 1``, each with expected count 1 (``AllCandidateSampler``)."""
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique)}
    return _build("AllCandidateSampler", true_classes, attrs, seed, name)
