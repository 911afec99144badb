# "Attention Is All You Need" as Kyubyong Park's widely read TF1 Transformer trains it: token embeddings shared
# by encoder, decoder and the output projection, sinusoidal positions, multi-head attention with key and
# future masks, position-wise feed-forward layers, layer normalization, label smoothing, the Noam learning
# rate, and greedy autoregressive decoding for evaluation.
# After: Kyubyong/transformer, its February 2019 version: hparams.py, data_load.py, modules.py, model.py,
# utils.py and train.py (Apache 2.0, Kyubyong Park): the same modules (ln by tf.nn.moments(keep_dims=True) with
# beta and gamma from get_variable under AUTO_REUSE scopes; get_token_embeddings with row 0 concatenated as
# zeros; scaled_dot_product_attention with the key mask tiled over heads and the future mask as -2**32+1 put in
# by tf.where, its attention image summary and tf.layers.dropout; multihead_attention splitting heads with
# tf.split/tf.concat along the batch; ff by tf.layers.dense; label_smoothing; positional_encoding from a numpy
# table by embedding_lookup, masked by tf.where; noam_scheme), the same Transformer (encode/decode under
# AUTO_REUSE scopes, logits by tf.einsum('ntd,dk->ntk') on the transposed embeddings,
# softmax_cross_entropy_with_logits_v2 over non-padding tokens, get_or_create_global_step, Adam on the Noam rate,
# scalar summaries merged; eval decoding maxlen2 times in a Python loop, a random sample shown by tf.py_func and
# tf.summary.text), the same input pipeline (tf.data.Dataset.from_generator with args, shuffle, repeat,
# padded_batch, prefetch; one Iterator.from_structure initialized for train and for eval) and the same training
# loop (Saver(max_to_keep=num_epochs), latest_checkpoint, save_hparams, save_variable_specs, a FileWriter with
# the graph, an evaluation and a checkpoint named after epoch and loss at the end of every epoch).
# Rewritten for this project rather than copied. Edits (each marked "edit:" below): the import line; the
# IWSLT 2016 BPE files -> a synthetic corpus written first (64 training and 8 evaluation sentences of 2 to 5 of
# eight "source" words, each target the word-by-word "translation" into eight other words), a vocabulary of 20;
# d_model 512 -> 16, d_ff 2048 -> 32, num_blocks 6 -> 1, num_heads 8 -> 4, maxlen1/maxlen2 100 -> 6 (the
# evaluation's 100000 -> 6), batch 128 -> 8, num_epochs 20 -> 5, lr 3e-4 -> 1e-2, warmup_steps 4000 -> 4,
# dropout_rate 0.3 -> 0.1; tf.set_random_seed(2019) (the original's weights and shuffles are unseeded);
# tf.contrib.layers.xavier_initializer -> tf.glorot_uniform_initializer (the same distribution);
# tf.linalg.LinearOperatorLowerTriangular(diag_vals).to_dense() -> tf.linalg.band_part(diag_vals, -1, 0) (what
# to_dense computes; the LinearOperator classes are not emulated); the argparse arguments -> their defaults
# (parse_args([])); logging.info -> print and tqdm -> range; eval_init_op run before eval_summaries rather than
# in the same run (in one run the iterator's initializer and get_next race); multi-bleu.perl left out: the
# loss of each epoch, the first hypotheses and the variable specs (without the Adam slots) printed, and the
# checkpoints kept and the event file's tags read back.
import argparse
import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf


# ---- hparams.py
class Hparams:
    parser = argparse.ArgumentParser()
    parser.add_argument('--vocab_size', default=20, type=int)  # edit: 32000
    parser.add_argument('--train1', default='corpus/train.src', help="source training data")  # edit: paths
    parser.add_argument('--train2', default='corpus/train.tgt', help="target training data")
    parser.add_argument('--eval1', default='corpus/eval.src', help="source evaluation data")
    parser.add_argument('--eval2', default='corpus/eval.tgt', help="target evaluation data")
    parser.add_argument('--eval3', default='corpus/eval.tgt', help="target evaluation data, unsegmented")
    parser.add_argument('--vocab', default='corpus/bpe.vocab', help="vocabulary file path")
    parser.add_argument('--batch_size', default=8, type=int)  # edit: 128
    parser.add_argument('--eval_batch_size', default=8, type=int)
    parser.add_argument('--lr', default=0.01, type=float, help="learning rate")  # edit: 0.0003
    parser.add_argument('--warmup_steps', default=4, type=int)  # edit: 4000
    parser.add_argument('--logdir', default="log/1", help="log directory")
    parser.add_argument('--num_epochs', default=5, type=int)  # edit: 20
    parser.add_argument('--evaldir', default="eval/1", help="evaluation dir")
    parser.add_argument('--d_model', default=16, type=int, help="hidden dimension of encoder/decoder")  # edit: 512
    parser.add_argument('--d_ff', default=32, type=int, help="hidden dimension of feedforward layer")  # edit
    parser.add_argument('--num_blocks', default=1, type=int, help="number of encoder/decoder blocks")  # edit: 6
    parser.add_argument('--num_heads', default=4, type=int, help="number of attention heads")  # edit: 8
    parser.add_argument('--maxlen1', default=6, type=int, help="maximum length of a source sequence")  # edit
    parser.add_argument('--maxlen2', default=6, type=int, help="maximum length of a target sequence")  # edit
    parser.add_argument('--dropout_rate', default=0.1, type=float)  # edit: 0.3
    parser.add_argument('--smoothing', default=0.1, type=float, help="label smoothing rate")


# ---- utils.py
def calc_num_batches(total_num, batch_size):
    """The number of batches, a last partial one included."""
    return total_num // batch_size + int(total_num % batch_size != 0)


def convert_idx_to_token_tensor(inputs, idx2token):
    """A 1-D int32 tensor of ids as one string tensor of tokens."""
    def my_func(inputs):
        return " ".join(idx2token[elem] for elem in inputs)

    return tf.py_func(my_func, [inputs], tf.string)


def postprocess(hypotheses, idx2token):
    """Token ids -> sentences, cut at the first </s>, BPE markers turned into spaces."""
    _hypotheses = []
    for h in hypotheses:
        sent = "".join(idx2token[idx] for idx in h)
        sent = sent.split("</s>")[0].strip()
        sent = sent.replace("\u2581", " ")  # remove bpe symbols
        _hypotheses.append(sent.strip())
    return _hypotheses


def save_hparams(hparams, path):
    """Writes the hyper-parameters as JSON into ``path``/hparams."""
    if not os.path.exists(path):
        os.makedirs(path)
    hp = json.dumps(vars(hparams))
    with open(os.path.join(path, "hparams"), 'w') as fout:
        fout.write(hp)


def save_variable_specs(fpath):
    """Writes every variable's name and shape, and their number of parameters, to ``fpath``."""
    def _get_size(shp):
        size = 1
        for d in range(len(shp)):
            size *= shp[d]
        return size

    params, num_params = [], 0
    for v in tf.global_variables():
        params.append("{}==={}".format(v.name, v.shape))
        num_params += _get_size(v.shape)
    print("num_params: ", num_params)
    with open(fpath, 'w') as fout:
        fout.write("num_params: {}\n".format(num_params))
        fout.write("\n".join(params))
    print("Variables info has been saved.")  # edit: logging.info


def get_hypotheses(num_batches, num_samples, sess, tensor, dict):
    """Runs ``tensor`` for ``num_batches`` batches; the first ``num_samples`` decoded sentences."""
    hypotheses = []
    for _ in range(num_batches):
        h = sess.run(tensor)
        hypotheses.extend(h.tolist())
    hypotheses = postprocess(hypotheses, dict)
    return hypotheses[:num_samples]


# ---- data_load.py
def load_vocab(vocab_fpath):
    """token->id and id->token maps; 0: <pad>, 1: <unk>, 2: <s>, 3: </s>."""
    vocab = [line.split()[0] for line in open(vocab_fpath, 'r', encoding='UTF-8').read().splitlines()]
    token2idx = {token: idx for idx, token in enumerate(vocab)}
    idx2token = {idx: token for idx, token in enumerate(vocab)}
    return token2idx, idx2token


def load_data(fpath1, fpath2, maxlen1, maxlen2):
    """The sentence pairs whose lengths (with </s>) fit maxlen1 and maxlen2."""
    sents1, sents2 = [], []
    with open(fpath1, 'r', encoding='UTF-8') as f1, open(fpath2, 'r', encoding='UTF-8') as f2:
        for sent1, sent2 in zip(f1, f2):
            if len(sent1.split()) + 1 > maxlen1:
                continue  # 1: </s>
            if len(sent2.split()) + 1 > maxlen2:
                continue  # 1: </s>
            sents1.append(sent1.strip())
            sents2.append(sent2.strip())
    return sents1, sents2


def encode(inp, type, dict):
    """A sentence (bytes) as token ids: "x" gets </s> appended, "y" <s> and </s> around it."""
    inp_str = inp.decode("utf-8")
    if type == "x":
        tokens = inp_str.split() + ["</s>"]
    else:
        tokens = ["<s>"] + inp_str.split() + ["</s>"]
    return [dict.get(t, dict["<unk>"]) for t in tokens]


def generator_fn(sents1, sents2, vocab_fpath):
    """Yields ((x, x_seqlen, sent1), (decoder_input, y, y_seqlen, sent2)) per sentence pair."""
    token2idx, _ = load_vocab(vocab_fpath)
    for sent1, sent2 in zip(sents1, sents2):
        x = encode(sent1, "x", token2idx)
        y = encode(sent2, "y", token2idx)
        decoder_input, y = y[:-1], y[1:]
        x_seqlen, y_seqlen = len(x), len(y)
        yield (x, x_seqlen, sent1), (decoder_input, y, y_seqlen, sent2)


def input_fn(sents1, sents2, vocab_fpath, batch_size, shuffle=False):
    """The padded batches, repeated forever (shuffled for training)."""
    shapes = (([None], (), ()),
              ([None], [None], (), ()))
    types = ((tf.int32, tf.int32, tf.string),
             (tf.int32, tf.int32, tf.int32, tf.string))
    paddings = ((0, 0, ''),
                (0, 0, 0, ''))
    dataset = tf.data.Dataset.from_generator(
        generator_fn, output_shapes=shapes, output_types=types,
        args=(sents1, sents2, vocab_fpath))  # the arguments arrive as numpy arrays of bytes
    if shuffle:  # for training
        dataset = dataset.shuffle(128 * batch_size)
    dataset = dataset.repeat()  # iterate forever
    dataset = dataset.padded_batch(batch_size, shapes, paddings).prefetch(1)
    return dataset


def get_batch(fpath1, fpath2, maxlen1, maxlen2, vocab_fpath, batch_size, shuffle=False):
    """(batches, number of batches, number of samples) of a corpus."""
    sents1, sents2 = load_data(fpath1, fpath2, maxlen1, maxlen2)
    batches = input_fn(sents1, sents2, vocab_fpath, batch_size, shuffle=shuffle)
    num_batches = calc_num_batches(len(sents1), batch_size)
    return batches, num_batches, len(sents1)


# ---- modules.py
def ln(inputs, epsilon=1e-8, scope="ln"):
    """Layer normalization over the last axis."""
    with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
        inputs_shape = inputs.get_shape()
        params_shape = inputs_shape[-1:]
        mean, variance = tf.nn.moments(inputs, [-1], keep_dims=True)
        beta = tf.get_variable("beta", params_shape, initializer=tf.zeros_initializer())
        gamma = tf.get_variable("gamma", params_shape, initializer=tf.ones_initializer())
        normalized = (inputs - mean) / ((variance + epsilon) ** (.5))
        outputs = gamma * normalized + beta
    return outputs


def get_token_embeddings(vocab_size, num_units, zero_pad=True):
    """The (vocab_size, num_units) embedding matrix, its row 0 (<pad>) constant zeros."""
    with tf.variable_scope("shared_weight_matrix"):
        embeddings = tf.get_variable('weight_mat', dtype=tf.float32, shape=(vocab_size, num_units),
                                     initializer=tf.glorot_uniform_initializer())  # edit: contrib's xavier
        if zero_pad:
            embeddings = tf.concat((tf.zeros(shape=[1, num_units]), embeddings[1:, :]), 0)
    return embeddings


def scaled_dot_product_attention(Q, K, V, key_masks, causality=False, dropout_rate=0., training=True,
                                 scope="scaled_dot_product_attention"):
    """softmax(QK^T / sqrt(d_k)) V with key (and future) masking; Q (N, T_q, d_k), K and V (N, T_k, d)."""
    with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
        d_k = Q.get_shape().as_list()[-1]
        outputs = tf.matmul(Q, tf.transpose(K, [0, 2, 1]))  # (N, T_q, T_k)
        outputs /= d_k ** 0.5
        outputs = mask(outputs, key_masks=key_masks, type="key")
        if causality:
            outputs = mask(outputs, type="future")
        outputs = tf.nn.softmax(outputs)
        attention = tf.transpose(outputs, [0, 2, 1])
        tf.summary.image("attention", tf.expand_dims(attention[:1], -1))
        outputs = tf.layers.dropout(outputs, rate=dropout_rate, training=training)
        outputs = tf.matmul(outputs, V)  # (N, T_q, d_v)
    return outputs


def mask(inputs, key_masks=None, type=None):
    """Adds a huge negative number where keys are padding ("key") or lie in the future ("future")."""
    padding_num = -2 ** 32 + 1
    if type in ("k", "key", "keys"):
        key_masks = tf.to_float(key_masks)
        key_masks = tf.tile(key_masks, [tf.shape(inputs)[0] // tf.shape(key_masks)[0], 1])  # (h*N, seqlen)
        key_masks = tf.expand_dims(key_masks, 1)  # (h*N, 1, seqlen)
        outputs = inputs + key_masks * padding_num
    elif type in ("f", "future", "right"):
        diag_vals = tf.ones_like(inputs[0, :, :])  # (T_q, T_k)
        tril = tf.linalg.band_part(diag_vals, -1, 0)  # edit: LinearOperatorLowerTriangular(...).to_dense()
        future_masks = tf.tile(tf.expand_dims(tril, 0), [tf.shape(inputs)[0], 1, 1])  # (N, T_q, T_k)
        paddings = tf.ones_like(future_masks) * padding_num
        outputs = tf.where(tf.equal(future_masks, 0), paddings, inputs)
    else:
        print("Check if you entered type correctly!")
    return outputs


def multihead_attention(queries, keys, values, key_masks, num_heads=8, dropout_rate=0, training=True,
                        causality=False, scope="multihead_attention"):
    """Multi-head attention with a residual connection and layer normalization; (N, T_q, d_model)."""
    d_model = queries.get_shape().as_list()[-1]
    with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
        Q = tf.layers.dense(queries, d_model, use_bias=True)  # (N, T_q, d_model)
        K = tf.layers.dense(keys, d_model, use_bias=True)  # (N, T_k, d_model)
        V = tf.layers.dense(values, d_model, use_bias=True)  # (N, T_k, d_model)
        # heads side by side along the batch axis
        Q_ = tf.concat(tf.split(Q, num_heads, axis=2), axis=0)  # (h*N, T_q, d_model/h)
        K_ = tf.concat(tf.split(K, num_heads, axis=2), axis=0)  # (h*N, T_k, d_model/h)
        V_ = tf.concat(tf.split(V, num_heads, axis=2), axis=0)  # (h*N, T_k, d_model/h)
        outputs = scaled_dot_product_attention(Q_, K_, V_, key_masks, causality, dropout_rate, training)
        outputs = tf.concat(tf.split(outputs, num_heads, axis=0), axis=2)  # (N, T_q, d_model)
        outputs += queries
        outputs = ln(outputs)
    return outputs


def ff(inputs, num_units, scope="positionwise_feedforward"):
    """Two dense layers (ReLU inside) with a residual connection and layer normalization."""
    with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
        outputs = tf.layers.dense(inputs, num_units[0], activation=tf.nn.relu)
        outputs = tf.layers.dense(outputs, num_units[1])
        outputs += inputs
        outputs = ln(outputs)
    return outputs


def label_smoothing(inputs, epsilon=0.1):
    """(1 - epsilon) * one-hot + epsilon / V."""
    V = inputs.get_shape().as_list()[-1]  # number of channels
    return ((1 - epsilon) * inputs) + (epsilon / V)


def positional_encoding(inputs, maxlen, masking=True, scope="positional_encoding"):
    """The sinusoidal position encodings of (N, T, E) inputs, zero where the inputs are zero."""
    E = inputs.get_shape().as_list()[-1]  # static
    N, T = tf.shape(inputs)[0], tf.shape(inputs)[1]  # dynamic
    with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
        position_ind = tf.tile(tf.expand_dims(tf.range(T), 0), [N, 1])  # (N, T)
        position_enc = np.array([[pos / np.power(10000, (i - i % 2) / E) for i in range(E)]
                                 for pos in range(maxlen)])
        position_enc[:, 0::2] = np.sin(position_enc[:, 0::2])  # dim 2i
        position_enc[:, 1::2] = np.cos(position_enc[:, 1::2])  # dim 2i+1
        position_enc = tf.convert_to_tensor(position_enc, tf.float32)  # (maxlen, E)
        outputs = tf.nn.embedding_lookup(position_enc, position_ind)
        if masking:
            outputs = tf.where(tf.equal(inputs, 0), inputs, outputs)
        return tf.to_float(outputs)


def noam_scheme(init_lr, global_step, warmup_steps=4000.):
    """Linear warm-up for warmup_steps, then decay with the inverse square root of the step."""
    step = tf.cast(global_step + 1, dtype=tf.float32)
    return init_lr * warmup_steps ** 0.5 * tf.minimum(step * warmup_steps ** -1.5, step ** -0.5)


# ---- model.py
class Transformer:
    """xs: (x, x_seqlens, sents1); ys: (decoder_input, y, y_seqlen, sents2)."""

    def __init__(self, hp):
        self.hp = hp
        self.token2idx, self.idx2token = load_vocab(hp.vocab)
        self.embeddings = get_token_embeddings(self.hp.vocab_size, self.hp.d_model, zero_pad=True)

    def encode(self, xs, training=True):
        """memory (N, T1, d_model), the source sentences and the source padding mask."""
        with tf.variable_scope("encoder", reuse=tf.AUTO_REUSE):
            x, seqlens, sents1 = xs
            src_masks = tf.math.equal(x, 0)  # (N, T1)
            enc = tf.nn.embedding_lookup(self.embeddings, x)  # (N, T1, d_model)
            enc *= self.hp.d_model ** 0.5  # scale
            enc += positional_encoding(enc, self.hp.maxlen1)
            enc = tf.layers.dropout(enc, self.hp.dropout_rate, training=training)
            for i in range(self.hp.num_blocks):
                with tf.variable_scope("num_blocks_{}".format(i), reuse=tf.AUTO_REUSE):
                    enc = multihead_attention(queries=enc, keys=enc, values=enc, key_masks=src_masks,
                                              num_heads=self.hp.num_heads, dropout_rate=self.hp.dropout_rate,
                                              training=training, causality=False)
                    enc = ff(enc, num_units=[self.hp.d_ff, self.hp.d_model])
        memory = enc
        return memory, sents1, src_masks

    def decode(self, ys, memory, src_masks, training=True):
        """logits (N, T2, V), predictions y_hat (N, T2), y and the target sentences."""
        with tf.variable_scope("decoder", reuse=tf.AUTO_REUSE):
            decoder_inputs, y, seqlens, sents2 = ys
            tgt_masks = tf.math.equal(decoder_inputs, 0)  # (N, T2)
            dec = tf.nn.embedding_lookup(self.embeddings, decoder_inputs)  # (N, T2, d_model)
            dec *= self.hp.d_model ** 0.5  # scale
            dec += positional_encoding(dec, self.hp.maxlen2)
            dec = tf.layers.dropout(dec, self.hp.dropout_rate, training=training)
            for i in range(self.hp.num_blocks):
                with tf.variable_scope("num_blocks_{}".format(i), reuse=tf.AUTO_REUSE):
                    dec = multihead_attention(queries=dec, keys=dec, values=dec, key_masks=tgt_masks,
                                              num_heads=self.hp.num_heads, dropout_rate=self.hp.dropout_rate,
                                              training=training, causality=True, scope="self_attention")
                    dec = multihead_attention(queries=dec, keys=memory, values=memory, key_masks=src_masks,
                                              num_heads=self.hp.num_heads, dropout_rate=self.hp.dropout_rate,
                                              training=training, causality=False, scope="vanilla_attention")
                    dec = ff(dec, num_units=[self.hp.d_ff, self.hp.d_model])
        # the output projection shares the embedding weights
        weights = tf.transpose(self.embeddings)  # (d_model, vocab_size)
        logits = tf.einsum('ntd,dk->ntk', dec, weights)  # (N, T2, vocab_size)
        y_hat = tf.to_int32(tf.argmax(logits, axis=-1))
        return logits, y_hat, y, sents2

    def train(self, xs, ys):
        """loss, train_op, global_step and the merged training summaries."""
        memory, sents1, src_masks = self.encode(xs)
        logits, preds, y, sents2 = self.decode(ys, memory, src_masks)

        y_ = label_smoothing(tf.one_hot(y, depth=self.hp.vocab_size))
        ce = tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=y_)
        nonpadding = tf.to_float(tf.not_equal(y, self.token2idx["<pad>"]))  # 0: <pad>
        loss = tf.reduce_sum(ce * nonpadding) / (tf.reduce_sum(nonpadding) + 1e-7)

        global_step = tf.train.get_or_create_global_step()
        lr = noam_scheme(self.hp.lr, global_step, self.hp.warmup_steps)
        optimizer = tf.train.AdamOptimizer(lr)
        train_op = optimizer.minimize(loss, global_step=global_step)

        tf.summary.scalar('lr', lr)
        tf.summary.scalar("loss", loss)
        tf.summary.scalar("global_step", global_step)
        summaries = tf.summary.merge_all()
        return loss, train_op, global_step, summaries

    def eval(self, xs, ys):
        """Greedy autoregressive predictions y_hat (N, T2) (the given ys are ignored) and all summaries."""
        decoder_inputs, y, y_seqlen, sents2 = ys
        decoder_inputs = tf.ones((tf.shape(xs[0])[0], 1), tf.int32) * self.token2idx["<s>"]
        ys = (decoder_inputs, y, y_seqlen, sents2)

        memory, sents1, src_masks = self.encode(xs, False)

        print("Inference graph is being built. Please be patient.")  # edit: logging.info
        for _ in range(self.hp.maxlen2):  # edit: tqdm
            logits, y_hat, y, sents2 = self.decode(ys, memory, src_masks, False)
            if tf.reduce_sum(y_hat, 1) == self.token2idx["<pad>"]:
                break
            _decoder_inputs = tf.concat((decoder_inputs, y_hat), 1)
            ys = (_decoder_inputs, y, y_seqlen, sents2)

        # monitor a random sample
        n = tf.random_uniform((), 0, tf.shape(y_hat)[0] - 1, tf.int32)
        sent1 = sents1[n]
        pred = convert_idx_to_token_tensor(y_hat[n], self.idx2token)
        sent2 = sents2[n]
        tf.summary.text("sent1", sent1)
        tf.summary.text("pred", pred)
        tf.summary.text("sent2", sent2)
        summaries = tf.summary.merge_all()
        return y_hat, summaries


# ---- edit: a synthetic parallel corpus in place of IWSLT 2016's
def write_corpus(directory, rng):
    """Writes the vocabulary and train/eval source and target files: eight source words, each with its own
    target word; a target sentence translates its source word by word."""
    source, target = "abcdefgh", "ABCDEFGH"
    vocab = ["<pad>", "<unk>", "<s>", "</s>"] + list(source) + list(target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "bpe.vocab"), "w", encoding="UTF-8") as f:
        f.write("".join("%s\t%d\n" % (token, -i) for i, token in enumerate(vocab)))
    for split, count in (("train", 64), ("eval", 8)):
        sents = [rng.randint(0, 8, size=rng.randint(2, 6)) for _ in range(count)]
        with open(os.path.join(directory, split + ".src"), "w", encoding="UTF-8") as f:
            f.write("".join(" ".join(source[i] for i in s) + "\n" for s in sents))
        with open(os.path.join(directory, split + ".tgt"), "w", encoding="UTF-8") as f:
            f.write("".join(" ".join(target[i] for i in s) + "\n" for s in sents))


# ---- train.py
tf.set_random_seed(2019)  # edit: seeded
write_corpus("corpus", np.random.RandomState(7))  # edit: the synthetic corpus

print("# hparams")
hparams = Hparams()
parser = hparams.parser
hp = parser.parse_args([])  # edit: the defaults, not the driver's command line
save_hparams(hp, hp.logdir)

print("# Prepare train/eval batches")
train_batches, num_train_batches, num_train_samples = get_batch(hp.train1, hp.train2, hp.maxlen1, hp.maxlen2,
                                                                hp.vocab, hp.batch_size, shuffle=True)
eval_batches, num_eval_batches, num_eval_samples = get_batch(hp.eval1, hp.eval2, 6, 6,  # edit: 100000
                                                             hp.vocab, hp.batch_size, shuffle=False)

# one iterator of the batches' structure, initialized for training or for evaluation
iter = tf.data.Iterator.from_structure(train_batches.output_types, train_batches.output_shapes)
xs, ys = iter.get_next()

train_init_op = iter.make_initializer(train_batches)
eval_init_op = iter.make_initializer(eval_batches)

print("# Load model")
m = Transformer(hp)
loss, train_op, global_step, train_summaries = m.train(xs, ys)
y_hat, eval_summaries = m.eval(xs, ys)

print("# Session")
saver = tf.train.Saver(max_to_keep=hp.num_epochs)
with tf.Session() as sess:
    ckpt = tf.train.latest_checkpoint(hp.logdir)
    if ckpt is None:
        print("Initializing from scratch")
        sess.run(tf.global_variables_initializer())
        save_variable_specs(os.path.join(hp.logdir, "specs"))
        specs = open(os.path.join(hp.logdir, "specs")).read().splitlines()
        print("\n".join(line for line in specs if "/Adam" not in line))  # edit: the specs printed, but slots
    else:
        saver.restore(sess, ckpt)

    summary_writer = tf.summary.FileWriter(hp.logdir, sess.graph)

    sess.run(train_init_op)
    total_steps = hp.num_epochs * num_train_batches
    _gs = sess.run(global_step)
    for i in range(_gs, total_steps + 1):  # edit: tqdm
        _, _gs, _summary = sess.run([train_op, global_step, train_summaries])
        epoch = math.ceil(_gs / num_train_batches)
        summary_writer.add_summary(_summary, _gs)

        if _gs and _gs % num_train_batches == 0:
            print("epoch {} is done".format(epoch))
            _loss = sess.run(loss)  # train loss
            print("loss", _loss)  # edit: printed

            print("# test evaluation")
            sess.run(eval_init_op)  # edit: its own run, before the summaries
            _eval_summaries = sess.run(eval_summaries)
            summary_writer.add_summary(_eval_summaries, _gs)

            print("# get hypotheses")
            hypotheses = get_hypotheses(num_eval_batches, num_eval_samples, sess, y_hat, m.idx2token)

            print("# write results")
            model_output = "iwslt2016_E%02dL%.2f" % (epoch, _loss)
            if not os.path.exists(hp.evaldir):
                os.makedirs(hp.evaldir)
            translation = os.path.join(hp.evaldir, model_output)
            with open(translation, 'w') as fout:
                fout.write("\n".join(hypotheses))
            print("\n".join(hypotheses[:4]))  # edit: printed (multi-bleu.perl left out)

            print("# save models")
            ckpt_name = os.path.join(hp.logdir, model_output)
            saver.save(sess, ckpt_name, global_step=_gs)
            print("after training of {} epochs, {} has been saved.".format(epoch, ckpt_name))

            print("# fall back to train mode")
            sess.run(train_init_op)
    summary_writer.close()

print("Done")

# edit: the checkpoints kept and the summaries written, read back
print(sorted(os.path.basename(p) for p in tf.train.get_checkpoint_state(hp.logdir).all_model_checkpoint_paths))
tags = set()
for name in sorted(os.listdir(hp.logdir)):
    if name.startswith("events.out.tfevents"):
        for event in tf.train.summary_iterator(os.path.join(hp.logdir, name)):
            if event.HasField("summary"):
                tags.update(value.tag for value in event.summary.value)
print(len(tags), "tags:", sorted(tags)[:6], sorted(tags)[-4:])
