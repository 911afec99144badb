"""Philox4x32-10 as TensorFlow's PhiloxRandom and GuardedPhiloxRandom, bit-exact, and TF's bit conversions.

The generator (tsl/lib/random/philox_random.h)::

    key:     uint32[2] = (seed & 0xffffffff, seed >> 32)            PhiloxRandom(seed_lo=seed, seed_hi=seed2)
    counter: uint32[4] = (0, 0, seed2 & 0xffffffff, seed2 >> 32)    a 128-bit little-endian block number
    block:   10 rounds of (M4x32A * c0, M4x32B * c2) mixing, raising the key by (W32A, W32B) between rounds;
             each call returns uint32[4] and adds 1 to the counter

GuardedPhiloxRandom (core/util/guarded_philox_random): a stateful random op keeps one generator per kernel
(per session here); each run *reserves* ``output_count * 256`` blocks -- it copies the generator and skips the
original that far -- so the next run continues from there.  (seed, seed2) == (0, 0) means "seed from the OS".

Consecutive blocks (`Philox.words`) come from randomgen's C Philox4x32-10, the same function with the same
counter and key (it raises its counter before each block, so it starts one block early), read through numpy's
``Generator.integers`` (uint32 words, the GIL released: two threads draw in parallel); blocks at arbitrary
offsets (`Philox.word_pairs`, truncated normal's per-group streams) from a numpy evaluation of the rounds.
The distributions built on them are in `graph.ops.random_distributions`.
"""

from __future__ import annotations

import threading

import numpy as np
from randomgen import Philox as _CPhilox

__all__ = ["Philox", "RESERVED_BLOCKS_PER_OUTPUT", "uint32_to_float", "uint64_to_double", "session_generator"]

_M4X32A = np.uint64(0xD2511F53)  # Philox multipliers recommended by the paper (Salmon et al. 2011)
_M4X32B = np.uint64(0xCD9E8D57)
_W32A = 0x9E3779B9  # key schedule: golden ratio and sqrt(3) - 1, as 32-bit fractions
_W32B = 0xBB67AE85
_MASK32 = 0xFFFFFFFF
_ROUNDS = 10
RESERVED_BLOCKS_PER_OUTPUT = 256  # GuardedPhiloxRandom::ReserveRandomOutputs(n, 256) in random_op.cc
_MASK128 = (1 << 128) - 1


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
        self.counter = (self.counter + blocks) & _MASK128

    def reserve(self, blocks: int) -> Philox:
        """A copy at the current position, skipping this stream past ``blocks`` (ReserveSamples128)."""
        copy = Philox.__new__(Philox)
        copy.key, copy.counter = self.key, self.counter
        self.skip(blocks)
        return copy

    def blocks(self, first: np.ndarray | int, count: int | None = None) -> np.ndarray:
        """uint32[n, 4]: the outputs of blocks ``first`` (an index array, or a start with ``count``) from here."""
        if count is not None:
            return self.words(first, count).reshape(count, 4)
        offsets = np.asarray(first, dtype=np.uint64).reshape(-1)
        return np.stack(self.blocks_by_word(offsets), axis=-1)

    def words(self, first: int, count: int, out: np.ndarray | None = None) -> np.ndarray:
        """uint32[4 * count] (into ``out``): words c0..c3 of blocks [first, first + count) from here, in order."""
        generator = self._positioned(first)
        _THREAD.stream = None  # the thread's generator moved: an open stream of this thread is over
        return _raw_words(generator, count, out)

    def stream(self, first: int):
        """A function ``take(count, out=None)`` giving the words (uint32[4 * count]) of the next ``count`` blocks,
        from block ``first`` on.  It draws from this thread's C generator (a new one costs an OS entropy read), so
        it serves this thread until its next `words` or `stream` call; a later ``take`` raises RuntimeError."""
        generator = self._positioned(first)
        token = _THREAD.stream = object()

        def take(count: int, out: np.ndarray | None = None) -> np.ndarray:
            if getattr(_THREAD, "stream", None) is not token:
                raise RuntimeError("a Philox stream is used after its thread's generator moved on (or in another "
                                   "thread)")
            return _raw_words(generator, count, out)
        return take

    def _positioned(self, first: int) -> np.random.Generator:
        """This thread's C generator, set to give block ``first`` from here next (numpy's Generator over it)."""
        generator, state, words = _thread_generator()
        _set_position(state["state"], (self.counter + first - 1) & _MASK128, self.key)  # raised before a block
        generator.state = state  # a thread's own C generator, repositioned: cheaper than a new one
        return words

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


_THREAD = threading.local()


def _thread_generator() -> tuple:
    """This thread's C Philox4x32, a state dict to reposition it with, and numpy's Generator over it."""
    cached = getattr(_THREAD, "philox", None)
    if cached is None:
        generator = _CPhilox(counter=0, key=0, number=4, width=32)
        cached = _THREAD.philox = (generator, generator.state, np.random.Generator(generator))
    return cached


# Words per call: 256 KiB, so the copy into ``out`` reads from the core's cache, and long enough that two
# threads drawing at once seldom wait for the GIL between calls (8,192-word pieces contended for it).
_RAW_PIECE = 1 << 16
_FULL_RANGE = 0xFFFFFFFF
# Up to this many words (a small variable's initializer) the bit generator's own ``random_raw`` costs less per
# call (1.7 against 5.1 us for 200 words); it gives the same words, one per raw value.
_SMALL_DRAW = 4096


def _raw_words(generator: np.random.Generator, count: int, out: np.ndarray | None) -> np.ndarray:
    """The C generator's next ``4 * count`` words into ``out``, in pieces.

    numpy's ``integers`` over the full uint32 range (``endpoint=True``) returns the bit generator's next 32-bit
    outputs unchanged, in uint32 (no uint64 array to narrow) and with the GIL released: the words of
    ``random_raw``, in the same order."""
    if out is None:
        out = np.empty(4 * count, np.uint32)
    if 4 * count <= _SMALL_DRAW:
        np.copyto(out[:4 * count], generator.bit_generator.random_raw(4 * count), casting="unsafe")
        return out
    for start in range(0, 4 * count, _RAW_PIECE):
        piece = out[start:start + _RAW_PIECE]
        piece[...] = generator.integers(0, _FULL_RANGE, piece.size, dtype=np.uint32, endpoint=True)
    return out


def _set_position(state: dict, counter: int, key: tuple) -> None:
    """Writes a 128-bit counter and a key into a C Philox4x32 state (uint32 words, least significant first)."""
    words = state["counter"]
    for index in range(4):
        words[index] = (counter >> (32 * index)) & _MASK32
    state["key"][0], state["key"][1] = key


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
