"""``tf.nn.with_space_to_batch`` and ``tf.nn.pool`` (TF1's signature), built as TF's nn_ops builds them.

with_space_to_batch runs ``op(input, num_spatial_dims, "VALID")`` on the space-to-batch phases of ``input``
(SpaceToBatchND, ``op``, BatchToSpaceND) so that a dilated ``op`` runs undilated; a dilation of 1 everywhere
calls ``op`` with ``padding`` directly.  The paddings: numpy values where the rate, filter shape and spatial
sizes are constants, else TF's Shape / Pack subgraph.  pool is MaxPool / AvgPool (3-D: MaxPool3D / AvgPool3D;
1-D: over a height of 1) inside it.  No ops of their own.
"""

from __future__ import annotations

import numpy as np

from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_ops
from graph.ops.pooling3d_ops import avg_pool3d, max_pool3d
from graph.ops.pooling_ops import avg_pool, max_pool
from graph.ops.with_space_to_batch_ops import with_space_to_batch
from graph.platform.deprecation import deprecated_argument_lookup

__all__ = ["with_space_to_batch", "pool"]  # with_space_to_batch: tf.nn's name for it


def _positive_sequence(name: str, values, num_spatial_dims: int) -> np.ndarray:
    """``values`` (all ones when None) as int32, one per spatial dimension, each at least 1 (TF's checks)."""
    if values is None:
        values = [1] * num_spatial_dims
    elif len(values) != num_spatial_dims:
        raise ValueError(f"`len({name})` should be {num_spatial_dims}. Received: {name}={values} of length "
                         f"{len(values)}")
    values = np.array(values, dtype=np.int32)
    if np.any(values < 1):
        raise ValueError(f"all values of `{name}` must be positive. Received: {name}={values}")
    return values


def _strides_and_dilation_rate(num_spatial_dims: int, strides, dilation_rate):
    dilation_rate = _positive_sequence("dilation_rate", dilation_rate, num_spatial_dims)
    strides = _positive_sequence("strides", strides, num_spatial_dims)
    if np.any(strides > 1) and np.any(dilation_rate > 1):
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={strides} and dilation_rate={dilation_rate}")
    return strides, dilation_rate


_POOLS = {("MAX", 1): max_pool, ("MAX", 2): max_pool, ("MAX", 3): max_pool3d,
          ("AVG", 1): avg_pool, ("AVG", 2): avg_pool, ("AVG", 3): avg_pool3d}


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None,  # noqa: A002
         name: str | None = None, data_format=None, dilations=None) -> Tensor:
    """N-D max or average pooling (``pooling_type`` "MAX" / "AVG") over 1 to 3 spatial dimensions, dilated
    through with_space_to_batch."""
    dilation_rate = deprecated_argument_lookup("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        num_spatial_dims = len(window_shape)
        if num_spatial_dims < 1 or num_spatial_dims > 3:
            raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape} of "
                             f"length {len(window_shape)}")
        input.shape.with_rank(num_spatial_dims + 2)
        strides, dilation_rate = _strides_and_dilation_rate(num_spatial_dims, strides, dilation_rate)
        if padding == "SAME" and np.any(dilation_rate > 1):
            raise ValueError("pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                             f"padding={padding} and dilation_rate={dilation_rate}")
        if np.any(strides > window_shape):
            raise ValueError("`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                             f"implementations. Received: strides={strides} and window_shape={window_shape}")
        key = (pooling_type, num_spatial_dims)
        if key not in _POOLS:
            raise ValueError(f"{num_spatial_dims}-D {pooling_type} pooling is not supported.")
        if data_format is None or not data_format.startswith("NC"):
            window = [1] + list(window_shape) + [1]
            adjusted_strides = [1] + list(strides) + [1]
            spatial_dims = range(1, num_spatial_dims + 1)
        else:
            window = [1, 1] + list(window_shape)
            adjusted_strides = [1, 1] + list(strides)
            spatial_dims = range(2, num_spatial_dims + 2)
        if num_spatial_dims == 1:
            if data_format is None or data_format == "NWC":
                pool_format = "NHWC"
            elif data_format == "NCW":
                pool_format = "NCHW"
            else:
                raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: data_format={data_format}")
            window = [1] + window
            adjusted_strides = [1] + adjusted_strides
        else:
            pool_format = data_format

        def pool_op(converted, _, converted_padding):
            if num_spatial_dims == 1:
                converted = array_ops.expand_dims(converted, spatial_dims[0])
            kwargs = {} if pool_format is None else {"data_format": pool_format}
            result = _POOLS[key](converted, window, adjusted_strides, converted_padding, name=scope, **kwargs)
            if num_spatial_dims == 1:
                result = array_ops.squeeze(result, [spatial_dims[0]])
            return result

        return with_space_to_batch(input=input, dilation_rate=dilation_rate, padding=padding, op=pool_op,
                                   spatial_dims=spatial_dims, filter_shape=window_shape)
