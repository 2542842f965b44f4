"""TenSEAL's MNIST benchmark on heft through Python: its tutorial network (conv 7x7
stride 3 with 4 channels, square, fc 256 -> 64, square, fc 64 -> 10) on its context
(N = 8192, primes 40 / 21 x 6 / 40, scale 2^21), stage by stage and whole, with the
rounds and iterations of TenSEAL's tests/python/benchmarks/test_mnist_eval.py. The
weights are heft's trained Fashion-MNIST tutorial model and the input a real
Fashion-MNIST test image (Debian's dataset-fashion-mnist), where TenSEAL uses its
MNIST tutorial model and samples: the same shapes, so the same work.
"""
import os
import sys

import pytest

import heft as ts
from conftest import MNIST_ITERATIONS, ROUNDS

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
from fashion_mnist_data import read_model  # noqa: E402
from fashion_mnist_data import test_images as first_test_images  # noqa: E402

MODEL = os.path.join(HERE, "..", "..", "models", "fashion_mnist_tutorial.txt")


def mnist_context():
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, 8192, -1, [40, 21, 21, 21, 21, 21, 21, 40])
    ctx.global_scale = 2 ** 21
    ctx.generate_galois_keys()
    return ctx


@pytest.fixture(scope="module")
def setup():
    model = read_model(MODEL)
    images, _ = first_test_images(1, *model["normalisation"])
    ctx = mnist_context()
    encoded, windows = ts.im2col_encoding(ctx, images[0].tolist(), 7, 7, 3)
    assert windows == 64
    layers = {
        "kernels": [k.tolist() for k in model["conv_kernels"]],
        "conv_bias": model["conv_bias"].tolist(),
        "fc1": model["fc1"].tolist(), "fc1_bias": model["fc1_bias"].tolist(),
        "fc2": model["fc2"].tolist(), "fc2_bias": model["fc2_bias"].tolist(),
    }
    return ctx, images[0], encoded, windows, layers


def conv(encoded, windows, layers):
    channels = [encoded.conv2d_im2col(k, windows) + b
                for k, b in zip(layers["kernels"], layers["conv_bias"])]
    return ts.CKKSVector.pack_vectors(channels)


def run(benchmark, operation):
    benchmark.pedantic(operation, rounds=ROUNDS, iterations=MNIST_ITERATIONS)


def test_gen_keys(benchmark):
    run(benchmark, mnist_context)


def test_prepare_input(benchmark, setup):
    ctx, image, _, _, _ = setup
    run(benchmark, lambda: ts.im2col_encoding(ctx, image.tolist(), 7, 7, 3))


def test_eval_conv(benchmark, setup):
    _, _, encoded, windows, layers = setup
    run(benchmark, lambda: conv(encoded, windows, layers))


def test_eval_square1(benchmark, setup):
    _, _, encoded, windows, layers = setup
    x = conv(encoded, windows, layers)
    run(benchmark, lambda: x.square())


def test_eval_fc1(benchmark, setup):
    _, _, encoded, windows, layers = setup
    x = conv(encoded, windows, layers).square()
    run(benchmark, lambda: x.mm(layers["fc1"]) + layers["fc1_bias"])


def test_eval_square2(benchmark, setup):
    _, _, encoded, windows, layers = setup
    x = conv(encoded, windows, layers).square().mm(layers["fc1"]) + layers["fc1_bias"]
    run(benchmark, lambda: x.square())


def test_eval_fc2(benchmark, setup):
    _, _, encoded, windows, layers = setup
    x = (conv(encoded, windows, layers).square().mm(layers["fc1"]) + layers["fc1_bias"]).square()
    run(benchmark, lambda: x.mm(layers["fc2"]) + layers["fc2_bias"])


def test_eval_full(benchmark, setup):
    _, _, encoded, windows, layers = setup

    def forward():
        x = conv(encoded, windows, layers).square()
        x = (x.mm(layers["fc1"]) + layers["fc1_bias"]).square()
        return x.mm(layers["fc2"]) + layers["fc2_bias"]

    run(benchmark, forward)
