"""What a benchmark reports: TensorFlow's BenchmarkEntries (tensorflow/core/util/test_log.proto).

Declared with protobuf's Python API (graph/proto/python_api.py); ``tf.test.Benchmark.report_benchmark`` prints
the text format, or writes the bytes to ``$TEST_REPORT_FILE_PREFIX<name>``::

    BenchmarkEntries : 1 entry BenchmarkEntry*
    BenchmarkEntry   : 1 name string, 2 iters int64, 3 cpu_time double, 4 wall_time double, 5 throughput double,
                       6 extras map<string, EntryValue>, 7 metrics MetricEntry*
    EntryValue       : oneof kind { 1 double_value double, 2 string_value string }
    MetricEntry      : 1 name string, 2 value double, 3 min_value DoubleValue, 4 max_value DoubleValue
    DoubleValue      : 1 value double (google/protobuf/wrappers.proto)
"""

from __future__ import annotations

from graph.proto.protobuf import DOUBLE, INT64, STRING
from graph.proto.python_api import Field, MapField, ProtoMessage

__all__ = ["DoubleValue", "EntryValue", "MetricEntry", "BenchmarkEntry", "BenchmarkEntries"]


class DoubleValue(ProtoMessage, full_name="google.protobuf.DoubleValue"):
    """A double that may be absent (protobuf's wrapper)."""
    value = Field(1, DOUBLE)


class EntryValue(ProtoMessage, full_name="tensorflow.EntryValue"):
    """One extra of a benchmark: a number or a string."""
    double_value = Field(1, DOUBLE, oneof="kind")
    string_value = Field(2, STRING, oneof="kind")


class MetricEntry(ProtoMessage, full_name="tensorflow.MetricEntry"):
    """A named metric of a benchmark, with the bounds it should keep within."""
    name = Field(1, STRING)
    value = Field(2, DOUBLE)
    min_value = Field(3, DoubleValue)
    max_value = Field(4, DoubleValue)


class BenchmarkEntry(ProtoMessage, full_name="tensorflow.BenchmarkEntry"):
    """One benchmark's result: iterations, times, throughput, extras and metrics."""
    name = Field(1, STRING)
    iters = Field(2, INT64)
    cpu_time = Field(3, DOUBLE)
    wall_time = Field(4, DOUBLE)
    throughput = Field(5, DOUBLE)
    extras = MapField(6, STRING, EntryValue)
    metrics = Field(7, MetricEntry, repeated=True)


class BenchmarkEntries(ProtoMessage, full_name="tensorflow.BenchmarkEntries"):
    """The entries a benchmark reports."""
    entry = Field(1, BenchmarkEntry, repeated=True)
