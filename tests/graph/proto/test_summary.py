"""Summary and Event messages: byte-identical to TensorFlow's own protobuf classes, both ways."""

import numpy as np
import pytest

from graph.proto.framework import TensorProto, TensorShapeProto
from graph.proto.summary import (Event, HistogramProto, LogMessage, SessionLog, SourceMetadata, Summary,
                                 SummaryMetadata, TaggedRunMetadata)


def _full_event() -> list[Event]:
    """Events that set every field of every message at least once."""
    histo = HistogramProto(min=-1.5, max=2.0, num=3, sum=0.5, sum_squares=6.25, bucket_limit=[-1.4, 0.0, 2.1],
                           bucket=[1, 0, 2])
    image = Summary.Image(height=2, width=3, colorspace=4, encoded_image_string=b"\x89PNG")
    audio = Summary.Audio(sample_rate=44100.0, num_channels=2, length_frames=7, encoded_audio_string=b"RIFF",
                          content_type="audio/wav")
    tensor = TensorProto(dtype=7, tensor_shape=TensorShapeProto.from_shape([2]), string_val=[b"a", b"b"])
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text", content=b"\x08\x01"),
                               display_name="shown", summary_description="about", data_class=2)
    summary = Summary(value=[
        Summary.Value(tag="s", simple_value=0.25), Summary.Value(tag="h", histo=histo, node_name="n"),
        Summary.Value(tag="i", image=image), Summary.Value(tag="a", audio=audio),
        Summary.Value(tag="t", tensor=tensor, metadata=metadata),
        Summary.Value(tag="old", obsolete_old_style_histogram=b"xx"), Summary.Value(tag="zero", simple_value=0.0)])
    return [
        Event(wall_time=1234.5, file_version="brain.Event:2", source_metadata=SourceMetadata(writer="w")),
        Event(wall_time=1.0, step=-3, summary=summary),
        Event(step=7, graph_def=b"\n\x03\n\x01x"), Event(meta_graph_def=b"\x12\x00"),
        Event(log_message=LogMessage(level=LogMessage.WARN, message="careful")),
        Event(session_log=SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path="/m/ckpt", msg="m")),
        Event(tagged_run_metadata=TaggedRunMetadata(tag="step1", run_metadata=b"\x0a\x00")),
    ]


@pytest.mark.tf
def test_events_are_byte_identical_to_tensorflows(tf_module):
    from tensorflow.core.util import event_pb2
    for event in _full_event():
        real = event_pb2.Event.FromString(event.to_bytes())
        assert real.SerializeToString() == event.to_bytes()
        assert Event.from_bytes(real.SerializeToString()) == event
    assert event_pb2.Event.FromString(_full_event()[1].to_bytes()).summary.value[6].HasField("simple_value")


def test_oneofs_and_presence():
    value = Summary.Value(tag="x", simple_value=1.0)
    value.histo = HistogramProto()
    assert value.which_oneof("value") == "histo" and value.simple_value == 0.0  # unset oneof scalar: zero
    assert not value.HasField("simple_value")
    event = Event(summary=Summary())
    assert event.to_bytes() == b"\x2a\x00"  # a set, empty sub-message is written
    assert Event().to_bytes() == b""
    assert np.isclose(Event.from_bytes(Event(wall_time=0.5).to_bytes()).wall_time, 0.5)
