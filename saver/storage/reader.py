"""CheckpointReader: TF's checkpoint reading API over V2 bundles and V1 tables.

Path resolution (what ``load_checkpoint`` accepts)::

    directory                    -> state.latest_checkpoint(directory): the model_checkpoint_path of
                                    its ``checkpoint`` state file (the last one wins; relative paths
                                    joined with the directory; None when its files are missing)
    <prefix>.index / .data-NNNNN-of-MMMMM / .meta
                                 -> <prefix>
    <prefix> with <prefix>.index -> V2 bundle (bundle.py)
    anything else                -> V1 file, glob pattern or ``-NNNNN-of-MMMMM`` shards (v1.py)

The chosen prefix is ``reader.prefix``; ``reader.resolved_from`` says how it was found.
Shape and dtype maps hide the ``\\x00`` slice keys of partitioned tensors, as TF's do.

An fsspec URL (``memory://``, ``s3://`` ...) is resolved the same way (a directory's state file, or a
prefix, or one of its files) and the checkpoint there is read in place by byte ranges, nothing staged:
a V2 bundle's ``.index`` once (opening, listing), then each tensor's range of its data file
(saver/format/bundle_files.py RemoteDataFileReader); a V1 table's footer, index block and header
block (opening, listing), then the blocks holding a tensor's slices (saver/format/v1.py).
``file://`` URLs are local paths.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from graph.base import dtypes
from graph.errors import InvalidArgumentError, NotFoundError
from graph.platform import file_io
from saver.storage import state
from saver.format.bundle_files import DATA_SUFFIX, index_filename
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_stream import element_chunks, streamable
from saver.format.coding import TensorSlice
from saver.format.v1 import V1Reader, v1_files

__all__ = ["CheckpointReader", "NewCheckpointReader", "load_checkpoint", "list_variables", "load_variable",
           "resolve_checkpoint_path", "resolve_url", "checkpoint_files"]


def resolve_checkpoint_path(ckpt_dir_or_file: str) -> tuple[str, str]:
    """Returns (prefix or V1 pattern, how it was found) for a directory, prefix or checkpoint file.

    Raises:
        ValueError: for a directory without a usable ``checkpoint`` state file (TF's wording), or
            with a state file that names no model_checkpoint_path (state.get_checkpoint_state).
    """
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        prefix = state.latest_checkpoint(path)  # TF's _get_checkpoint_filename
        if prefix is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return prefix, f"model_checkpoint_path in {os.path.join(path, 'checkpoint')}"
    if path.endswith(".index") and not os.path.exists(path + ".index"):
        return path[:-len(".index")], f"index file {path}"
    if path.endswith(".meta") and not os.path.exists(path + ".index"):
        return path[:-len(".meta")], f"meta graph file {path}"
    if DATA_SUFFIX.search(path) and not os.path.exists(path + ".index") and not _is_v1_table(path):
        return DATA_SUFFIX.sub("", path), f"data file {path}"
    return path, "prefix as given"


def _is_v1_table(path: str) -> bool:
    return os.path.isfile(path) and not os.path.exists(DATA_SUFFIX.sub("", path) + ".index")


class CheckpointReader:
    """TF's CheckpointReader (``tf.train.load_checkpoint``): V2 and V1 checkpoints alike.

    Raises:
        NotFoundError: if no checkpoint is found at ``filepattern``.
        DataLossError: if the checkpoint's index is damaged.
    """

    def __init__(self, filepattern: str):
        if file_io.local_path(filepattern) is None:  # a URL: read in place by byte ranges
            self.prefix = resolve_url(filepattern)
            self.resolved_from = "prefix as given" if self.prefix == filepattern else f"URL {filepattern}"
        else:
            self.prefix, self.resolved_from = resolve_checkpoint_path(filepattern)
        if file_io.exists(index_filename(self.prefix)):
            self.format = "V2"
            self._bundle: BundleReader | None = BundleReader(self.prefix)
            self._v1: V1Reader | None = None
        elif v1_files(self.prefix):
            self.format = "V1"
            self._bundle = None
            self._v1 = V1Reader(self.prefix)
        else:
            where = "" if file_io.local_path(self.prefix) is not None else \
                f" (no {index_filename(self.prefix)}, no V1 table)"
            raise NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                                f"files for {self.prefix}{where}")
        self._shapes: dict[str, tuple[int, ...]] | None = None
        self._dtypes: dict[str, dtypes.DType] | None = None

    def __enter__(self) -> CheckpointReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes open data files."""
        if self._bundle is not None:
            self._bundle.close()
        if self._v1 is not None:
            self._v1.close()

    def _build_maps(self) -> None:
        if self._bundle is not None:
            variables = self._bundle.variables()
        else:
            variables = [(name, *self._v1.dtype_and_shape(name)) for name in self._v1.keys()]
        self._shapes = {name: shape for name, _, shape in variables}
        self._dtypes = {name: dtype for name, dtype, _ in variables}

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """name -> shape (list of ints) of every tensor; slice keys hidden."""
        if self._shapes is None:
            self._build_maps()
        return {name: list(shape) for name, shape in self._shapes.items()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        """name -> DType of every tensor; slice keys hidden."""
        if self._dtypes is None:
            self._build_maps()
        return dict(self._dtypes)

    def has_tensor(self, tensor_str: str) -> bool:
        """True when the checkpoint holds a tensor of that name."""
        if self._bundle is not None:
            return tensor_str in self._bundle
        return tensor_str in self._v1

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The value of a tensor (partitioned tensors reassembled); strings as bytes objects.

        Raises:
            NotFoundError: naming the closest keys present.
        """
        if self._bundle is not None:
            value = self._bundle.lookup(tensor_str)
        else:
            if tensor_str not in self._v1:
                raise self._v1.not_found(tensor_str)
            value = self._v1.get_tensor(tensor_str)
        return value[()] if value.ndim == 0 and value.dtype == object else value

    def tensor_chunks(self, key: str, elements: int) -> Iterator[np.ndarray]:
        """The flattened values of tensor ``key``, ``elements`` at a time (the last chunk shorter).

        A numeric V2 tensor stored whole is streamed (memory: one chunk; the CRC is checked after the
        last chunk); anything else is read whole and cut.

        Raises:
            NotFoundError: if the key is missing. DataLossError: on any damage.
        """
        if self._bundle is not None and streamable(self._bundle, key):
            yield from element_chunks(self._bundle, key, elements)
            return
        value = np.asarray(self.get_tensor(key)).reshape(-1)
        for start in range(0, max(value.size, 1), elements):
            yield value[start:start + elements]

    def get_tensor_slices(self, key: str) -> list[TensorSlice]:
        """The slices ``key`` is stored in; [] when it is stored as one whole tensor.

        Raises:
            NotFoundError: if the key is missing.
        """
        if self._bundle is not None:
            return self._bundle.lookup_tensor_slices(key)
        if key not in self._v1:
            raise self._v1.not_found(key)
        slices = self._v1.stored_slices(key)
        return [] if len(slices) == 1 and slices[0].is_full() else slices

    def read_slice_into(self, key: str, tensor_slice: TensorSlice | str | None, out: np.ndarray) -> np.ndarray:
        """Reads tensor ``key`` (or ``tensor_slice`` of it) straight into ``out``; returns ``out``.

        A C-contiguous ``out`` of the stored dtype is filled in place without a second copy
        (V2; each stored slice that lies whole inside the request is read directly into its
        window).  Any other ``out`` receives the values by assignment (numpy casting rules).

        Args:
            key: the tensor's name.
            tensor_slice: None for the whole tensor, else a TensorSlice or its string ``"0,3:-"``.
            out: the destination, of the tensor's (or the slice's) shape.

        Raises:
            NotFoundError: if the key is missing or the stored slices do not cover the request.
            InvalidArgumentError: if ``out`` has the wrong shape.
            DataLossError: on any damage.
        """
        if isinstance(tensor_slice, str):
            tensor_slice = TensorSlice.parse(tensor_slice)
        if self._bundle is not None:
            bundle = self._bundle
            dtype, shape = bundle.lookup_dtype_and_shape(key)
            spec = tensor_slice if tensor_slice is not None else TensorSlice.full(len(shape))
            wanted = spec.slice_shape(shape)
            if tuple(out.shape) != wanted:
                raise InvalidArgumentError(None, None, f"Cannot read {key} slice {spec} of shape {list(wanted)} into an "
                                           f"array of shape {list(out.shape)}")
            direct = (dtype.numpy_dtype == out.dtype and out.flags.c_contiguous and out.flags.writeable
                      and dtype not in (dtypes.string, dtypes.variant))
            if direct or bundle.lookup_tensor_slices(key) or tensor_slice is not None:
                return bundle.lookup_slice(key, spec, out=out)
            out[...] = bundle.lookup(key)
            return out
        if key not in self._v1:
            raise self._v1.not_found(key)
        return self._v1.get_tensor(key, tensor_slice, out=out)

    def debug_string(self) -> bytes:
        """One ``name (DT_TYPE) [dims]`` line per entry, as TF's DebugString."""
        lines = []
        if self._bundle is not None:  # BundleReader::DebugString: skips full entries, lists slice keys
            for key, record in self._bundle.records():
                if record.slices:
                    continue
                dtype = dtypes.as_dtype(record.dtype)
                dims = ",".join(map(str, record.shape or ()))
                lines.append(key + f" ({dtype.proto_name}) [{dims}]\n".encode())
        else:  # TensorSliceReader::DebugString
            for name in self._v1.keys():
                dtype, shape = self._v1.dtype_and_shape(name)
                line = f"{name} ({dtype.proto_name}) [{','.join(map(str, shape))}]"
                count = self._v1.num_slices(name)
                lines.append((line + (f", {count} slices" if count > 1 else "") + "\n").encode())
        return b"".join(lines)


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TensorFlow's name
    """TF's ``tf.compat.v1.train.NewCheckpointReader``."""
    return CheckpointReader(filepattern)


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """TF's ``tf.train.load_checkpoint``: a reader for a directory, prefix or checkpoint file.

    A checkpoint at an fsspec URL (``memory://``, ``s3://``, ...), V2 or V1, is read in place by byte
    ranges; ``file://`` URLs are local paths.
    """
    local = file_io.local_path(ckpt_dir_or_file)
    return CheckpointReader(local if local is not None else ckpt_dir_or_file)


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """Sorted (name, shape) of every variable in the checkpoint."""
    with load_checkpoint(ckpt_dir_or_file) as reader:
        shapes = reader.get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The value of variable ``name`` (a trailing ``:0`` is dropped, as TF does)."""
    if name.endswith(":0"):
        name = name[:-2]
    with load_checkpoint(ckpt_dir_or_file) as reader:
        return reader.get_tensor(name)


# ------------------------------------------------------------------------- checkpoints at URLs


def checkpoint_files(url_prefix: str) -> list[str]:
    """The files of a V2 checkpoint at a URL prefix: data shards (sorted), then the index (paths inside
    the URL's file system).

    Raises:
        NotFoundError: if ``<prefix>.index`` does not exist.
    """
    fs, path = file_io.filesystem(url_prefix)
    if not fs.exists(path + ".index"):
        raise NotFoundError(None, None, f"{url_prefix}.index: no such file (not a V2 checkpoint prefix)")
    data = sorted(p for p in fs.glob(file_io.glob_escape(path) + ".data-*") if DATA_SUFFIX.search(p))
    return data + [path + ".index"]


def resolve_url(url: str) -> str:
    """A URL prefix for a directory (its ``checkpoint`` file), a prefix, or one of its files."""
    fs, path = file_io.filesystem(url)
    if fs.isdir(path):
        try:
            checkpoint_state = state.get_checkpoint_state(url)
        except ValueError as error:
            raise NotFoundError(None, None, f"{url}/{state.DEFAULT_LATEST_FILENAME}: {error}") from error
        if checkpoint_state is None:
            raise NotFoundError(None, None, f"Couldn't find 'checkpoint' file or checkpoints in given directory {url}")
        prefix = checkpoint_state.model_checkpoint_path
        if not file_io.is_url(prefix):  # an absolute local path written elsewhere: the same path here
            protocol = url[:url.index("://") + len("://")]
            return protocol + prefix.lstrip("/")
        return prefix
    for suffix in (".index", ".meta"):
        if url.endswith(suffix) and not fs.exists(path + ".index"):
            return url[:-len(suffix)]
    if DATA_SUFFIX.search(url) and not fs.exists(path + ".index"):
        return DATA_SUFFIX.sub("", url)
    return url
