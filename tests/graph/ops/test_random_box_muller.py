"""Tests for random_box_muller.py, Philox.words, shards and fisher_yates: the fast paths equal the references."""

import os

import numpy as np
import pytest

from graph.ops import libm
from graph.ops import philox
from graph.ops import random_box_muller as bm
from graph.ops import random_distributions
from graph.ops.random_shuffle import fisher_yates


@pytest.mark.parametrize("seed, seed2, counter", [(0, 0, None), (5, 2**63 - 1, None), (2**64 - 1, 3, 2**64 - 3),
                                                  (7, 7, (1 << 128) - 2), (987654321, 12345, 0)])
def test_c_stream_equals_numpy_rounds(seed, seed2, counter):
    # The C generator (counter raised before each block) against the numpy rounds, across the 64-bit carry
    # and the 128-bit wrap of the counter.
    generator = philox.Philox(seed, seed2)
    if counter is not None:
        generator.counter = counter
    for first, count in [(0, 1), (0, 9), (3, 5), (1000, 2)]:
        expected = np.stack(generator.blocks_by_word(np.arange(first, first + count, dtype=np.uint64)), axis=-1)
        np.testing.assert_array_equal(generator.words(first, count).reshape(-1, 4), expected)
    words = generator.stream(2)
    np.testing.assert_array_equal(np.concatenate([words(3), words(4)]), generator.words(2, 7))


def test_stream_refuses_after_its_generator_moved():
    # A stream draws from its thread's C generator: a words() or another stream() in that thread ends it.
    generator = philox.Philox(5, 6)
    for move in (lambda: generator.words(0, 1), lambda: generator.stream(0)):
        words = generator.stream(0)
        words(1)
        move()
        with pytest.raises(RuntimeError, match="Philox stream"):
            words(1)


def _box_muller_reference(x0, x1):
    """BoxMullerFloat with libm's whole-array logf and sincosf."""
    u1 = np.maximum(philox.uint32_to_float(x0), np.float32(1e-7))
    v1 = (2.0 * np.pi * philox.uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    radius = np.sqrt(np.float32(-2.0) * libm.logf(u1))
    sine, cosine = libm.sincosf(v1)
    return sine * radius, cosine * radius


def test_box_muller_equals_libm_on_every_input():
    # Every one of the 2^23 mantissas Box-Muller reads, as u1 and as the angle (paired in two orders).
    mantissas = np.arange(1 << 23, dtype=np.uint32)
    shuffled = np.random.default_rng(1).permutation(mantissas)
    scratch = bm.Scratch()
    for start in range(0, mantissas.size, 1 << 20):
        x0, x1 = mantissas[start:start + (1 << 20)], shuffled[start:start + (1 << 20)]
        for first, second in ((x0, x1), (x1, x0)):
            sine, cosine = np.empty(first.size, np.float32), np.empty(first.size, np.float32)
            bm.box_muller_float_into(first | np.uint32(0xAB800000), second, sine, cosine, scratch)
            expected_sine, expected_cosine = _box_muller_reference(first, second)
            assert sine.tobytes() == expected_sine.tobytes()
            assert cosine.tobytes() == expected_cosine.tobytes()


def test_sharded_draws_equal_single_thread(monkeypatch):
    # Two shards (the second on a worker thread) give the one-thread values, for every distribution.
    draws = {}
    for shard_min in (1 << 60, 1):
        monkeypatch.setattr(random_distributions, "_SHARD_MIN_BLOCKS", shard_min)
        monkeypatch.setattr(random_distributions, "_CHUNK_BLOCKS", 1000)
        draws[shard_min] = [function(philox.Philox(11, 12), 70_001, dtype)
                            for function in (random_distributions.normal, random_distributions.truncated_normal,
                                             random_distributions.uniform)
                            for dtype in (np.float32, np.float16)]
        draws[shard_min].append(random_distributions.uniform_int(philox.Philox(3, 4), 9_999, -5, 2**40, np.int64))
    for single, sharded in zip(draws[1 << 60], draws[1]):
        assert single.tobytes() == sharded.tobytes()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_sharded_draw_in_a_forked_child():
    # The parent's shard worker thread does not exist in a forked child: the child makes its own (no hang).
    expected = random_distributions.normal(philox.Philox(1, 2), 100_003, np.float32)
    pid = os.fork()
    if pid == 0:
        got = random_distributions.normal(philox.Philox(1, 2), 100_003, np.float32)
        os._exit(0 if got.tobytes() == expected.tobytes() else 3)
    assert os.waitpid(pid, 0)[1] >> 8 == 0


def _swaps_one_by_one(samples, size):
    permutation = list(range(size))
    for i in range(size - 1):
        j = i + int(samples[i]) % (size - i)
        permutation[i], permutation[j] = permutation[j], permutation[i]
    return permutation


@pytest.mark.parametrize("size", [2, 3, 5, 17, 256, 1000, 5001, 65537])
def test_fisher_yates_equals_the_swaps(size):
    rng = np.random.default_rng(size)
    for samples in (rng.integers(0, 2**32, size - 1, dtype=np.uint64).astype(np.uint32),
                    np.zeros(size - 1, np.uint32), np.full(size - 1, 0xFFFFFFFF, np.uint32),
                    rng.integers(0, 3, size - 1).astype(np.uint32)):  # small samples: long chains of moves
        assert fisher_yates(samples, size).tolist() == _swaps_one_by_one(samples, size)
