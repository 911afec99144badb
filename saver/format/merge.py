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

At an fsspec URL (a sharded Saver.save to ``memory://``, ``s3://`` ...) the shard indexes are read by
one request each, the data files stay in the store: where it renames (memory, sftp, hdfs ...) the
same steps run with moves; on an object store (s3, gs, az ...) the older index goes first, each data
file is moved (the store copies it server-side, as under TensorFlow's own S3 merge: no byte passes
through this process) and the merged index is put last, so a reader sees the old checkpoint, none,
or the new one.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence

from graph.errors import InvalidArgumentError, NotFoundError
from saver.format.bundle_entry import BundleEntry, key_str
from graph.platform.file_io import exists, filesystem, local_path, sync_directory, temp_filename
from saver.format.bundle_files import data_filename, has_atomic_rename, index_filename, make_parent_directory
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_writer import index_bytes, remove_stale_index, write_index
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
    remote = local_path(merged_prefix) is None
    if remote:
        fs, inner = filesystem(merged_prefix)
        if posixpath.dirname(inner):
            fs.makedirs(posixpath.dirname(inner), exist_ok=True)
    else:
        make_parent_directory(merged_prefix)
    num_shards = 0
    first_header: BundleHeaderProto | None = None
    shard_ids: dict[str, int] = {}
    entries: dict[bytes, BundleEntry] = {}
    present = []
    for prefix in prefixes:
        prefix = os.fspath(prefix)
        if not exists(index_filename(prefix)):
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
    renames = {path: data_filename(merged_prefix, shard_id, len(shard_ids)) for path, shard_id in shard_ids.items()}
    if remote:
        _commit_remote(merged_prefix, index_bytes(merged_header, entries), renames, present, delete_old_dirs)
        return
    # Crash safety (TF writes the index in place after the renames; a crash there leaves a torn
    # index): the index is written under a temp name first, an older index of the prefix removed
    # before its data files are replaced, and the new index renamed into place last.
    merged_index = index_filename(merged_prefix)
    temp_index = temp_filename(merged_index)
    try:
        write_index(temp_index, merged_header, entries)
        remove_stale_index(merged_index)
        for path, target in renames.items():
            os.replace(path, target)
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


def _commit_remote(merged_prefix: str, index: bytes, renames: dict[str, str], present: list[str],
                   delete_old_dirs: bool) -> None:
    """The merge's file steps in an fsspec store: data files moved, the merged index last (see above)."""
    fs, merged_index = filesystem(index_filename(merged_prefix))
    inner = {path: filesystem(path)[1] for path in (*renames, *renames.values())}
    temp_index = temp_filename(merged_index) if has_atomic_rename(fs) else None
    try:
        if temp_index is not None:
            fs.pipe_file(temp_index, index)
        if fs.exists(merged_index):
            fs.rm_file(merged_index)
        for path, target in renames.items():
            fs.mv(inner[path], inner[target])
        if temp_index is not None:
            fs.mv(temp_index, merged_index)
        else:
            fs.pipe_file(merged_index, index)
    except BaseException:
        if temp_index is not None and fs.exists(temp_index):
            fs.rm_file(temp_index)
        raise
    for prefix in present:
        try:
            fs.rm_file(filesystem(index_filename(prefix))[1])
        except OSError:  # best effort, as TensorFlow
            pass
    if delete_old_dirs:
        merged_dir = posixpath.dirname(filesystem(merged_prefix)[1])
        for shard_dir in sorted({posixpath.dirname(filesystem(prefix)[1]) for prefix in present} - {merged_dir}):
            try:
                fs.rmdir(shard_dir)
            except OSError:  # a non-empty directory stays; an object store has none to remove
                pass
