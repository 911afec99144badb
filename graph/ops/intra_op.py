"""The intra-op pool: one kernel's elementwise work split over the machine's cores, as TF's intra-op threads.

numpy releases the GIL inside a ufunc's loop, so passes over disjoint pieces of large arrays run
truly in parallel from Python threads.  A kernel hands `run_parts` one callable per piece; the
calling thread and the pool's threads claim pieces until none is left, so a machine with one core
(or a busy pool) degrades to the serial loop.  The pool starts on first use.

numpy's OpenBLAS has threads of its own, which spin for a while after each product (its
OPENBLAS_THREAD_TIMEOUT) on the core the pool's threads need: a Session.run pins it to one
thread (`blas_pinned`), and large products are split over the pool instead (`matmul`), so the
results are single-threaded BLAS's whatever the cores or the load.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["workers", "run_parts", "blas_pinned", "blas_threads", "worth_splitting", "pieces_for", "matmul"]

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


_CORES = _cores()  # the cores this process may run on, read once


def workers() -> int:
    """How many pieces a kernel should split its work into: the cores this process may run on."""
    return _CORES


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there, so start a new pool on next use (and
    a new BLAS lock: a parent thread may have held it)."""
    global _pool, _lock, _blas_lock
    _pool, _lock, _blas_lock = None, threading.Lock(), threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(1, workers() - 1), thread_name_prefix="intra_op")
        return _pool


class _Parts:
    """One `run_parts` call: its callables, claimed one at a time by whichever thread is free."""

    def __init__(self, parts: list[Callable[[], None]]):
        self.parts = parts
        self.claimed = 0
        self.left = len(parts)
        self.errors: dict[int, BaseException] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()

    def work(self) -> None:
        """Runs unclaimed parts until none is left."""
        while True:
            with self.lock:
                if self.claimed == len(self.parts):
                    return
                index = self.claimed
                self.claimed += 1
            try:
                self.parts[index]()
            except BaseException as error:  # noqa: B036  (kept for the caller, which re-raises it)
                with self.lock:
                    self.errors[index] = error
            finally:
                with self.lock:
                    self.left -= 1
                    if not self.left:
                        self.done.set()


def run_parts(parts: list[Callable[[], None]]) -> None:
    """Runs every callable of ``parts`` on this thread and the pool's, then re-raises the error of the first
    part (in list order) that raised one.

    Parts are claimed one at a time, so the calling thread never waits on a pool thread that has not
    been scheduled yet (a loaded machine): it runs the unclaimed parts itself.
    """
    if len(parts) <= 1 or workers() == 1:
        for part in parts:
            part()
        return
    batch = _Parts(parts)
    for _ in range(min(workers(), len(parts)) - 1):
        _executor().submit(batch.work)
    batch.work()
    batch.done.wait()
    if batch.errors:
        raise batch.errors[min(batch.errors)]


# ----------------------------------------------------------------- BLAS threads
# numpy's OpenBLAS keeps its own threads, which busy-wait after every product (OPENBLAS_THREAD_TIMEOUT):
# during a Session.run they would take the core the pool's threads need.  While a run executes, BLAS is
# pinned to one thread and the big products are split over the pool instead (`matmul`).
def _find_blas() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    """(get, set) of the thread count of the OpenBLAS numpy bundles, or None (another BLAS, not found)."""
    package = os.path.dirname(np.__file__)
    paths = sorted(glob.glob(os.path.join(os.path.dirname(package), "numpy.libs", "*openblas*"))
                   + glob.glob(os.path.join(package, ".dylibs", "*openblas*")))
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:  # not loadable here (another platform's file): no control, as for another BLAS
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", "_64_", ""):
                getter = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                setter = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                if getter is not None and setter is not None:
                    getter.restype, getter.argtypes = ctypes.c_int, []
                    setter.restype, setter.argtypes = None, [ctypes.c_int]
                    return getter, setter
    return None


_BLAS = _find_blas()
_blas_lock = threading.Lock()
_blas_users = 0
_blas_saved = 0


@contextlib.contextmanager
def blas_pinned() -> Iterator[None]:
    """Within: numpy's OpenBLAS runs each product on the calling thread only; the count the process had
    is restored when the last of concurrent users leaves (nothing happens for a BLAS we cannot control)."""
    global _blas_users, _blas_saved
    if _BLAS is None:
        yield
        return
    with _blas_lock:
        if not _blas_users:
            _blas_saved = _BLAS[0]()
            if _blas_saved != 1:
                _BLAS[1](1)
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if not _blas_users and _blas_saved != 1:
                _BLAS[1](_blas_saved)


def blas_threads() -> int | None:
    """The thread count numpy's OpenBLAS uses now (None when it is not a BLAS this module controls)."""
    return None if _BLAS is None else _BLAS[0]()


# Products of at least this many multiply-adds are split over the pool (smaller ones cost less than a hand-off).
_SPLIT_FLOPS = 1 << 21
# Each piece keeps at least this many rows (columns): a thinner piece re-reads the shared operand for too little
# work (a [25, 39200] x [39200, 32] filter gradient ran 20% slower split), and BLAS takes gemv for a single one.
_MIN_SPAN = 64


def worth_splitting(multiply_adds: int) -> bool:
    """Whether a product of ``multiply_adds`` is worth splitting over the pool (there are cores to share)."""
    return _CORES > 1 and multiply_adds >= _SPLIT_FLOPS


def pieces_for(multiply_adds: int) -> int:
    """How many pieces a product of ``multiply_adds`` is worth: one per core, or one when too small to split."""
    return workers() if worth_splitting(multiply_adds) else 1


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.matmul(a, b)`` split over the pool: two 2-D arrays by rows (or columns, when those are more), two
    stacks of matrices (3-D, one product per layer) by layers.

    Each element is one BLAS dot product over the whole inner dimension, as in one call, so the result
    is bit for bit numpy's.
    """
    if a.ndim != b.ndim or a.ndim not in (2, 3) or a.dtype.kind not in "fc" or a.dtype != b.dtype:
        return np.matmul(a, b, out=out)
    rows, inner = a.shape[-2:]
    cols = b.shape[-1]
    if a.ndim == 3:  # a stack: its layers are the pieces
        layers = a.shape[0]
        pieces = min(workers(), layers) if b.shape[0] == layers else 1
        multiply_adds = layers * rows * inner * cols
    else:
        pieces = min(workers(), max(rows, cols) // _MIN_SPAN)
        multiply_adds = rows * inner * cols
    if pieces <= 1 or not worth_splitting(multiply_adds):
        return np.matmul(a, b, out=out)
    if out is None:
        out = np.empty(a.shape[:-1] + (cols,), a.dtype)
    span = a.shape[0] if a.ndim == 3 or rows >= cols else cols
    bounds = [span * k // pieces for k in range(pieces + 1)]
    if a.ndim == 3:
        parts = [lambda s=slice(lo, hi): np.matmul(a[s], b[s], out=out[s]) for lo, hi in zip(bounds, bounds[1:])]
    elif rows >= cols:
        parts = [lambda s=slice(lo, hi): np.matmul(a[s], b, out=out[s]) for lo, hi in zip(bounds, bounds[1:])]
    else:
        parts = [lambda s=slice(lo, hi): np.matmul(a, b[:, s], out=out[:, s]) for lo, hi in zip(bounds, bounds[1:])]
    run_parts(parts)
    return out
