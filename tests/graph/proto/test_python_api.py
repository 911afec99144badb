"""protobuf's Python API on the codec's user-facing messages, compared with TensorFlow's own protobuf classes."""

from collections.abc import Iterable

import pytest

from graph.proto import example as ex
from graph.proto.summary import Event, HistogramProto, Summary


def _pair(tf_module, name):
    """(our class, TF's class) for a message name."""
    from tensorflow.core.example import example_pb2
    from tensorflow.core.framework import summary_pb2
    from tensorflow.core.util import event_pb2
    ours = {"Event": Event, "Summary": Summary, "Example": ex.Example, "SequenceExample": ex.SequenceExample}
    real = {"Event": event_pb2.Event, "Summary": summary_pb2.Summary, "Example": example_pb2.Example,
            "SequenceExample": example_pb2.SequenceExample}
    return ours[name], real[name]


def _both(tf_module, name, edit):
    """Applies ``edit`` to a fresh message of each kind; returns both (ours, TF's) with what edit returned."""
    ours_cls, real_cls = _pair(tf_module, name)
    ours, real = ours_cls(), real_cls()
    return (ours, edit(ours)), (real, edit(real))


def _fields(message):
    return [(field.name, field.number) for field, _ in message.ListFields()]


READ_ONLY = [
    ("Event", lambda e: [v.tag for v in e.summary.value]),
    ("Event", lambda e: (e.summary.value.__len__(), e.session_log.status, e.log_message.message)),
    ("Event", lambda e: (e.source_metadata.writer, e.file_version, e.step)),
    ("Summary", lambda s: len(s.value)),
    ("Example", lambda x: (len(x.features.feature), list(x.features.feature))),
    ("SequenceExample", lambda x: (len(x.context.feature), len(x.feature_lists.feature_list))),
]


@pytest.mark.tf
@pytest.mark.parametrize("name,read", READ_ONLY)
def test_reading_an_unset_sub_message_sets_nothing(tf_module, name, read):
    (ours, our_result), (real, real_result) = _both(tf_module, name, read)
    assert our_result == real_result
    assert ours.SerializeToString() == real.SerializeToString() == b""
    assert _fields(ours) == _fields(real) == []


EDITS = [
    ("Event", lambda e: e.summary.value.add(tag="loss", simple_value=0.5)),
    ("Event", lambda e: e.summary.value.add().histo.bucket.append(2.0)),
    ("Event", lambda e: setattr(e.session_log, "status", 1)),
    ("Event", lambda e: setattr(e.session_log, "status", 0)),  # a zero still sets the parent
    ("Event", lambda e: setattr(e.source_metadata, "writer", "")),
    ("Event", lambda e: e.summary.SetInParent()),
    ("Event", lambda e: (setattr(e, "file_version", "brain.Event:2"), e.summary.value.add(tag="t"))),
    ("Event", lambda e: (e.summary.value.add(tag="t"), setattr(e.log_message, "message", "m"))),
    ("Event", lambda e: (e.summary.value.add(tag="t"), e.summary.value[0].metadata.plugin_data.plugin_name)),
    ("Event", lambda e: e.summary.value.add(tag="t").metadata.plugin_data.__setattr__("plugin_name", "scalars")),
    ("Event", lambda e: e.summary.value.add(tag="i").image.__setattr__("height", 3)),
    ("Event", lambda e: e.summary.value.add(tag="a").audio.__setattr__("sample_rate", 8000.0)),
    ("Event", lambda e: e.summary.MergeFrom(type(e.summary)())),
    ("Event", lambda e: e.tagged_run_metadata.__setattr__("tag", "step1")),
    ("Summary", lambda s: s.value.add(tag="h").histo.bucket_limit.extend([1.0, 2.0])),
    ("Summary", lambda s: (s.value.add(tag="x", simple_value=1.0), s.value[0].histo.SetInParent())),
    ("Example", lambda x: x.features.feature["a"].int64_list.value.append(3)),
    ("Example", lambda x: x.features.feature["a"]),  # a message map's [] inserts the key
    ("Example", lambda x: x.features.feature["a"].float_list.value),  # reading float_list leaves kind unset
    ("Example", lambda x: (x.features.feature["a"].bytes_list.value.append(b"z"),
                           x.features.feature["a"].int64_list.value.append(1))),  # oneof: the last wins
    ("SequenceExample", lambda x: x.feature_lists.feature_list["t"].feature.add().int64_list.value.append(1)),
    ("SequenceExample", lambda x: x.context.feature.get_or_create("n")),
]


@pytest.mark.tf
@pytest.mark.parametrize("name,edit", EDITS)
def test_edits_set_parents_as_protobuf_does(tf_module, name, edit):
    (ours, _), (real, _) = _both(tf_module, name, edit)
    assert ours.SerializeToString() == real.SerializeToString(deterministic=True)
    assert _fields(ours) == _fields(real)
    for field, _ in real.ListFields():
        if field.message_type is not None and not isinstance(getattr(real, field.name), Iterable):
            assert ours.HasField(field.name)
            assert _fields(getattr(ours, field.name)) == _fields(getattr(real, field.name))
    for group in ours._oneofs:
        assert ours.WhichOneof(group) == real.WhichOneof(group)
    assert type(ours).FromString(real.SerializeToString()) == ours


@pytest.mark.tf
def test_the_tf1_event_loop_over_a_file(tf_module, tmp_path):
    """``for e in summary_iterator(path): for v in e.summary.value`` on TF's own event file."""
    from graph.summary.summary_iterator import summary_iterator
    writer = tf_module.summary.FileWriter(str(tmp_path))
    for step in range(3):
        writer.add_summary(tf_module.Summary(value=[tf_module.Summary.Value(tag="loss", simple_value=step / 2)]),
                           step)
    writer.close()
    path = str(next(tmp_path.iterdir()))
    ours = [(e.step, v.tag, v.simple_value) for e in summary_iterator(path) for v in e.summary.value
            if v.tag == "loss"]
    real = [(e.step, v.tag, v.simple_value) for e in tf_module.train.summary_iterator(path)
            for v in e.summary.value if v.tag == "loss"]
    assert ours == real == [(0, "loss", 0.0), (1, "loss", 0.5), (2, "loss", 1.0)]
    first = next(iter(summary_iterator(path)))
    assert first.WhichOneof("what") == "file_version" and not first.HasField("summary")


def test_a_lazy_message_is_the_same_until_set_and_detached_when_cleared():
    event = Event()
    summary = event.summary
    assert event.summary is summary and not event.HasField("summary")
    summary.value.add(tag="x")
    assert event.HasField("summary") and event.summary is summary
    event.ClearField("summary")
    assert not event.HasField("summary") and event.summary is not summary
    summary.value.add(tag="late")  # a cleared message no longer reaches its old parent
    assert event.SerializeToString() == b""


def test_setting_a_oneof_member_by_mutation_clears_the_others():
    value = Summary.Value(tag="x", simple_value=2.0)
    histo = value.histo
    assert value.WhichOneof("value") == "simple_value" and not value.HasField("histo")
    histo.num = 1.0
    assert value.WhichOneof("value") == "histo" and value.simple_value == 0.0
    assert not value.HasField("simple_value")


def test_protobuf_errors():
    event = Event()
    with pytest.raises(ValueError):
        event.HasField("nope")
    with pytest.raises(ValueError):
        event.WhichOneof("nope")
    with pytest.raises(TypeError):
        event.summary.CopyFrom(HistogramProto())
    with pytest.raises(AttributeError):
        HistogramProto().bucket.add()
    assert event.summary.value.__class__.__name__ == "RepeatedContainer"


@pytest.mark.tf
def test_has_field_of_a_scalar_without_presence_is_refused_as_protobuf(tf_module):
    from tensorflow.core.util import event_pb2
    for name in ("step", "wall_time"):
        with pytest.raises(ValueError) as real:
            event_pb2.Event(step=3).HasField(name)
        with pytest.raises(ValueError) as ours:
            Event(step=3).HasField(name)
        assert str(ours.value) == str(real.value)
    assert Event(file_version="v").HasField("file_version") and not Event().HasField("file_version")


def test_copies_and_pickles_are_whole_messages():
    import copy
    import pickle
    event = Event(step=2)
    event.summary.value.add(tag="x", simple_value=1.5)
    lazy = event.log_message  # a lazily read member must not drag its parent into the copy
    for clone in (copy.deepcopy(event), pickle.loads(pickle.dumps(event)), copy.deepcopy(lazy)):
        assert clone == (lazy if clone.__class__ is type(lazy) else event) and clone._parent is None
    example = ex.Example()
    example.features.feature["a"].int64_list.value.append(1)
    assert pickle.loads(pickle.dumps(example)).SerializeToString() == example.SerializeToString()


@pytest.mark.tf
def test_an_edited_framework_sub_message_is_adopted(tf_module):
    """Summary.Value.tensor is a codec TensorProto: read while unset, then edited, it is set as in protobuf."""
    from tensorflow.core.framework import summary_pb2

    def edit(value):
        tensor = value.tensor
        assert not value.HasField("tensor")
        tensor.dtype = 7
        tensor.string_val.append(b"hi")

    ours, real = Summary.Value(tag="t", simple_value=1.0), summary_pb2.Summary.Value(tag="t", simple_value=1.0)
    edit(ours)
    edit(real)
    assert ours.WhichOneof("value") == real.WhichOneof("value") == "tensor"
    assert ours.SerializeToString() == real.SerializeToString() and ours.simple_value == 0.0
    summary = Summary()
    edit(summary.value.add(tag="t"))
    assert summary.SerializeToString() == summary_pb2.Summary(value=[real]).SerializeToString()
