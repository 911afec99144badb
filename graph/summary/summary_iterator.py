"""``tf.train.summary_iterator``: the Events of an event file, in order."""

from __future__ import annotations

from collections.abc import Iterator

from graph.platform.tfrecord import read_records
from graph.proto.summary import Event

__all__ = ["summary_iterator"]


def summary_iterator(path: str) -> Iterator[Event]:
    """Yields each Event of the event file at ``path`` (a local path or fsspec URL).

    Raises:
        OpError: NotFoundError for a missing file; DataLossError for a damaged record or Event.
    """
    for record in read_records(path):
        yield Event.from_bytes(record)
