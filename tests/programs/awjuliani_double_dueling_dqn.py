# A Double-Dueling DQN learning a grid world from its pixels: four VALID convolutions, the last split by tf.split
# into an advantage and a value stream, Q = V + (A - mean A), a target network pulled towards the main one by
# soft updates built from Variable.value(), an experience buffer and Double-DQN targets.
# After: awjuliani/DeepRL-Agents, Double-Dueling-DQN.ipynb and gridworld.py (MIT, Arthur Juliani): the Qnetwork
# class (scalarInput of 21168 reshaped to 84x84x3, conv 32@8/4, 64@4/2, 64@3/1, h_size@7/1 without biases,
# tf.split(conv4, 2, 3), flatten, AW / VW from tf.random_normal, reduce_mean(keep_dims=True), argmax predict,
# one_hot actions, reduce_sum(multiply), square TD error, AdamOptimizer(0.0001)); experience_buffer with its
# add / sample; updateTargetGraph over the first and second halves of tf.trainable_variables() with tau;
# batch_size 32, update_freq 4, y .99, startE 1, endE 0.1, max_epLength 50; the Double-DQN target
# (mainQN.predict on the next states indexing targetQN.Qout, end_multiplier); the Saver and its
# 'model-<i>.cptk' checkpoints, "Saved Model", the (total_steps, mean reward of the last 10, e) lines and the
# percentage of successful episodes; gameEnv's hero / goal / fire objects, moves, rewards and rendering.
# Rewritten for this project rather than copied (Python 3). Edits: the import line; slim.conv2d ->
# tf.layers.conv2d(activation=tf.nn.relu, use_bias=False) and slim.flatten -> tf.layers.flatten (tf.contrib is
# gone); gameEnv's scipy.misc.imresize(interp='nearest') of the 7x7 board -> each cell repeated 12x12 with
# values 0/255 (what imresize returned; scipy.misc is gone); gameEnv(partial=False, size=5) without its
# matplotlib preview; experiences in np.array(..., dtype=object) (numpy no longer makes ragged arrays
# silently); np.random.seed / random.seed / tf.set_random_seed (the notebook is unseeded); num_episodes
# 10000 -> 8, pre_train_steps 10000 -> 100, annealing_steps 10000 -> 500, h_size 512 -> 64 and batch_size
# 32 -> 8 (speed); the model saved every 4 episodes instead of every 1000 and the progress line printed every
# 4 episodes instead of 10; a last line printing the main network's Q values for the first board (the notebook
# plotted rewards instead). Longer runs part ways with TF's, and not by a bug: run for 24 episodes (200
# pre-training steps), ours agreed with TF to 1e-6 until step 1140, where a conv2 pre-activation of 1e-6 (a sum
# of terms near 100) took the other sign under a different float32 summation order, its ReLU gradient flipped
# and Adam carried the difference on (TF on our weights of that step flips it too).
from __future__ import division

import itertools
import os
import random

import numpy as np
import tensorflow.compat.v1 as tf

np.random.seed(4)
random.seed(4)


class gameOb():
    def __init__(self, coordinates, size, intensity, channel, reward, name):
        self.x, self.y = coordinates
        self.size = size
        self.intensity = intensity
        self.channel = channel
        self.reward = reward
        self.name = name


class gameEnv():
    def __init__(self, partial, size):
        self.sizeX = size
        self.sizeY = size
        self.actions = 4
        self.objects = []
        self.partial = partial
        self.reset()

    def reset(self):
        self.objects = []
        for channel, reward, name in [(2, None, 'hero'), (1, 1, 'goal'), (0, -1, 'fire'), (1, 1, 'goal'),
                                      (0, -1, 'fire'), (1, 1, 'goal'), (1, 1, 'goal')]:
            self.objects.append(gameOb(self.newPosition(), 1, 1, channel, reward, name))
        self.state = self.renderEnv()
        return self.state

    def moveChar(self, direction):
        # 0 - up, 1 - down, 2 - left, 3 - right
        hero = self.objects[0]
        if direction == 0 and hero.y >= 1:
            hero.y -= 1
        if direction == 1 and hero.y <= self.sizeY - 2:
            hero.y += 1
        if direction == 2 and hero.x >= 1:
            hero.x -= 1
        if direction == 3 and hero.x <= self.sizeX - 2:
            hero.x += 1
        return 0.

    def newPosition(self):
        points = list(itertools.product(range(self.sizeX), range(self.sizeY)))
        taken = []
        for other in self.objects:
            if (other.x, other.y) not in taken:
                taken.append((other.x, other.y))
        for position in taken:
            points.remove(position)
        return points[np.random.choice(range(len(points)), replace=False)]

    def checkGoal(self):
        hero = self.objects[0]
        for other in self.objects[1:]:
            if hero.x == other.x and hero.y == other.y:
                self.objects.remove(other)
                if other.reward == 1:
                    self.objects.append(gameOb(self.newPosition(), 1, 1, 1, 1, 'goal'))
                else:
                    self.objects.append(gameOb(self.newPosition(), 1, 1, 0, -1, 'fire'))
                return other.reward, False
        return 0.0, False

    def renderEnv(self):
        a = np.ones([self.sizeY + 2, self.sizeX + 2, 3])
        a[1:-1, 1:-1, :] = 0
        for item in self.objects:
            a[item.y + 1:item.y + item.size + 1, item.x + 1:item.x + item.size + 1, item.channel] = item.intensity
        # edit: imresize(..., [84, 84], interp='nearest') of each channel, as uint8 0..255
        return np.repeat(np.repeat(a * 255, 12, axis=0), 12, axis=1).astype(np.uint8)

    def step(self, action):
        penalty = self.moveChar(action)
        reward, done = self.checkGoal()
        return self.renderEnv(), reward + penalty, done


env = gameEnv(partial=False, size=5)


class Qnetwork():
    def __init__(self, h_size):
        # the flattened frame, back to an image, through four convolutions
        self.scalarInput = tf.placeholder(shape=[None, 21168], dtype=tf.float32)
        self.imageIn = tf.reshape(self.scalarInput, shape=[-1, 84, 84, 3])
        self.conv1 = tf.layers.conv2d(inputs=self.imageIn, filters=32, kernel_size=[8, 8], strides=[4, 4],
                                      padding='VALID', activation=tf.nn.relu, use_bias=False)
        self.conv2 = tf.layers.conv2d(inputs=self.conv1, filters=64, kernel_size=[4, 4], strides=[2, 2],
                                      padding='VALID', activation=tf.nn.relu, use_bias=False)
        self.conv3 = tf.layers.conv2d(inputs=self.conv2, filters=64, kernel_size=[3, 3], strides=[1, 1],
                                      padding='VALID', activation=tf.nn.relu, use_bias=False)
        self.conv4 = tf.layers.conv2d(inputs=self.conv3, filters=h_size, kernel_size=[7, 7], strides=[1, 1],
                                      padding='VALID', activation=tf.nn.relu, use_bias=False)
        # half the channels estimate the advantage of each action, half the value of the state
        self.streamAC, self.streamVC = tf.split(self.conv4, 2, 3)
        self.streamA = tf.layers.flatten(self.streamAC)
        self.streamV = tf.layers.flatten(self.streamVC)
        self.AW = tf.Variable(tf.random_normal([h_size // 2, env.actions]))
        self.VW = tf.Variable(tf.random_normal([h_size // 2, 1]))
        self.Advantage = tf.matmul(self.streamA, self.AW)
        self.Value = tf.matmul(self.streamV, self.VW)
        self.Qout = self.Value + tf.subtract(self.Advantage,
                                             tf.reduce_mean(self.Advantage, axis=1, keep_dims=True))
        self.predict = tf.argmax(self.Qout, 1)

        # the squared difference between the target Q and the Q of the action taken
        self.targetQ = tf.placeholder(shape=[None], dtype=tf.float32)
        self.actions = tf.placeholder(shape=[None], dtype=tf.int32)
        self.actions_onehot = tf.one_hot(self.actions, env.actions, dtype=tf.float32)
        self.Q = tf.reduce_sum(tf.multiply(self.Qout, self.actions_onehot), axis=1)
        self.td_error = tf.square(self.targetQ - self.Q)
        self.loss = tf.reduce_mean(self.td_error)
        self.trainer = tf.train.AdamOptimizer(learning_rate=0.0001)
        self.updateModel = self.trainer.minimize(self.loss)


class experience_buffer():
    def __init__(self, buffer_size=50000):
        self.buffer = []
        self.buffer_size = buffer_size

    def add(self, experience):
        if len(self.buffer) + len(experience) >= self.buffer_size:
            self.buffer[0:(len(experience) + len(self.buffer)) - self.buffer_size] = []
        self.buffer.extend(experience)

    def sample(self, size):
        return np.reshape(np.array(random.sample(self.buffer, size), dtype=object), [size, 5])


def processState(states):
    return np.reshape(states, [21168])


def updateTargetGraph(tfVars, tau):
    # the second network's variables follow the first's: target = tau * main + (1 - tau) * target
    half = len(tfVars) // 2
    op_holder = []
    for idx, var in enumerate(tfVars[0:half]):
        target = tfVars[idx + half]
        op_holder.append(target.assign((var.value() * tau) + ((1 - tau) * target.value())))
    return op_holder


def updateTarget(op_holder, sess):
    for op in op_holder:
        sess.run(op)


batch_size = 8  # edit: 32
update_freq = 4
y = .99
startE = 1
endE = 0.1
annealing_steps = 500.  # edit: 10000
num_episodes = 8  # edit: 10000
pre_train_steps = 100  # edit: 10000
max_epLength = 50
load_model = False
path = "./dqn"
h_size = 64  # edit: 512
tau = 0.001

tf.reset_default_graph()
tf.set_random_seed(4)  # edit: seeded
mainQN = Qnetwork(h_size)
targetQN = Qnetwork(h_size)
init = tf.global_variables_initializer()
saver = tf.train.Saver()
trainables = tf.trainable_variables()
targetOps = updateTargetGraph(trainables, tau)
myBuffer = experience_buffer()

e = startE
stepDrop = (startE - endE) / annealing_steps
jList = []
rList = []
total_steps = 0
if not os.path.exists(path):
    os.makedirs(path)

with tf.Session() as sess:
    sess.run(init)
    if load_model:
        print('Loading Model...')
        ckpt = tf.train.get_checkpoint_state(path)
        saver.restore(sess, ckpt.model_checkpoint_path)
    updateTarget(targetOps, sess)
    first_state = None
    for i in range(num_episodes):
        episodeBuffer = experience_buffer()
        s = processState(env.reset())
        if first_state is None:
            first_state = s
        d = False
        rAll = 0
        j = 0
        while j < max_epLength:
            j += 1
            # a random action while pre-training and with chance e, else the network's choice
            if np.random.rand(1) < e or total_steps < pre_train_steps:
                a = np.random.randint(0, 4)
            else:
                a = sess.run(mainQN.predict, feed_dict={mainQN.scalarInput: [s]})[0]
            s1, r, d = env.step(a)
            s1 = processState(s1)
            total_steps += 1
            episodeBuffer.add(np.reshape(np.array([s, a, r, s1, d], dtype=object), [1, 5]))
            if total_steps > pre_train_steps:
                if e > endE:
                    e -= stepDrop
                if total_steps % update_freq == 0:
                    trainBatch = myBuffer.sample(batch_size)
                    # Double DQN: the main network picks the next action, the target network values it
                    Q1 = sess.run(mainQN.predict, feed_dict={mainQN.scalarInput: np.vstack(trainBatch[:, 3])})
                    Q2 = sess.run(targetQN.Qout, feed_dict={targetQN.scalarInput: np.vstack(trainBatch[:, 3])})
                    end_multiplier = -(trainBatch[:, 4] - 1)
                    doubleQ = Q2[range(batch_size), Q1]
                    targetQ = trainBatch[:, 2] + (y * doubleQ * end_multiplier)
                    sess.run(mainQN.updateModel,
                             feed_dict={mainQN.scalarInput: np.vstack(trainBatch[:, 0]),
                                        mainQN.targetQ: targetQ, mainQN.actions: trainBatch[:, 1]})
                    updateTarget(targetOps, sess)
            rAll += r
            s = s1
            if d:
                break
        myBuffer.add(episodeBuffer.buffer)
        jList.append(j)
        rList.append(rAll)
        if i % 4 == 0:  # edit: every 1000
            saver.save(sess, path + '/model-' + str(i) + '.cptk')
            print("Saved Model")
        if len(rList) % 4 == 0:  # edit: every 10
            print(total_steps, np.mean(rList[-10:]), e)
    saver.save(sess, path + '/model-' + str(i) + '.cptk')
    # edit: the trained network's view of the first board
    print('Q of the first board:', sess.run(mainQN.Qout, feed_dict={mainQN.scalarInput: [first_state]})[0])
print("Percent of succesful episodes: " + str(sum(rList) / num_episodes) + "%")
