# A policy-gradient agent balancing a cart-pole: a two-layer softmax policy without biases, the log-probability of
# each action taken picked out of the flattened output by tf.range * width + action and tf.gather, gradients
# computed per episode by tf.gradients, summed in numpy and fed back through shapeless placeholders to
# AdamOptimizer.apply_gradients every few episodes.
# After: awjuliani/DeepRL-Agents, Vanilla-Policy.ipynb (MIT, Arthur Juliani): gamma 0.99 and discount_rewards;
# the agent class (state_in, a ReLU hidden layer of h_size and a softmax output without biases, chosen_action,
# reward_holder / action_holder, indexes = range(0, shape[0]) * shape[1] + action_holder, responsible_outputs,
# loss = -reduce_mean(log(responsible_outputs) * reward_holder), one '<idx>_holder' placeholder per trainable
# variable, tf.gradients, AdamOptimizer(lr).apply_gradients(zip(gradient_holders, tvars))); agent(lr=1e-2,
# s_size=4, a_size=2, h_size=8), max_ep 999, update_frequency 5; gradBuffer from sess.run(tf.trainable_variables())
# zeroed, actions drawn by np.random.choice(a_dist[0], p=a_dist[0]) then np.argmax(a_dist == a), the episode's
# discounted rewards, the buffer applied and zeroed every 5 episodes, the mean of the last 100 rewards printed
# every 100 episodes. Rewritten for this project rather than copied (Python 3). Edits: the import line;
# gym's CartPole-v0 -> the same cart-pole equations, thresholds and 200-step limit written here (its starting
# state drawn from its own seeded RandomState); slim.fully_connected(biases_initializer=None) ->
# tf.layers.dense(use_bias=False) (tf.contrib is gone; both start from Glorot-uniform weights);
# ep_history as np.array(..., dtype=object) (numpy no longer makes ragged arrays silently);
# np.random.seed / tf.set_random_seed (the notebook is unseeded); total_episodes 5000 -> 200 and the mean
# printed every 50 episodes instead of 100; a last line printing the trained policy for a pole leaning right.
import math

import numpy as np
import tensorflow.compat.v1 as tf

np.random.seed(2)


class CartPole(object):
    """CartPole-v0's dynamics (Euler steps of 0.02 s), its failure thresholds and its 200-step episodes."""

    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.total_mass = self.masspole + self.masscart
        self.polemass_length = self.masspole * self.length

    def reset(self):
        self.state = self.rng.uniform(low=-0.05, high=0.05, size=(4,))
        self.steps = 0
        return np.array(self.state)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot * theta_dot * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta * costheta / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self.steps += 1
        done = (x < -self.x_threshold or x > self.x_threshold or theta < -self.theta_threshold_radians
                or theta > self.theta_threshold_radians or self.steps >= 200)
        return np.array(self.state), 1.0, done, {}


env = CartPole(seed=0)  # edit: gym.make('CartPole-v0')

gamma = 0.99


def discount_rewards(r):
    """The discounted return from each step of a 1-D reward array to the episode's end."""
    discounted_r = np.zeros_like(r)
    running_add = 0
    for t in reversed(range(0, r.size)):
        running_add = running_add * gamma + r[t]
        discounted_r[t] = running_add
    return discounted_r


class agent():
    def __init__(self, lr, s_size, a_size, h_size):
        # the state in, a probability for each action out
        self.state_in = tf.placeholder(shape=[None, s_size], dtype=tf.float32)
        hidden = tf.layers.dense(self.state_in, h_size, use_bias=False, activation=tf.nn.relu)
        self.output = tf.layers.dense(hidden, a_size, activation=tf.nn.softmax, use_bias=False)
        self.chosen_action = tf.argmax(self.output, 1)

        # the probability of each action taken, picked out of the flattened outputs, weighted by its return
        self.reward_holder = tf.placeholder(shape=[None], dtype=tf.float32)
        self.action_holder = tf.placeholder(shape=[None], dtype=tf.int32)
        self.indexes = tf.range(0, tf.shape(self.output)[0]) * tf.shape(self.output)[1] + self.action_holder
        self.responsible_outputs = tf.gather(tf.reshape(self.output, [-1]), self.indexes)
        self.loss = -tf.reduce_mean(tf.log(self.responsible_outputs) * self.reward_holder)

        # gradients leave the graph, are summed over episodes, and come back through placeholders
        tvars = tf.trainable_variables()
        self.gradient_holders = []
        for idx, var in enumerate(tvars):
            placeholder = tf.placeholder(tf.float32, name=str(idx) + '_holder')
            self.gradient_holders.append(placeholder)
        self.gradients = tf.gradients(self.loss, tvars)
        optimizer = tf.train.AdamOptimizer(learning_rate=lr)
        self.update_batch = optimizer.apply_gradients(zip(self.gradient_holders, tvars))


tf.reset_default_graph()
tf.set_random_seed(2)  # edit: seeded
myAgent = agent(lr=1e-2, s_size=4, a_size=2, h_size=8)

total_episodes = 200  # edit: 5000
max_ep = 999
update_frequency = 5

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    i = 0
    total_reward = []
    total_length = []

    gradBuffer = sess.run(tf.trainable_variables())
    for ix, grad in enumerate(gradBuffer):
        gradBuffer[ix] = grad * 0

    while i < total_episodes:
        s = env.reset()
        running_reward = 0
        ep_history = []
        for j in range(max_ep):
            # sample an action from the policy's probabilities
            a_dist = sess.run(myAgent.output, feed_dict={myAgent.state_in: [s]})
            a = np.random.choice(a_dist[0], p=a_dist[0])
            a = np.argmax(a_dist == a)

            s1, r, d, _ = env.step(a)
            ep_history.append([s, a, r, s1])
            s = s1
            running_reward += r
            if d:
                ep_history = np.array(ep_history, dtype=object)
                ep_history[:, 2] = discount_rewards(ep_history[:, 2])
                feed_dict = {myAgent.reward_holder: ep_history[:, 2],
                             myAgent.action_holder: ep_history[:, 1],
                             myAgent.state_in: np.vstack(ep_history[:, 0])}
                grads = sess.run(myAgent.gradients, feed_dict=feed_dict)
                for idx, grad in enumerate(grads):
                    gradBuffer[idx] += grad

                if i % update_frequency == 0 and i != 0:
                    feed_dict = dict(zip(myAgent.gradient_holders, gradBuffer))
                    _ = sess.run(myAgent.update_batch, feed_dict=feed_dict)
                    for ix, grad in enumerate(gradBuffer):
                        gradBuffer[ix] = grad * 0

                total_reward.append(running_reward)
                total_length.append(j)
                break

        if i % 50 == 0:  # edit: every 100
            print(np.mean(total_reward[-100:]))
        i += 1
    # edit: the trained policy for a pole leaning right
    leaning_right = [[0., 0., 0.1, 0.]]
    print('policy for a pole leaning right:', sess.run(myAgent.output, feed_dict={myAgent.state_in: leaning_right})[0])
