"""``GenerateVocabRemapping``: which line of an old vocabulary file each line of a new one was, with TF's kernel
semantics (tensorflow/core/kernels/generate_vocab_remapping_op.cc).

    remapping[i]  = the line number in the old file of line ``new_vocab_offset + i`` of the new file, or -1
                    (only the first ``old_vocab_size`` old lines count; -1 = all of them)
    num_present   = how many of the ``num_new_vocab`` entries are not -1 (int32)

Both files are read as TF's text-file table initializer reads them (`lookup_text_file_ops`): a line is everything
up to '\\n' with one trailing '\\r' dropped; an empty line, an old file shorter than ``old_vocab_size`` or a word
twice in the old file fail as in TF.  The warm-starting code (saver.restore) feeds the result to LoadAndRemapMatrix.
"""

from __future__ import annotations

import collections

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.ops.lookup_text_file_ops import TextFileIndex, read_text_file_entries
from graph.ops.op_builder import apply_op

__all__ = ["generate_vocab_remapping"]

_OP_TYPE = "GenerateVocabRemapping"
_NOT_FOUND_ID = -1  # the kernel's default id for a word missing from the old vocabulary

_GenerateVocabRemappingOutput = collections.namedtuple("GenerateVocabRemapping", ["remapping", "num_present"])


def generate_vocab_remapping(new_vocab_file, old_vocab_file, new_vocab_offset: int, num_new_vocab: int,
                             old_vocab_size: int = -1, name: str | None = None) -> _GenerateVocabRemappingOutput:
    """(remapping, num_present): old line numbers of new lines ``new_vocab_offset ..`` (-1 if absent) and their count.

    Raises:
        ValueError: for an attr below its minimum (TF's OpDef: offset and count >= 0, old size >= -1).
    """
    for attr, value, minimum in (("new_vocab_offset", new_vocab_offset, 0), ("num_new_vocab", num_new_vocab, 0),
                                 ("old_vocab_size", old_vocab_size, -1)):
        if int(value) < minimum:
            raise ValueError(f"Attr '{attr}' of '{_OP_TYPE}' Op passed {int(value)} less than minimum {minimum}.")
    op = apply_op(_OP_TYPE, [(new_vocab_file, "new_vocab_file", dtypes_lib.string),
                             (old_vocab_file, "old_vocab_file", dtypes_lib.string)],
                  {"new_vocab_offset": int(new_vocab_offset), "num_new_vocab": int(num_new_vocab),
                   "old_vocab_size": int(old_vocab_size)}, name=name)
    return _GenerateVocabRemappingOutput(*op._outputs)


def _node_text(op) -> str:
    """TF's NodeDef summary in shape errors: ``'{{node N}} = GenerateVocabRemapping[...](new, old)'``."""
    attrs = ", ".join(f"{key}={op._attrs[key]}" for key in ("new_vocab_offset", "num_new_vocab", "old_vocab_size"))
    inputs = ", ".join(t.name[:-2] if t.value_index == 0 else t.name for t in op._inputs)
    return f"'{{{{node {op.name}}}}} = {op.type}[{attrs}]({inputs})'"


def _infer(op):
    for tensor in op._inputs:
        if tensor.shape.ndims not in (None, 0):
            shapes = ", ".join(t.shape.message_string() for t in op._inputs)
            raise ValueError(f"Shape must be rank 0 but is rank {tensor.shape.ndims} for {_node_text(op)} with input "
                             f"shapes: {shapes}.")
    return [(dtypes_lib.int64, TensorShape([op._attrs["num_new_vocab"]])), (dtypes_lib.int32, TensorShape([]))]


def _filename(op, value, which: str, empty_word: str) -> str:
    value = np.asarray(value, dtype=object)
    if value.ndim:
        raise errors.InvalidArgumentError(None, op, f"{which}_vocab_file should be a single string, but got "
                                          f"[{','.join(map(str, value.shape))}]")
    item = value.item()
    filename = item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)
    if not filename:
        # TF's kernel says "new" for an empty old filename too
        raise errors.InvalidArgumentError(None, op, f"{empty_word} vocab filename cannot be empty.")
    return filename


def _compute(ctx, op, inputs):
    offset, count = op._attrs["new_vocab_offset"], op._attrs["num_new_vocab"]
    new_filename = _filename(op, inputs[0], "new", "new")
    new_words = [word for _, word in read_text_file_entries(
        op, new_filename, -1, TextFileIndex.LINE_NUMBER, TextFileIndex.WHOLE_LINE, dtypes_lib.int64, dtypes_lib.string)]
    if offset + count > len(new_words):
        raise errors.InvalidArgumentError(None, op, "lookup table size must be larger than last new vocab entry's line")
    old_filename = _filename(op, inputs[1], "old", "new")
    old_ids: dict[bytes, int] = {}

    def insert(word: bytes, line: int) -> None:
        if word in old_ids and old_ids[word] != line:
            text = word.decode("utf-8", "replace")
            raise errors.FailedPreconditionError(None, op, f"HashTable has different value for same key. Key {text} "
                                                 f"has {old_ids[word]} and trying to add value {line}")
        old_ids[word] = line

    read_text_file_entries(op, old_filename, op._attrs.get("old_vocab_size", -1), TextFileIndex.WHOLE_LINE,
                           TextFileIndex.LINE_NUMBER, dtypes_lib.string, dtypes_lib.int64, insert)
    remapping = np.array([old_ids.get(word, _NOT_FOUND_ID) for word in new_words[offset:offset + count]], np.int64)
    return [remapping.reshape(count), np.int32(np.count_nonzero(remapping != _NOT_FOUND_ID))]


kernels.register(_OP_TYPE, infer=_infer, compute=_compute, default_attrs={"old_vocab_size": -1})
