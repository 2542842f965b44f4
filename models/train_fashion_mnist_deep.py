#!/usr/bin/env python3
"""Trains the deeper encrypted-inference model in plaintext, reproducibly.

A four-convolution network for CKKS inference on Fashion-MNIST: valid 5x5 then
3x3 convolutions with stride 1 and C channels, 2x2 average pooling, and the
trainable quadratic activation a*x^2 + b*x after each convolution,

    conv 5x5 (1 -> C), act, avgpool 2x2, conv 3x3, act, conv 3x3, act,
    avgpool 2x2, conv 3x3, act, fully connected 4C -> 10,

trained on Debian's dataset-fashion-mnist with PyTorch (python3-torch) from a
fixed seed, with batch normalisation after each convolution during training
only: it is folded into the convolutions' weights and biases in the output,
a small text file that the demo reads without PyTorch:

    /usr/bin/python3 models/train_fashion_mnist_deep.py [--epochs 25] [--channels 16] [--out models/fashion_mnist_deep.txt]

The file holds one array per line, "name rank dims... values...": the
convolution kernels (out channels x in channels x rows x columns) and biases,
the activations' coefficients (one row (a, b) per activation), the fully
connected matrix in PyTorch's orientation (outputs x inputs, inputs channel by
channel) and its bias, and the input normalisation (mean, deviation of the
training pixels in [0, 1]). Before it finishes, the script reloads the file,
runs it in float64 NumPy on the 10000 test images to check that the accuracy
matches PyTorch's, and prints each layer's largest magnitude over the first
2000 training images, the ranges that the encrypted evaluation must cover.
"""
import argparse
import gzip
import struct
import time

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


class Quadratic(torch.nn.Module):
    """a * x^2 + b * x with trainable scalars a and b."""

    def __init__(self, a=0.1, b=1.0):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(a))
        self.b = torch.nn.Parameter(torch.tensor(b))

    def forward(self, x):
        return self.a * x * x + self.b * x


class DeepNet(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        c = channels
        self.conv1 = torch.nn.Conv2d(1, c, kernel_size=5)
        self.conv2 = torch.nn.Conv2d(c, c, kernel_size=3)
        self.conv3 = torch.nn.Conv2d(c, c, kernel_size=3)
        self.conv4 = torch.nn.Conv2d(c, c, kernel_size=3)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.bn2 = torch.nn.BatchNorm2d(c)
        self.bn3 = torch.nn.BatchNorm2d(c)
        self.bn4 = torch.nn.BatchNorm2d(c)
        self.act1, self.act2, self.act3, self.act4 = (Quadratic() for _ in range(4))
        self.fc = torch.nn.Linear(4 * c, 10)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv1(x)))  # C x 24 x 24
        x = torch.nn.functional.avg_pool2d(x, 2)  # C x 12 x 12
        x = self.act2(self.bn2(self.conv2(x)))  # C x 10 x 10
        x = self.act3(self.bn3(self.conv3(x)))  # C x 8 x 8
        x = torch.nn.functional.avg_pool2d(x, 2)  # C x 4 x 4
        x = self.act4(self.bn4(self.conv4(x)))  # C x 2 x 2
        x = x.flatten(1)  # channel by channel: c*4 + i*2 + j
        return self.fc(x)


def folded(conv, bn):
    """The convolution's weight and bias with the eval-mode batch normalisation folded in."""
    scale = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach().double()
    weight = conv.weight.detach().double() * scale.view(-1, 1, 1, 1)
    bias = (conv.bias.detach().double() - bn.running_mean.double()) * scale + bn.bias.detach().double()
    return weight.numpy(), bias.numpy()


def read_model(path):
    """The arrays of a model file, as float64 NumPy arrays, without PyTorch."""
    arrays = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            rank = int(fields[1])
            dims = [int(d) for d in fields[2:2 + rank]]
            values = np.array([float(v) for v in fields[2 + rank:]], dtype=np.float64)
            arrays[fields[0]] = values.reshape(dims)
    return arrays


def numpy_forward(arrays, pixels, ranges=None):
    """Logits of the folded network for images in [0, 1], in float64 NumPy.

    With ranges, a dict, records each layer's largest magnitude under its name.
    """
    mean, deviation = arrays["normalisation"]
    x = ((pixels.astype(np.float64) - mean) / deviation)[:, None]

    def record(name, values):
        if ranges is not None:
            ranges[name] = max(ranges.get(name, 0.0), float(np.abs(values).max()))
        return values

    def conv(x, k):
        kernels, bias = arrays[f"conv{k}_kernels"], arrays[f"conv{k}_bias"]
        rows, columns = kernels.shape[2:]
        windows = np.lib.stride_tricks.sliding_window_view(x, (rows, columns), axis=(2, 3))
        return record(f"conv{k}", np.einsum("ncijuv,dcuv->ndij", windows, kernels, optimize=True)
                      + bias[None, :, None, None])

    def act(x, k):
        a, b = arrays["activations"][k - 1]
        return record(f"act{k}", a * x * x + b * x)

    def pool(x, k):
        n, c, h, w = x.shape
        return record(f"pool{k}", x.reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5)))

    record("input", x)
    x = pool(act(conv(x, 1), 1), 1)
    x = act(conv(x, 2), 2)
    x = pool(act(conv(x, 3), 3), 2)
    x = act(conv(x, 4), 4)
    x = x.reshape(len(x), -1)  # channel by channel, as PyTorch's view
    return record("fc", x @ arrays["fc"].T + arrays["fc_bias"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--channels", type=int, default=16, choices=[1, 2, 4, 8, 16])
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--flip", action="store_true", help="random horizontal flips of training images")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="models/fashion_mnist_deep.txt")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)

    train_x = read_idx(f"{DATA}/train-images-idx3-ubyte.gz").astype(np.float32) / 255
    train_y = read_idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64)
    test_x = read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz").astype(np.float32) / 255
    test_y = read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz").astype(np.int64)
    mean, deviation = float(train_x.mean()), float(train_x.std())

    def tensor(images):
        return torch.from_numpy((images - mean) / deviation).unsqueeze(1)

    train_inputs, train_labels = tensor(train_x), torch.from_numpy(train_y)
    test_inputs, test_labels = tensor(test_x), torch.from_numpy(test_y)

    model = DeepNet(args.channels)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    batch_size = 128
    steps = args.epochs * ((len(train_labels) + batch_size - 1) // batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=steps)
    loss_of = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(args.seed)

    def test_accuracy():
        model.eval()
        with torch.no_grad():
            predictions = torch.cat([model(test_inputs[s:s + 1000]).argmax(1)
                                     for s in range(0, len(test_labels), 1000)])
        return (predictions == test_labels).float().mean().item()

    started = time.time()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train_labels), generator=generator)
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            inputs = train_inputs[batch]
            if args.flip:
                flip = torch.rand(len(batch), generator=generator) < 0.5
                inputs = torch.where(flip.view(-1, 1, 1, 1), inputs.flip(3), inputs)
            optimiser.zero_grad()
            loss = loss_of(model(inputs), train_labels[batch])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimiser.step()
            schedule.step()
        accuracy = test_accuracy()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, test accuracy {accuracy:.4f}, "
              f"{time.time() - started:.0f} s", flush=True)
    training_time = time.time() - started

    arrays = {}
    for k in range(1, 5):
        weight, bias = folded(getattr(model, f"conv{k}"), getattr(model, f"bn{k}"))
        arrays[f"conv{k}_kernels"], arrays[f"conv{k}_bias"] = weight, bias
    arrays["activations"] = np.array([[getattr(model, f"act{k}").a.item(), getattr(model, f"act{k}").b.item()]
                                      for k in range(1, 5)])
    arrays["fc"] = model.fc.weight.detach().numpy()  # outputs x inputs
    arrays["fc_bias"] = model.fc.bias.detach().numpy()
    with open(args.out, "w") as out:
        out.write(f"# heft demo model: deeper CNN (4 valid convolutions, batch normalisation folded in, "
                  f"2x2 average pooling, a*x^2 + b*x activations) on Fashion-MNIST with C = {args.channels} "
                  f"channels, models/train_fashion_mnist_deep.py --epochs {args.epochs} --seed {args.seed} "
                  f"--channels {args.channels}{' --flip' if args.flip else ''}; "
                  f"plaintext test accuracy {accuracy:.4f} on the 10000 test images\n")
        out.write(f"normalisation 1 2 {mean!r} {deviation!r}\n")
        for name, values in arrays.items():
            dims = " ".join(str(d) for d in values.shape)
            flat = " ".join(f"{v:.9g}" for v in values.astype(np.float64).ravel())
            out.write(f"{name} {len(values.shape)} {dims} {flat}\n")
    print(f"wrote {args.out}; training took {training_time:.0f} s")

    reloaded = read_model(args.out)
    predictions = np.concatenate([numpy_forward(reloaded, test_x[s:s + 500]).argmax(1)
                                  for s in range(0, len(test_y), 500)])
    numpy_accuracy = float((predictions == test_y).mean())
    print(f"test accuracy: torch (eval mode) {accuracy:.4f}, folded float64 numpy from "
          f"{args.out} {numpy_accuracy:.4f}")
    assert abs(numpy_accuracy - accuracy) <= 0.0005, "the folded network disagrees with PyTorch"

    ranges = {}
    for s in range(0, 2000, 500):
        numpy_forward(reloaded, train_x[s:s + 500], ranges)
    print("largest magnitude of each layer's output over the first 2000 training images:")
    for name, value in ranges.items():
        print(f"  {name:6} {value:.4f}")


if __name__ == "__main__":
    main()
