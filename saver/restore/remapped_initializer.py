"""A variable initializer that loads a checkpoint matrix with its rows and columns moved by vocabulary: TF's
``checkpoint_ops._load_and_remap_matrix_initializer`` (tensorflow/python/training/checkpoint_ops.py), reimplemented.

For a (part of a) variable of shape ``[rows, new_col_vocab_size + num_col_oov_buckets]`` starting at row ``offset``
of the whole, the graph gains, in TF's order and with TF's names::

    GenerateVocabRemapping(new_row_vocab, old_row_vocab; offset, rows to load, old_row_vocab_size)  (or a Range)
    GenerateVocabRemapping(new_col_vocab, old_col_vocab; 0, new_col_vocab_size)              (column vocabularies)
    initializer([rows * cols - rows_present * cols_present, 1])   the values of the missing cells
    LoadAndRemapMatrix(checkpoint, old_tensor_name, row_remapping, col_remapping or [], those values)
    concat with initializer([row OOV buckets, cols]) on axis 0, then initializer([rows, col OOV buckets]) on axis 1

Rows of the part past ``new_row_vocab_size`` are OOV buckets: they come from the initializer alone.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core.graph import convert_to_tensor
from graph.ops import array_concat_ops
from graph.ops import reduction_ops
from graph.ops.vocab_remapping_ops import generate_vocab_remapping
from graph.variables import initializers
from saver.graph_ops.remap_ops import load_and_remap_matrix

__all__ = ["load_and_remap_matrix_initializer"]


def _load_and_remap_matrix(ckpt_path, old_tensor_name, new_row_vocab_offset, num_rows_to_load, new_col_vocab_size,
                           initializer, old_row_vocab_size=-1, old_row_vocab_file=None, new_row_vocab_file=None,
                           old_col_vocab_file=None, new_col_vocab_file=None, num_row_oov_buckets=0,
                           num_col_oov_buckets=0, max_rows_in_memory=-1):
    """The remapped matrix of one variable part, OOV rows and columns appended (TF's ``_load_and_remap_matrix``).

    Raises:
        ValueError: for negative OOV bucket counts, a vocabulary given for one side only, or none at all.
    """
    if num_row_oov_buckets < 0:
        raise ValueError("num_row_oov_buckets must be >= 0, but received %d" % num_row_oov_buckets)
    if num_col_oov_buckets < 0:
        raise ValueError("num_col_oov_buckets must be >= 0, but received %d" % num_col_oov_buckets)
    if bool(old_row_vocab_file) != bool(new_row_vocab_file):
        raise ValueError("old_row_vocab_file and new_row_vocab_file must both be specified or left unspecified. "
                         "old_row_vocab_file='{}', new_row_vocab_file='{}'".format(old_row_vocab_file,
                                                                                   new_row_vocab_file))
    if bool(old_col_vocab_file) != bool(new_col_vocab_file):
        raise ValueError("old_col_vocab_file and new_col_vocab_file must both be specified or left unspecified. "
                         "old_col_vocab_file='{}', new_col_vocab_file='{}'".format(old_col_vocab_file,
                                                                                   new_col_vocab_file))
    remap_rows = new_row_vocab_file and old_row_vocab_file
    remap_cols = new_col_vocab_file and old_col_vocab_file
    if not (remap_rows or remap_cols):
        raise ValueError("Must provide either row or column vocab files. If no remapping is necessary, consider "
                         "using `tf.contrib.framework.init_from_checkpoint` instead.")
    num_rows_present = num_rows_to_load
    if remap_rows:
        row_remapping, num_rows_present = generate_vocab_remapping(
            new_row_vocab_file, old_row_vocab_file, new_vocab_offset=new_row_vocab_offset,
            num_new_vocab=num_rows_to_load, old_vocab_size=old_row_vocab_size)
    else:
        row_remapping = reduction_ops.range(new_row_vocab_offset, new_row_vocab_offset + num_rows_to_load,
                                            dtype=dtypes_lib.int64)
    col_remapping = []
    num_cols_present = new_col_vocab_size
    if remap_cols:
        col_remapping, num_cols_present = generate_vocab_remapping(
            new_col_vocab_file, old_col_vocab_file, new_vocab_offset=0, num_new_vocab=new_col_vocab_size)
    # Python arithmetic on the counts, as TF writes it: the graph gains TF's mul/sub ops (counts are tensors)
    init_vals = initializer([num_rows_to_load * new_col_vocab_size - num_rows_present * num_cols_present, 1])
    matrix = load_and_remap_matrix(ckpt_path, old_tensor_name, row_remapping, col_remapping, init_vals,
                                   num_rows=num_rows_to_load, num_cols=new_col_vocab_size,
                                   max_rows_in_memory=max_rows_in_memory)
    if num_row_oov_buckets > 0:
        row_oov = convert_to_tensor(initializer([num_row_oov_buckets, new_col_vocab_size]))
        matrix = array_concat_ops.concat([matrix, row_oov], 0)
    if num_col_oov_buckets > 0:
        col_oov = convert_to_tensor(initializer([num_rows_to_load + num_row_oov_buckets, num_col_oov_buckets]))
        matrix = array_concat_ops.concat([matrix, col_oov], 1)
    return matrix


def load_and_remap_matrix_initializer(ckpt_path, old_tensor_name, new_row_vocab_size, new_col_vocab_size,
                                      old_row_vocab_size=-1, old_row_vocab_file=None, new_row_vocab_file=None,
                                      old_col_vocab_file=None, new_col_vocab_file=None, num_row_oov_buckets=0,
                                      num_col_oov_buckets=0, initializer=None, max_rows_in_memory=-1):
    """An initializer ``init(shape, dtype=float32, partition_info=None)`` loading ``old_tensor_name`` remapped.

    Rows are remapped by the row vocabulary files, columns by the column ones (either pair may be None); missing
    entries and OOV buckets come from ``initializer`` (default zeros).  Only div-partitioning along rows is
    supported, as in TF.

    Raises:
        TypeError: if ``initializer`` is not callable; the returned initializer for a dtype other than float32.
        ValueError: (the returned initializer) for a shape that is not 2-D, has no rows, the wrong column count,
            or rows past the vocabulary and its OOV buckets.
    """
    if initializer is None:
        initializer = initializers.zeros_initializer()
    if not callable(initializer):
        raise TypeError("initializer must be callable, instead of being {} of type {}.".format(
            initializer, type(initializer)))

    def _initializer(shape, dtype=dtypes_lib.float32, partition_info=None):
        if dtype != dtypes_lib.float32:
            raise TypeError("Currently, only float32 is supported. Received dtype: {}".format(dtype))
        if len(shape) != 2:
            raise ValueError("Expected 2-dim shape, but received: {}".format(shape))
        if shape[0] <= 0:
            raise ValueError("Expected 1st dim of shape to be > 0, but received shape: {}".format(shape))
        if shape[1] != (new_col_vocab_size + num_col_oov_buckets):
            raise ValueError("Expected 2nd dim of shape to be new_col_vocab_size ({}) + num_col_oov_buckets ({}) = {}, "
                             "but received shape: {}".format(new_col_vocab_size, num_col_oov_buckets,
                                                             new_col_vocab_size + num_col_oov_buckets, shape))
        offset = 0
        if partition_info is not None:
            offset = partition_info.single_offset(shape)
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(
                "Trying to initialize {} additional rows after {} rows have already been initialized, which would "
                "exceed expected total row count of new_row_vocab_size ({}) + num_row_oov_buckets ({}) = {}.".format(
                    shape[0], offset, new_row_vocab_size, num_row_oov_buckets,
                    new_row_vocab_size + num_row_oov_buckets))
        row_oov_buckets_to_use = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        num_rows_to_load = shape[0] - row_oov_buckets_to_use
        if offset > new_row_vocab_size:
            if shape[0] != row_oov_buckets_to_use:
                raise ValueError("Partitioned variable offset is greater than new vocab size and not operating on "
                                 "OOV-only partition.")
            return initializer(shape)
        return _load_and_remap_matrix(
            ckpt_path=ckpt_path, old_tensor_name=old_tensor_name, new_row_vocab_offset=offset,
            num_rows_to_load=num_rows_to_load, new_col_vocab_size=new_col_vocab_size, initializer=initializer,
            old_row_vocab_size=old_row_vocab_size, old_row_vocab_file=old_row_vocab_file,
            new_row_vocab_file=new_row_vocab_file, old_col_vocab_file=old_col_vocab_file,
            new_col_vocab_file=new_col_vocab_file, num_row_oov_buckets=row_oov_buckets_to_use,
            num_col_oov_buckets=num_col_oov_buckets, max_rows_in_memory=max_rows_in_memory)

    return _initializer
