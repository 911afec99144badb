# A Siamese bidirectional-LSTM that learns when two street addresses are the same one with a typo: characters
# one-hot by embedding_lookup into tf.diag(ones), split into steps, both addresses through the same
# DropoutWrapper'd forward and backward BasicLSTMCells (variables shared by variable_scope reuse), the outputs
# averaged by add_n, a dense layer, l2_normalize, and a cosine score trained by a margin loss.
# After: nfmcclure/tensorflow_cookbook, 09_Recurrent_Neural_Networks/06_Training_A_Siamese_Similarity_Measure/
# 06_siamese_similarity_driver.py + 06_siamese_similarity_model.py (MIT, Nick McClure): batch_size 200,
# max_address_len 20, margin 0.25, num_features 50, dropout_keep_prob 0.8; create_typo, the street names and
# types, get_batch (half typos, half rolled mismatches), the test queries and references, address2onehot;
# snn() (static_bidirectional_rnn over tf.split + squeeze, temporal mean, A / b from random_normal_initializer
# (stddev 0.1), dropout, the second tower under variable_scope(get_variable_scope(), reuse=True),
# l2_normalize, the dot product), get_predictions (tf.sign), loss (positive and negative terms, the margin
# term through equal / less / logical_and), accuracy, AdamOptimizer(0.01), initialize_all_variables, the
# 'Training Metrics, Batch ...' lines every 10 batches and the best-matching references of the test queries.
# Rewritten for this project rather than copied (one file). Edits: the import line; tf.contrib.rnn's
# BasicLSTMCell / DropoutWrapper / static_bidirectional_rnn -> tf.nn.rnn_cell's and tf.nn's (the same classes);
# random.seed / np.random.seed / tf.set_random_seed (the recipe is unseeded); n_batches 300 -> 11, batch_size
# 200 -> 60 and max_address_len 20 -> 12 (speed: TF builds the 4 x 20 unrolled cells and their gradients for
# seconds); each query's scores printed beside the match they choose; the matplotlib loss and accuracy curves
# -> their last values printed.
import random
import string

import numpy as np
import tensorflow.compat.v1 as tf

random.seed(9)
np.random.seed(9)


# ---- the model (06_siamese_similarity_model.py) ----
def snn(address1, address2, dropout_keep_prob, vocab_size, num_features, input_length):
    """The cosine similarity of two addresses, each encoded by the same bidirectional LSTM."""

    def siamese_nn(input_vector, num_hidden):
        cell_unit = tf.nn.rnn_cell.BasicLSTMCell
        lstm_forward_cell = cell_unit(num_hidden, forget_bias=1.0)
        lstm_forward_cell = tf.nn.rnn_cell.DropoutWrapper(lstm_forward_cell, output_keep_prob=dropout_keep_prob)
        lstm_backward_cell = cell_unit(num_hidden, forget_bias=1.0)
        lstm_backward_cell = tf.nn.rnn_cell.DropoutWrapper(lstm_backward_cell, output_keep_prob=dropout_keep_prob)

        # one [batch, vocab] input per character
        input_embed_split = tf.split(axis=1, num_or_size_splits=input_length, value=input_vector)
        input_embed_split = [tf.squeeze(x, axis=[1]) for x in input_embed_split]
        outputs, _, _ = tf.nn.static_bidirectional_rnn(lstm_forward_cell, lstm_backward_cell, input_embed_split,
                                                       dtype=tf.float32)
        temporal_mean = tf.add_n(outputs) / input_length

        output_size = 10
        A = tf.get_variable(name="A", shape=[2 * num_hidden, output_size], dtype=tf.float32,
                            initializer=tf.random_normal_initializer(stddev=0.1))
        b = tf.get_variable(name="b", shape=[output_size], dtype=tf.float32,
                            initializer=tf.random_normal_initializer(stddev=0.1))
        final_output = tf.matmul(temporal_mean, A) + b
        final_output = tf.nn.dropout(final_output, dropout_keep_prob)
        return final_output

    output1 = siamese_nn(address1, num_features)
    # the second address goes through the same variables
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        output2 = siamese_nn(address2, num_features)

    output1 = tf.nn.l2_normalize(output1, 1)
    output2 = tf.nn.l2_normalize(output2, 1)
    # on unit vectors the dot product is the cosine similarity
    return tf.reduce_sum(tf.multiply(output1, output2), 1)


def get_predictions(scores):
    return tf.sign(scores, name="predictions")


def loss(scores, y_target, margin):
    # similar pairs: pulled towards a score of 1
    pos_loss_term = 0.25 * tf.square(tf.subtract(1., scores))
    pos_mult = tf.cast(y_target, tf.float32)
    positive_loss = tf.multiply(pos_mult, pos_loss_term)
    # dissimilar pairs: pushed towards 0
    neg_mult = tf.subtract(1., tf.cast(y_target, tf.float32))
    negative_loss = neg_mult * tf.square(scores)
    loss = tf.add(positive_loss, negative_loss)
    # no loss for a dissimilar pair already scored below the margin
    target_zero = tf.equal(tf.cast(y_target, tf.float32), 0.)
    less_than_margin = tf.less(scores, margin)
    both_logical = tf.logical_and(target_zero, less_than_margin)
    both_logical = tf.cast(both_logical, tf.float32)
    multiplicative_factor = tf.cast(1. - both_logical, tf.float32)
    total_loss = tf.multiply(loss, multiplicative_factor)
    return tf.reduce_mean(total_loss)


def accuracy(scores, y_target):
    predictions = get_predictions(scores)
    y_target_int = tf.cast(y_target, tf.int32)
    predictions_int = tf.cast(tf.sign(predictions), tf.int32)
    correct_predictions = tf.equal(predictions_int, y_target_int)
    return tf.reduce_mean(tf.cast(correct_predictions, tf.float32))


# ---- the driver (06_siamese_similarity_driver.py) ----
sess = tf.Session()

batch_size = 60  # edit: 200
n_batches = 11  # edit: 300
max_address_len = 12  # edit: 20
margin = 0.25
num_features = 50
dropout_keep_prob = 0.8


def create_typo(s):
    """The address with one character replaced by a random letter or digit."""
    rand_ind = random.choice(range(len(s)))
    s_list = list(s)
    s_list[rand_ind] = random.choice(string.ascii_lowercase + '0123456789')
    return ''.join(s_list)


street_names = ['abbey', 'baker', 'canal', 'donner', 'elm', 'fifth', 'grandvia', 'hollywood', 'interstate', 'jay',
                'kings']
street_types = ['rd', 'st', 'ln', 'pass', 'ave', 'hwy', 'cir', 'dr', 'jct']

test_queries = ['111 abbey ln', '271 doner cicle', '314 king avenue', 'tensorflow is fun']
test_references = ['123 abbey ln', '217 donner cir', '314 kings ave', '404 hollywood st', 'tensorflow is so fun']


def get_batch(n):
    """n address pairs: the first half an address and its typo, the second half mismatched by a roll."""
    numbers = [random.randint(1, 9999) for _ in range(n)]
    streets = [random.choice(street_names) for _ in range(n)]
    street_suffs = [random.choice(street_types) for _ in range(n)]
    full_streets = [str(w) + ' ' + x + ' ' + y for w, x, y in zip(numbers, streets, street_suffs)]
    typo_streets = [create_typo(x) for x in full_streets]
    reference = [list(x) for x in zip(full_streets, typo_streets)]

    half_ix = int(n / 2)
    bottom_half = reference[half_ix:]
    true_address = [x[0] for x in bottom_half]
    typo_address = list(np.roll([x[1] for x in bottom_half], 1))
    reference[half_ix:] = [[x, y] for x, y in zip(true_address, typo_address)]

    target = [1] * (n - half_ix) + [-1] * half_ix
    return [[x, y] for x, y in zip(reference, target)]


vocab_chars = string.ascii_lowercase + '0123456789 '
vocab2ix_dict = {char: (ix + 1) for ix, char in enumerate(vocab_chars)}  # 0 pads
vocab_length = len(vocab_chars) + 1


def address2onehot(address, vocab2ix_dict=vocab2ix_dict, max_address_len=max_address_len):
    """The address's character indices, padded with 0 or cut to max_address_len."""
    address_ix = [vocab2ix_dict[x] for x in list(address)]
    return (address_ix + [0] * max_address_len)[0:max_address_len]


address1_ph = tf.placeholder(tf.int32, [None, max_address_len], name="address1_ph")
address2_ph = tf.placeholder(tf.int32, [None, max_address_len], name="address2_ph")
y_target_ph = tf.placeholder(tf.int32, [None], name="y_target_ph")
dropout_keep_prob_ph = tf.placeholder(tf.float32, name="dropout_keep_prob")

# one-hot characters: rows of an identity matrix
identity_mat = tf.diag(tf.ones(shape=[vocab_length]))
address1_embed = tf.nn.embedding_lookup(identity_mat, address1_ph)
address2_embed = tf.nn.embedding_lookup(identity_mat, address2_ph)

tf.set_random_seed(9)  # edit: seeded
text_snn = snn(address1_embed, address2_embed, dropout_keep_prob_ph, vocab_length, num_features, max_address_len)
batch_accuracy = accuracy(text_snn, y_target_ph)
batch_loss = loss(text_snn, y_target_ph, margin)
predictions = get_predictions(text_snn)

optimizer = tf.train.AdamOptimizer(0.01)
train_op = optimizer.minimize(batch_loss)

init = tf.initialize_all_variables()
sess.run(init)

train_loss_vec = []
train_acc_vec = []
for b in range(n_batches):
    batch_data = get_batch(batch_size)
    np.random.shuffle(batch_data)
    input_addresses = [x[0] for x in batch_data]
    target_similarity = np.array([x[1] for x in batch_data])
    address1 = np.array([address2onehot(x[0]) for x in input_addresses])
    address2 = np.array([address2onehot(x[1]) for x in input_addresses])

    train_feed_dict = {address1_ph: address1, address2_ph: address2, y_target_ph: target_similarity,
                       dropout_keep_prob_ph: dropout_keep_prob}
    _, train_loss, train_acc = sess.run([train_op, batch_loss, batch_accuracy], feed_dict=train_feed_dict)
    train_loss_vec.append(train_loss)
    train_acc_vec.append(train_acc)
    if b % 10 == 0:
        print('Training Metrics, Batch {0}: Loss={1:.3f}, Accuracy={2:.3f}.'.format(b, train_loss, train_acc))

# the reference closest to each test query
test_queries_ix = np.array([address2onehot(x) for x in test_queries])
test_references_ix = np.array([address2onehot(x) for x in test_references])
num_refs = test_references_ix.shape[0]
best_fit_refs = []
for query in test_queries_ix:
    test_query = np.repeat(np.array([query]), num_refs, axis=0)
    test_feed_dict = {address1_ph: test_query, address2_ph: test_references_ix,
                      y_target_ph: target_similarity, dropout_keep_prob_ph: 1.0}
    test_out = sess.run(text_snn, feed_dict=test_feed_dict)
    best_fit_refs.append(test_references[np.argmax(test_out)])
    print('scores: ' + ' '.join('{:.7g}'.format(v) for v in test_out))  # edit: the scores behind the choice

print('Query Addresses: {}'.format(test_queries))
print('Model Found Matches: {}'.format(best_fit_refs))
print('Last batch loss {:.4f}, accuracy {:.3f}'.format(train_loss_vec[-1], train_acc_vec[-1]))  # edit: the plot
