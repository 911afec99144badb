"""merge_bundles: TF's MergeV2Checkpoints, joining shard bundles into one checkpoint.

What a merge does (tf-checkpoint-format.md §3; TensorFlow's steps, made crash-safe)::

    read the shard indexes in prefix order
    write <merged>.index.tempstate<u64> (TF writes <merged>.index directly, after the renames):
        header.num_shards = sum of the inputs' num_shards; endianness and version of the first
        entry.shard_id    = index of its data file in first-met order
        a key met twice   : only partitioned full-tensor entries, their slices joined in shard order
    remove an older <merged>.index; rename each shard's data file -> <merged>.data-%05d-of-%05d
    (k = first-met order); rename the index into place (crash safety: never a torn checkpoint)
    delete the shard .index files; remove the shard directories when empty (delete_old_dirs)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from graph.errors import InvalidArgumentError, NotFoundError
from saver.format.bundle_entry import BundleEntry, key_str
from graph.platform.file_io import sync_directory, temp_filename
from saver.format.bundle_files import data_filename, index_filename, make_parent_directory
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_writer import remove_stale_index, write_index
from saver.format.proto import BundleHeaderProto, VersionDef

__all__ = ["merge_bundles"]


def merge_bundles(prefixes: Sequence[str], merged_prefix: str, delete_old_dirs: bool = True,
                  allow_missing_files: bool = False) -> None:
    """Merges shard bundles into one (TF's MergeV2Checkpoints / MergeBundles).

    Reads the shard indexes in order, writes the merged index under a temp name, renames each data
    file to ``<merged_prefix>.data-%05d-of-%05d`` and the index to ``<merged_prefix>.index``, deletes
    the shard indexes and (``delete_old_dirs``) removes the shards' directories when empty.

    Raises:
        NotFoundError: if a shard index is missing (unless ``allow_missing_files``).
        InvalidArgumentError: for duplicate keys or conflicting headers.
    """
    merged_prefix = os.fspath(merged_prefix)
    make_parent_directory(merged_prefix)
    num_shards = 0
    first_header: BundleHeaderProto | None = None
    shard_ids: dict[str, int] = {}
    entries: dict[bytes, BundleEntry] = {}
    present = []
    for prefix in prefixes:
        prefix = os.fspath(prefix)
        if not os.path.exists(index_filename(prefix)):
            if allow_missing_files:
                continue
            raise NotFoundError(None, None, f"Can't find the merge input bundle {index_filename(prefix)}")
        present.append(prefix)
        with BundleReader(prefix) as reader:
            header = reader.header
            num_shards += header.num_shards
            if first_header is None:
                first_header = header
            elif header.endianness != first_header.endianness:
                raise InvalidArgumentError(None, None, "Merging bundles with conflicting endianness; inputs corrupted?")
            elif (header.version or VersionDef()) != (first_header.version or VersionDef()):
                raise InvalidArgumentError(None, None, f"Merging bundles with different format versions: merged "
                                           f"{first_header.version} vs. curr {header.version}")
            for key, record in reader.records():
                existing = entries.get(key)
                if existing is not None:
                    if not existing.slices or not record.slices:
                        raise InvalidArgumentError(None, None, f"Duplicate tensor keyed by {key_str(key)} encountered, "
                                                   f"when merging prefix: {prefix}")
                    if existing.dtype != record.dtype or existing.shape != record.shape:
                        raise InvalidArgumentError(None, None, f"Partitioned tensor {key_str(key)} has different dtype "
                                                   f"or shape in {prefix}")
                    existing.slices = existing.slices + record.slices
                    continue
                path = data_filename(prefix, record.shard_id, header.num_shards)
                merged = BundleEntry(record.dtype, record.shape, shard_ids.setdefault(path, len(shard_ids)),
                                     record.offset, record.size, record.crc32c, list(record.slices))
                entries[key] = merged
    if first_header is None:
        raise NotFoundError(None, None, f"None of the merge input bundles exist: {list(prefixes)}")
    merged_header = BundleHeaderProto(num_shards=num_shards, endianness=first_header.endianness,
                                      version=first_header.version)
    # Crash safety (TF writes the index in place after the renames; a crash there leaves a torn
    # index): the index is written under a temp name first, an older index of the prefix removed
    # before its data files are replaced, and the new index renamed into place last.
    merged_index = index_filename(merged_prefix)
    temp_index = temp_filename(merged_index)
    try:
        write_index(temp_index, merged_header, entries)
        remove_stale_index(merged_index)
        for path, shard_id in shard_ids.items():
            os.replace(path, data_filename(merged_prefix, shard_id, len(shard_ids)))
        os.replace(temp_index, merged_index)
        sync_directory(merged_index)  # durable mode (data files were synced when their shards were written)
    except BaseException:
        if os.path.exists(temp_index):
            os.remove(temp_index)
        raise
    for prefix in present:
        try:
            os.remove(index_filename(prefix))
        except OSError:  # best effort, as TensorFlow
            pass
    if delete_old_dirs:
        merged_dir = os.path.dirname(merged_prefix)
        for prefix in present:
            shard_dir = os.path.dirname(os.fspath(prefix))
            if shard_dir != merged_dir:
                try:
                    os.rmdir(shard_dir)
                except OSError:  # later shards find it gone; a non-empty dir stays
                    pass
