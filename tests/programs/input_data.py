"""A small deterministic stand-in for TensorFlow 1.x's MNIST ``input_data`` module (same API, no download).

The tutorials' ``from tensorflow.examples.tutorials.mnist import input_data`` downloads MNIST; the
programs here import this module instead.  ``read_data_sets(dir, one_hot=...)`` returns ``train``,
``validation`` and ``test`` DataSets of 784-pixel images in [0, 1] whose labels a fixed linear
"teacher" gives, so the models really learn.  ``next_batch`` walks the data in order (no shuffle),
so a run under TensorFlow and a run under the emulator see the same batches.
"""

from __future__ import annotations

import collections

import numpy as np

__all__ = ["DataSet", "Datasets", "read_data_sets"]

IMAGE_PIXELS = 784
NUM_CLASSES = 10
TRAIN_SIZE, VALIDATION_SIZE, TEST_SIZE = 1100, 100, 200
SEED = 1234

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


class DataSet:
    """Images and labels with ``next_batch`` (in order, wrapping around), as MNIST's DataSet."""

    def __init__(self, images: np.ndarray, labels: np.ndarray):
        self._images, self._labels = images, labels
        self._index_in_epoch = 0
        self._epochs_completed = 0

    @property
    def images(self) -> np.ndarray:
        """All images, shape (n, 784), float32 in [0, 1]."""
        return self._images

    @property
    def labels(self) -> np.ndarray:
        """All labels: one-hot float32 (n, 10) or uint8 class ids (n,)."""
        return self._labels

    @property
    def num_examples(self) -> int:
        """How many examples."""
        return len(self._images)

    @property
    def epochs_completed(self) -> int:
        """How many times next_batch went through the whole set."""
        return self._epochs_completed

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle: bool = True):
        """The next ``batch_size`` examples in order (``shuffle`` is accepted and ignored: runs must agree)."""
        del fake_data, shuffle
        start = self._index_in_epoch
        if start + batch_size > self.num_examples:
            self._epochs_completed += 1
            start = 0
        self._index_in_epoch = start + batch_size
        return self._images[start:start + batch_size], self._labels[start:start + batch_size]


def read_data_sets(train_dir: str = "", one_hot: bool = False, **unused) -> Datasets:
    """Synthetic MNIST-shaped data sets; ``train_dir`` is ignored (nothing is downloaded or written)."""
    del train_dir, unused
    rng = np.random.RandomState(SEED)
    total = TRAIN_SIZE + VALIDATION_SIZE + TEST_SIZE
    # Sparse-ish images like digits: most pixels dark, some bright.
    images = (rng.rand(total, IMAGE_PIXELS) * (rng.rand(total, IMAGE_PIXELS) < 0.3)).astype(np.float32)
    teacher = rng.randn(IMAGE_PIXELS, NUM_CLASSES)
    # Centred images make the teacher's classes about equally frequent.
    classes = np.argmax((images - images.mean(axis=0)) @ teacher, axis=1).astype(np.uint8)
    labels = np.eye(NUM_CLASSES, dtype=np.float32)[classes] if one_hot else classes
    cut1, cut2 = TRAIN_SIZE, TRAIN_SIZE + VALIDATION_SIZE
    return Datasets(train=DataSet(images[:cut1], labels[:cut1]),
                    validation=DataSet(images[cut1:cut2], labels[cut1:cut2]),
                    test=DataSet(images[cut2:], labels[cut2:]))
