"""Philox4x32-10 and TensorFlow's CPU random distributions, vectorised in numpy, bit-exact with TF's kernels.

The generator (tsl/lib/random/philox_random.h)::

    key:     uint32[2] = (seed & 0xffffffff, seed >> 32)            PhiloxRandom(seed_lo=seed, seed_hi=seed2)
    counter: uint32[4] = (0, 0, seed2 & 0xffffffff, seed2 >> 32)    a 128-bit little-endian block number
    block:   10 rounds of (M4x32A * c0, M4x32B * c2) mixing, raising the key by (W32A, W32B) between rounds;
             each call returns uint32[4] and adds 1 to the counter

GuardedPhiloxRandom (core/util/guarded_philox_random): a stateful random op keeps one generator per kernel
(per session here); each run *reserves* ``output_count * 256`` blocks -- it copies the generator and skips the
original that far -- so the next run continues from there.  (seed, seed2) == (0, 0) means "seed from the OS".

Distributions (tsl/lib/random/random_distributions{,_utils}.h, core/kernels/random_op_cpu.h):

- fixed samples per output: output group g (4 floats, or 2 doubles / int64s) is block g of the reserved
  stream.  Uint32ToFloat(x) = float(0x3f800000 | x & 0x7fffff) - 1;  Uint64ToDouble(x0, x1) likewise with
  20 + 32 mantissa bits;  BoxMullerFloat(x0, x1): u1 = max(Uint32ToFloat(x0), 1e-7), v1 = float(2*pi * u(x1)),
  r = sqrtf(-2 * logf(u1)), (sinf(v1) * r, cosf(v1) * r);  uniform int: lo + bits % (hi - lo) (unsigned).
- variable samples (truncated normal): output group g (4 floats / 2 doubles) reads uint32s one at a time from
  block ``g * 256`` on (kReservedSamplesPerOutput 256 * group size / 4 blocks), takes Box-Muller pairs and
  keeps values with ``|x| < 2`` in order until the group is full.

Float32 transcendental functions: TF calls the C library's ``logf`` and ``sincosf``; `graph.ops.libm` follows
glibc's algorithms bit for bit (checked on all 2^23 inputs Box-Muller can produce).  Draws run in chunks of
4096 blocks, whole-array numpy operations within each chunk (no per-element or per-block Python).  Float64 calls the C
library's ``log``/``sin``/``cos`` through ``math`` (numpy's vectorised ``log`` differs from libm's in the last
bit on ~0.3% of inputs), one element at a time: about 0.5 us per double.
"""

from __future__ import annotations

import math

import numpy as np

from graph.ops import libm

__all__ = ["Philox", "RESERVED_BLOCKS_PER_OUTPUT", "uint32_to_float", "uint64_to_double", "box_muller_float",
           "box_muller_double", "normal", "uniform", "uniform_int", "truncated_normal", "session_generator"]

_M4X32A = np.uint64(0xD2511F53)  # Philox multipliers recommended by the paper (Salmon et al. 2011)
_M4X32B = np.uint64(0xCD9E8D57)
_W32A = 0x9E3779B9  # key schedule: golden ratio and sqrt(3) - 1, as 32-bit fractions
_W32B = 0xBB67AE85
_MASK32 = 0xFFFFFFFF
_ROUNDS = 10
RESERVED_BLOCKS_PER_OUTPUT = 256  # GuardedPhiloxRandom::ReserveRandomOutputs(n, 256) in random_op.cc
_TRUNCATE = 2.0  # TruncatedNormalDistribution::kTruncateValue
_EPSILON_FLOAT = np.float32(1.0e-7)  # BoxMuller's floor for u1, "do not send a really small number to log()"
_EPSILON_DOUBLE = 1.0e-7
_TWO_PI = 2.0 * np.pi  # 2.0f * M_PI is a double


class Philox:
    """A Philox4x32-10 stream position: a 64-bit key and a 128-bit counter, as TF's PhiloxRandom."""

    __slots__ = ("key", "counter")

    def __init__(self, seed: int, seed2: int):
        seed &= 0xFFFFFFFFFFFFFFFF
        seed2 &= 0xFFFFFFFFFFFFFFFF
        self.key = (seed & _MASK32, seed >> 32)
        self.counter = (seed2 << 64)  # the 128-bit counter as one Python int: words 2 and 3 from seed2

    def skip(self, blocks: int) -> None:
        """Advances the counter by ``blocks`` 128-bit blocks (PhiloxRandom::Skip, with 128-bit carry)."""
        self.counter = (self.counter + blocks) & ((1 << 128) - 1)

    def reserve(self, blocks: int) -> Philox:
        """A copy at the current position, skipping this stream past ``blocks`` (ReserveSamples128)."""
        copy = Philox.__new__(Philox)
        copy.key, copy.counter = self.key, self.counter
        self.skip(blocks)
        return copy

    def blocks(self, first: np.ndarray | int, count: int | None = None) -> np.ndarray:
        """uint32[n, 4]: the outputs of blocks ``first`` (an index array, or a start with ``count``) from here."""
        if count is not None:
            first = np.arange(first, first + count, dtype=np.uint64)
        offsets = np.asarray(first, dtype=np.uint64).reshape(-1)
        return np.stack(self.blocks_by_word(offsets), axis=-1)

    def blocks_by_word(self, offsets: np.ndarray) -> list:
        """Words c0..c3 (four uint32 arrays) of blocks ``offsets`` (uint64) from here."""
        even, odd = self.word_pairs(offsets)
        return [even[0], odd[0], even[1], odd[1]]

    def word_pairs(self, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """uint32[2, n] arrays (c0, c2) and (c1, c3) of blocks ``offsets`` (uint64) from here."""
        low = self.counter & ((1 << 64) - 1)
        high = self.counter >> 64
        # 128-bit counter + offset: add to the low 64 bits, carry into the high 64 bits.
        counters = np.empty((2, offsets.shape[0]), _U64)
        np.add(offsets, np.uint64(low), out=counters[0])
        np.less(counters[0], offsets, out=counters[1], casting="unsafe")
        counters[1] += np.uint64(high)
        return _rounds(counters, self.key)


def _rounds(counters: np.ndarray, key: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Philox4x32-10 on uint64[2, n] counters (low, high 64 bits) -> uint32[2, n] words (c0, c2), (c1, c3).

    A 32 x 32 -> 64-bit product viewed as two little-endian uint32s holds the multiplication's low and
    high words without shifts or masks, so a round is two multiplications and two xors over (c0, c2):
    new (c0, c2) = high words of (c2 * B, c0 * A) ^ (c1, c3) ^ key, new (c1, c3) = their low words.
    Products alternate between two buffers because one round's low words are read by the next.
    """
    count = counters.shape[1]
    halves = counters.view(_U32)  # [2, 2n]: little-endian low and high words of each 64-bit counter half
    even, odd = halves[:, 0::2], halves[:, 1::2]
    products = [np.empty((2, count), _U64) for _ in range(2)]
    words = [np.empty((2, count), _U32) for _ in range(2)]
    for round_index, round_key in enumerate(_round_keys(key)):
        product, new_even = products[round_index % 2], words[round_index % 2]
        np.multiply(even[1], _M4X32B, out=product[0], dtype=_U64)
        np.multiply(even[0], _M4X32A, out=product[1], dtype=_U64)
        split = product.view(_U32)  # [2, 2n]: even columns the low words, odd the high words
        np.bitwise_xor(split[:, 1::2], odd, out=new_even)
        new_even ^= round_key
        even, odd = new_even, split[:, 0::2]
    return even, odd


_U64, _U32 = np.dtype("<u8"), np.dtype("<u4")  # explicit byte order: the word views assume little-endian
_KEY_CACHE: dict = {}


def _round_keys(key: tuple[int, int]) -> list:
    """The ten uint32[2, 1] round keys of ``key`` (raised by (W32A, W32B) between rounds), cached per key."""
    keys = _KEY_CACHE.get(key)
    if keys is None:
        if len(_KEY_CACHE) > 64:
            _KEY_CACHE.clear()
        k0, k1 = key
        keys = [np.array([[(k0 + r * _W32A) & _MASK32], [(k1 + r * _W32B) & _MASK32]], _U32)
                for r in range(_ROUNDS)]
        _KEY_CACHE[key] = keys
    return keys


def session_generator(ctx, op) -> Philox:
    """The op's Philox stream in this session (GuardedPhiloxRandom), created on first use."""
    state = ctx.op_state.get(op._name)
    if state is None:
        seed, seed2 = op._attrs["seed"], op._attrs["seed2"]
        if seed == 0 and seed2 == 0:  # GuardedPhiloxRandom::Init: both unset -> random::New64() twice
            seed, seed2 = (int(v) for v in np.random.default_rng().integers(0, 2**63, size=2))
        state = ctx.op_state[op._name] = Philox(int(seed), int(seed2))
    return state


# ----------------------------------------------------------------- bits -> numbers
def uint32_to_float(bits: np.ndarray) -> np.ndarray:
    """Uint32ToFloat: 23 random mantissa bits under exponent 127, minus 1 -> float32 in [0, 1)."""
    return ((bits & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def uint64_to_double(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Uint64ToDouble: 20 bits of ``high`` and 32 of ``low`` as mantissa under exponent 1023, minus 1."""
    mantissa = ((high.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | low.astype(np.uint64)
    return (mantissa | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BoxMullerFloat: two float32 standard normals from two uint32 arrays (glibc's logf and sincosf)."""
    u1 = np.maximum(uint32_to_float(x0), _EPSILON_FLOAT)
    v1 = (_TWO_PI * uint32_to_float(x1).astype(np.float64)).astype(np.float32)  # 2.0f * M_PI is a double
    u2 = np.sqrt(np.float32(-2.0) * libm.logf(u1))  # sqrtf is correctly rounded everywhere
    sine, cosine = libm.sincosf(v1)
    return sine.reshape(u2.shape) * u2, cosine.reshape(u2.shape) * u2


def box_muller_double(x0, x1, x2, x3) -> tuple[np.ndarray, np.ndarray]:
    """BoxMullerDouble: two float64 standard normals from four uint32 arrays (the C library's log and sincos)."""
    u1 = np.maximum(uint64_to_double(x0, x1), _EPSILON_DOUBLE)
    v1 = _TWO_PI * uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * _c_log(u1))  # sqrt is correctly rounded everywhere
    return _c_sin(v1) * u2, _c_cos(v1) * u2


def _through_math(function):
    """An elementwise float64 function calling the C library through ``math`` (numpy's SIMD log is not libm's)."""
    ufunc = np.frompyfunc(function, 1, 1)
    return lambda values: ufunc(values).astype(np.float64).reshape(np.shape(values))


_c_log = _through_math(math.log)
_c_sin = _through_math(math.sin)
_c_cos = _through_math(math.cos)


# ----------------------------------------------------------------- distributions
# A draw runs in chunks of blocks, so that each chunk's temporaries stay in the CPU's cache and below
# malloc's mmap threshold (fresh mmapped pages fault on first touch); chunks write disjoint slices of one
# output and the values do not depend on the chunking.  (Threads do not pay: each chunk is a hundred short
# numpy calls, and handing the GIL back and forth between them costs more than the second core gives.)
_CHUNK_BLOCKS = 4096  # Box-Muller's float64 temporaries (two words per block) of 64 KiB
_CHUNK_BLOCKS_BITS = 8192  # uniform draws keep only Philox's state, 48 bytes per block: 384 KiB


def _group_size(dtype) -> int:
    """Outputs per 128-bit block: 4 for 32-bit (and 16-bit) results, 2 for 64-bit ones."""
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _in_chunks(count: int, fill, chunk: int = _CHUNK_BLOCKS) -> None:
    """Calls ``fill(start, stop)`` over [0, count) in chunks of ``chunk``."""
    for start in range(0, count, chunk):
        fill(start, min(start + chunk, count))


def _words(generator: Philox, start: int, stop: int) -> list:
    """Words c0..c3 (uint32 arrays) of blocks [start, stop)."""
    return generator.blocks_by_word(np.arange(start, stop, dtype=np.uint64))


def _fixed(generator: Philox, size: int, dtype, convert, columns=None) -> np.ndarray:
    """``size`` outputs of a fixed-samples distribution: ``convert(words)`` (or ``columns(start, stop)``) gives
    the ``group`` output columns of a chunk of blocks."""
    group = _group_size(dtype)
    groups = -(-size // group)
    result = np.empty((groups, group), dtype)

    def fill(start: int, stop: int) -> None:
        values_by_column = columns(start, stop) if columns else convert(_words(generator, start, stop))
        for column, values in enumerate(values_by_column):
            result[start:stop, column] = values
    _in_chunks(groups, fill, _CHUNK_BLOCKS if columns else _CHUNK_BLOCKS_BITS)
    return result.reshape(-1)[:size]


def uniform(generator: Philox, size: int, dtype) -> np.ndarray:
    """UniformDistribution for floats: ``size`` values in [0, 1) (RandomUniform)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return _fixed(generator, size, dtype, lambda w: [uint64_to_double(w[0], w[1]), uint64_to_double(w[2], w[3])])
    if dtype.itemsize == 2:
        return _fixed(generator, size, dtype,
                      lambda w: [_uint16_to_small_float(v & np.uint32(0xFFFF), dtype) for v in w])
    return _fixed(generator, size, dtype, lambda w: [uint32_to_float(v) for v in w])


def _uint16_to_small_float(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Uint16ToHalf / Uint16ToGfloat16: 10 (half) or 7 (bfloat16) mantissa bits under a zero exponent, minus 1."""
    bits = bits.astype(np.uint16)
    if dtype == np.float16:
        return (((bits & np.uint16(0x3FF)) | np.uint16(15 << 10)).view(np.float16) - np.float16(1.0))
    one = np.ones((), dtype)
    return ((bits & np.uint16(0x7F)) | np.uint16(127 << 7)).view(dtype) - one


def uniform_int(generator: Philox, size: int, low: int, high: int, dtype) -> np.ndarray:
    """UniformDistribution for int32/int64: ``lo + bits % (hi - lo)`` with unsigned range (RandomUniformInt)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        span = np.uint64((high - low) & 0xFFFFFFFFFFFFFFFF)
        base = np.uint64(low & 0xFFFFFFFFFFFFFFFF)

        def convert(words):
            wide = [low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))
                    for low, high in (words[0:2], words[2:4])]
            # SignedAdd: lo + offset wraps in two's complement exactly as the C++ does.
            return [(base + value % span).view(np.int64) for value in wide]
        return _fixed(generator, size, dtype, convert)
    span = np.uint32((high - low) & _MASK32)
    base = np.uint32(low & _MASK32)
    return _fixed(generator, size, dtype, lambda words: [(base + word % span).view(np.int32) for word in words])


def _normal_columns(generator: Philox, offsets: np.ndarray, dtype) -> list:
    """The groups' standard normals from blocks ``offsets``: Box-Muller on (c0, c1) and (c2, c3), or on all four."""
    even, odd = generator.word_pairs(offsets)
    if dtype == np.float64:
        return list(box_muller_double(even[0], odd[0], even[1], odd[1]))
    # One Box-Muller call over both pairs: (c0 | c2) with (c1 | c3).
    first, second = box_muller_float(even.reshape(-1), odd.reshape(-1))
    count = offsets.shape[0]
    return [first[:count], second[:count], first[count:], second[count:]]


def normal(generator: Philox, size: int, dtype) -> np.ndarray:
    """NormalDistribution: ``size`` standard normals (RandomStandardNormal)."""
    dtype = np.dtype(dtype)
    compute = np.float64 if dtype == np.float64 else np.float32
    values = _fixed(generator, size, compute, None, columns=lambda start, stop: _normal_columns(
        generator, np.arange(start, stop, dtype=np.uint64), compute))
    return values.astype(dtype, copy=False)


def truncated_normal(generator: Philox, size: int, dtype) -> np.ndarray:
    """TruncatedNormalDistribution: standard normals with ``|x| < 2``, TF's per-group rejection (TruncatedNormal)."""
    dtype = np.dtype(dtype)
    group = _group_size(dtype)
    groups = -(-size // group)
    compute = np.float64 if dtype == np.float64 else np.float32
    result = np.empty((groups, group), compute)
    blocks_per_group = group * RESERVED_BLOCKS_PER_OUTPUT // 4

    # Group g reads blocks g * blocks_per_group + step, step = 0, 1, ...: each block gives 4 (float) or 2
    # (double) candidates, taken in order while they are inside (-2, 2) and the group is not full.  Step 0
    # runs chunk by chunk over every group; the groups it leaves short (about 1 in 6) then take their later
    # steps together, so those small steps do not each pay numpy's per-call overhead once per chunk.
    def step_through(pending: np.ndarray, filled: np.ndarray, step: int) -> tuple[np.ndarray, np.ndarray]:
        offsets = pending.astype(np.uint64) * np.uint64(blocks_per_group) + np.uint64(step)
        candidates = np.stack(_normal_columns(generator, offsets, compute), axis=-1)
        accepted = np.abs(candidates) < _TRUNCATE
        if step == 0:  # most groups accept their whole first block: write it, then fix the others
            result[pending[0]:pending[-1] + 1] = candidates
            partial = ~accepted.all(axis=1)
            pending, filled, candidates, accepted = (pending[partial], filled[partial], candidates[partial],
                                                     accepted[partial])
        slot = filled[:, None] + np.cumsum(accepted, axis=1) - 1
        take = accepted & (slot < group)
        rows, columns = np.nonzero(take)
        result[pending[rows], slot[rows, columns]] = candidates[rows, columns]
        filled = filled + take.sum(axis=1)
        more = filled < group
        return pending[more], filled[more]

    short = []

    def first_step(start: int, stop: int) -> None:
        short.append(step_through(np.arange(start, stop), np.zeros(stop - start, np.int64), 0))
    _in_chunks(groups, first_step)
    step = 1
    while short:
        pending = np.concatenate([p for p, _ in short])
        filled = np.concatenate([f for _, f in short])
        short = []
        for start in range(0, pending.size, _CHUNK_BLOCKS):
            left = step_through(pending[start:start + _CHUNK_BLOCKS], filled[start:start + _CHUNK_BLOCKS], step)
            if left[0].size:
                short.append(left)
        step += 1
    return result.reshape(-1)[:size].astype(dtype, copy=False)
