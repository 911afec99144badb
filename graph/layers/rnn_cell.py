"""``tf.nn.rnn_cell``: the TF1 RNN cell classes under their public names (defined in rnn_cell_impl/lstm/wrappers)."""

from graph.layers.rnn_cell_impl import BasicRNNCell, GRUCell, MultiRNNCell, RNNCell
from graph.layers.rnn_cell_lstm import BasicLSTMCell, LSTMCell, LSTMStateTuple
from graph.layers.rnn_cell_wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell", "LSTMCell", "LSTMStateTuple",
           "MultiRNNCell", "RNNCell", "ResidualWrapper"]

