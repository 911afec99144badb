"""The per-session state of a PriorityQueue: TF's blocking queue semantics over a binary heap of priorities.

TensorFlow's PriorityQueue kernel (core/kernels/priority_queue.cc) keeps its elements in a
``std::priority_queue`` ordered by the int64 priority alone (smallest first).  Elements of equal priority
come out in whatever order the C++ library's heap algorithms leave them, so `PriorityHeap` replays
libstdc++'s ``push_heap`` / ``pop_heap`` step by step: ties dequeue in TensorFlow's order, not by arrival.

Against the other queues (`graph.ops.queue_state`), the kernel differs in two ways kept here:

- a dequeue of n waits until n elements are there and takes them at once, so a batch comes out sorted;
- ``dequeue_up_to(n)`` on a closed queue holding fewer than n (but some) takes them all and then fails with
  OutOfRangeError "(requested <n - taken>, current size 0)": the elements are gone, as in TensorFlow.

Component shapes are always specified: TF's queue op refuses a queue without them (priority_queue_ops).
"""

from __future__ import annotations

from graph import errors
from graph.ops.queue_state import QueueState

__all__ = ["PriorityHeap", "PriorityQueueState"]


class PriorityHeap:
    """Rows ``(priority, component, ...)`` in libstdc++'s ``std::priority_queue`` layout, smallest priority on top.

    The comparator is TF's ComparePriorityTensorPair (``lhs.priority > rhs.priority``), so the heap is a
    max-heap under it; ``append`` is ``push`` (push_back, then __push_heap), ``popleft`` is ``top`` + ``pop``
    (pop_heap's __adjust_heap, then pop_back).
    """

    __slots__ = ("_items",)

    def __init__(self):
        self._items: list[tuple[int, tuple]] = []  # (priority, row)

    def __len__(self) -> int:
        return len(self._items)

    def append(self, row: tuple) -> None:
        """Adds one row; its first component is the priority."""
        self._items.append((int(row[0]), row))
        self._sift_up(len(self._items) - 1, 0, self._items[-1])

    def popleft(self) -> tuple:
        """Removes and returns the row of smallest priority (TF's tie order among equal priorities)."""
        items = self._items
        top = items[0]
        if len(items) > 1:
            value = items[-1]  # __pop_heap: the last element fills the hole left at the top
            items[-1] = top
            self._adjust(0, len(items) - 1, value)
        items.pop()
        return top[1]

    def _sift_up(self, hole: int, top: int, value) -> None:
        """libstdc++'s __push_heap: ``value`` rises from ``hole`` while its parent's priority is larger."""
        items = self._items
        parent = (hole - 1) // 2
        while hole > top and items[parent][0] > value[0]:
            items[hole] = items[parent]
            hole = parent
            parent = (hole - 1) // 2
        items[hole] = value

    def _adjust(self, hole: int, length: int, value) -> None:
        """libstdc++'s __adjust_heap over the first ``length`` items: the hole sinks along the preferred child
        (the right one unless its priority is larger than the left's), then ``value`` is pushed up from it."""
        items = self._items
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if items[child][0] > items[child - 1][0]:
                child -= 1
            items[hole] = items[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            items[hole] = items[child - 1]
            hole = child - 1
        self._sift_up(hole, top, value)


class PriorityQueueState(QueueState):
    """One PriorityQueue in one session (component 0 of every row is its int64 priority)."""

    def __init__(self, name: str, dtypes: list, shapes: list | None, capacity: int):
        super().__init__("PriorityQueue", name, dtypes, shapes, capacity)
        self.elements = PriorityHeap()

    def dequeue(self, op, count: int | None, allow_small_batch: bool = False) -> list[tuple]:
        """``count`` rows (None: one) of smallest priority, taken at once when that many are there."""
        wanted = 1 if count is None else count
        attempt = object()  # this dequeue's place in the line
        with self._condition:
            self._dequeue_line.append(attempt)
            try:
                while True:
                    if self.cancelled:
                        raise errors.CancelledError(None, op, self.cancel_message or "Dequeue operation was cancelled")
                    if self._dequeue_line[0] is attempt:
                        size = len(self.elements)
                        if self.closed and (size == 0 or (size < wanted and not allow_small_batch)):
                            raise self._insufficient(op, wanted, size)
                        if size >= wanted or (size and self.closed):
                            taken = [self.elements.popleft() for _ in range(min(size, wanted))]
                            self._flush_enqueue()
                            if len(taken) < wanted:  # the closed dequeue_up_to case: TF fails after taking them
                                raise self._insufficient(op, wanted - len(taken), len(self.elements))
                            return taken
                    self._wait(op)
            finally:
                self._dequeue_line.remove(attempt)
                self._condition.notify_all()

    def _insufficient(self, op, requested: int, size: int) -> errors.OutOfRangeError:
        return errors.OutOfRangeError(None, op, f"PriorityQueue '{self.name}' is closed and has insufficient "
                                      f"elements (requested {requested}, current size {size})")
