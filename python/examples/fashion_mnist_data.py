"""What the Fashion-MNIST examples share: reading Debian's dataset-fashion-mnist (IDX
files) and the model files that models/train_fashion_mnist*.py write."""
import gzip
import os
import struct
import sys

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def read_idx(path, count):
    """The first `count` entries of a gzip-compressed IDX file (images or labels)."""
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: apt-get install dataset-fashion-mnist")
    with gzip.open(path, "rb") as f:
        magic, total = struct.unpack(">II", f.read(8))
        shape = [min(count, total)]
        if magic == 0x803:
            shape += list(struct.unpack(">II", f.read(8)))
        return np.frombuffer(f.read(int(np.prod(shape))), dtype=np.uint8).reshape(shape)


def read_model(path):
    """The arrays of a model file: one per line, "name rank dims... values...", the
    input normalisation (mean, deviation) under "normalisation"."""
    arrays = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            rank = int(fields[1])
            shape = [int(d) for d in fields[2:2 + rank]]
            arrays[fields[0]] = np.array(fields[2 + rank:], dtype=np.float64).reshape(shape)
    return arrays


def test_images(count, mean, deviation):
    """The first `count` test images, normalised as the model was trained, and labels."""
    images = read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz", count)
    labels = read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz", count)
    return (images.astype(np.float64) / 255 - mean) / deviation, labels
