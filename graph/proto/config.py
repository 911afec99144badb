"""A session's configuration as TensorFlow's protobuf messages (tensorflow/core/protobuf/config.proto,
rpc_options.proto), with protobuf's Python API (graph/proto/python_api.py): a ServerDef carries one as its
``default_session_config``, and TF parses the bytes.

Layout (field numbers as in TF 2.21; ``Experimental`` is declared without its fields and ``RewriterConfig`` with
its scalar switches only, which nothing here reads: parsed bytes keep the rest as unknown fields)::

    ConfigProto           : 1 device_count map<string, int32>, 2 intra_op_parallelism_threads int32,
                            3 placement_period int32, 4 device_filters string*, 5 inter_op_parallelism_threads int32,
                            6 gpu_options GPUOptions, 7 allow_soft_placement bool, 8 log_device_placement bool,
                            9 use_per_session_threads bool, 10 graph_options GraphOptions,
                            11 operation_timeout_in_ms int64, 12 session_inter_op_thread_pool ThreadPoolOptionProto*,
                            13 rpc_options RPCOptions, 14 cluster_def ClusterDef, 15 isolate_session_state bool,
                            16 experimental Experimental, 17 share_cluster_devices_in_session bool,
                            18 pluggable_device_options GPUOptions
    GPUOptions            : 1 per_process_gpu_memory_fraction double, 2 allocator_type string,
                            3 deferred_deletion_bytes int64, 4 allow_growth bool, 5 visible_device_list string,
                            6 polling_active_delay_usecs int32, 7 polling_inactive_delay_msecs int32,
                            8 force_gpu_compatible bool, 9 experimental Experimental
    GraphOptions          : 2 enable_recv_scheduling bool, 3 optimizer_options OptimizerOptions,
                            4 build_cost_model int64, 5 infer_shapes bool, 6 place_pruned_graph bool,
                            7 enable_bfloat16_sendrecv bool, 8 timeline_step int32, 9 build_cost_model_after int64,
                            10 rewrite_options RewriterConfig
    OptimizerOptions      : 1 do_common_subexpression_elimination bool, 2 do_constant_folding bool,
                            3 opt_level Level, 4 do_function_inlining bool, 5 global_jit_level GlobalJitLevel,
                            6 max_folded_constant_in_bytes int64, 7 cpu_global_jit bool
    RewriterConfig        : Grappler's switches, which nothing here runs: the Toggle fields 1 layout_optimizer,
                            3 constant_folding, 7 arithmetic_optimization, 8 dependency_optimization,
                            9 loop_optimization, 10 function_optimization, 11 debug_stripper, 13 shape_optimization,
                            14 remapping, 15 scoped_allocator_optimization, 18 pin_to_host_optimization,
                            22 implementation_selector, 23 auto_mixed_precision, 24 common_subgraph_elimination;
                            the bools 2 disable_model_pruning, 19 disable_meta_optimizer, 21 fail_on_optimizer_errors;
                            17 min_graph_nodes int32, 20 meta_optimizer_timeout_ms int64 (the others: unknown fields)
    ThreadPoolOptionProto : 1 num_threads int32, 2 global_name string
    RPCOptions            : 1 use_rpc_for_inprocess_master bool, 2 compression_algorithm string,
                            3 compression_level int32, 4 cache_rpc_response bool,
                            5 disable_session_connection_sharing bool, 6 num_channels_per_target int32
"""

from __future__ import annotations

from graph.proto.cluster import ClusterDef
from graph.proto.protobuf import BOOL, DOUBLE, INT32, INT64, STRING, enum
from graph.proto.python_api import Field, MapField, ProtoMessage

__all__ = ["EnumNames", "ConfigMessage", "ThreadPoolOptionProto", "RPCOptions", "OptimizerOptions", "RewriterConfig",
           "GraphOptions", "GPUOptions", "ConfigProto"]


class EnumNames:
    """A protobuf enum type's wrapper (``Name``, ``Value``, ``keys``) for an enum nested in a message."""

    def __init__(self, name: str, values: dict[str, int]):
        self._name, self._values = name, values

    def Name(self, number: int) -> str:  # noqa: N802 - protobuf's name
        """The enum value's name."""
        for key, value in self._values.items():
            if value == number:
                return key
        raise ValueError(f"Enum {self._name} has no name defined for value {number!r}")

    def Value(self, name: str) -> int:  # noqa: N802 - protobuf's name
        """The enum name's number."""
        if name not in self._values:
            raise ValueError(f"Enum {self._name} has no value defined for name {name!r}")
        return self._values[name]

    def keys(self) -> list[str]:
        """The names, in declaration order."""
        return list(self._values)

    def values(self) -> list[int]:
        """The numbers, in declaration order."""
        return list(self._values.values())

    def items(self) -> list[tuple[str, int]]:
        """(name, number) pairs, in declaration order."""
        return list(self._values.items())


class ConfigMessage(ProtoMessage):
    """A message built as protobuf's generated classes build one: their errors for unknown fields and for
    sub-message arguments of another type; a dict stands for the sub-message it describes."""

    def __init__(self, **kwargs):
        fields = type(self)._by_name
        for name, value in kwargs.items():
            field = fields.get(name)
            if field is None:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
            if field.is_message and not field.repeated and value is not None:
                if isinstance(value, dict):
                    kwargs[name] = field.kind(**value)
                elif not isinstance(value, field.kind):
                    raise TypeError("Parameter to initialize message field must be dict or instance of same class: "
                                    f"expected {field.kind._full_name} got {type(value).__name__}.")
        super().__init__(**{name: value for name, value in kwargs.items() if value is not None})


class ThreadPoolOptionProto(ConfigMessage, full_name="tensorflow.ThreadPoolOptionProto"):
    """One entry of ``ConfigProto.session_inter_op_thread_pool`` (accepted: kernels run on the caller's thread)."""
    num_threads = Field(1, INT32)
    global_name = Field(2, STRING)


class RPCOptions(ConfigMessage, full_name="tensorflow.RPCOptions"):
    """``ConfigProto.rpc_options`` (accepted: the in-process server has no RPC stack)."""
    use_rpc_for_inprocess_master = Field(1, BOOL)
    compression_algorithm = Field(2, STRING)
    compression_level = Field(3, INT32)
    cache_rpc_response = Field(4, BOOL)
    disable_session_connection_sharing = Field(5, BOOL)
    num_channels_per_target = Field(6, INT32)


_LEVELS = {"L1": 0, "L0": -1}
_JIT_LEVELS = {"DEFAULT": 0, "OFF": -1, "ON_1": 1, "ON_2": 2}


class OptimizerOptions(ConfigMessage, full_name="tensorflow.OptimizerOptions"):
    """tf.OptimizerOptions (accepted: the executor runs the graph as built, so no pass is switched on or off)."""

    L1, L0 = 0, -1  # Level (an open enum: other ints are kept as given, as protobuf's)
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2  # GlobalJitLevel
    Level = EnumNames("Level", _LEVELS)
    GlobalJitLevel = EnumNames("GlobalJitLevel", _JIT_LEVELS)
    do_common_subexpression_elimination = Field(1, BOOL)
    do_constant_folding = Field(2, BOOL)
    opt_level = Field(3, enum("Level", _LEVELS))
    do_function_inlining = Field(4, BOOL)
    global_jit_level = Field(5, enum("GlobalJitLevel", _JIT_LEVELS))
    max_folded_constant_in_bytes = Field(6, INT64)
    cpu_global_jit = Field(7, BOOL)


_TOGGLE = {"DEFAULT": 0, "ON": 1, "OFF": 2, "AGGRESSIVE": 3, "EXPERIMENTAL_MLIR": 4, "EXPERIMENTAL_BOTH": 5}


class RewriterConfig(ConfigMessage, full_name="tensorflow.RewriterConfig"):
    """``GraphOptions.rewrite_options``: Grappler's switches (accepted: nothing here rewrites graphs), settable as
    TF's tests and ``tf.test.benchmark_config`` set them."""

    DEFAULT, ON, OFF, AGGRESSIVE, EXPERIMENTAL_MLIR, EXPERIMENTAL_BOTH = 0, 1, 2, 3, 4, 5  # Toggle
    Toggle = EnumNames("Toggle", _TOGGLE)
    layout_optimizer = Field(1, enum("Toggle", _TOGGLE))
    disable_model_pruning = Field(2, BOOL)
    constant_folding = Field(3, enum("Toggle", _TOGGLE))
    arithmetic_optimization = Field(7, enum("Toggle", _TOGGLE))
    dependency_optimization = Field(8, enum("Toggle", _TOGGLE))
    loop_optimization = Field(9, enum("Toggle", _TOGGLE))
    function_optimization = Field(10, enum("Toggle", _TOGGLE))
    debug_stripper = Field(11, enum("Toggle", _TOGGLE))
    shape_optimization = Field(13, enum("Toggle", _TOGGLE))
    remapping = Field(14, enum("Toggle", _TOGGLE))
    scoped_allocator_optimization = Field(15, enum("Toggle", _TOGGLE))
    min_graph_nodes = Field(17, INT32)
    pin_to_host_optimization = Field(18, enum("Toggle", _TOGGLE))
    disable_meta_optimizer = Field(19, BOOL)
    meta_optimizer_timeout_ms = Field(20, INT64)
    fail_on_optimizer_errors = Field(21, BOOL)
    implementation_selector = Field(22, enum("Toggle", _TOGGLE))
    auto_mixed_precision = Field(23, enum("Toggle", _TOGGLE))
    common_subgraph_elimination = Field(24, enum("Toggle", _TOGGLE))


class GraphOptions(ConfigMessage, full_name="tensorflow.GraphOptions"):
    """tf.GraphOptions: ``infer_shapes``, ``place_pruned_graph`` and the cost model are honoured; the rest accepted."""
    enable_recv_scheduling = Field(2, BOOL)
    optimizer_options = Field(3, OptimizerOptions)
    build_cost_model = Field(4, INT64)
    infer_shapes = Field(5, BOOL)
    place_pruned_graph = Field(6, BOOL)
    enable_bfloat16_sendrecv = Field(7, BOOL)
    timeline_step = Field(8, INT32)
    build_cost_model_after = Field(9, INT64)
    rewrite_options = Field(10, RewriterConfig)


class GPUOptions(ConfigMessage, full_name="tensorflow.GPUOptions"):
    """tf.GPUOptions (accepted; there are no GPUs here)."""

    class Experimental(ConfigMessage, full_name="tensorflow.GPUOptions.Experimental"):
        """GPU experiments (no fields declared)."""

    per_process_gpu_memory_fraction = Field(1, DOUBLE)
    allocator_type = Field(2, STRING)
    deferred_deletion_bytes = Field(3, INT64)
    allow_growth = Field(4, BOOL)
    visible_device_list = Field(5, STRING)
    polling_active_delay_usecs = Field(6, INT32)
    polling_inactive_delay_msecs = Field(7, INT32)
    force_gpu_compatible = Field(8, BOOL)
    experimental = Field(9, Experimental)


class ConfigProto(ConfigMessage, full_name="tensorflow.ConfigProto"):
    """tf.ConfigProto: ``device_count`` declares the CPU devices; ``log_device_placement`` prints placements."""

    class Experimental(ConfigMessage, full_name="tensorflow.ConfigProto.Experimental"):
        """Session experiments (no fields declared)."""

    device_count = MapField(1, STRING, INT32)
    intra_op_parallelism_threads = Field(2, INT32)
    placement_period = Field(3, INT32)
    device_filters = Field(4, STRING, repeated=True)
    inter_op_parallelism_threads = Field(5, INT32)
    gpu_options = Field(6, GPUOptions)
    allow_soft_placement = Field(7, BOOL)
    log_device_placement = Field(8, BOOL)
    use_per_session_threads = Field(9, BOOL)
    graph_options = Field(10, GraphOptions)
    operation_timeout_in_ms = Field(11, INT64)
    session_inter_op_thread_pool = Field(12, ThreadPoolOptionProto, repeated=True)
    rpc_options = Field(13, RPCOptions)
    cluster_def = Field(14, ClusterDef)
    isolate_session_state = Field(15, BOOL)
    experimental = Field(16, Experimental)
    share_cluster_devices_in_session = Field(17, BOOL)
    pluggable_device_options = Field(18, GPUOptions)
