"""saver/restore/warm_starting.py: tf.train.warm_start and tf.train.VocabInfo against TensorFlow 2.21.

TF's Saver writes one checkpoint of an "old" model; each case builds a "new" model (larger, renamed, partitioned,
with changed vocabularies) in both frameworks under one graph seed, warm-starts it, runs
``global_variables_initializer`` and compares every variable's value (random initializers are bit-exact), every
initializer's name and the whole graph op by op, or the error's class and message.
"""

import ast
import logging
import os
import re

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from saver.format.bundle import Slice, write_checkpoint
from saver.restore import VocabInfo, warm_start
from tests.graph.graph_oracle import describe_ours, describe_tf

OLD = {  # the old model's values
    "emb": np.arange(12, dtype=np.float32).reshape(4, 3),  # rows: OLD_WORDS
    "pemb": np.arange(14, dtype=np.float32).reshape(7, 2) + 100,  # stored in 3 parts
    "dense/kernel": np.arange(12, dtype=np.float32).reshape(3, 4) - 50,  # columns: OLD_CLASSES
    "layer/w": np.array([[1, 2], [3, 4]], np.float32),
    "layer/b": np.array([5, 6], np.float32),
    "counter": np.int64(42),  # not trainable
}
VOCABS = {"old_words": "apple\nbanana\ncherry\ndate\n", "new_words": "fig\ncherry\napple\ngrape\nbanana\n",
          "old_classes": "a\nb\nc\nd\n", "new_classes": "d\nb\ne\na\n"}


def _write_tf(tf, prefix: str) -> str:
    with tf.Graph().as_default():
        variables = {}
        for name, value in OLD.items():
            if name == "pemb":
                variables[name] = tf.get_variable(name, [7, 2], partitioner=tf.fixed_size_partitioner(3))
            else:
                variables[name] = tf.get_variable(name, initializer=value, trainable=name != "counter")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            offset = 0
            for part in variables["pemb"]:
                rows = part.shape[0]
                sess.run(part.assign(OLD["pemb"][offset:offset + rows]))
                offset += rows
            return tf.train.Saver().save(sess, prefix)


@pytest.fixture(scope="module")
def files(tmp_path_factory, tf_module):
    directory = tmp_path_factory.mktemp("warm")
    for name, text in VOCABS.items():
        (directory / name).write_text(text)
    return str(directory), _write_tf(tf_module, str(directory / "old" / "model.ckpt-3"))


def _vocab(tf, directory, **kwargs):
    return tf.train.VocabInfo(**{key: os.path.join(directory, value) if key in ("new_vocab", "old_vocab") else value
                                 for key, value in kwargs.items()})


def _words(tf, directory, size=5, oov=2, **kwargs):
    return _vocab(tf, directory, new_vocab="new_words", new_vocab_size=size, num_oov_buckets=oov,
                  old_vocab="old_words", **kwargs)


def _classes(tf, directory, oov=1, **kwargs):
    return _vocab(tf, directory, new_vocab="new_classes", new_vocab_size=4, num_oov_buckets=oov,
                  old_vocab="old_classes", axis=1, **kwargs)


def _model(tf, emb_rows=7, emb_parts=None, pemb_parts=None, layer_parts=None, kernel_cols=5, kernel_parts=None,
           resource=False, scope=""):
    """The new model; returns {name: variable or PartitionedVariable}."""
    def get(name, shape, parts=None, **kwargs):
        partitioner = tf.fixed_size_partitioner(parts) if parts else None
        return tf.get_variable(name, shape, partitioner=partitioner, use_resource=resource, **kwargs)
    model = {"emb": get("emb", [emb_rows, 3], emb_parts), "pemb": get("pemb", [7, 2], pemb_parts),
             "dense/kernel": get("dense/kernel", [3, kernel_cols], kernel_parts)}
    with tf.variable_scope(scope or "layer"):
        model["layer/w"] = get("w", [2, 2], layer_parts)
        model["layer/b"] = get("b", [2])
    model["counter"] = get("counter", [], dtype=tf.int64, trainable=False, initializer=tf.zeros_initializer())
    model["extra"] = get("extra", [4])  # new: not in the checkpoint
    return model


def _with_words(tf):
    """The model and a partitioned 'words' [7, 2] whose rows follow new_words (old name 'pemb', stored in 3 parts)."""
    return dict(_model(tf), words=tf.get_variable("words", [7, 2], partitioner=tf.fixed_size_partitioner(2)))


def _uniform(tf):
    return tf.random_uniform_initializer(-1.0, 1.0, seed=5)


# name -> (model builder, warm_start kwargs builder(tf, model, vocabulary directory))
CASES = {
    "scope regex": (_model, lambda tf, m, d: {"vars_to_warm_start": "layer/.*"}),
    "names list with globals": (_model, lambda tf, m, d: {"vars_to_warm_start": ["layer/w", "counter", "pemb"]}),
    "variable objects": (_model, lambda tf, m, d: {"vars_to_warm_start": [m["layer/b"], m["dense/kernel"]]}),
    "renamed": (lambda tf: _model(tf, scope="new_layer"), lambda tf, m, d: {
        "vars_to_warm_start": ["new_layer/"],
        "var_name_to_prev_var_name": {"new_layer/w": "layer/w", "new_layer/b": "layer/b"}}),
    "one tensor twice": (lambda tf: dict(_model(tf), **{"new_layer/b": tf.get_variable("new_layer/b", [2])}),
                         lambda tf, m, d: {
        "vars_to_warm_start": ["layer/b", "new_layer/b"],
        "var_name_to_prev_var_name": {"new_layer/b": "layer/b"}}),
    "partitioned both ways": (lambda tf: _model(tf, pemb_parts=2, layer_parts=2),
                              lambda tf, m, d: {"vars_to_warm_start": ["pemb", "layer/"]}),
    "vocab rows": (_model, lambda tf, m, d: {
        "vars_to_warm_start": ["emb", "layer/w"], "var_name_to_vocab_info": {"emb": _words(tf, d)}}),
    "vocab rows backup initializer": (_model, lambda tf, m, d: {
        "vars_to_warm_start": ["emb"],
        "var_name_to_vocab_info": {"emb": _words(tf, d, backup_initializer=_uniform(tf))}}),
    "vocab old size": (_model, lambda tf, m, d: {
        "vars_to_warm_start": ["emb"], "var_name_to_vocab_info": {"emb": _words(tf, d, old_vocab_size=2)}}),
    "vocab fewer words": (lambda tf: _model(tf, emb_rows=4), lambda tf, m, d: {
        "vars_to_warm_start": ["emb"], "var_name_to_vocab_info": {"emb": _words(tf, d, size=3, oov=1)}}),
    "vocab none selects": (_model, lambda tf, m, d: {
        "vars_to_warm_start": None, "var_name_to_vocab_info": {"emb": _words(tf, d, backup_initializer=_uniform(tf))}}),
    "vocab partitioned": (lambda tf: _model(tf, emb_parts=3), lambda tf, m, d: {
        "var_name_to_vocab_info": {"emb": _words(tf, d, backup_initializer=_uniform(tf))}}),
    "vocab oov-only part": (lambda tf: _model(tf, emb_rows=9, emb_parts=4), lambda tf, m, d: {
        "vars_to_warm_start": ["emb"], "var_name_to_vocab_info": {"emb": _words(tf, d, size=3, oov=6)}}),
    "vocab renamed partitioned source": (_with_words, lambda tf, m, d: {
        "vars_to_warm_start": ["words"], "var_name_to_prev_var_name": {"words": "pemb"},
        "var_name_to_vocab_info": {"words": _vocab(tf, d, new_vocab="new_words", new_vocab_size=5, num_oov_buckets=2,
                                                   old_vocab="new_words")}}),
    "vocab columns": (_model, lambda tf, m, d: {
        "var_name_to_vocab_info": {"dense/kernel": _classes(
            tf, d, backup_initializer=tf.truncated_normal_initializer(seed=2))}}),
    "vocab columns no oov": (lambda tf: _model(tf, kernel_cols=4), lambda tf, m, d: {
        "vars_to_warm_start": ["dense/"], "var_name_to_vocab_info": {"dense/kernel": _classes(tf, d, oov=0)}}),
    "vocab columns partitioned rows": (lambda tf: _model(tf, kernel_parts=2), lambda tf, m, d: {
        "vars_to_warm_start": ["dense/"], "var_name_to_vocab_info": {"dense/kernel": _classes(
            tf, d, backup_initializer=_uniform(tf))}}),
    "resource variables": (lambda tf: _model(tf, resource=True), lambda tf, m, d: {
        "var_name_to_vocab_info": {"emb": _words(tf, d), "dense/kernel": _classes(tf, d)}}),
    # errors
    "missing in checkpoint": (_model, lambda tf, m, d: {"vars_to_warm_start": ["extra"]}),
    "shape differs": (lambda tf: _model(tf, kernel_cols=5), lambda tf, m, d: {"vars_to_warm_start": ["dense/"]}),
    "unused prev name": (_model, lambda tf, m, d: {"vars_to_warm_start": "layer/",
                                                    "var_name_to_prev_var_name": {"layer/zz": "layer/w"}}),
    "unused vocab info": (_model, lambda tf, m, d: {"vars_to_warm_start": "layer/",
                                                     "var_name_to_vocab_info": {"embz": _words(tf, d)}}),
    "mixed list": (_model, lambda tf, m, d: {"vars_to_warm_start": ["layer/w", m["layer/b"]]}),
    "partitioned object in list": (lambda tf: _model(tf, pemb_parts=2), lambda tf, m, d: {
        "vars_to_warm_start": [m["pemb"]]}),
    "not a list": (_model, lambda tf, m, d: {"vars_to_warm_start": 3}),
    "vocab size zero": (_model, lambda tf, m, d: {"var_name_to_vocab_info": {"emb": _words(tf, d, size=0)}}),
    "vocab rows overflow": (_model, lambda tf, m, d: {"var_name_to_vocab_info": {"emb": _words(tf, d, oov=1)}}),
    "vocab columns differ": (_model, lambda tf, m, d: {
        "var_name_to_vocab_info": {"dense/kernel": _classes(tf, d, oov=2)}}),
    # fan-scaled initializers cannot size the missing values: TF passes them a shape holding a tensor
    "vocab glorot backup": (_model, lambda tf, m, d: {"var_name_to_vocab_info": {"dense/kernel": _classes(
        tf, d, backup_initializer=tf.glorot_uniform_initializer(seed=2))}}),
    # the remapped matrix is float32: TF's Assign refuses it for a variable of another dtype
    "vocab int variable": (lambda tf: dict(_model(tf), ids=tf.get_variable("ids", [7, 3], dtype=tf.int32)),
                           lambda tf, m, d: {"vars_to_warm_start": ["ids"], "var_name_to_prev_var_name": {"ids": "emb"},
                                             "var_name_to_vocab_info": {"ids": _words(tf, d)}}),
    "vocab missing file": (_model, lambda tf, m, d: {"vars_to_warm_start": ["emb"], "var_name_to_vocab_info": {
        "emb": _vocab(tf, d, new_vocab="nope", new_vocab_size=5, num_oov_buckets=2, old_vocab="old_words")}}),
}


_CLASS = re.compile(r"<class '[^']*'>")


def _run(tf, ckpt, directory, case):
    """Builds the case's model, warm-starts it and initializes it: (values, initializer names, graph) or an error."""
    build, kwargs = CASES[case]
    with tf.Graph().as_default() as graph:
        tf.set_random_seed(7)
        model = build(tf)
        try:
            tf.train.warm_start(ckpt, **kwargs(tf, model, directory))
        except (ValueError, TypeError) as error:
            return "build", type(error).__name__, str(error)
        # TF keeps an Assign's output tensor as a warm-started initializer, this package the op
        initializers = {v.op.name: v.initializer.name.split(":")[0] for v in tf.global_variables()}
        with tf.Session() as sess:
            try:
                sess.run(tf.global_variables_initializer())
            except tf.errors.OpError as error:
                return "run", type(error).__name__, error.message
            return {v.op.name: sess.run(v) for v in tf.global_variables()}, initializers, graph


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(CASES))
def test_same_as_tensorflow(tf_module, files, case):
    directory, ckpt = files
    theirs = _run(tf_module, ckpt, directory, case)
    ours = _run(ours_tf, ckpt, directory, case)
    if theirs[0] in ("build", "run"):
        assert ours[:2] == theirs[:2], (ours, theirs)
        their_text, my_text = theirs[2], ours[2]
        if " checkpoint {" in their_text:  # the map's order is C++ hash order in TF
            their_text, their_map = their_text.split(" checkpoint ", 1)
            my_text, my_map = my_text.split(" checkpoint ", 1)
            assert ast.literal_eval(my_map) == ast.literal_eval(their_map)
        if theirs[0] == "build":  # class reprs name each framework's own classes
            their_text = their_text.replace("'SymbolicTensor'", "'Tensor'")  # TF's graph tensor class
            assert _CLASS.sub("<class>", my_text) == _CLASS.sub("<class>", their_text)
        else:  # TF's message continues with graph context
            assert my_text.split("\n")[0] in their_text.split("\n")
        return
    (their_values, their_inits, their_graph), (my_values, my_inits, my_graph) = theirs, ours
    assert sorted(my_values) == sorted(their_values)
    for name, value in their_values.items():
        np.testing.assert_array_equal(my_values[name], value, err_msg=name)
        assert my_values[name].dtype == value.dtype, name
    assert my_inits == their_inits
    # TF reads control inputs back from a hash set: their order is not the graph's
    mine, real = ([row[:3] + (sorted(row[3]),) + row[4:] for row in rows]
                  for rows in (describe_ours(my_graph), describe_tf(their_graph)))
    for index, (a, b) in enumerate(zip(mine, real)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(mine) == len(real)


@pytest.mark.tf
def test_vocab_rows_land_by_word(files, tf_module):
    directory, ckpt = files
    values = _run(ours_tf, ckpt, directory, "vocab rows")[0]
    old = OLD["emb"]  # apple banana cherry date -> fig cherry apple grape banana + 2 OOV
    np.testing.assert_array_equal(values["emb"], [np.zeros(3), old[2], old[0], np.zeros(3), old[1], np.zeros(3),
                                                  np.zeros(3)])
    kernel = _run(ours_tf, ckpt, directory, "vocab columns no oov")[0]["dense/kernel"]
    np.testing.assert_array_equal(kernel[:, [0, 1, 3]], OLD["dense/kernel"][:, [3, 1, 0]])  # d b . a
    np.testing.assert_array_equal(kernel[:, 2], np.zeros(3))


@pytest.mark.tf
def test_object_based_checkpoint(tf_module, tmp_path):
    """A TF2 checkpoint: each variable's key comes from the object graph; a variable it lacks is a ValueError."""
    tf = tf_module
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", initializer=OLD["emb"])
        w = tf.get_variable("layer/w", initializer=OLD["layer/w"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = tf.train.Checkpoint(net=emb, other=w).save(str(tmp_path / "ck"), session=sess)
    results = []
    for framework in (tf_module, ours_tf):
        with framework.Graph().as_default():
            emb = framework.get_variable("emb", [4, 3])
            w = framework.get_variable("layer/w", [2, 2])
            framework.train.warm_start(str(tmp_path))  # the directory: its latest checkpoint
            with framework.Session() as sess:
                sess.run(framework.global_variables_initializer())
                results.append(sess.run([emb, w]))
            framework.get_variable("extra", [2])
            with pytest.raises(ValueError) as raised:
                framework.train.warm_start(prefix)
            results.append(str(raised.value))
    np.testing.assert_array_equal(results[2][0], OLD["emb"])
    np.testing.assert_array_equal(results[2][1], OLD["layer/w"])
    assert results[3] == results[1]


def _capture(logger_name: str):
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    logger = logging.getLogger(logger_name)
    return logger, handler, records


@pytest.mark.tf
def test_log_messages_are_tensorflows(tf_module, files):
    directory, ckpt = files
    messages = []
    for framework, name in ((tf_module, "tensorflow"), (ours_tf, "graph")):
        logger, handler, records = _capture(name)
        level = logger.level
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        try:
            _run(framework, ckpt, directory, "vocab rows")
            _run(framework, ckpt, directory, "one tensor twice")
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        # the vocabulary line ends with the initializer's repr, which is each framework's own
        messages.append([r.getMessage().split(" initializer: ")[0] for r in records
                         if r.getMessage().startswith(("Warm-start", "Requested prev_var_name"))])
    assert messages[0] == messages[1]
    assert "Warm-started 2 variables." in messages[1]


def test_without_tensorflow_on_our_checkpoint(tmp_path):
    """Our own checkpoint (partitioned 'emb'), our warm start of a larger partitioned embedding."""
    words = np.arange(8, dtype=np.float32).reshape(4, 2)
    parts = [Slice((4, 2), "0,2:-", words[:2]), Slice((4, 2), "2,2:-", words[2:])]
    prefix = write_checkpoint(str(tmp_path / "model"), {"emb": parts, "bias": np.ones(2, np.float32)})
    (tmp_path / "old").write_text("a\nb\nc\nd\n")
    (tmp_path / "new").write_text("d\nx\nb\n")
    tf = ours_tf
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        bias = tf.get_variable("bias", [2])
        vocab = VocabInfo(str(tmp_path / "new"), 3, 1, str(tmp_path / "old"))
        warm_start(prefix, var_name_to_vocab_info={"emb": vocab})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value, bias_value = sess.run([tf.concat(list(emb), 0), bias])
    np.testing.assert_array_equal(value, [words[3], [0, 0], words[1], [0, 0]])
    np.testing.assert_array_equal(bias_value, [1, 1])


def test_vocab_info_checks_axis():
    with pytest.raises(ValueError, match=r"^The only supported values for the axis argument are 0 and 1.  Provided "
                                         r"axis: 2$"):
        VocabInfo("new", 3, 0, "old", axis=2)
    info = VocabInfo("new", 3, 0, "old")
    assert (info.old_vocab_size, info.backup_initializer, info.axis) == (-1, None, 0)
    assert ours_tf.train.VocabInfo is VocabInfo and ours_tf.train.warm_start is warm_start


def test_empty_directory(tmp_path):
    with ours_tf.Graph().as_default():
        ours_tf.get_variable("w", [2])
        with pytest.raises(TypeError, match="^Expected binary or unicode string, got None$"):
            warm_start(str(tmp_path))


@pytest.mark.tf
def test_missing_checkpoint_is_tensorflows_error(tf_module, tmp_path):
    messages = []
    for framework in (tf_module, ours_tf):
        with framework.Graph().as_default():
            framework.get_variable("w", [2])
            with pytest.raises(framework.errors.NotFoundError) as raised:
                framework.train.warm_start(str(tmp_path / "nothing" / "model"))
        messages.append(raised.value.message)
    assert messages[1] == messages[0]


@pytest.mark.tf
def test_checkpoint_directory_at_a_url(tf_module, files):
    """TF's checkpoint directory copied to memory://: warm-starting from that directory (its state file names the
    newest checkpoint, for LoadAndRemapMatrix and RestoreV2 alike) gives TF's values from the local directory."""
    fsspec = pytest.importorskip("fsspec")
    directory, ckpt = files
    local_dir = os.path.dirname(ckpt)
    url = f"memory://warm-{os.getpid()}-{id(files)}"
    fs = fsspec.filesystem("memory")
    for name in os.listdir(local_dir):
        with open(os.path.join(local_dir, name), "rb") as file:
            data = file.read()
        if name == "checkpoint":  # the state file names the checkpoint by its local path
            data = data.replace(local_dir.encode(), url.encode())
        fs.pipe_file(url[len("memory://"):] + "/" + name, data)
    values = []
    for framework, source in ((tf_module, local_dir), (ours_tf, url)):
        with framework.Graph().as_default():
            model = _model(framework)
            framework.train.warm_start(source, vars_to_warm_start=["emb", "layer/"],
                                       var_name_to_vocab_info={"emb": _words(framework, directory)})
            with framework.Session() as sess:
                sess.run(framework.global_variables_initializer())
                values.append(sess.run([model["emb"], model["layer/w"], model["layer/b"]]))
    for mine, theirs in zip(values[1], values[0]):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(values[1][1], OLD["layer/w"])


@pytest.mark.tf
@pytest.mark.parametrize("kind", ["bytes", "None", "number"])
def test_checkpoint_path_types_are_tensorflows(tf_module, files, kind):
    """A bytes path warm-starts as its text; None or a number is gfile's TypeError."""
    _, ckpt = files
    argument = {"bytes": ckpt.encode(), "None": None, "number": 3}[kind]
    results = []
    for framework in (tf_module, ours_tf):
        with framework.Graph().as_default():
            w = framework.get_variable("layer/w", [2, 2])
            try:
                framework.train.warm_start(argument, vars_to_warm_start=["layer/w"])
            except TypeError as error:
                results.append(str(error))
                continue
            with framework.Session() as sess:
                sess.run(framework.global_variables_initializer())
                results.append(sess.run(w).tolist())
    assert results[1] == results[0]
    assert (results[0] == OLD["layer/w"].tolist()) == (kind == "bytes")


@pytest.mark.tf
@pytest.mark.parametrize("full_shape, var_offset, shape", [([4, 4], [2, 2], [2, 2]), ([4, 6, 8], [0, 3, 4], [4, 3, 4]),
                                                           ([6, 4], [3, 0], [3, 4]), ([6, 4], [0, 0], [6, 4])])
def test_part_offset_is_tensorflows(tf_module, full_shape, var_offset, shape):
    """The row offset of a part (TF's _PartitionInfo.single_offset), and its error for a part sliced on two axes."""
    from tensorflow.python.ops.variable_scope import _PartitionInfo

    from saver.restore.warm_starting import _SliceOffset
    results = []
    for make in (_PartitionInfo, _SliceOffset):
        try:
            results.append(make(full_shape=full_shape, var_offset=var_offset).single_offset(shape))
        except ValueError as error:
            results.append(str(error))
    assert results[1] == results[0]
