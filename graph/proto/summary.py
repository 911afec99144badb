"""TensorFlow's summary and event messages (core/framework/summary.proto, core/util/event.proto) for the codec.

Layout (field number, name, type)::

    HistogramProto   : 1 min double, 2 max double, 3 num double, 4 sum double, 5 sum_squares double,
                       6 bucket_limit double* (packed), 7 bucket double* (packed)
    SummaryMetadata  : 1 plugin_data PluginData {1 plugin_name string, 2 content bytes}, 2 display_name,
                       3 summary_description, 4 data_class DataClass
    SummaryDescription : 1 type_hint string
    Summary          : 1 value Value*
      Summary.Value  : 7 node_name, 1 tag, 9 metadata SummaryMetadata, oneof value {2 simple_value float,
                       3 obsolete_old_style_histogram bytes, 4 image Image, 5 histo HistogramProto,
                       6 audio Audio, 8 tensor TensorProto}
      Summary.Image  : 1 height int32, 2 width int32, 3 colorspace int32, 4 encoded_image_string bytes
      Summary.Audio  : 1 sample_rate float, 2 num_channels int64, 3 length_frames int64,
                       4 encoded_audio_string bytes, 5 content_type string
    Event            : 1 wall_time double, 2 step int64, oneof what {3 file_version string, 4 graph_def bytes,
                       5 summary Summary, 6 log_message LogMessage, 7 session_log SessionLog,
                       8 tagged_run_metadata TaggedRunMetadata, 9 meta_graph_def bytes}, 10 source_metadata
    LogMessage       : 1 level Level, 2 message string
    SessionLog       : 1 status SessionStatus, 2 checkpoint_path string, 3 msg string
    TaggedRunMetadata: 1 tag string, 2 run_metadata bytes (a serialized RunMetadata)
    SourceMetadata   : 1 writer string

Event files hold these Events in TFRecord framing (graph/platform/tfrecord.py).  The messages answer
protobuf's Python API with its lazy sub-messages (graph/proto/python_api.py), so the TF1 loop
``for v in event.summary.value`` works on every event, the first (``file_version``) included.
"""

from __future__ import annotations

from graph.proto.framework import TensorProto
from graph.proto.protobuf import BYTES, DOUBLE, FLOAT, INT32, INT64, STRING, enum
from graph.proto.python_api import Field, ProtoMessage

__all__ = [
    "HistogramProto", "SummaryMetadata", "SummaryDescription", "Summary", "LogMessage", "SessionLog",
    "TaggedRunMetadata", "SourceMetadata", "Event", "DataClass",
]

# summary.proto's DataClass: what kind of data a plugin's summary holds.
DataClass = enum("DataClass", {"DATA_CLASS_UNKNOWN": 0, "DATA_CLASS_SCALAR": 1, "DATA_CLASS_TENSOR": 2,
                               "DATA_CLASS_BLOB_SEQUENCE": 3})


class HistogramProto(ProtoMessage, full_name="tensorflow.HistogramProto"):
    """A histogram: ``bucket[i]`` counts values in (``bucket_limit[i-1]``, ``bucket_limit[i]``]."""
    min = Field(1, DOUBLE)
    max = Field(2, DOUBLE)
    num = Field(3, DOUBLE)
    sum = Field(4, DOUBLE)
    sum_squares = Field(5, DOUBLE)
    bucket_limit = Field(6, DOUBLE, repeated=True)
    bucket = Field(7, DOUBLE, repeated=True)


class SummaryMetadata(ProtoMessage, full_name="tensorflow.SummaryMetadata"):
    """Which TensorBoard plugin reads a summary value, and its display name and description."""

    class PluginData(ProtoMessage, full_name="tensorflow.SummaryMetadata.PluginData"):
        """The plugin's name and its own serialized content."""
        plugin_name = Field(1, STRING)
        content = Field(2, BYTES)

    plugin_data = Field(1, PluginData)
    display_name = Field(2, STRING)
    summary_description = Field(3, STRING)
    data_class = Field(4, DataClass)


class SummaryDescription(ProtoMessage, full_name="tensorflow.SummaryDescription"):
    """The type hint of a summary op's output (``tf.summary.get_summary_description``)."""
    type_hint = Field(1, STRING)


class Summary(ProtoMessage, full_name="tensorflow.Summary"):
    """The output of summary ops: a list of tagged values."""

    class Image(ProtoMessage, full_name="tensorflow.Summary.Image"):
        """One encoded image (PNG from the ImageSummary op); colorspace is the channel count."""
        height = Field(1, INT32)
        width = Field(2, INT32)
        colorspace = Field(3, INT32)
        encoded_image_string = Field(4, BYTES)

    class Audio(ProtoMessage, full_name="tensorflow.Summary.Audio"):
        """One encoded audio clip."""
        sample_rate = Field(1, FLOAT)
        num_channels = Field(2, INT64)
        length_frames = Field(3, INT64)
        encoded_audio_string = Field(4, BYTES)
        content_type = Field(5, STRING)

    class Value(ProtoMessage, full_name="tensorflow.Summary.Value"):
        """One tagged value: a scalar, a histogram, an image, audio or a tensor."""
        tag = Field(1, STRING)
        simple_value = Field(2, FLOAT, oneof="value")
        obsolete_old_style_histogram = Field(3, BYTES, oneof="value")
        image = Field(4, lambda: Summary.Image, oneof="value")
        histo = Field(5, HistogramProto, oneof="value")
        audio = Field(6, lambda: Summary.Audio, oneof="value")
        node_name = Field(7, STRING)
        tensor = Field(8, TensorProto, oneof="value")
        metadata = Field(9, SummaryMetadata)

    value = Field(1, Value, repeated=True)


class LogMessage(ProtoMessage, full_name="tensorflow.LogMessage"):
    """A logged message with its level (deprecated in event files, still readable)."""
    Level = enum("Level", {"UNKNOWN": 0, "DEBUGGING": 10, "INFO": 20, "WARN": 30, "ERROR": 40, "FATAL": 50})
    UNKNOWN, DEBUGGING, INFO, WARN, ERROR, FATAL = 0, 10, 20, 30, 40, 50
    level = Field(1, Level)
    message = Field(2, STRING)


class SessionLog(ProtoMessage, full_name="tensorflow.SessionLog"):
    """A session's start, stop or checkpoint, as TensorBoard uses to discard events after a restart."""
    SessionStatus = enum("SessionStatus", {"STATUS_UNSPECIFIED": 0, "START": 1, "STOP": 2, "CHECKPOINT": 3})
    STATUS_UNSPECIFIED, START, STOP, CHECKPOINT = 0, 1, 2, 3
    status = Field(1, SessionStatus)
    checkpoint_path = Field(2, STRING)
    msg = Field(3, STRING)


class TaggedRunMetadata(ProtoMessage, full_name="tensorflow.TaggedRunMetadata"):
    """A session.run's RunMetadata (kept serialized) under a tag."""
    tag = Field(1, STRING)
    run_metadata = Field(2, BYTES)


class SourceMetadata(ProtoMessage, full_name="tensorflow.SourceMetadata"):
    """Which writer produced an event file (the first event's ``source_metadata``)."""
    writer = Field(1, STRING)


class Event(ProtoMessage, full_name="tensorflow.Event"):
    """One record of an event file: a time, a step and one of a version, graph, summary or log."""
    wall_time = Field(1, DOUBLE)
    step = Field(2, INT64)
    file_version = Field(3, STRING, oneof="what")
    graph_def = Field(4, BYTES, oneof="what")
    summary = Field(5, Summary, oneof="what")
    log_message = Field(6, LogMessage, oneof="what")
    session_log = Field(7, SessionLog, oneof="what")
    tagged_run_metadata = Field(8, TaggedRunMetadata, oneof="what")
    meta_graph_def = Field(9, BYTES, oneof="what")
    source_metadata = Field(10, SourceMetadata)
