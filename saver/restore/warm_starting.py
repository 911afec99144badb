"""``tf.train.warm_start`` and ``tf.train.VocabInfo``: initialize (part of) a new model from an older checkpoint.

TensorFlow 1.x's rules (tensorflow/python/training/warm_starting_util.py), reimplemented::

    vars_to_warm_start  '.*' (default) / a regex   TRAINABLE_VARIABLES matching it (re.match, get_collection)
                        [names or regexes]         GLOBAL_VARIABLES matching any of them
                        [Variables]                exactly those
                        None                       only the variables given a VocabInfo
    partitions are grouped under their full name ('emb' for emb/part_0, emb/part_1, ...)

    a variable with a VocabInfo      its initializer op becomes Assign(v, remapped matrix) per part
                                     (saver.restore.remapped_initializer: GenerateVocabRemapping and
                                     LoadAndRemapMatrix, axis 0 = rows by vocabulary, axis 1 = columns)
    every other variable             init_from_checkpoint({previous name: variable}) (RestoreV2 + Assign)
    previous names                   var_name_to_prev_var_name, else the name itself; for a TF2
                                     (object-based) checkpoint, each variable's key in its object graph

Nothing is read now: the values load when the initializers run (``global_variables_initializer``).  A name in
``var_name_to_prev_var_name`` or ``var_name_to_vocab_info`` that matched no variable is a ValueError after the
others were set up, as in TF, so a misspelling cannot pass silently.
"""

from __future__ import annotations

import collections
import logging

from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys
from graph.errors import NotFoundError
from graph.ops import state_ops
from graph.variables.partitioning import PartitionedVariable
from graph.variables.variables import Variable
from saver.graph_ops import saveable
from saver.restore.checkpoint_initializer import checkpoint_filename, init_from_checkpoint
from saver.restore.remapped_initializer import load_and_remap_matrix_initializer
from saver.storage.object_graph import object_graph_from_checkpoint

__all__ = ["VocabInfo", "warm_start"]

_logger = logging.getLogger("graph")


class VocabInfo(collections.namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab",
                                                     "old_vocab_size", "backup_initializer", "axis"])):
    """Vocabulary information for warm-starting: which word each row (axis 0) or column (axis 1) stands for.

    Args:
        new_vocab: path of the new vocabulary file, one word a line (the model being trained).
        new_vocab_size: how many of its entries the variable uses.
        num_oov_buckets: how many out-of-vocabulary buckets follow them.
        old_vocab: path of the vocabulary file of the checkpoint.
        old_vocab_size: how many old entries count (-1: all of them).
        backup_initializer: initializer of new words and OOV buckets (None: zeros).
        axis: 0 (rows: embeddings, linear weights) or 1 (columns: output layers with class vocabularies).

    Raises:
        ValueError: if ``axis`` is neither 0 nor 1.
    """

    def __new__(cls, new_vocab: str, new_vocab_size: int, num_oov_buckets: int, old_vocab: str,
                old_vocab_size: int = -1, backup_initializer=None, axis: int = 0) -> VocabInfo:
        if axis != 0 and axis != 1:
            raise ValueError("The only supported values for the axis argument are 0 and 1.  Provided axis: {}"
                             .format(axis))
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


class _SliceOffset:
    """TF's ``variable_scope._PartitionInfo`` as the remapping initializer reads it: where a part starts."""

    def __init__(self, full_shape, var_offset):
        self.full_shape, self.var_offset = list(full_shape), list(var_offset)

    def single_offset(self, shape) -> int:
        """The offset along the one axis in which ``shape`` is smaller than the full shape (0 if none)."""
        dims = [i for i, (part, full) in enumerate(zip(shape, self.full_shape)) if part != full]
        if len(dims) > 1:  # TF's wording: it meets the second sliced axis and names it first
            raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and self.full_shape={self.full_shape} "
                             f"since slice dim could be either dimension {dims[1]} or {dims[0]}.")
        return self.var_offset[dims[0]] if dims else 0


def _is_variable(value) -> bool:
    return isinstance(value, Variable)


def _infer_var_name(var) -> str:
    """The checkpoint name of a list holding one variable, the parts of one, or one PartitionedVariable."""
    name_to_var_dict = saveable.op_list_to_dict(var)
    if len(name_to_var_dict) > 1:
        raise TypeError("`var` = %s passed as arg violates the constraints.  name_to_var_dict = %s"
                        % (var, name_to_var_dict))
    return list(name_to_var_dict.keys())[0]


def _get_var_info(var, prev_tensor_name=None):
    """(checkpoint tensor name, variable or list of parts) of a variable, parts or PartitionedVariable."""
    if _is_variable(var):
        current_var_name = _infer_var_name([var])
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        current_var_name = _infer_var_name(var)
    elif isinstance(var, PartitionedVariable):
        current_var_name = _infer_var_name([var])
        var = var._get_variable_list()
    else:
        raise TypeError("var MUST be one of the following: a Variable, list of Variable or PartitionedVariable, "
                        "but is {}".format(type(var)))
    return prev_tensor_name or current_var_name, var


def _warm_start_var_with_vocab(var, current_vocab_path, current_vocab_size, prev_ckpt, prev_vocab_path,
                               previous_vocab_size=-1, current_oov_buckets=0, prev_tensor_name=None,
                               initializer=None, axis=0) -> None:
    """Points each part's initializer op at an Assign of its vocabulary-remapped checkpoint rows or columns.

    Raises:
        ValueError: if a vocabulary, its size or the checkpoint is not given, or for an axis other than 0 and 1.
        TypeError: if ``var`` is not a variable, a list of parts or a PartitionedVariable.
    """
    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, current_vocab_size, prev_ckpt, "
                         "prev_vocab_path}.")
    if _is_variable(var):
        var = [var]
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        pass
    elif isinstance(var, PartitionedVariable):
        var = var._get_variable_list()
    else:
        raise TypeError("var MUST be one of the following: a Variable, list of Variable or PartitionedVariable, "
                        "but is {}".format(type(var)))
    if not prev_tensor_name:
        prev_tensor_name = _infer_var_name(var)
    total_v_first_axis = sum(v.get_shape().as_list()[0] for v in var)
    for v in var:
        v_shape = v.get_shape().as_list()
        slice_info = v._get_save_slice_info()
        partition_info = None
        if slice_info:
            partition_info = _SliceOffset(slice_info.full_shape, slice_info.var_offset)
        if axis == 0:
            vocab_args = dict(new_row_vocab_size=current_vocab_size, new_col_vocab_size=v_shape[1],
                              old_row_vocab_size=previous_vocab_size, old_row_vocab_file=prev_vocab_path,
                              new_row_vocab_file=current_vocab_path, num_row_oov_buckets=current_oov_buckets)
        elif axis == 1:
            # the row count of every part together: axis 1 cannot be partitioned, rows can
            vocab_args = dict(new_row_vocab_size=total_v_first_axis, new_col_vocab_size=current_vocab_size,
                              old_col_vocab_file=prev_vocab_path, new_col_vocab_file=current_vocab_path,
                              num_col_oov_buckets=current_oov_buckets)
        else:
            raise ValueError("The only supported values for the axis argument are 0 and 1.  Provided axis: {}"
                             .format(axis))
        init = load_and_remap_matrix_initializer(ckpt_path=checkpoint_filename(prev_ckpt),
                                                 old_tensor_name=prev_tensor_name, initializer=initializer,
                                                 **vocab_args)
        new_init_val = graph_lib.convert_to_tensor(init(shape=v_shape, partition_info=partition_info))
        # TF keeps the assign's result; this package's Variable.initializer is an Operation
        v._initializer_op = state_ops.assign(v, new_init_val).op


def _get_grouped_variables(vars_to_warm_start) -> dict:
    """{full variable name: [variable or its parts]} of the variables to warm-start (see the module docstring).

    Raises:
        ValueError: for an argument that is not a string, None or a list of all names or all Variables.
    """
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        # '.*' and None both match every trainable variable here
        _logger.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        list_of_vars = graph_lib.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            list_of_vars = []
            for v in vars_to_warm_start:
                list_of_vars += graph_lib.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=v)
        elif all(_is_variable(v) for v in vars_to_warm_start):
            list_of_vars = vars_to_warm_start
        else:
            raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  Given "
                             "types are {}".format([type(v) for v in vars_to_warm_start]))
    else:
        raise ValueError("`vars_to_warm_start must be a `list` or `str`.  Given type is {}"
                         .format(type(vars_to_warm_start)))
    grouped_variables: dict = {}
    for v in list_of_vars:
        t = [v] if not isinstance(v, list) else v
        grouped_variables.setdefault(_infer_var_name(t), []).append(v)
    return grouped_variables


def _get_object_checkpoint_renames(path, variable_names) -> dict:
    """{variable name: checkpoint key} for a TF2 (object-based) checkpoint; {} for a name-based one.

    Raises:
        ValueError: if the object-based checkpoint lacks some of the variables.
    """
    fname = checkpoint_filename(path)
    if fname is None:  # a directory without checkpoints: TF's checkpoint reader refuses the missing path
        raise TypeError("Expected binary or unicode string, got None")
    try:
        graph = object_graph_from_checkpoint(fname)
    except NotFoundError:
        return {}  # name-based: no renames
    # TF's saver.object_graph_key_mapping: each attribute's full name, the later one winning
    names_to_keys = {attribute.full_name: attribute.checkpoint_key for _, attribute in graph.attributes()}
    missing_names = set(variable_names) - set(names_to_keys.keys())
    if missing_names:
        raise ValueError("Attempting to warm-start from an object-based checkpoint, but found that the checkpoint did "
                         "not contain values for all variables. The following variables were missing: {}"
                         .format(missing_names))
    return {name: names_to_keys[name] for name in variable_names}


def warm_start(ckpt_to_initialize_from: str, vars_to_warm_start: str | list | None = ".*",
               var_name_to_vocab_info: dict | None = None, var_name_to_prev_var_name: dict | None = None) -> None:
    """Warm-starts a model: its variables' initializers load values from ``ckpt_to_initialize_from``.

    Args:
        ckpt_to_initialize_from: a checkpoint prefix, or a directory (its latest checkpoint).
        vars_to_warm_start: a regex over TRAINABLE_VARIABLES (default '.*'), a list of regexes over
            GLOBAL_VARIABLES, a list of Variables, or None (only the variables in ``var_name_to_vocab_info``).
        var_name_to_vocab_info: {full variable name: VocabInfo} for variables whose rows or columns follow a
            vocabulary that changed.
        var_name_to_prev_var_name: {full variable name: its name in the checkpoint}.

    Raises:
        ValueError: for a name in ``var_name_to_vocab_info`` or ``var_name_to_prev_var_name`` that is not among
            the variables warm-started, a variable missing from the checkpoint or of another shape
            (init_from_checkpoint's messages), or a bad ``vars_to_warm_start``.
    """
    _logger.info("Warm-starting from: {}".format(ckpt_to_initialize_from))
    grouped_variables = _get_grouped_variables(vars_to_warm_start)
    if var_name_to_vocab_info is None:
        var_name_to_vocab_info = {}
    if not var_name_to_prev_var_name:
        # an object-based checkpoint names variables by their object paths; a given map is kept as it is
        var_name_to_prev_var_name = _get_object_checkpoint_renames(ckpt_to_initialize_from, grouped_variables.keys())
    warmstarted_count = 0
    prev_var_name_used, vocab_info_used = set(), set()
    vocabless_vars: dict = {}  # grouped into init_from_checkpoint calls
    for var_name, variable in grouped_variables.items():
        prev_var_name = var_name_to_prev_var_name.get(var_name)
        if prev_var_name:
            prev_var_name_used.add(var_name)
        vocab_info = var_name_to_vocab_info.get(var_name)
        if vocab_info:
            vocab_info_used.add(var_name)
            warmstarted_count += 1
            _logger.debug(
                "Warm-starting variable: {}; current_vocab: {} current_vocab_size: {} prev_vocab: {} "
                "prev_vocab_size: {} current_oov: {} prev_tensor: {} initializer: {}".format(
                    var_name, vocab_info.new_vocab, vocab_info.new_vocab_size, vocab_info.old_vocab,
                    vocab_info.old_vocab_size if vocab_info.old_vocab_size > 0 else "All",
                    vocab_info.num_oov_buckets, prev_var_name or "Unchanged",
                    vocab_info.backup_initializer or "zero-initialized"))
            _warm_start_var_with_vocab(
                variable, current_vocab_path=vocab_info.new_vocab, current_vocab_size=vocab_info.new_vocab_size,
                prev_ckpt=ckpt_to_initialize_from, prev_vocab_path=vocab_info.old_vocab,
                previous_vocab_size=vocab_info.old_vocab_size, current_oov_buckets=vocab_info.num_oov_buckets,
                prev_tensor_name=prev_var_name, initializer=vocab_info.backup_initializer, axis=vocab_info.axis)
        elif vars_to_warm_start:  # None warm-starts only the variables with a vocabulary
            warmstarted_count += 1
            _logger.debug("Warm-starting variable: {}; prev_var_name: {}".format(var_name,
                                                                                  prev_var_name or "Unchanged"))
            if len(variable) == 1:  # a single unpartitioned variable, as init_from_checkpoint takes it
                variable = variable[0]
            prev_tensor_name, var = _get_var_info(variable, prev_var_name)
            if prev_tensor_name in vocabless_vars:
                # one checkpoint tensor for two variables: an assignment map holds it once, so flush it first
                _logger.debug("Requested prev_var_name {} initialize both {} and {}; calling init_from_checkpoint."
                              .format(prev_tensor_name, vocabless_vars[prev_tensor_name], var))
                init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
                vocabless_vars.clear()
            vocabless_vars[prev_tensor_name] = var
    if vocabless_vars:
        init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
    prev_var_name_not_used = set(var_name_to_prev_var_name.keys()) - prev_var_name_used
    vocab_info_not_used = set(var_name_to_vocab_info.keys()) - vocab_info_used
    _logger.info("Warm-started %d variables.", warmstarted_count)
    if prev_var_name_not_used:
        raise ValueError("You provided the following variables in var_name_to_prev_var_name that were not used: "
                         "{0}.  Perhaps you misspelled them?  Here is the list of viable variable names: {1}"
                         .format(prev_var_name_not_used, grouped_variables.keys()))
    if vocab_info_not_used:
        raise ValueError("You provided the following variables in var_name_to_vocab_info that were not used: {0}. "
                         " Perhaps you misspelled them?  Here is the list of viable variable names: {1}"
                         .format(vocab_info_not_used, grouped_variables.keys()))
