"""Sources of the command line: opening checkpoints (paths or URLs) and describing their entries."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator

import numpy as np

from graph.platform import file_io
from saver.cli.output import EXIT_DAMAGED, EXIT_NOT_FOUND, EXIT_REFUSED, CliError
from saver.format.bundle import BundleReader, slice_from_proto
from saver.format.coding import encode_tensor_name_slice
from saver.storage import state
from saver.storage.reader import load_checkpoint

__all__ = ["Entry", "open_reader", "describe_entries", "check_output_free", "output_prefix", "check_directory",
           "record_output"]


@dataclasses.dataclass
class Entry:
    """What `inspect` shows of one tensor."""
    key: str
    dtype: str
    shape: list[int]
    size: int          # bytes in the data files
    shard: int         # data file holding it (-1: several, for slices)
    slices: list[str]  # save-slices of a partitioned tensor


@contextlib.contextmanager
def open_reader(path: str) -> Iterator[object]:
    """A CheckpointReader for a path, directory or URL, closed afterwards."""
    local = file_io.local_path(path)
    if local is not None and os.path.isdir(local):
        check_directory(local)
    reader = load_checkpoint(path)
    try:
        yield reader
    finally:
        reader.close()


def describe_entries(reader) -> dict[str, Entry]:
    """key -> Entry for every tensor (slice keys folded into their tensor)."""
    shapes = reader.get_variable_to_shape_map()
    types = reader.get_variable_to_dtype_map()
    entries = {}
    raw: dict[bytes, object] = {}
    bundle = None
    if reader.format == "V2":
        bundle = BundleReader(reader.prefix)
        raw = dict(bundle.raw_items())
    try:
        for key in sorted(shapes):
            dtype, shape = types[key], shapes[key]
            size = int(np.prod(shape, dtype=np.int64)) * (dtype.size or 0)
            shard, slices = 0, []
            entry = raw.get(key.encode("utf-8", "surrogateescape"))
            if entry is not None:
                if entry.slices:
                    parts = [slice_from_proto(s) for s in entry.slices]
                    slices = [str(p) for p in parts]
                    part_entries = [raw.get(encode_tensor_name_slice(key.encode("utf-8", "surrogateescape"), p))
                                    for p in parts]
                    size = sum(e.size for e in part_entries if e is not None)
                    shard_ids = {e.shard_id for e in part_entries if e is not None}
                    shard = shard_ids.pop() if len(shard_ids) == 1 else -1
                else:
                    size, shard = entry.size, entry.shard_id
            entries[key] = Entry(key, dtype.name, list(shape), int(size), int(shard), slices)
    finally:
        if bundle is not None:
            bundle.close()
    return entries


def check_directory(directory: str) -> None:
    """Checks a directory's ``checkpoint`` state file names a checkpoint, with one clear CliError if not."""
    filename = os.path.join(directory, state.DEFAULT_LATEST_FILENAME)
    if not os.path.lexists(filename):
        raise CliError(f"{directory}: no 'checkpoint' state file in this directory; give a checkpoint prefix "
                       f"(such as {os.path.join(directory, 'model.ckpt-100')})", EXIT_NOT_FOUND)
    data = file_io.read_bytes(filename, state.MAX_STATE_FILE_BYTES, "checkpoint state file")
    try:
        parsed = state.CheckpointState.from_text(data.decode("utf-8"))
    except (UnicodeDecodeError, state.ParseError) as error:
        raise CliError(f"{filename}: not a checkpoint state file ({error})", EXIT_DAMAGED) from error
    if not parsed.model_checkpoint_path:
        raise CliError(f"{filename}: names no model_checkpoint_path", EXIT_DAMAGED)
    if state.latest_checkpoint(directory) is None:
        raise CliError(f"{filename}: names {parsed.model_checkpoint_path!r}, which has no checkpoint files",
                       EXIT_NOT_FOUND)


def record_output(given: str, prefix: str) -> None:
    """Writes a ``checkpoint`` state file naming ``prefix`` when the output was given as a directory."""
    if given == prefix or file_io.local_path(given) is None:
        return
    directory = os.path.dirname(prefix)
    state.update_checkpoint_state_internal(directory, prefix, [prefix], save_relative_paths=True)


def output_prefix(path: str) -> str:
    """A checkpoint prefix to write: ``dir/`` or an existing directory becomes ``dir/ckpt``."""
    local = file_io.local_path(path)
    if local is not None and (local.endswith(os.sep) or os.path.isdir(local)):
        return os.path.join(local, "ckpt")
    return path


def check_output_free(path: str, force: bool, what: str = "checkpoint") -> None:
    """Refuses (exit 6) to overwrite an existing checkpoint or file unless ``force``."""
    if force:
        return
    local = file_io.local_path(path)
    candidates = [path] if what == "file" else [path + ".index"]
    if any(file_io.exists(c) for c in candidates):
        raise CliError(f"{candidates[0]}: already exists (use --force to overwrite)", EXIT_REFUSED)
    if local is not None:
        parent = os.path.dirname(os.path.abspath(local))
        if not os.path.isdir(parent) and not os.path.isdir(os.path.dirname(parent)):
            raise CliError(f"{os.path.dirname(local)}: no such directory", EXIT_NOT_FOUND)
