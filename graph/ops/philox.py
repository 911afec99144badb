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
glibc's algorithms bit for bit (checked on all 2^23 inputs Box-Muller can produce).  Float64 calls the C
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
        low = self.counter & ((1 << 64) - 1)
        high = self.counter >> 64
        # 128-bit counter + offset: add to the low 64 bits, carry into the high 64 bits.
        sum_low = offsets + np.uint64(low)
        carry = (sum_low < offsets).astype(np.uint64)
        sum_high = carry + np.uint64(high)
        c0 = sum_low & np.uint64(_MASK32)
        c1 = sum_low >> np.uint64(32)
        c2 = sum_high & np.uint64(_MASK32)
        c3 = sum_high >> np.uint64(32)
        k0, k1 = self.key
        mask = np.uint64(_MASK32)
        for round_index in range(_ROUNDS):
            product0 = _M4X32A * c0
            product1 = _M4X32B * c2
            c0, c1, c2, c3 = ((product1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), product1 & mask,
                              (product0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), product0 & mask)
            k0 = (k0 + _W32A) & _MASK32
            k1 = (k1 + _W32B) & _MASK32
        return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


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
def _group_size(dtype) -> int:
    """Outputs per 128-bit block: 4 for 32-bit (and 16-bit) results, 2 for 64-bit ones."""
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _fixed_blocks(generator: Philox, size: int, dtype) -> np.ndarray:
    """The uint32[groups, 4] blocks behind ``size`` outputs of a fixed-samples distribution."""
    groups = -(-size // _group_size(dtype))
    return generator.blocks(0, groups)


def uniform(generator: Philox, size: int, dtype) -> np.ndarray:
    """UniformDistribution for floats: ``size`` values in [0, 1) (RandomUniform)."""
    bits = _fixed_blocks(generator, size, dtype)
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        values = uint64_to_double(bits[:, 0::2], bits[:, 1::2])
    elif dtype.itemsize == 2:
        values = _uint16_to_small_float(bits & np.uint32(0xFFFF), dtype)
    else:
        values = uint32_to_float(bits)
    return values.reshape(-1)[:size].astype(dtype)


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
    bits = _fixed_blocks(generator, size, dtype)
    if dtype.itemsize == 8:
        wide = bits[:, 0::2].astype(np.uint64) | (bits[:, 1::2].astype(np.uint64) << np.uint64(32))
        span = np.uint64((high - low) & 0xFFFFFFFFFFFFFFFF)
        offsets = (wide % span).reshape(-1)[:size]
        # SignedAdd: lo + offset wraps in two's complement exactly as the C++ does.
        return (np.uint64(low & 0xFFFFFFFFFFFFFFFF) + offsets).view(np.int64).astype(dtype)
    span = np.uint32((high - low) & _MASK32)
    offsets = (bits % span).reshape(-1)[:size]
    return (np.uint32(low & _MASK32) + offsets).view(np.int32).astype(dtype)


def normal(generator: Philox, size: int, dtype) -> np.ndarray:
    """NormalDistribution: ``size`` standard normals (RandomStandardNormal)."""
    dtype = np.dtype(dtype)
    bits = _fixed_blocks(generator, size, dtype)
    if dtype == np.float64:
        first, second = box_muller_double(bits[:, 0], bits[:, 1], bits[:, 2], bits[:, 3])
        values = np.stack([first, second], axis=-1)
    else:
        first01, second01 = box_muller_float(bits[:, 0], bits[:, 1])
        first23, second23 = box_muller_float(bits[:, 2], bits[:, 3])
        values = np.stack([first01, second01, first23, second23], axis=-1)
    return values.reshape(-1)[:size].astype(dtype)


def truncated_normal(generator: Philox, size: int, dtype) -> np.ndarray:
    """TruncatedNormalDistribution: standard normals with ``|x| < 2``, TF's per-group rejection (TruncatedNormal)."""
    dtype = np.dtype(dtype)
    group = _group_size(dtype)
    groups = -(-size // group)
    if groups == 0:
        return np.zeros(0, dtype)
    blocks_per_group = group * RESERVED_BLOCKS_PER_OUTPUT // 4
    result = np.empty((groups, group), dtype=np.float64 if dtype == np.float64 else np.float32)
    filled = np.zeros(groups, dtype=np.int64)
    pending = np.arange(groups)
    step = 0  # how many blocks of its region each pending group has consumed
    while pending.size:
        # One Philox block per pending group per step: 2 Box-Muller pairs (floats) or 1 (doubles).
        starts = pending.astype(np.uint64) * np.uint64(blocks_per_group) + np.uint64(step)
        bits = generator.blocks(starts)
        if dtype == np.float64:
            candidates = np.stack(box_muller_double(bits[:, 0], bits[:, 1], bits[:, 2], bits[:, 3]), axis=-1)
        else:
            a0, a1 = box_muller_float(bits[:, 0], bits[:, 1])
            b0, b1 = box_muller_float(bits[:, 2], bits[:, 3])
            candidates = np.stack([a0, a1, b0, b1], axis=-1)
        accepted = np.abs(candidates) < _TRUNCATE
        for column in range(candidates.shape[1]):
            take = accepted[:, column] & (filled[pending] < group)
            rows = pending[take]
            result[rows, filled[rows]] = candidates[take, column]
            filled[rows] += 1
        pending = pending[filled[pending] < group]
        step += 1
    return result.reshape(-1)[:size].astype(dtype)
