"""TF's RandomShuffle permutation (Fisher-Yates over Philox samples), computed without a loop over the swaps."""

from __future__ import annotations

import numpy as np

__all__ = ["fisher_yates"]


def fisher_yates(samples: np.ndarray, size: int) -> np.ndarray:
    """The permutation of TF's RandomShuffle: for i < size - 1, swap positions i and ``i + samples[i] % (size - i)``.

    Without a loop over the swaps.  Step t only writes positions >= t, so position t's final value is what
    sits at j_t just before step t: the value the previous step k with the same target j_k = j_t moved there
    (the one at position k before step k), or else j_t itself.  "The value at position k before step k" follows
    the same rule with the last step before k that targeted k, giving chains that end at a position nothing
    moved into.  One sort of (target, step) finds both kinds of predecessor; pointer doubling follows the chains.
    """
    steps = size - 1
    index = np.arange(size, dtype=np.int64)
    target = index[:steps] + samples[:steps].astype(np.int64) % (size - index[:steps])  # j_t, in [t, size)
    keys = np.sort(target * size + index[:steps])  # (target, step) pairs in order, all distinct
    by_target, by_step = np.divmod(keys, size)
    # previous[t]: the step before t with the same target, or -1.
    previous = np.full(steps, -1, np.int64)
    same = by_target[1:] == by_target[:-1]
    previous[by_step[1:][same]] = by_step[:-1][same]
    # into[t]: the last step before t that targeted position t (all such steps are <= t), or -1: the last
    # step of t's group, or the one before it when that is step t itself.
    into = np.full(size, -1, np.int64)
    ends = np.flatnonzero(np.append(~same, True))
    into[by_target[ends]] = by_step[ends]
    itself = np.flatnonzero(into[:steps] == index[:steps])
    into[itself] = previous[itself]
    # arrival[t]: the value at position t just before step t (for t = size - 1: after the last step).
    arrival = np.where(into < 0, index, into)
    while True:
        jumped = arrival[arrival]
        if np.array_equal(jumped, arrival):
            break
        arrival = jumped
    # Position t < size - 1 ends with what was at j_t before step t (for j_t == t, previous[t] is into[t]);
    # the last position with what arrived there.
    permutation = np.empty(size, np.int64)
    np.copyto(permutation[:steps], target)
    moved_in = previous >= 0
    permutation[:steps][moved_in] = arrival[previous[moved_in]]
    permutation[steps] = arrival[steps]
    return permutation
