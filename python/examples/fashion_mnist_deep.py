#!/usr/bin/env python3
"""A deeper encrypted Fashion-MNIST network than TenSEAL can run: four convolutions
with polynomial activations and bootstrapping, client and server as separate roles.

The network (trained by models/train_fashion_mnist_deep.py, shipped as
models/fashion_mnist_deep.txt; BatchNorm folded into the convolutions):

    conv 5x5 (1 -> C) -> a1 x^2 + b1 x -> avgpool 2x2
    conv 3x3 (C -> C) -> a2 x^2 + b2 x
    conv 3x3 (C -> C) -> a3 x^2 + b3 x -> avgpool 2x2
    conv 3x3 (C -> C) -> a4 x^2 + b4 x -> fully connected 4C -> 10

Its depth (nine levels) is more than the eight a bootstrappable N = 2^16 context
(preset "n16-encaps") leaves between bootstraps, so the server refreshes the
ciphertext when its levels run out (CKKSVector.refresh_for), here before the last layer.

How one image is packed (latency mode): the 32768 slots are 32 blocks of 32 x 32, one
channel per block, channel c in the blocks b with b mod C = c (each channel twice for
C = 16). The client encrypts its normalised 28 x 28 image in every block. A convolution
is one LinearTransform: output channel o in block b gets sum over input channels i and
kernel offsets (u, v) of K[o, i, u, v] times the slot (u, v) rows and columns further in
block b + (i - o mod C): diagonal (i - o mod C) * 1024 + d (32 u + v), constant over each
block, with baby steps the in-block offsets and giant steps the block shifts (hoisted).
Convolutions are valid; the slots of a block past the valid outputs hold values nothing
reads. Average pooling is two rotations and additions (its 1/4 goes into the next
weights), after which the valid outputs sit every 2d slots: d, the dilation, doubles.
The fully connected layer is a LinearTransform too: logit o lands in slot o * 1024.

Throughput mode (fashion_mnist_deep_batch.py) packs 32 images per ciphertext instead,
one ciphertext per channel, and bootstraps once per 32 images.

Scaling: each activation's output is divided by its largest magnitude M over training
images (calibrate()), folded into the weights, so that every value stays within about
1, which bootstrapping needs; a x^2 + b x is evaluated as +-z (z + t) with z the
convolution output times sqrt(|a| / M): one level, no scalar product.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/fashion_mnist_deep.py \\
        [--images 4] [--batch-images 32] [--preset n16-encaps] [--threads T]
"""
import argparse
import os
import sys
import time

import numpy as np

import heft as ts

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_data import DATA, read_idx, read_model, test_images  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEEP_MODEL = os.path.join(HERE, "..", "..", "models", "fashion_mnist_deep.txt")
SIDE, BLOCK, BLOCKS = 32, 1024, 32  # a block is a 32 x 32 image, 32 of them in 2^15 slots
SLOTS = BLOCK * BLOCKS
# (kernel side, pooling after the activation) of the four convolutions.
LAYERS = [(5, True), (3, False), (3, True), (3, False)]


# ---- the network in numpy: the oracle ----

def conv_valid(x, kernels, bias):
    """x [channels, h, w], kernels [out, in, k, k]: the valid convolution (PyTorch's
    Conv2d, a cross-correlation) plus bias."""
    k = kernels.shape[-1]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))
    return np.einsum("ihwuv,oiuv->ohw", windows, kernels) + bias[:, None, None]


def average_pool(x):
    c, h, w = x.shape
    return x[:, :h // 2 * 2, :w // 2 * 2].reshape(c, h // 2, 2, w // 2, 2).mean(axis=(2, 4))


def plain_forward(model, image, activation_outputs=None):
    """The 10 logits of one normalised 28 x 28 image; with a list given, each
    activation's output is appended to it (calibration)."""
    x = image[None, :, :]
    for layer, (_, pool) in enumerate(LAYERS, start=1):
        z = conv_valid(x, model[f"conv{layer}_kernels"], model[f"conv{layer}_bias"])
        a, b = model["activations"][layer - 1]
        x = a * z * z + b * z
        if activation_outputs is not None:
            activation_outputs.append(x)
        if pool:
            x = average_pool(x)
    return model["fc"] @ x.ravel() + model["fc_bias"]


def calibrate(model, images):
    """The largest magnitude of each activation's output over `images`."""
    largest = np.zeros(len(LAYERS))
    for image in images:
        outputs = []
        plain_forward(model, image, outputs)
        largest = np.maximum(largest, [np.max(np.abs(o)) for o in outputs])
    return largest


# ---- the packed layout ----

def pack_image(image):
    """A normalised 28 x 28 image in every 32 x 32 block of the slots."""
    block = np.zeros((SIDE, SIDE))
    block[:image.shape[0], :image.shape[1]] = image
    return np.tile(block.ravel(), BLOCKS)


def per_block(values):
    """A slot vector holding values[b] in all of block b."""
    return np.repeat(np.asarray(values, dtype=np.float64), BLOCK)


def conv_diagonals(kernels, dilation):
    """The diagonals of a convolution on the packed layout (see the file comment)."""
    out_channels, in_channels, k, _ = kernels.shape
    channel_of_block = np.arange(BLOCKS) % out_channels
    diagonals = {}
    for shift in range(in_channels):  # input channel (o + shift) mod C, or 0 when C_in = 1
        source = (channel_of_block + shift) % in_channels
        for u in range(k):
            for v in range(k):
                index = shift * BLOCK + dilation * (SIDE * u + v)
                diagonals[index] = per_block(kernels[channel_of_block, source, u, v])
    return diagonals


def fc_diagonals(weights, channels, dilation, side):
    """The fully connected layer's diagonals: logit o in slot o * 1024 from the features
    (c, i, j) at slot c' * 1024 + dilation (32 i + j), c' the copy of channel c in a
    block c' >= o (so that every shift is one of the convolutions' block shifts)."""
    outputs = weights.shape[0]
    diagonals = {}
    for o in range(outputs):
        for c in range(channels):
            block = o + (c - o) % channels
            for i in range(side):
                for j in range(side):
                    index = (block - o) * BLOCK + dilation * (SIDE * i + j)
                    diagonals.setdefault(index, np.zeros(SLOTS))[o * BLOCK] = \
                        weights[o, c * side * side + i * side + j]
    return diagonals


BABY_STEPS = {"conv1": 32, "default": BLOCK}  # in-block offsets below n1: hoisted


def split_steps(indices, baby_steps):
    """The rotation keys a LinearTransform with these diagonals uses."""
    steps = set()
    for k in indices:
        baby, giant = k % baby_steps, k - k % baby_steps
        steps.update(s for s in (baby, giant) if s)
    return steps


class DeepNetwork:
    """The network prepared for the packed layout: scaled weights, diagonals, and
    each step's Galois keys; transforms are encoded when used (each is a gigabyte at
    N = 2^16) unless `keep_transforms`."""

    def __init__(self, model, ranges):
        self.model = model
        channels = model["conv1_kernels"].shape[0]
        if BLOCKS % channels:
            raise ValueError(f"{channels} channels do not tile {BLOCKS} blocks")
        self.layers = []
        gain, dilation, side = 1.0, 1, 28
        for layer, (k, pool) in enumerate(LAYERS, start=1):
            a, b = model["activations"][layer - 1]
            largest = ranges[layer - 1]
            s = np.sqrt(abs(a) / largest)
            sign = 1.0 if a > 0 else -1.0
            kernels = model[f"conv{layer}_kernels"] * gain * s
            bias = model[f"conv{layer}_bias"] * s
            side = side - k + 1
            self.layers.append({
                "name": f"conv{layer}",
                "kernels": kernels,  # scaled: what both layouts compute with
                "bias_channels": bias,
                "dilation": dilation,
                "diagonals": conv_diagonals(kernels, dilation),
                "baby_steps": BABY_STEPS.get(f"conv{layer}", BABY_STEPS["default"]),
                "bias": per_block(bias[np.arange(BLOCKS) % channels]),
                "offset": sign * b / (largest * s),  # t of +-z (z + t)
                "sign": sign,
                "pool": dilation if pool else 0,
            })
            gain = largest / 4 if pool else largest
            if pool:
                dilation, side = dilation * 2, side // 2
        self.fc_weights = model["fc"] * gain
        fc_bias = np.zeros(SLOTS)
        fc_bias[np.arange(10) * BLOCK] = model["fc_bias"]
        self.fc = {"name": "fc", "diagonals": fc_diagonals(model["fc"] * gain, channels,
                                                           dilation, side),
                   "baby_steps": BABY_STEPS["default"], "bias": fc_bias}
        self._cache = {}

    def depth(self):
        """Levels one image spends: a convolution and an activation per layer, the
        fully connected layer."""
        return 2 * len(self.layers) + 1

    def galois_steps(self):
        """Every rotation step the server will use in latency mode."""
        steps = set()
        for layer in self.layers + [self.fc]:
            steps |= split_steps(layer["diagonals"], layer["baby_steps"])
        for layer in self.layers:
            if layer["pool"]:
                steps |= {layer["pool"], SIDE * layer["pool"]}
        return sorted(steps)

    def transform(self, context, layer, level, keep):
        key = (layer["name"], level)
        if key in self._cache:
            return self._cache[key]
        made = ts.LinearTransform(context, layer["diagonals"], level, layer["baby_steps"])
        if keep:
            self._cache[key] = made
        return made


class DeepClient:
    """Makes the keys (network rotations and bootstrapping), encrypts, decrypts."""

    def __init__(self, network, preset, batch_network=None, latency=True, progress=True):
        context = ts.bootstrappable_context(preset)
        level = context.encryption_level
        # The network's rotations only ever run at the encryption level or below;
        # throughput mode's merge rotations only below its mask.
        steps = set(network.galois_steps()) if latency else set()
        if batch_network:
            batch_steps, merge_steps = batch_network.galois_steps()
            steps |= set(batch_steps)
            context.generate_galois_keys(merge_steps,
                                         max_level=level - batch_network.levels_before_merge())
        context.generate_galois_keys(sorted(steps), max_level=level)
        context.generate_bootstrap_keys(progress)
        self.public = context.serialize(save_secret_key=False)
        # The client keeps the secret and public keys only.
        self.context = ts.context_from(context.serialize(save_galois_keys=False,
                                                         save_relin_keys=False),
                                       allow_insecure_parameters=True)
        del context
        ts.release_idle_memory()  # its keys' gigabytes, before the server loads its copy

    def encrypt(self, image):
        return ts.ckks_vector(self.context, pack_image(image)).serialize()

    def decrypt(self, answer):
        values = np.array(ts.ckks_vector_from(self.context, answer).decrypt())
        return values[np.arange(10) * BLOCK]

    def encrypt_batch(self, images):
        from fashion_mnist_deep_batch import pack_batch
        return ts.ckks_tensor(self.context, pack_batch(images), batch=True).serialize()

    def decrypt_batch(self, answer, count):
        from fashion_mnist_deep_batch import logits_of
        return logits_of(ts.ckks_tensor_from(self.context, answer).decrypt().numpy(), count)


class DeepServer:
    """A public context (evaluation and bootstrapping keys), the prepared network."""

    def __init__(self, public, network, keep_transforms=False):
        self.context = ts.context_from(public, allow_insecure_parameters=True)
        assert not self.context.is_private(), "the server must not hold the secret key"
        self.network = network
        self.keep = keep_transforms
        self.layer_seconds = {}
        self.bootstraps = 0

    def _timed(self, name, start):
        now = time.perf_counter()
        self.layer_seconds[name] = self.layer_seconds.get(name, 0.0) + now - start
        return now

    def _linear(self, x, layer):
        level = x.level()
        return x.linear_transform(self.network.transform(self.context, layer, level, self.keep))

    def activate_and_pool(self, z, layer, t):
        """A convolution's output z through its activation +-z (z + t) and its pooling
        (two rotations; the 1/4 is in the next weights), timed; both modes use it (a
        vector in latency mode, a tensor of channels in throughput mode)."""
        x = z * (z + layer["offset"])
        if layer["sign"] < 0:
            x = -x
        t = self._timed(f"act{layer['name'][-1]}", t)
        if layer["pool"]:
            x = x + x.rotate(layer["pool"])
            x = x + x.rotate(SIDE * layer["pool"])
            t = self._timed(f"pool{layer['name'][-1]}", t)
        return x, t

    def classify(self, request):
        t = time.perf_counter()
        x = ts.ckks_vector_from(self.context, request)
        t = self._timed("load", t)
        for layer in self.network.layers:
            if x.level() < 2:  # a convolution and an activation
                x = x.refresh_for(2)
                self.bootstraps += 1
                t = self._timed("bootstrap", t)
            z = self._linear(x, layer) + layer["bias"]
            t = self._timed(layer["name"], t)
            x, t = self.activate_and_pool(z, layer, t)
        if x.level() < 1:
            x = x.refresh_for(1)
            self.bootstraps += 1
            t = self._timed("bootstrap", t)
        x = self._linear(x, self.network.fc) + self.network.fc["bias"]
        t = self._timed("fc", t)
        answer = x.serialize()
        self._timed("save", t)
        return answer


def run_deep(args, images, labels, model_path=DEEP_MODEL, progress=None, report=None,
             batch_images=None, batch_labels=None):
    """The deep network on `images` (normalised) in latency mode, one request each, and
    on `batch_images` in throughput mode, 32 per request (either may be empty), printed
    as the demo reports it. report(mode, ...) draws each mode's picture. Returns the
    number of images whose encrypted and plain predictions agree, and how many ran."""
    from fashion_mnist_deep_batch import BatchNetwork
    model = read_model(model_path)
    mean, deviation = model["normalisation"]
    train = read_idx(f"{DATA}/train-images-idx3-ubyte.gz", 500)
    network = DeepNetwork(model, calibrate(model, (train.astype(np.float64) / 255 - mean)
                                           / deviation))
    batch_network = BatchNetwork(network) if batch_images is not None and len(batch_images) \
        else None
    t0 = time.perf_counter()
    client = DeepClient(network, args.preset, batch_network, latency=len(images) > 0)
    t1 = time.perf_counter()
    public_bytes = len(client.public)
    server = DeepServer(client.public, network)
    client.public = None  # sent: the client keeps no copy (gigabytes at N = 2^16)
    t2 = time.perf_counter()
    print(f"\ndeep network ({network.depth()} levels; preset {args.preset}, bootstrapping "
          f"when levels run out): client keys made in {t1 - t0:.1f} s; public context sent "
          f"to the server {public_bytes / 2**30:.2f} GiB (evaluation and bootstrapping keys, "
          f"no secret key), loaded in {t2 - t1:.1f} s")
    agree = ran = 0
    if len(images):
        agree += _run_latency(client, server, model, images, labels, progress, report)
        ran += len(images)
    if batch_network:
        server.layer_seconds, server.bootstraps = {}, 0
        ts.release_idle_memory()  # latency mode's transforms, cached by heft's pool
        agree += _run_throughput(client, server, batch_network, batch_images, batch_labels,
                                 progress, report)
        ran += len(batch_images)
    return agree, ran


class _Tally:
    """Accuracy, agreement and logit error of encrypted against plain predictions."""

    def __init__(self, model):
        self.model = model
        self.agree = self.right_encrypted = self.right_plain = 0
        self.worst = 0.0
        self.guesses = []

    def add(self, logits, image, label):
        want = plain_forward(self.model, image)
        self.worst = max(self.worst, float(np.max(np.abs(logits - want))
                                           / max(1.0, np.max(np.abs(want)))))
        guess, plain_guess = int(np.argmax(logits)), int(np.argmax(want))
        self.guesses.append(guess)
        self.agree += guess == plain_guess
        self.right_encrypted += guess == label
        self.right_plain += plain_guess == label

    def print(self, n):
        print(f"  encrypted accuracy {self.right_encrypted / n:.1%}, plain accuracy "
              f"{self.right_plain / n:.1%}, predictions agree on {self.agree}/{n}; largest "
              f"logit error {self.worst:.2e} of the largest")


def _run_latency(client, server, model, images, labels, progress, report):
    n = len(images)
    sent = received = 0
    seconds = []
    tally = _Tally(model)
    items = progress(range(n), "deep network, latency") if progress else range(n)
    for i in items:
        request = client.encrypt(images[i])
        if i == 0:  # the server cannot read what it receives
            try:
                ts.ckks_vector_from(server.context, request).decrypt()
                raise AssertionError("the server decrypted a request")
            except ValueError as refused:
                print(f"  the server's context is public: decrypting there fails ({refused})")
        start = time.perf_counter()
        answer = server.classify(request)
        seconds.append(time.perf_counter() - start)
        sent += len(request)
        received += len(answer)
        tally.add(client.decrypt(answer), images[i], labels[i])
    layer_ms = {k: 1000 * v / n for k, v in server.layer_seconds.items()}
    print(f"deep network, latency mode: {n} images, one request each, {server.bootstraps} "
          f"bootstraps")
    tally.print(n)
    print(f"  server per image: median {np.median(seconds):.2f} s (the first includes building "
          f"the bootstrapper: {seconds[0]:.2f} s)")
    print("  server per layer: " + ", ".join(f"{k} {v:.0f} ms" for k, v in layer_ms.items()))
    print(f"  bytes per image: client -> server {sent / n / 2**20:.1f} MiB, "
          f"server -> client {received / n / 2**20:.1f} MiB")
    if report:
        report("latency", [img for img in images[:8]], labels[:n], tally.guesses, layer_ms,
               f"heft: deeper network with bootstrapping, latency mode, {n} images, "
               f"accuracy {tally.right_encrypted / n:.1%} (plain {tally.right_plain / n:.1%})")
    return tally.agree


def _run_throughput(client, server, batch_network, images, labels, progress, report):
    from fashion_mnist_deep_batch import IMAGES_PER_BATCH, classify_batch
    n = len(images)
    starts = range(0, n, IMAGES_PER_BATCH)
    sent = received = 0
    seconds = []
    tally = _Tally(batch_network.network.model)
    items = progress(starts, "deep network, throughput", unit="request") if progress \
        else starts
    for first in items:
        batch = images[first:first + IMAGES_PER_BATCH]
        request = client.encrypt_batch(batch)
        start = time.perf_counter()
        answer = classify_batch(server, batch_network, request)
        seconds.append(time.perf_counter() - start)
        sent += len(request)
        received += len(answer)
        for i, logits in enumerate(client.decrypt_batch(answer, len(batch))):
            tally.add(logits, batch[i], labels[first + i])
    total = sum(seconds)
    layer_ms = {k: 1000 * v / len(seconds) for k, v in server.layer_seconds.items()}
    print(f"deep network, throughput mode: {n} images, {IMAGES_PER_BATCH} per request "
          f"({len(seconds)} requests), {server.bootstraps} bootstraps (one per request)")
    tally.print(n)
    print(f"  server: {n / total:.2f} images/s, {total / n:.2f} s per image; per request "
          f"median {np.median(seconds):.1f} s")
    print("  server per layer and request: " + ", ".join(f"{k} {v:.0f} ms"
                                                         for k, v in layer_ms.items()))
    print(f"  bytes per request: client -> server {sent / len(seconds) / 2**20:.1f} MiB, "
          f"server -> client {received / len(seconds) / 2**20:.1f} MiB")
    if report:  # its time per layer is per image, as the other reports'
        per_image = {k: 1000 * v / n for k, v in server.layer_seconds.items()}
        report("throughput", [img for img in images[:8]], labels[:n], tally.guesses, per_image,
               f"heft: deeper network with bootstrapping, throughput mode, {n} images, "
               f"accuracy {tally.right_encrypted / n:.1%} (plain {tally.right_plain / n:.1%})")
    return tally.agree


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=4, help="latency mode: one per request")
    parser.add_argument("--batch-images", type=int, default=32,
                        help="throughput mode: 32 per request (0: none)")
    parser.add_argument("--first", type=int, default=0,
                        help="the first test image (runs over the test set in parts)")
    parser.add_argument("--preset", default="n16-encaps")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--model", default=DEEP_MODEL)
    args = parser.parse_args()
    if args.threads:
        os.environ["HEFT_NUM_THREADS"] = str(args.threads)
    images, labels = test_images(args.first + max(args.images, args.batch_images),
                                 *read_model(args.model)["normalisation"])
    images, labels = images[args.first:], labels[args.first:]
    run_deep(args, images[:args.images], labels[:args.images], args.model,
             batch_images=images[:args.batch_images], batch_labels=labels[:args.batch_images])


if __name__ == "__main__":
    main()
