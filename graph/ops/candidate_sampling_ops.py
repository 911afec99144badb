"""Candidate samplers and accidental hits, bit-exact with TF's kernels (candidate_sampler_ops.cc, range_sampler.cc).

Each run of a sampler op reserves ``2048 * num_sampled`` 32-bit samples (``512 * num_sampled`` Philox
blocks) of the op's per-session generator (GuardedPhiloxRandom::ReserveSamples32) and reads them one
uint32 at a time (random::SimplePhilox over a SingleSampleAdapter)::

    Rand64()      = lo | hi << 32                      (lo read first)
    RandDouble()  = Uint64ToDouble(x0, x1)             (20 bits of x0, 32 of x1)
    uniform:      Rand64() % range                     p = float(1.0 / range)
    log-uniform:  (int64(exp(RandDouble() * log1p(range))) - 1) % range
                  p(v) = float(log((v + 2.0) / (v + 1.0)) / log1p(range))
    learned unigram: w = counts (all 1 at first), W = sum(w); u = Rand32() drawn again while
                  u < (2^32 - 1) % W + 1 (UnbiasedUniform; the low bits when W is a power of two),
                  the class where the running sum of w passes u % W; p(v) = float(w[v]) / W;
                  after the run each true class of the batch adds 1 to its count (Update)

With ``unique`` a value already picked is rejected and drawn again (``num_tries`` counts every
draw).  Expected counts: ``p * num_sampled`` when no draw was rejected, else
``-expm1(num_tries * log1p(-p))`` in float32 (glibc's expm1f/log1pf; ours round the float64
results, which agree to within an ulp).
"""

from __future__ import annotations

import collections
import math

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core import random_seed
from graph.core.graph import convert_to_tensor
from graph.ops import constant_ops, philox

__all__ = ["uniform_candidate_sampler", "log_uniform_candidate_sampler", "learned_unigram_candidate_sampler",
           "compute_accidental_hits"]

SAMPLES_PER_CANDIDATE = 2048  # BaseCandidateSamplerOp: "conservatively estimate the number of samples required"
_WORDS_PER_BLOCK = 4  # a Philox block is four uint32 results
_FLT_MAX = float(np.finfo(np.float32).max)

# TF's generated wrappers return each sampler's three outputs as a namedtuple named after its op type.
_SAMPLER_OUTPUT_TYPES = {
    op_type: collections.namedtuple(op_type, ["sampled_candidates", "true_expected_count", "sampled_expected_count"])
    for op_type in ("UniformCandidateSampler", "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
                    "FixedUnigramCandidateSampler", "AllCandidateSampler")}


def sampler_outputs(op) -> tuple:
    """A candidate sampler op's outputs as TF returns them: a namedtuple named after the op type."""
    return _SAMPLER_OUTPUT_TYPES[op.type](*op._outputs)

AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])
AccidentalHits.__doc__ = "The three outputs of ComputeAccidentalHits."


class _WordStream:
    """A SimplePhilox: uint32 results of consecutive Philox blocks, read one at a time, fetched in chunks."""

    _CHUNK = 64  # blocks per fetch

    def __init__(self, generator: philox.Philox):
        self._generator = generator
        self._words = np.zeros(0, np.uint32)
        self._position = 0
        self._next_block = 0

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` uint32 results."""
        while self._words.size - self._position < count:
            blocks = max(self._CHUNK, -(-count // _WORDS_PER_BLOCK))
            fresh = self._generator.blocks(self._next_block, blocks).reshape(-1)
            self._next_block += blocks
            self._words = np.concatenate([self._words[self._position:], fresh])
            self._position = 0
        result = self._words[self._position:self._position + count]
        self._position += count
        return result


def _uniform_values(stream: _WordStream, count: int, range_max: int, weights) -> np.ndarray:
    pairs = stream.take(2 * count).reshape(-1, 2).astype(np.uint64)
    return ((pairs[:, 0] | (pairs[:, 1] << np.uint64(32))) % np.uint64(range_max)).astype(np.int64)


def _log_uniform_values(stream: _WordStream, count: int, range_max: int, weights) -> np.ndarray:
    pairs = stream.take(2 * count).reshape(-1, 2)
    doubles = philox.uint64_to_double(pairs[:, 0], pairs[:, 1])
    log_range = math.log1p(range_max)
    # exp through the C library (numpy's SIMD exp may differ in the last bit), truncated toward zero.
    return np.array([(int(math.exp(float(d) * log_range)) - 1) % range_max for d in doubles], np.int64)


def _unigram_values(stream: _WordStream, count: int, range_max: int, weights: np.ndarray) -> np.ndarray:
    """WeightedPicker::Pick: an unbiased uniform draw below the total weight, then the leaf holding it."""
    total = int(weights.sum())
    bounds = np.cumsum(weights)
    values = []
    for _ in range(count):
        if total & (total - 1) == 0:  # a power of two: the low bits
            index = int(stream.take(1)[0]) & (total - 1)
        else:
            floor = (0xFFFFFFFF % total) + 1  # UnbiasedUniform rejects draws below this
            word = int(stream.take(1)[0])
            while word < floor:
                word = int(stream.take(1)[0])
            index = word % total
        values.append(int(np.searchsorted(bounds, index, side="right")))
    return np.asarray(values, np.int64)


def _uniform_probability(values: np.ndarray, range_max: int, weights) -> np.ndarray:
    return np.full(values.shape, np.float32(1.0 / range_max), np.float32)


def _log_uniform_probability(values: np.ndarray, range_max: int, weights) -> np.ndarray:
    log_range = math.log1p(range_max)
    return np.array([math.log((int(v) + 2.0) / (int(v) + 1.0)) / log_range for v in values.reshape(-1)],
                    np.float64).astype(np.float32).reshape(values.shape)


def _unigram_probability(values: np.ndarray, range_max: int, weights: np.ndarray) -> np.ndarray:
    return (weights[values].astype(np.float32) / np.float32(weights.sum())).astype(np.float32)


_SAMPLERS = {  # op type -> (draw values, probability of a value)
    "UniformCandidateSampler": (_uniform_values, _uniform_probability),
    "LogUniformCandidateSampler": (_log_uniform_values, _log_uniform_probability),
    "LearnedUnigramCandidateSampler": (_unigram_values, _unigram_probability),
}


def _expected_counts(probabilities: np.ndarray, num_sampled: int, num_tries: int) -> np.ndarray:
    """ExpectedCountHelper in float32."""
    if num_tries == num_sampled:
        return probabilities * np.float32(num_sampled)
    logs = np.log1p(-probabilities.astype(np.float64)).astype(np.float32)
    return (-np.expm1((np.float32(num_tries) * logs).astype(np.float64))).astype(np.float32)


def _sample(stream: _WordStream, draw, range_max: int, num_sampled: int, unique: bool,
            weights) -> tuple[np.ndarray, int]:
    """SampleBatchGetExpectedCountAvoid's drawing loop: (candidates, number of draws)."""
    if not unique:
        return draw(stream, num_sampled, range_max, weights), num_sampled
    picked: list[int] = []
    used: set[int] = set()
    tries = 0
    while len(picked) < num_sampled:
        # Draw as many as are still missing at once; the loop below consumes them one by one in order.
        for value in draw(stream, num_sampled - len(picked), range_max, weights).tolist():
            tries += 1
            if value not in used:
                used.add(value)
                picked.append(value)
    return np.asarray(picked, np.int64), tries


def _check_true_classes(op, true_classes: np.ndarray, range_max: int) -> None:
    bad = (true_classes < 0) | (true_classes >= range_max)
    if bad.any():
        raise errors.InvalidArgumentError(
            None, op, f"`true_candidate` out of range [0, {range_max}), received {int(true_classes[bad][0])}")


def _infer_sampler(op):
    true_classes = op._inputs[0]
    num_true, num_sampled = op._attrs["num_true"], op._attrs["num_sampled"]
    batch = true_classes.shape[0] if true_classes.shape.ndims == 2 else None
    if true_classes.shape.ndims not in (None, 2):
        raise ValueError(f"Shape must be rank 2 but is rank {true_classes.shape.ndims} for '{{{{node {op.name}}}}} "
                         f"= {op.type}' (true_classes {true_classes.shape}).")
    value = constant_ops.constant_value(true_classes)
    if value is not None:  # TF's shape function checks constant classes at build time
        _check_true_classes(None, value, op._attrs["range_max"])
    return [(dtypes_lib.int64, TensorShape([num_sampled])), (dtypes_lib.float32, TensorShape([batch, num_true])),
            (dtypes_lib.float32, TensorShape([num_sampled]))]


def _compute_sampler(ctx, op, inputs):
    true_classes = np.asarray(inputs[0])
    attrs = op._attrs
    num_true, num_sampled, unique, range_max = (attrs["num_true"], attrs["num_sampled"], attrs["unique"],
                                                attrs["range_max"])
    if true_classes.ndim != 2:
        raise errors.InvalidArgumentError(None, op, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, op, f"true_classes must have num_true columns, expected: {true_classes.shape[1]} was: {num_true}")
    if unique and num_sampled > range_max:
        raise errors.InvalidArgumentError(None, op, "Sampler's range is too small.")
    _check_true_classes(op, true_classes, range_max)
    draw, probability = _SAMPLERS[op.type]
    reserved = philox.session_generator(ctx, op).reserve(-(-SAMPLES_PER_CANDIDATE * num_sampled // _WORDS_PER_BLOCK))
    weights = _unigram_weights(ctx, op) if op.type == "LearnedUnigramCandidateSampler" else None
    sampled, tries = _sample(_WordStream(reserved), draw, range_max, num_sampled, unique, weights)
    true_classes = true_classes.astype(np.int64)
    result = [sampled, _expected_counts(probability(true_classes, range_max, weights), num_sampled, tries),
              _expected_counts(probability(sampled, range_max, weights), num_sampled, tries)]
    if weights is not None:  # the learned distribution counts this batch's true classes afterwards (Update)
        np.add.at(weights, true_classes.reshape(-1), 1)
    return result


def _unigram_weights(ctx, op) -> np.ndarray:
    """The learned unigram counts of this op in this session: all 1 at first (WeightedPicker::SetAllWeights)."""
    key = op._name + ":unigram_weights"
    weights = ctx.op_state.get(key)
    if weights is None:
        weights = ctx.op_state[key] = np.ones(op._attrs["range_max"], np.int64)
    return weights


for _type in _SAMPLERS:
    kernels.register(_type, infer=_infer_sampler, compute=_compute_sampler, stateful=True,
                     default_attrs={"seed": 0, "seed2": 0})


def _sampler(op_type, true_classes, num_true, num_sampled, unique, range_max, seed, name) -> tuple:
    for attr, value in (("num_true", num_true), ("num_sampled", num_sampled), ("range_max", range_max)):
        if int(value) < 1:
            raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed {value} less than minimum 1.")
    seed1, seed2 = random_seed.get_seed(seed)
    graph = graph_lib.get_graph_from_inputs([true_classes])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        true_classes = convert_to_tensor(true_classes, dtype=dtypes_lib.int64, name="true_classes")
        attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
                 "range_max": int(range_max), "seed": seed1 or 0, "seed2": seed2 or 0}
        op = graph.create_op(op_type, [true_classes], name=scope, attrs=attrs)
    return sampler_outputs(op)


def uniform_candidate_sampler(true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed=None, name: str | None = None) -> tuple:
    """``num_sampled`` classes drawn uniformly from [0, range_max) (``UniformCandidateSampler``)."""
    return _sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed, name)


def log_uniform_candidate_sampler(true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int,
                                  seed=None, name: str | None = None) -> tuple:
    """``num_sampled`` classes from the Zipfian P(c) = log((c+2)/(c+1)) / log(range_max+1)
    (``LogUniformCandidateSampler``)."""
    return _sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed,
                    name)


def learned_unigram_candidate_sampler(true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int,
                                      seed=None, name: str | None = None) -> tuple:
    """Classes drawn by their counts among the true classes seen so far, plus one each
    (``LearnedUnigramCandidateSampler``; the counts live in the session)."""
    return _sampler("LearnedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed,
                    name)


# ----------------------------------------------------------------- ComputeAccidentalHits
def _infer_accidental_hits(op):
    return [(dtypes_lib.int32, TensorShape([None])), (dtypes_lib.int64, TensorShape([None])),
            (dtypes_lib.float32, TensorShape([None]))]


def _compute_accidental_hits(ctx, op, inputs):
    true_classes, sampled = np.asarray(inputs[0]), np.asarray(inputs[1])
    num_true = op._attrs["num_true"]
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, op, f"true_classes must be a matrix with num_true ({num_true}) columns, got shape "
            f"{list(true_classes.shape)}")
    if sampled.ndim != 1:
        raise errors.InvalidArgumentError(None, op, f"sampled_candidates must be a vector, got shape "
                                                    f"{list(sampled.shape)}")
    position = {int(value): index for index, value in enumerate(sampled.tolist())}  # a repeat: its last position
    rows, ids = [], []
    for row, values in enumerate(true_classes.tolist()):
        for value in values:
            if value in position:
                rows.append(row)
                ids.append(position[value])
    return [np.asarray(rows, np.int32), np.asarray(ids, np.int64), np.full(len(rows), -_FLT_MAX, np.float32)]


kernels.register("ComputeAccidentalHits", infer=_infer_accidental_hits, compute=_compute_accidental_hits,
                 default_attrs={"seed": 0, "seed2": 0})


def compute_accidental_hits(true_classes, sampled_candidates, num_true: int, seed=None,
                            name: str | None = None) -> AccidentalHits:
    """(rows, sampled positions, -FLT_MAX weights) where a sampled candidate is one of a row's true classes."""
    seed1, seed2 = random_seed.get_seed(seed)
    graph = graph_lib.get_graph_from_inputs([true_classes, sampled_candidates])
    with graph.as_default(), graph.name_scope(name or "ComputeAccidentalHits") as scope:
        true_classes = convert_to_tensor(true_classes, dtype=dtypes_lib.int64, name="true_classes")
        sampled_candidates = convert_to_tensor(sampled_candidates, dtype=dtypes_lib.int64, name="sampled_candidates")
        attrs = {"num_true": int(num_true), "seed": seed1 or 0, "seed2": seed2 or 0}
        op = graph.create_op("ComputeAccidentalHits", [true_classes, sampled_candidates], name=scope, attrs=attrs)
    return AccidentalHits(*op._outputs)
