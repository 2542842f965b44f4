#!/usr/bin/env python3
"""Trains the encrypted-inference demo's model in plaintext, reproducibly.

TenSEAL's MNIST tutorial network (conv 7x7 stride 3 with 4 channels, x^2, fully
connected 256 -> 64, x^2, fully connected 64 -> 10), trained on Debian's
dataset-fashion-mnist with PyTorch (python3-torch) from a fixed seed, and
written as a small text file that the demo reads without PyTorch:

    /usr/bin/python3 models/train_fashion_mnist.py [--epochs 10] [--out models/fashion_mnist_tutorial.txt]

The file holds one array per line, "name rank dims... values...", fully connected
matrices in TenSEAL's mm orientation (inputs x outputs), and the input
normalisation (mean, deviation of the training pixels in [0, 1]).
"""
import argparse
import gzip
import struct

import numpy as np
import torch

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        magic, count = struct.unpack(">II", f.read(8))
        dims = [count]
        if magic == 0x803:  # images: rows, columns follow
            dims += list(struct.unpack(">II", f.read(8)))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


class TutorialNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, kernel_size=7, stride=3)
        self.fc1 = torch.nn.Linear(256, 64)
        self.fc2 = torch.nn.Linear(64, 10)

    def forward(self, x):
        x = self.conv(x)
        x = x * x
        x = x.view(-1, 256)  # channel by channel, as the encrypted pack_vectors
        x = self.fc1(x)
        x = x * x
        return self.fc2(x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="models/fashion_mnist_tutorial.txt")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(2)

    train_x = read_idx(f"{DATA}/train-images-idx3-ubyte.gz").astype(np.float32) / 255
    train_y = read_idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64)
    test_x = read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz").astype(np.float32) / 255
    test_y = read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz").astype(np.int64)
    mean, deviation = float(train_x.mean()), float(train_x.std())

    def tensor(images):
        return torch.from_numpy((images - mean) / deviation).unsqueeze(1)

    train_inputs, train_labels = tensor(train_x), torch.from_numpy(train_y)
    test_inputs, test_labels = tensor(test_x), torch.from_numpy(test_y)

    model = TutorialNet()
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_of = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train_labels), generator=generator)
        for start in range(0, len(order), 64):
            batch = order[start:start + 64]
            optimiser.zero_grad()
            loss = loss_of(model(train_inputs[batch]), train_labels[batch])
            loss.backward()
            optimiser.step()
        model.eval()
        with torch.no_grad():
            accuracy = (model(test_inputs).argmax(1) == test_labels).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, test accuracy {accuracy:.4f}")

    arrays = {
        "conv_kernels": model.conv.weight.detach().numpy().reshape(4, 7, 7),
        "conv_bias": model.conv.bias.detach().numpy(),
        "fc1": model.fc1.weight.detach().numpy().T,  # inputs x outputs
        "fc1_bias": model.fc1.bias.detach().numpy(),
        "fc2": model.fc2.weight.detach().numpy().T,
        "fc2_bias": model.fc2.bias.detach().numpy(),
    }
    with open(args.out, "w") as out:
        out.write(f"# heft demo model: TenSEAL's MNIST tutorial network on Fashion-MNIST, "
                  f"models/train_fashion_mnist.py --epochs {args.epochs} --seed {args.seed}; "
                  f"plaintext test accuracy {accuracy:.4f} on the 10000 test images\n")
        out.write(f"normalisation 1 2 {mean!r} {deviation!r}\n")
        for name, values in arrays.items():
            dims = " ".join(str(d) for d in values.shape)
            flat = " ".join(f"{v:.9g}" for v in values.astype(np.float64).ravel())
            out.write(f"{name} {len(values.shape)} {dims} {flat}\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
