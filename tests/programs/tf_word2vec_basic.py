# "Basic word2vec example": a skip-gram model trained with NCE loss, then the nearest words by cosine similarity.
# After: tensorflow/tensorflow, tensorflow/examples/tutorials/word2vec/word2vec_basic.py (Apache 2.0, The
# TensorFlow Authors): same build_dataset (UNK for rare words), generate_batch over a deque window with
# skip_window / num_skips, embeddings ~ random_uniform(-1, 1) looked up with tf.nn.embedding_lookup on
# /cpu:0, nce_weights ~ truncated_normal(stddev=1/sqrt(embedding_size)), nce_biases zeros,
# tf.reduce_mean(tf.nn.nce_loss(...)), GradientDescentOptimizer(1.0), normalized embeddings and the
# similarity matmul, "Average loss at step" and "Nearest to" lines. Rewritten for this project rather
# than copied. Edits: the import line; text8 -> a small synthetic corpus (a seeded numpy walk over a
# toy grammar, so words have real neighbours); vocabulary 40, batch 32, embedding 16, num_sampled 8,
# 1001 steps reporting every 250; tf.set_random_seed(7) so both frameworks start from the same numbers.
import collections
import math

import numpy as np
import tensorflow.compat.v1 as tf

# Step 1: a corpus. Subjects, verbs and objects go together in fixed groups, so each group's words
# share contexts and should end up near each other.
groups = [("cat", "dog", "mouse"), ("eats", "chases", "sees"), ("fish", "cheese", "bone"),
          ("king", "queen", "prince"), ("rules", "builds", "guards"), ("castle", "land", "city")]
rng = np.random.RandomState(0)
words = []
for _ in range(1500):
    topic = rng.randint(2)
    subject, verb, obj = (groups[3 * topic + i] for i in range(3))
    words += ["the", subject[rng.randint(3)], verb[rng.randint(3)], "the", obj[rng.randint(3)], "."]
    if rng.rand() < 0.1:
        words.append("rare%d" % rng.randint(100))  # rare words become UNK
print("Data size", len(words))

# Step 2: the dictionary, rare words replaced by UNK.
vocabulary_size = 40


def build_dataset(words, n_words):
    count = [["UNK", -1]]
    count.extend(collections.Counter(words).most_common(n_words - 1))
    dictionary = {}
    for word, _ in count:
        dictionary[word] = len(dictionary)
    data = []
    unk_count = 0
    for word in words:
        index = dictionary.get(word, 0)
        if index == 0:
            unk_count += 1
        data.append(index)
    count[0][1] = unk_count
    reversed_dictionary = dict(zip(dictionary.values(), dictionary.keys()))
    return data, count, dictionary, reversed_dictionary


data, count, dictionary, reverse_dictionary = build_dataset(words, vocabulary_size)
del words
print("Most common words (+UNK)", count[:5])
print("Sample data", data[:10], [reverse_dictionary[i] for i in data[:10]])

data_index = 0


# Step 3: training batches for the skip-gram model.
def generate_batch(batch_size, num_skips, skip_window):
    global data_index
    assert batch_size % num_skips == 0
    assert num_skips <= 2 * skip_window
    batch = np.ndarray(shape=(batch_size), dtype=np.int32)
    labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
    span = 2 * skip_window + 1  # [ skip_window target skip_window ]
    buffer = collections.deque(maxlen=span)
    if data_index + span > len(data):
        data_index = 0
    buffer.extend(data[data_index:data_index + span])
    data_index += span
    for i in range(batch_size // num_skips):
        context_words = [w for w in range(span) if w != skip_window]
        words_to_use = context_words[:num_skips]  # the tutorial samples them with random.sample
        for j, context_word in enumerate(words_to_use):
            batch[i * num_skips + j] = buffer[skip_window]
            labels[i * num_skips + j, 0] = buffer[context_word]
        if data_index == len(data):
            buffer.extend(data[0:span])
            data_index = span
        else:
            buffer.append(data[data_index])
            data_index += 1
    data_index = (data_index + len(data) - span) % len(data)  # backtrack to use the last words again
    return batch, labels


batch, labels = generate_batch(batch_size=8, num_skips=2, skip_window=1)
for i in range(8):
    print(batch[i], reverse_dictionary[batch[i]], "->", labels[i, 0], reverse_dictionary[labels[i, 0]])

# Step 4: the skip-gram model.
batch_size = 32
embedding_size = 16
skip_window = 1
num_skips = 2
num_sampled = 8
valid_examples = np.array([dictionary[w] for w in ("cat", "eats", "king", "castle")])
valid_size = len(valid_examples)

graph = tf.Graph()
with graph.as_default():
    tf.set_random_seed(7)
    train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
    train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
    valid_dataset = tf.constant(valid_examples, dtype=tf.int32)

    with tf.device("/cpu:0"):
        embeddings = tf.Variable(tf.random_uniform([vocabulary_size, embedding_size], -1.0, 1.0))
        embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        nce_weights = tf.Variable(
            tf.truncated_normal([vocabulary_size, embedding_size], stddev=1.0 / math.sqrt(embedding_size)))
        nce_biases = tf.Variable(tf.zeros([vocabulary_size]))

    loss = tf.reduce_mean(
        tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=train_labels, inputs=embed,
                       num_sampled=num_sampled, num_classes=vocabulary_size))
    optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)
    init = tf.global_variables_initializer()

# Step 5: training.
num_steps = 1001
with tf.Session(graph=graph) as session:
    init.run()
    print("Initialized")
    average_loss = 0
    for step in range(num_steps):
        batch_inputs, batch_labels = generate_batch(batch_size, num_skips, skip_window)
        feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
        _, loss_val = session.run([optimizer, loss], feed_dict=feed_dict)
        average_loss += loss_val
        if step % 250 == 0:
            if step > 0:
                average_loss /= 250
            print("Average loss at step ", step, ": ", average_loss)
            average_loss = 0
    sim = similarity.eval()
    for i in range(valid_size):
        valid_word = reverse_dictionary[valid_examples[i]]
        top_k = 2
        nearest = (-sim[i, :]).argsort()[1:top_k + 1]
        print("Nearest to %s: %s" % (valid_word, ", ".join(reverse_dictionary[k] for k in nearest)))
    final_embeddings = normalized_embeddings.eval()
    mean_norm = np.linalg.norm(final_embeddings, axis=1).mean()
    print("Final embeddings", final_embeddings.shape, "mean norm %.5f" % mean_norm)
