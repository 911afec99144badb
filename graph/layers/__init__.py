"""graph/layers: TF1's ``tf.layers`` (Layer, Dense, Conv2D, pooling, BatchNormalization, ...) over variable scopes."""
