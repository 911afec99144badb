"""TensorFlow's CPU random distributions over Philox streams, vectorised in numpy, bit-exact with TF's kernels.

Distributions (tsl/lib/random/random_distributions{,_utils}.h, core/kernels/random_op_cpu.h):

- fixed samples per output: output group g (4 floats, or 2 doubles / int64s) is block g of the reserved
  stream.  Uint32ToFloat(x) = float(0x3f800000 | x & 0x7fffff) - 1;  Uint64ToDouble(x0, x1) likewise with
  20 + 32 mantissa bits;  BoxMullerFloat(x0, x1): u1 = max(Uint32ToFloat(x0), 1e-7), v1 = float(2*pi * u(x1)),
  r = sqrtf(-2 * logf(u1)), (sinf(v1) * r, cosf(v1) * r);  uniform int: lo + bits % (hi - lo) (unsigned).
- variable samples (truncated normal): output group g (4 floats / 2 doubles) reads uint32s one at a time from
  block ``g * 256`` on (kReservedSamplesPerOutput 256 * group size / 4 blocks), takes Box-Muller pairs and
  keeps values with ``|x| < 2`` in order until the group is full.

Float32 transcendental functions: TF calls the C library's ``logf`` and ``sincosf``.  numexpr calls them too
(`graph.ops.random_numexpr`, trusted after a self-check against the emulation); else `graph.ops.libm` follows
glibc's algorithms bit for bit and `graph.ops.random_box_muller` runs them in place over chunks.  Once a
process has drawn enough, float32 Box-Muller goes by table lookup instead (`graph.ops.box_muller_tables`, the
same bits: two gathers per pair beat the three C calls of numexpr's path).  Float64 calls the C library's
``log``/``sin``/``cos`` through ``math`` (numpy's vectorised ``log`` differs from libm's in the last bit on ~0.3%
of inputs), one element at a time: about 0.5 us per double.

A draw runs in chunks of blocks whose temporaries stay in the core's cache; chunks write disjoint slices of
the output and the values do not depend on the chunking.  A large draw is split in two shards, the second
filled by a worker thread (numpy and the C Philox release the GIL while they run), as TF shards a draw over
its intra-op threads: each shard starts at its own block, so the values are the same.  With numexpr, float32
Box-Muller takes chunks of a million outputs: the two shards draw the words and convert them to (u1, angle),
then numexpr, on its own two threads, computes the chunk's transcendental part in one call per expression
(numexpr serializes concurrent calls, and its threads pay only on large arrays).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from graph.ops import box_muller_tables
from graph.ops import random_box_muller as bm
from graph.ops import random_numexpr
from graph.ops.philox import RESERVED_BLOCKS_PER_OUTPUT, Philox, uint64_to_double

__all__ = ["box_muller_float", "box_muller_double", "normal", "uniform", "uniform_int", "uniform_full_int",
           "truncated_normal"]

_TRUNCATE = 2.0  # TruncatedNormalDistribution::kTruncateValue
_TRUNCATE_BITS = np.uint32(0x40000000)  # float32 2.0: |x| >= 2 exactly when the magnitude bits are >= these
_EPSILON_DOUBLE = 1.0e-7  # BoxMuller's floor for u1, "do not send a really small number to log()"
_TWO_PI = 2.0 * np.pi  # 2.0f * M_PI is a double
_CHUNK_BLOCKS = 16384  # Box-Muller's float64 temporaries (two words per block): 256 KiB each
_CHUNK_BLOCKS_BITS = 16384  # conversions of bits only: 256 KiB of words
_LATER_STEPS = 4  # truncated normal: from step 2 on, a short group's next blocks are taken together
_SHARD_MIN_BLOCKS = 8192  # below this a second thread costs more than it gives
_BIG_GROUPS = 1 << 18  # numexpr's chunk: a million float32 outputs; its u, angle and radius take 2 MiB each
_PIECE_BLOCKS = 1 << 14  # words a shard draws and converts at once: 256 KiB, in the core's cache
# Below this many pairs numexpr's thread hand-offs cost what its C calls save (idle, same run: equal at 100K
# pairs, 1.15x faster at 500K, 1.4x at 5M; slower at 16K): smaller draws take the emulation.
_NUMEXPR_MIN_PAIRS = 1 << 17
_SCRATCH = bm.Scratch()
_POOL: list = []  # the shard worker, made on first use
if hasattr(os, "register_at_fork"):  # a forked child has no worker thread: it makes its own
    os.register_at_fork(after_in_child=_POOL.clear)


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _in_chunks(fill, chunk: int):
    """``run(first, last)`` calling ``fill(start, stop)`` over [first, last) in chunks."""
    def run(first: int, last: int) -> None:
        for start in range(first, last, chunk):
            fill(start, min(start + chunk, last))
    return run


def _sharded(count: int, run, minimum: int | None = None) -> None:
    """``run(first, last)`` over [0, count): on two threads, split in halves, if ``count`` reaches ``minimum``
    (default: `_SHARD_MIN_BLOCKS`)."""
    if count < (_SHARD_MIN_BLOCKS if minimum is None else minimum) or _cores() < 2:
        run(0, count)
        return
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="random-shard"))
    middle = count // 2
    second = _POOL[0].submit(run, middle, count)
    run(0, middle)
    second.result()


def _words_from(generator: Philox, first: int, chunked: bool):
    """``take(count, out)`` giving the next words from block ``first`` on: a C generator of the shard's own when
    it is drawn in several chunks, else (one call) the thread's repositioned one."""
    if chunked:
        return generator.stream(first)
    return lambda count, out: generator.words(first, count, out)


def _group_size(dtype) -> int:
    """Outputs per 128-bit block: 4 for 32-bit (and 16-bit) results, 2 for 64-bit ones."""
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _fixed(generator: Philox, size: int, dtype, convert, chunk: int = _CHUNK_BLOCKS_BITS) -> np.ndarray:
    """``size`` outputs of a fixed-samples distribution: ``convert(words, out)`` fills a chunk's outputs
    (``out``: [blocks, group]) from its words ([blocks, 4] uint32)."""
    group = _group_size(dtype)
    groups = -(-size // group)
    result = np.empty((groups, group), dtype)

    def run(first: int, last: int) -> None:
        words = _words_from(generator, first, last - first > chunk)
        for start in range(first, last, chunk):
            stop = min(start + chunk, last)
            buffer = _SCRATCH.get("words", np.uint32, 4 * (stop - start))
            convert(words(stop - start, buffer).reshape(-1, 4), result[start:stop])
    _sharded(groups, run)
    return result.reshape(-1)[:size]


def _columns(values_by_column) -> callable:
    """A ``convert`` writing ``values_by_column(words)`` (one array per output column) into ``out``."""
    def convert(words, out):
        for column, values in enumerate(values_by_column(words)):
            out[:, column] = values
    return convert


def uniform(generator: Philox, size: int, dtype) -> np.ndarray:
    """UniformDistribution for floats: ``size`` values in [0, 1) (RandomUniform)."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:  # the words are drawn straight into the output and converted in place
        groups = -(-size // 4)
        result = np.empty(4 * groups, np.float32)

        def run(first: int, last: int) -> None:
            words = _words_from(generator, first, last - first > _CHUNK_BLOCKS_BITS)
            for start in range(4 * first, 4 * last, 4 * _CHUNK_BLOCKS_BITS):
                out = result[start:min(start + 4 * _CHUNK_BLOCKS_BITS, 4 * last)]
                bm.uniform_float_into(words(out.size // 4, out.view(np.uint32)), out)
        _sharded(groups, run)
        return result[:size]
    if dtype == np.float64:
        return _fixed(generator, size, dtype, _columns(
            lambda w: [uint64_to_double(w[:, 0], w[:, 1]), uint64_to_double(w[:, 2], w[:, 3])]))
    return _fixed(generator, size, dtype, _columns(
        lambda w: [_uint16_to_small_float(w[:, column] & np.uint32(0xFFFF), dtype) for column in range(4)]))


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

        def convert(words, out):
            wide = words.view(np.uint64)  # (c0, c1) and (c2, c3) little-endian: low word first, as the C++ pairs them
            # SignedAdd: lo + offset wraps in two's complement exactly as the C++ does.
            np.remainder(wide, span, out=out.view(np.uint64))
            out.view(np.uint64)[...] += base
        return _fixed(generator, size, dtype, convert)
    span = np.uint32((high - low) & 0xFFFFFFFF)
    base = np.uint32(low & 0xFFFFFFFF)

    def convert32(words, out):
        np.remainder(words, span, out=out.view(np.uint32))
        out.view(np.uint32)[...] += base
    return _fixed(generator, size, dtype, convert32)


def uniform_full_int(generator: Philox, size: int, dtype) -> np.ndarray:
    """UniformFullIntDistribution: the raw words as (u)int32, or word pairs (low word first) as (u)int64."""
    def convert(words, out):
        np.copyto(out.view(np.uint32).reshape(words.shape), words)
    return _fixed(generator, size, dtype, convert)


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BoxMullerFloat: two float32 standard normals from two uint32 arrays (glibc's logf and sincosf)."""
    x0, x1 = np.ascontiguousarray(x0, np.uint32).reshape(-1), np.ascontiguousarray(x1, np.uint32).reshape(-1)
    sine, cosine = np.empty(x0.shape, np.float32), np.empty(x0.shape, np.float32)
    _box_muller_into(_tables_for(x0.size), x0, x1, sine, cosine)
    return sine, cosine


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


def _tables_for(pairs: int) -> box_muller_tables.Tables | None:
    """Box-Muller's lookup tables for a draw of ``pairs`` pairs, or None for the direct path (see
    `graph.ops.box_muller_tables`); a build runs on both threads."""
    return box_muller_tables.acquire(pairs, lambda count, run: _sharded(count, run, minimum=2))


def _box_muller_into(tables, x0: np.ndarray, x1: np.ndarray, sine_out: np.ndarray, cosine_out: np.ndarray) -> None:
    """BoxMullerFloat(x0, x1) (1-D word arrays) into ``sine_out`` and ``cosine_out`` (of any one shape, their
    elements in C order): by lookup when there are ``tables``, else through numexpr when it passed its
    self-check, else by the emulation."""
    if tables is not None:
        box_muller_tables.lookup_into(tables, x0, x1, sine_out, cosine_out, _SCRATCH)
        return
    size = x0.shape[0]
    if not _through_numexpr(size):
        bm.box_muller_float_into(x0, x1, sine_out, cosine_out, _SCRATCH)
        return
    u, angle, radius = (_SCRATCH.get(name, np.float32, size) for name in ("pair_u", "pair_angle", "pair_radius"))
    _uniform_angle_into(x0, x1, u, angle)
    shape = sine_out.shape
    random_numexpr.box_muller_into(u.reshape(shape), angle.reshape(shape), radius.reshape(shape), sine_out,
                                   cosine_out)


def _through_numexpr(pairs: int) -> bool:
    """Whether a draw of ``pairs`` Box-Muller pairs goes through numexpr (large enough, and numexpr trusted)."""
    return pairs >= _NUMEXPR_MIN_PAIRS and random_numexpr.enabled()


def _uniform_angle_into(x0: np.ndarray, x1: np.ndarray, u: np.ndarray, angle: np.ndarray) -> None:
    """Box-Muller's inputs: u1 = Uint32ToFloat(x0) (floored by `random_numexpr.radius_into`) and the angle
    float(2 pi Uint32ToFloat(x1)), into float32 ``u`` and ``angle``."""
    bm.uniform_float_into(x0, u)
    random_numexpr.angle_into(bm.uniform_float_into(x1, angle), angle)


def _normal_float32(generator: Philox, size: int) -> np.ndarray:
    """``size`` float32 standard normals through numexpr: per chunk, the shards draw the words (into the
    output itself) and convert them; then numexpr writes the outputs over the words."""
    groups = -(-size // 4)
    result = np.empty(4 * groups, np.float32)
    chunk = max(1, min(groups, _BIG_GROUPS))
    u, angle, radius = (_SCRATCH.get(name, np.float32, 2 * chunk) for name in ("big_u", "big_angle", "big_radius"))
    for start in range(0, groups, chunk):
        stop = min(start + chunk, groups)
        out = result[4 * start:4 * stop]
        words = out.view(np.uint32)

        def run(first: int, last: int, start: int = start, words: np.ndarray = words) -> None:
            take = _words_from(generator, start + first, last - first > _PIECE_BLOCKS)
            for low in range(first, last, _PIECE_BLOCKS):
                high = min(low + _PIECE_BLOCKS, last)
                piece = take(high - low, words[4 * low:4 * high])  # pairs (c0, c1), (c2, c3): even words x0
                _uniform_angle_into(piece[0::2], piece[1::2], u[2 * low:2 * high], angle[2 * low:2 * high])
        _sharded(stop - start, run)
        pairs = 2 * (stop - start)
        random_numexpr.box_muller_into(u[:pairs], angle[:pairs], radius[:pairs], out[0::2], out[1::2])
    return result[:size]


def normal(generator: Philox, size: int, dtype) -> np.ndarray:
    """NormalDistribution: ``size`` standard normals (RandomStandardNormal)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return _fixed(generator, size, dtype, _columns(
            lambda w: box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])), _CHUNK_BLOCKS)
    tables = _tables_for(2 * -(-size // 4))
    if tables is None and _through_numexpr(2 * -(-size // 4)):
        return _normal_float32(generator, size).astype(dtype, copy=False)

    def convert(words, out):  # pairs (c0, c1) and (c2, c3) give outputs (0, 1) and (2, 3) of the group
        flat = words.reshape(-1)
        if tables is None:
            bm.box_muller_float_into(flat[0::2], flat[1::2], out.reshape(-1)[0::2], out.reshape(-1)[1::2], _SCRATCH)
        else:
            box_muller_tables.pairs_into(tables, flat, out.reshape(-1), _SCRATCH)
    return _fixed(generator, size, np.float32, convert, _CHUNK_BLOCKS).astype(dtype, copy=False)


def _candidates(generator: Philox, offsets: np.ndarray, dtype, tables, out: np.ndarray | None = None) -> np.ndarray:
    """[n, group] standard normals of blocks ``offsets`` (into ``out``): Box-Muller on (c0, c1) and (c2, c3)
    (by lookup when there are ``tables``), or on all four words for doubles."""
    even, odd = generator.word_pairs(offsets)  # (c0, c2) and (c1, c3), each [2, n]
    if dtype == np.float64:
        values = np.stack(box_muller_double(even[0], odd[0], even[1], odd[1]), axis=-1)
        if out is None:
            return values
        out[...] = values
        return out
    if out is None:
        out = np.empty((offsets.shape[0], 4), np.float32)
    # Pairs (c0, c1) into outputs 0 and 1 of each group, (c2, c3) into outputs 2 and 3.
    _box_muller_into(tables, even.reshape(-1), odd.reshape(-1), out[:, 0::2].T, out[:, 1::2].T)
    return out


def _rejected(candidates: np.ndarray) -> np.ndarray:
    """Mask of candidates outside (-2, 2)."""
    if candidates.dtype == np.float32:
        magnitude = candidates.view(np.uint32) & np.uint32(0x7FFFFFFF)
        return magnitude >= _TRUNCATE_BITS
    return np.abs(candidates) >= _TRUNCATE


def _accepted_first(group: int) -> tuple[np.ndarray, np.ndarray]:
    """For each rejection pattern of a group (bit c: candidate c rejected): the columns with the accepted ones
    first, in order, and how many were accepted."""
    patterns = np.arange(1 << group)
    rejected = (patterns[:, None] >> np.arange(group)) & 1
    return np.argsort(rejected, axis=1, kind="stable"), group - rejected.sum(axis=1)


_ACCEPTED_FIRST, _ACCEPTED_COUNT = ({group: _accepted_first(group)[part] for group in (2, 4)} for part in (0, 1))


def _rejection_pattern(flags: np.ndarray, group: int) -> np.ndarray:
    """Bit c set when candidate c was rejected, from a row of 0/1 bytes viewed as one little-endian integer:
    a multiply gathers byte c's bit into bit 24 + c (uint32) or 8 + c (uint16), with no carries below."""
    if group == 4:
        return (flags * np.uint32(0x01020408)) >> np.uint32(24)
    return (flags * np.uint16(0x0102)) >> np.uint16(8)


def truncated_normal(generator: Philox, size: int, dtype) -> np.ndarray:
    """TruncatedNormalDistribution: standard normals with ``|x| < 2``, TF's per-group rejection (TruncatedNormal)."""
    dtype = np.dtype(dtype)
    group = _group_size(dtype)
    groups = -(-size // group)
    compute = np.float64 if dtype == np.float64 else np.float32
    result = np.empty((groups, group), compute)
    blocks_per_group = np.uint64(group * RESERVED_BLOCKS_PER_OUTPUT // 4)
    tables = None if dtype == np.float64 else _tables_for(2 * groups)

    # Group g reads blocks g * blocks_per_group + step, step = 0, 1, ...: each block gives 4 (float) or 2
    # (double) candidates, taken in order while they are inside (-2, 2) and the group is not full.  Step 0
    # writes every group's first block straight into the result (most groups accept all of it); the groups
    # it leaves short (about 1 in 6) then take their later steps together.
    def place(pending, filled, candidates, rejected):
        """Appends each pending group's accepted candidates after its ``filled`` ones; the still-short groups."""
        accepted = ~rejected
        slot = filled[:, None] + np.cumsum(accepted, axis=1) - 1
        take = accepted & (slot < group)
        rows, columns = np.nonzero(take)
        result[pending[rows], slot[rows, columns]] = candidates[rows, columns]
        filled = filled + take.sum(axis=1)
        more = filled < group
        return pending[more], filled[more]

    short = []

    def first_step(start: int, stop: int) -> None:
        offsets = np.arange(start, stop, dtype=np.uint64) * blocks_per_group
        keep_first(_candidates(generator, offsets, compute, tables, result[start:stop]), start)

    def keep_first(chunk: np.ndarray, start: int) -> None:
        """Moves each row's accepted candidates to its first slots; notes the short rows."""
        rejected = _rejected(chunk)
        # A row of 4 (2) booleans viewed as one uint32 (uint16) is non-zero when any candidate was rejected.
        flags = rejected.view(np.uint32 if group == 4 else np.uint16).reshape(-1)
        partial = np.flatnonzero(flags)
        if partial.size:  # each short row keeps its accepted candidates in order, in its first slots
            pattern = _rejection_pattern(flags[partial], group)
            chunk[partial] = np.take_along_axis(chunk[partial], _ACCEPTED_FIRST[group][pattern], axis=1)
            short.append((partial + start, _ACCEPTED_COUNT[group][pattern]))
    if compute == np.float32 and tables is None and _through_numexpr(2 * groups):
        _first_candidates_float32(generator, groups, blocks_per_group, result, keep_first)
    else:
        _sharded(groups, _in_chunks(first_step, _CHUNK_BLOCKS))
    step = 1
    while short:  # step 1, then the few groups still short take their next blocks several at a time
        pending = np.concatenate([p for p, _ in short])
        filled = np.concatenate([f for _, f in short])
        short = []
        count = 1 if step == 1 else _LATER_STEPS
        steps = np.arange(step, step + count, dtype=np.uint64)
        for start in range(0, pending.size, _CHUNK_BLOCKS // count):
            rows = pending[start:start + _CHUNK_BLOCKS // count]
            offsets = (rows.astype(np.uint64)[:, None] * blocks_per_group + steps).reshape(-1)
            candidates = _candidates(generator, offsets, compute, tables).reshape(rows.size, -1)  # in step order
            left = place(rows, filled[start:start + _CHUNK_BLOCKS // count], candidates,
                         _rejected(candidates))
            if left[0].size:
                short.append(left)
        step += count
    return result.reshape(-1)[:size].astype(dtype, copy=False)


def _first_candidates_float32(generator: Philox, groups: int, blocks_per_group: np.uint64, result: np.ndarray,
                              keep_first) -> None:
    """Truncated normal's step 0 through numexpr: per chunk of a million candidates the shards compute the
    Philox words of each group's first block and convert them; numexpr writes the candidates into ``result``
    ([groups, 4]); then ``keep_first(chunk, start)``."""
    chunk = max(1, min(groups, _BIG_GROUPS))
    u, angle, radius = (_SCRATCH.get(name, np.float32, 2 * chunk).reshape(2, chunk)
                        for name in ("big_u", "big_angle", "big_radius"))
    for start in range(0, groups, chunk):
        stop = min(start + chunk, groups)
        count = stop - start

        def run(first: int, last: int, start: int = start) -> None:
            for low in range(first, last, _CHUNK_BLOCKS):
                high = min(low + _CHUNK_BLOCKS, last)
                offsets = np.arange(start + low, start + high, dtype=np.uint64) * blocks_per_group
                even, odd = generator.word_pairs(offsets)  # (c0, c2) and (c1, c3): pairs (c0, c1), (c2, c3)
                for row in range(2):
                    _uniform_angle_into(even[row], odd[row], u[row, low:high], angle[row, low:high])
        _sharded(count, run)
        rows = result[start:stop]
        # Pair (c0, c1) gives outputs 0 and 1 of its group, (c2, c3) outputs 2 and 3.
        random_numexpr.box_muller_into(u[:, :count], angle[:, :count], radius[:, :count], rows[:, 0::2].T,
                                       rows[:, 1::2].T)
        keep_first(rows, start)
