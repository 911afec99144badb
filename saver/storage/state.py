"""The `checkpoint` state file (CheckpointState): its text format, and latest_checkpoint and friends.

Layout (tf-checkpoint-format.md §5): protobuf text format of ``tensorflow.CheckpointState``, UTF-8,
one ``name: value`` line per value, fields in number order, zero/empty values left out::

    model_checkpoint_path: "<string>"          1  string           the newest checkpoint prefix
    all_model_checkpoint_paths: "<string>"     2  repeated string  oldest first, newest last
    all_model_checkpoint_timestamps: <double>  3  repeated double  seconds since the Epoch (CheckpointManager)
    last_preserved_timestamp: <double>         4  double           (CheckpointManager)

Strings are double-quoted; ``"`` ``'`` ``\\`` and ``\\t \\n \\r`` are backslash-escaped, other ASCII control
characters (and DEL) become 3-digit octal escapes, non-ASCII is written as raw UTF-8 (protobuf 7 Python
``MessageToString``).  Doubles are printed like Python ``repr`` (``2.0``, ``1e+20``, ``inf``, ``nan``).
The parser accepts what protobuf's ``text_format.Merge`` accepts for this message (comments, ``'`` quotes,
adjacent-string concatenation, ``[a, b]`` lists, ``,``/``;`` separators, C escapes, ``1.5f``/``inf``/``nan``)
and rejects the rest with :class:`ParseError` naming line and column.  Both directions are graph/text_format.py
applied to the message declared here; this module only checks the string values a user may set.

The file is written atomically: ``<dir>/<latest_filename>.tmp<uuid4 hex>``, then renamed.  File access is
graph/platform/file_io.py (local paths and fsspec URLs such as ``memory://``, ``s3://``), so every function
here takes a checkpoint directory or prefix URL too.  A URL counts as an absolute path.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence

from graph import errors
from graph.platform import file_io
from graph.proto import text_format
from graph.proto.protobuf import DOUBLE, STRING, Field, Message
from graph.proto.text_format import ParseError  # text_format.ParseError: line, column, GetLine(), GetColumn()
from saver.format.bundle_files import DATA_SUFFIX

__all__ = [
    "CheckpointState", "ParseError", "LEGACY", "V1", "V2",
    "generate_checkpoint_state_proto", "update_checkpoint_state", "update_checkpoint_state_internal",
    "get_checkpoint_state", "latest_checkpoint", "checkpoint_exists", "checkpoint_exists_internal",
    "get_checkpoint_mtimes", "remove_checkpoint", "meta_graph_filename", "prefix_to_checkpoint_path",
    "wait_for_new_checkpoint", "checkpoints_iterator", "DEFAULT_LATEST_FILENAME", "MAX_STATE_FILE_BYTES",
    "not_a_checkpoint_message", "prefix_of_checkpoint_file", "restorable_prefix",
]

logger = logging.getLogger(__name__)

# SaverDef.CheckpointFormatVersion (tensorflow/core/protobuf/saver.proto).
LEGACY = 0
V1 = 1
V2 = 2

DEFAULT_LATEST_FILENAME = "checkpoint"  # checkpoint_management._GetCheckpointFilename
MAX_STATE_FILE_BYTES = 1 << 28  # 256 MiB: a million listed paths fit; a larger "state file" is not one
_MESSAGE_NAME = "tensorflow.CheckpointState"
_TEMP_INFIX = ".tmp"  # file_io.atomic_write_string_to_file: filename + ".tmp" + uuid4().hex

# ------------------------------------------------------------------------------------- the message


class _CheckpointStateProto(Message, full_name=_MESSAGE_NAME):
    """tensorflow/core/protobuf/checkpoint_state.proto: the wire / text form of CheckpointState."""
    model_checkpoint_path = Field(1, STRING)
    all_model_checkpoint_paths = Field(2, STRING, repeated=True)
    all_model_checkpoint_timestamps = Field(3, DOUBLE, repeated=True)
    last_preserved_timestamp = Field(4, DOUBLE)


@dataclasses.dataclass
class CheckpointState:
    """tensorflow.CheckpointState: the newest checkpoint, all kept ones, and CheckpointManager timestamps."""

    model_checkpoint_path: str = ""
    all_model_checkpoint_paths: list[str] = dataclasses.field(default_factory=list)
    all_model_checkpoint_timestamps: list[float] = dataclasses.field(default_factory=list)
    last_preserved_timestamp: float = 0.0

    def to_text(self) -> str:
        """Returns the text format exactly as TF's ``text_format.MessageToString`` writes it."""
        return text_format.to_text(_CheckpointStateProto(
            model_checkpoint_path=_as_text(self.model_checkpoint_path, "model_checkpoint_path"),
            all_model_checkpoint_paths=[_as_text(path, "all_model_checkpoint_paths")
                                        for path in self.all_model_checkpoint_paths],
            all_model_checkpoint_timestamps=[float(stamp) for stamp in self.all_model_checkpoint_timestamps],
            last_preserved_timestamp=float(self.last_preserved_timestamp)))

    @classmethod
    def from_text(cls, text: str) -> CheckpointState:
        """Parses the text format as ``text_format.Merge`` does; raises ParseError on bad input."""
        return _parse(text)

    def __str__(self) -> str:
        return self.to_text()


# ------------------------------------------------------------------------------------------ encoding


def _as_text(value, field: str) -> str:
    """A string field's value as str; bytes must be UTF-8 (protobuf refuses anything else)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError("CheckpointState.{} must be UTF-8, got {!r}".format(field, value)) from e
    if not isinstance(value, str):
        raise TypeError("CheckpointState.{} must be a string, got {}".format(field, type(value).__name__))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("CheckpointState.{} is not encodable as UTF-8: {!r}".format(field, value)) from e
    return value


def _parse(text: str) -> CheckpointState:
    """text_format.Merge for CheckpointState: later singular values win, repeated values append."""
    proto = text_format.parse(text, _CheckpointStateProto)
    return CheckpointState(proto.model_checkpoint_path, list(proto.all_model_checkpoint_paths),
                           list(proto.all_model_checkpoint_timestamps), proto.last_preserved_timestamp)


# ------------------------------------------------------------------------------------- file access


def _temp_state_filename(path: str) -> str:
    """file_io.atomic_write_string_to_file's temporary name: ``<path>.tmp<uuid4 hex>``."""
    return path + _TEMP_INFIX + uuid.uuid4().hex


def _write_atomic(path: str, data: bytes) -> None:
    """Writes `path` as TF's atomic_write_string_to_file: a `.tmp<uuid4 hex>` sibling, then rename.

    Raises:
      OpError: NotFoundError, PermissionDeniedError or FailedPreconditionError naming the file; no temporary
        file is left behind.
    """
    file_io.write_bytes(path, data, temp_name=_temp_state_filename)


# ------------------------------------------------------------------- checkpoint_management functions


def _state_filename(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, DEFAULT_LATEST_FILENAME if latest_filename is None else latest_filename)


def generate_checkpoint_state_proto(save_dir: str, model_checkpoint_path: str,
                                    all_model_checkpoint_paths: Sequence[str] | None = None,
                                    all_model_checkpoint_timestamps: Sequence[float] | None = None,
                                    last_preserved_timestamp: float | None = None) -> CheckpointState:
    """Builds a CheckpointState; with a relative `save_dir`, relative paths are made relative to it.

    Args:
      save_dir: directory where the model was saved.
      model_checkpoint_path: the newest checkpoint prefix; appended to the list if it is not its last item.
      all_model_checkpoint_paths: kept checkpoint prefixes, oldest first; a list is updated in place, as TF
        does (the newest path appended, relative paths rewritten), which callers observe.
      all_model_checkpoint_timestamps: seconds since the Epoch, one per path, or None.
      last_preserved_timestamp: seconds since the Epoch, or None.

    Returns:
      The CheckpointState.

    Raises:
      ValueError: if timestamps are given and their count differs from the paths'.
    """
    paths = all_model_checkpoint_paths if isinstance(all_model_checkpoint_paths, list) else \
        list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        logger.info("%s is not in all_model_checkpoint_paths. Manually adding it.", model_checkpoint_path)
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths (got paths %s and "
                         "timestamps %s)" % (paths, list(all_model_checkpoint_timestamps)))
    # Relative paths are rewritten relative to a relative save_dir ("rel/m-8" -> "m-8").
    if not file_io.isabs(save_dir):
        if not file_io.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths[:] = [p if file_io.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=[float(t) for t in all_model_checkpoint_timestamps or []],
        last_preserved_timestamp=float(last_preserved_timestamp or 0.0))


def update_checkpoint_state(save_dir: str, model_checkpoint_path: str,
                            all_model_checkpoint_paths: Sequence[str] | None = None,
                            latest_filename: str | None = None,
                            all_model_checkpoint_timestamps: Sequence[float] | None = None,
                            last_preserved_timestamp: float | None = None) -> None:
    """Writes the `checkpoint` file in `save_dir` (absolute paths stay absolute), atomically.

    Raises:
      RuntimeError: if the checkpoint path is the state file itself.
      NotFoundError: if `save_dir` does not exist.
    """
    update_checkpoint_state_internal(
        save_dir=save_dir, model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=all_model_checkpoint_paths, latest_filename=latest_filename,
        save_relative_paths=False, all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def update_checkpoint_state_internal(save_dir: str, model_checkpoint_path: str,
                                     all_model_checkpoint_paths: Sequence[str] | None = None,
                                     latest_filename: str | None = None,
                                     save_relative_paths: bool = False,
                                     all_model_checkpoint_timestamps: Sequence[float] | None = None,
                                     last_preserved_timestamp: float | None = None) -> None:
    """Writes the `checkpoint` file; with `save_relative_paths`, absolute paths become relative to `save_dir`.

    Raises:
      RuntimeError: if the checkpoint path is the state file itself.
      NotFoundError: if `save_dir` does not exist.
    """
    state_filename = _state_filename(save_dir, latest_filename)
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:
        def relative(p):
            return file_io.relpath(p, save_dir) if file_io.isabs(p) else p
        state = generate_checkpoint_state_proto(
            save_dir, relative(model_checkpoint_path), [relative(p) for p in paths],
            all_model_checkpoint_timestamps, last_preserved_timestamp)
    else:
        state = generate_checkpoint_state_proto(
            save_dir, model_checkpoint_path, paths, all_model_checkpoint_timestamps, last_preserved_timestamp)
    if state_filename == state.model_checkpoint_path:
        raise RuntimeError("Save path '%s' conflicts with path used for checkpoint state.  Please use a "
                           "different save path." % model_checkpoint_path)
    _write_atomic(state_filename, state.to_text().encode("utf-8"))


def get_checkpoint_state(checkpoint_dir, latest_filename: str | None = None) -> CheckpointState | None:
    """Reads the `checkpoint` file; relative paths are joined with `checkpoint_dir`.

    Returns None (with a logged warning) when the file is missing, unreadable or not valid text format.

    Raises:
      ValueError: if the file has no model_checkpoint_path ("Invalid checkpoint state loaded from DIR"),
        or is not UTF-8 (where TF raises UnicodeDecodeError, itself a ValueError).
    """
    if isinstance(checkpoint_dir, os.PathLike):
        checkpoint_dir = os.fspath(checkpoint_dir)
    filename = _state_filename(checkpoint_dir, latest_filename)
    if not file_io.exists(filename):
        return None
    try:
        data = file_io.read_bytes(filename, MAX_STATE_FILE_BYTES, "checkpoint state file")
    except errors.OpError as e:
        logger.warning("%s: %s", type(e).__name__, e)
        logger.warning("%s: Checkpoint ignored", filename)
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError("Checkpoint state file %s is not UTF-8 text: byte 0x%02x at offset %d"
                         % (filename, data[e.start], e.start)) from e
    try:
        state = _parse(text)
    except ParseError as e:
        logger.warning("%s: %s", type(e).__name__, e)
        logger.warning("%s: Checkpoint ignored", filename)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not file_io.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [p if file_io.isabs(p) else os.path.join(checkpoint_dir, p)
                                        for p in state.all_model_checkpoint_paths]
    return state


def prefix_to_checkpoint_path(prefix: str, format_version: int) -> str:
    """The file that identifies a checkpoint: ``<prefix>.index`` for V2, the prefix itself for V1."""
    return prefix + ".index" if format_version == V2 else prefix


def latest_checkpoint(checkpoint_dir, latest_filename: str | None = None) -> str | None:
    """The newest checkpoint prefix named by the state file, if its V2 index or V1 file exists, else None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        prefix = state.model_checkpoint_path
        if file_io.glob(prefix_to_checkpoint_path(prefix, V2)) or file_io.glob(prefix_to_checkpoint_path(prefix, V1)):
            return prefix
        logger.error("Couldn't match files for checkpoint %s", prefix)
    return None


def checkpoint_exists_internal(checkpoint_prefix: str) -> bool:
    """True if a V2 (``<prefix>.index``) or V1 (the prefix, a glob) checkpoint exists."""
    return bool(file_io.glob(prefix_to_checkpoint_path(checkpoint_prefix, V2)) or file_io.glob(checkpoint_prefix))


def prefix_of_checkpoint_file(path: str) -> str | None:
    """The prefix of the V2 checkpoint ``path`` is a file of (its .index, .meta or a data file), else None."""
    prefix = DATA_SUFFIX.sub("", path.removesuffix(".index").removesuffix(".meta"))
    if prefix == path or file_io.exists(path + ".index") or not file_io.exists(prefix + ".index"):
        return None
    return prefix


def restorable_prefix(path: str) -> bool:
    """True when ``path`` is a checkpoint prefix to restore (not missing, not one of a checkpoint's files)."""
    return prefix_of_checkpoint_file(path) is None and checkpoint_exists_internal(path)


def not_a_checkpoint_message(path: str) -> str:
    """Saver.restore's message for a path with no checkpoint; for one of a checkpoint's files, names its prefix."""
    message = "The passed save_path is not a valid checkpoint: " + path
    prefix = prefix_of_checkpoint_file(path)
    if prefix is not None:
        message += f" (a file of the checkpoint {prefix}: pass that prefix, not one of its files)"
    return message


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """True if a V2 or V1 checkpoint exists with this prefix (deprecated in TF, kept for TF1 code)."""
    return checkpoint_exists_internal(checkpoint_prefix)


def get_checkpoint_mtimes(checkpoint_prefixes: Sequence[str]) -> list[float]:
    """Modification times (whole seconds, as TF) of the checkpoints that exist; missing ones are skipped."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        for pattern in (prefix_to_checkpoint_path(prefix, V2), prefix):
            names = file_io.glob(pattern)
            if names:
                mtimes.append(file_io.mtime_seconds(names[0]))
                break
    return mtimes


def _delete_file_if_exists(pattern: str):
    for name in file_io.glob(pattern):
        try:
            file_io.remove(name)
        except FileNotFoundError:
            logger.warning("Hit NotFoundError when deleting '%s', possibly because another process/thread is "
                           "also deleting/moving the same file", name)


def remove_checkpoint(checkpoint_prefix: str, checkpoint_format_version: int = V2,
                      meta_graph_suffix: str = "meta") -> None:
    """Deletes a checkpoint's ``.meta``, then ``.index`` and ``.data-?????-of-?????`` (V2) or the file (V1)."""
    _delete_file_if_exists(meta_graph_filename(checkpoint_prefix, meta_graph_suffix))
    if checkpoint_format_version == V2:
        _delete_file_if_exists(checkpoint_prefix + ".index")
        _delete_file_if_exists(checkpoint_prefix + ".data-?????-of-?????")
    else:
        _delete_file_if_exists(checkpoint_prefix)


def meta_graph_filename(checkpoint_filename: str, meta_graph_suffix: str = "meta") -> str:
    """``<prefix>.<suffix>``, with a sharded ``-00001-of-00002`` / ``-?????-of-00002`` tail removed."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return ".".join([basename, meta_graph_suffix])


def wait_for_new_checkpoint(checkpoint_dir: str, last_checkpoint: str | None = None,
                            seconds_to_sleep: float = 1, timeout: float | None = None) -> str | None:
    """Polls latest_checkpoint until it differs from `last_checkpoint`; None after `timeout` seconds."""
    logger.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            logger.info("Found new checkpoint at %s", path)
            return path


def checkpoints_iterator(checkpoint_dir: str, min_interval_secs: float = 0, timeout: float | None = None,
                         timeout_fn: Callable[[], bool] | None = None) -> Iterator[str]:
    """Yields each new latest checkpoint as it appears; stops after a timeout unless `timeout_fn()` is false."""
    checkpoint_path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_path:
            start = time.time()
            checkpoint_path = new_path
            yield checkpoint_path
            time_to_next = start + min_interval_secs - time.time()
            if time_to_next > 0:
                time.sleep(time_to_next)
        elif timeout_fn is None:
            logger.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            logger.info("Done. No new checkpoint will be generated.")
            return
