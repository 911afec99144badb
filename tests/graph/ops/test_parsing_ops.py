"""Example parsing against TensorFlow: ParseExampleV2 graphs, parsed values, SparseTensors and TF's errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.proto.example import Example, Feature, Int64List, SequenceExample
from tests.graph.data.data_oracle import assert_same_elements


def _example(**features):
    example = Example()
    for key, values in features.items():
        feature = example.features.feature[key]
        if values and isinstance(values[0], bytes):
            feature.bytes_list.value.extend(values)
        elif values and isinstance(values[0], float):
            feature.float_list.value.extend(values)
        else:
            feature.int64_list.value.extend(values)
    return example.SerializeToString()


RECORDS = [_example(a=[1, 2], b=[0.5, 1.5, 2.5], s=[b"x"], q=[4, 5, 6, 7]),
           _example(a=[3, 4], s=[b"yy", b""], q=[8, 9], c=[b"given"]),
           _example(a=[5, 6], b=[9.0], q=[])]


def _features(tf):
    return {"a": tf.FixedLenFeature([2], tf.int64), "b": tf.VarLenFeature(tf.float32),
            "s": tf.VarLenFeature(tf.string), "c": tf.FixedLenFeature([], tf.string, default_value="zz"),
            "q": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True, default_value=-1),
            "r": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}


def _graph(tf, build):
    with tf.Graph().as_default() as g:
        build(tf)
        return [(op.type, op.name, [t.name for t in op.inputs]) for op in g.get_operations()]


def _run(tf, build, feed_value):
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, np.shape(feed_value))
        out = build(tf, serialized)
        structure = {key: (str(v.shape) if hasattr(v, "shape") and not hasattr(v, "indices") else
                           str(v.indices.shape)) for key, v in out.items()}
        with tf.Session() as session:
            return session.run(out, {serialized: feed_value}), structure


@pytest.mark.tf
def test_parse_example_batch(tf1):
    build = lambda tf, s: tf.parse_example(s, _features(tf))  # noqa: E731
    (mine, mine_shapes), (theirs, their_shapes) = _run(ours, build, RECORDS), _run(tf1, build, RECORDS)
    assert list(mine) == list(theirs) and mine_shapes == their_shapes
    assert_same_elements([mine], [theirs])


@pytest.mark.tf
@pytest.mark.parametrize("index", range(3))
def test_parse_single_example(tf1, index):
    build = lambda tf, s: tf.parse_single_example(s, _features(tf))  # noqa: E731
    (mine, mine_shapes), (theirs, their_shapes) = _run(ours, build, RECORDS[index]), _run(tf1, build, RECORDS[index])
    assert mine_shapes == their_shapes
    assert_same_elements([mine], [theirs])


@pytest.mark.tf
def test_graphs_match_tensorflow(tf1):
    def build(tf):
        tf.parse_single_example(tf.placeholder(tf.string, []), _features(tf))
        tf.parse_example(tf.placeholder(tf.string, [None]), {"k": tf.VarLenFeature(tf.int64)}, name="batch")
        tf.parse_single_example(tf.placeholder(tf.string, []), {"k": tf.FixedLenFeature([], tf.int64)}, name="one")
    assert _graph(ours, build) == _graph(tf1, build)


@pytest.mark.tf
@pytest.mark.parametrize("record,features", [
    (_example(a=[1, 2, 3]), {"a": ("FixedLenFeature", [2], "int64")}),
    (_example(z=[1]), {"a": ("FixedLenFeature", [2], "int64")}),
    (_example(a=[1.0, 2.0]), {"a": ("FixedLenFeature", [2], "int64")}),
    (_example(q=[1, 2, 3]), {"q": ("FixedLenSequenceFeature", [2], "int64")}),
])
@pytest.mark.parametrize("batch", [False, True])
def test_errors_are_tensorflows(tf1, record, features, batch):
    def run(tf):
        specs = {k: getattr(tf, kind)(shape, getattr(tf, dtype), **({"allow_missing": True}
                                                                   if kind.endswith("Sequence" + "Feature") else {}))
                 for k, (kind, shape, dtype) in features.items()}
        with tf.Graph().as_default():
            out = tf.parse_example(tf.constant([record, record]), specs) if batch else \
                tf.parse_single_example(tf.constant(record), specs)
            with tf.Session() as session:
                with pytest.raises(tf.errors.InvalidArgumentError) as caught:
                    session.run(out)
                message = caught.value.message
                return message.split("Node: ")[1].split("\n", 1)[1] if "Node: " in message else message
    assert run(tf1).startswith(run(ours).split("\n")[0])


def test_malformed_record_is_invalid_argument():
    # (TensorFlow's message quotes the bytes, which its Python wrapper then fails to decode)
    with ours.Graph().as_default():
        out = ours.parse_single_example(ours.constant(b"\xff\xff not a proto"), {"a": ours.VarLenFeature(ours.int64)})
        with ours.Session() as session:
            with pytest.raises(ours.errors.InvalidArgumentError, match="Could not parse example input"):
                session.run(out)


@pytest.mark.tf
@pytest.mark.parametrize("little_endian", [True, False])
def test_decode_raw(tf1, little_endian):
    def run(tf):
        with tf.Graph().as_default():
            out = tf.decode_raw(tf.constant([b"abcdefgh", b"\x00\x01\x02\x03\xff\xfe\xfd\xfc"]), tf.int32,
                                little_endian=little_endian)
            with tf.Session() as session:
                return session.run(out), str(out.shape)
    (mine, mine_shape), (theirs, their_shape) = run(ours), run(tf1)
    assert mine_shape == their_shape
    assert_same_elements([mine], [theirs])


@pytest.mark.tf
def test_parse_inside_dataset_map(tf1, tmp_path):
    path = str(tmp_path / "data.tfrecord")
    with ours.python_io.TFRecordWriter(path) as writer:
        for record in RECORDS:
            writer.write(record)

    def run(tf):
        with tf.Graph().as_default():
            dataset = tf.data.TFRecordDataset(path).map(lambda s: tf.parse_single_example(
                s, {"a": tf.FixedLenFeature([2], tf.int64), "c": tf.FixedLenFeature([], tf.string, "none")}))
            element = tf.data.make_one_shot_iterator(dataset.batch(2)).get_next()
            with tf.Session() as session:
                return [session.run(element) for _ in range(2)]
    assert_same_elements(run(ours), run(tf1))


@pytest.mark.tf
def test_var_len_features_through_a_dataset(tf1):
    features = {"b": ("VarLenFeature", "float32"), "s": ("VarLenFeature", "string"), "a": ("FixedLenFeature", "int64")}

    def run(tf):
        specs = {k: tf.VarLenFeature(getattr(tf, d)) if kind == "VarLenFeature" else tf.FixedLenFeature([2], tf.int64)
                 for k, (kind, d) in features.items()}
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.from_tensor_slices(RECORDS).map(lambda s: tf.parse_single_example(s, specs))
            dataset = dataset.map(lambda d: (d["b"], d["a"], d["s"])).batch(2)
            iterator = tf.data.make_one_shot_iterator(dataset)
            element = iterator.get_next()
            classes = [c.__name__ for c in tf.data.get_output_classes(dataset)]
            shapes = str(tf.data.get_output_shapes(dataset))
            with tf.Session() as session:
                return [session.run(element) for _ in range(2)], classes, shapes
    (mine, mine_classes, mine_shapes), (theirs, their_classes, their_shapes) = run(ours), run(tf1)
    assert mine_classes == their_classes and mine_shapes == their_shapes
    assert_same_elements(mine, theirs)


def _sequence_example():
    example = SequenceExample()
    example.context.feature["l"].int64_list.value.append(7)
    example.context.feature["cv"].bytes_list.value.extend([b"a", b"b\x00"])
    for step in range(3):
        example.feature_lists.feature_list["t"].feature.append(Feature(int64_list=Int64List(value=[step * 10])))
    for step in range(2):
        feature = Feature()
        feature.float_list.value.extend([0.5 + step] * (step + 1))
        example.feature_lists.feature_list["v"].feature.append(feature)
    return example


def _sequence_specs(tf):
    context = {"l": tf.FixedLenFeature([], tf.int64), "cv": tf.VarLenFeature(tf.string),
               "d": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])}
    sequence = {"t": tf.FixedLenSequenceFeature([], tf.int64), "v": tf.VarLenFeature(tf.float32),
                "m": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)}
    return context, sequence


@pytest.mark.tf
def test_parse_single_sequence_example(tf1):
    record = _sequence_example().SerializeToString()

    def run(tf):
        with tf.Graph().as_default() as g:
            context, sequence = tf.parse_single_sequence_example(tf.constant(record), *_sequence_specs(tf))
            ops = [(op.type, op.name, [t.name for t in op.inputs]) for op in g.get_operations()]
            with tf.Session() as session:
                return session.run((context, sequence)), ops
    (mine, mine_ops), (theirs, their_ops) = run(ours), run(tf1)
    assert mine_ops == their_ops
    assert_same_elements([mine], [theirs])


@pytest.mark.tf
@pytest.mark.parametrize("case", ["missing_list", "context_type", "list_count", "list_type", "context_missing"])
def test_sequence_errors_are_tensorflows(tf1, case):
    example = SequenceExample()
    context, sequence = {}, {}
    if case == "missing_list":
        example.context.feature["l"].int64_list.value.append(7)
        context, sequence = {"l": ("FixedLenFeature", [])}, {"t": ("FixedLenSequenceFeature", [])}
    elif case == "context_type":
        example.context.feature["l"].float_list.value.append(7.0)
        context = {"l": ("FixedLenFeature", [])}
    elif case in ("list_count", "list_type"):
        feature = Feature(int64_list=Int64List(value=[1, 2])) if case == "list_count" else Feature()
        if case == "list_type":
            feature.float_list.value.append(1.0)
        example.feature_lists.feature_list["t"].feature.append(feature)
        sequence = {"t": ("FixedLenSequenceFeature", [])}
    else:
        context = {"l": ("FixedLenFeature", [])}

    def run(tf):
        with tf.Graph().as_default():
            out = tf.parse_single_sequence_example(
                tf.constant(example.SerializeToString()),
                context_features={k: getattr(tf, kind)(shape, tf.int64) for k, (kind, shape) in context.items()},
                sequence_features={k: getattr(tf, kind)(shape, tf.int64) for k, (kind, shape) in sequence.items()})
            with tf.Session() as session:
                with pytest.raises(tf.errors.InvalidArgumentError) as caught:
                    session.run(out)
                message = caught.value.message
                return message.split("Node: ")[1].split("\n", 1)[1] if "Node: " in message else message
    assert run(tf1).startswith(run(ours).split("\n")[0])


CSV_CASES = [
    (["1,2.5,abc", '3,,"q,""x"""'], [[0], [1.0], ["d"]], {}),
    (["1,2"], [[0], [1.0], ["d"]], {}),
    (["a,2,x"], [[0], [1.0], ["d"]], {}),
    ([",2,x"], [None, [1.0], ["d"]], {}),
    (["1;2;3"], [[0], [0], [0]], {"field_delim": ";"}),
    (['1,"a"b,3'], [[0], [""], [0]], {}),
    (["1,NA,3"], [[0], [5], [0]], {"na_value": "NA"}),
    (["1,2.5,abc,9"], [[0], ["d"]], {"select_cols": [0, 2]}),
    (["99999999999,2"], [[0], [0]], {}),
    ([" 1, 2"], [[0], [0]], {}),
    (["1.5e3,0x10"], [[0.0], [0]], {}),
    (["7,-8", "9,"], [[np.int64(0)], [np.float64(1.5)]], {}),
    ([["1,a", "2,b"], ["3,c", "4,d"]], [[0], [""]], {}),
]


@pytest.mark.tf
@pytest.mark.parametrize("index", range(len(CSV_CASES)))
def test_decode_csv(tf1, index):
    records, defaults, options = CSV_CASES[index]

    def run(tf):
        with tf.Graph().as_default() as g:
            values = [tf.constant([], tf.int32) if d is None else d for d in defaults]
            out = tf.decode_csv(tf.constant(records), values, **options)
            ops = [(op.type, op.name, [t.name for t in op.inputs]) for op in g.get_operations()]
            with tf.Session() as session:
                try:
                    return session.run(out), ops
                except tf.errors.InvalidArgumentError as error:
                    message = error.message
                    return message.split("Node: ")[1].split("\n", 1)[1].split("\n")[0] if "Node: " in message \
                        else message.split("\n")[0], ops
    (mine, mine_ops), (theirs, their_ops) = run(ours), run(tf1)
    assert mine_ops == their_ops
    if isinstance(theirs, str):
        assert mine == theirs
    else:
        assert_same_elements([tuple(mine)], [tuple(theirs)])
