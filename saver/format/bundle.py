"""Tensor bundles (TF's V2 checkpoint): the public names, gathered from the modules that implement them.

The byte layout (tf-checkpoint-format.md §1-§4) is drawn at the top of bundle_writer.py.

Where each part lives::

    bundle_entry.py    BundleEntry record + fast BundleEntryProto codec; Slice; slice <-> proto
    bundle_files.py    file names, temp names, raw unbuffered data-file I/O
    bundle_strings.py  DT_STRING / DT_VARIANT bodies
    bundle_writer.py   BundleWriter, write_checkpoint, write_index
    bundle_reader.py   BundleReader
    merge.py           merge_bundles (MergeV2Checkpoints)

Writes are atomic: each file goes to ``<name>.tempstate<random uint64>`` and is renamed, data
first, then index (TensorFlow's order); a stale index of the same prefix is removed before the data
rename, so a crash never pairs new data with an old index.  The reader reads only the index on open; tensor bytes
are read on demand straight into the destination array and their CRC checked.
"""

from __future__ import annotations

from graph.platform.file_io import temp_filename
from saver.format.bundle_entry import (HEADER_KEY, TENSOR_BUNDLE_MIN_PRODUCER, TENSOR_BUNDLE_VERSION, BundleEntry,
                                      Slice, decode_entry, encode_entry, slice_from_proto, slice_to_proto)
from saver.format.bundle_files import data_filename, index_filename
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_writer import BundleWriter, write_checkpoint, write_index
from saver.format.merge import merge_bundles

__all__ = [
    "BundleWriter", "BundleReader", "BundleEntry", "Slice", "merge_bundles", "write_checkpoint", "write_index",
    "data_filename", "index_filename", "temp_filename",
    "slice_to_proto", "slice_from_proto", "decode_entry", "encode_entry",
    "TENSOR_BUNDLE_VERSION", "TENSOR_BUNDLE_MIN_PRODUCER", "HEADER_KEY",
]
