"""saver/checkpoint: TF2 object-based checkpoints from graph mode (tf.train.Checkpoint, CheckpointManager)
and the name-based <-> object-based converter."""
