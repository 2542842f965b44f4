"""TenSEAL's operation benchmarks on heft through Python: the same operations, input
sizes, parameters, rounds and iterations as TenSEAL's tests/python/benchmarks/test_ops.py,
written for heft. Run (not part of the test suite):

    PYTHONPATH=build/python HEFT_NUM_THREADS=2 /usr/bin/python3 -m pytest python/bench \\
        --benchmark-only -p no:cacheprovider
"""
import numpy as np
import pytest

import heft as ts
from conftest import OPS_ITERATIONS, ROUNDS

SIZES = [256, 1024, 4096, 8192, 16384]


def run(benchmark, operation):
    benchmark.pedantic(operation, rounds=ROUNDS, iterations=OPS_ITERATIONS)


def binary(name, left, right):
    """The operation `name` as TenSEAL's benchmark calls it."""
    return {
        "add": lambda: left + right,
        "multiply": lambda: left * right,
        "sub": lambda: left - right,
        "negate": lambda: -left,
        "square": lambda: left ** 2,
        "dot": lambda: left.dot(right),
        "polyval": lambda: left.polyval([0, 1, 2]),
    }[name]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_bfv_ops(benchmark, bfv, op, size):
    left = ts.bfv_vector(bfv, list(range(size)))
    right = ts.bfv_vector(bfv, [i * i for i in range(size)])
    run(benchmark, binary(op, left, right))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", ["add", "multiply", "negate", "square", "sub", "dot", "polyval"])
def test_ckks_ops(benchmark, ckks, rng, op, size):
    left = ts.ckks_vector(ckks, rng.standard_normal(size), 2 ** 40)
    right = ts.ckks_vector(ckks, rng.standard_normal(size), 2 ** 40)
    run(benchmark, binary(op, left, right))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", ["add", "multiply", "sub", "dot"])
def test_ckks_plain_ops(benchmark, ckks, rng, op, size):
    left = ts.ckks_vector(ckks, rng.standard_normal(size), 2 ** 40)
    run(benchmark, binary(op, left, rng.standard_normal(size)))


@pytest.mark.parametrize("shape", [[2, 1], [4, 2], [9, 7], [16, 12]])
def test_ckks_matmul(benchmark, ckks, rng, shape):
    vector = ts.ckks_vector(ckks, rng.standard_normal(shape[0]))
    matrix = rng.standard_normal(shape)
    run(benchmark, lambda: vector @ matrix)


@pytest.mark.parametrize("shape", [[2, 1], [4, 2], [9, 7], [16, 12]])
def test_ckks_enc_matmul(benchmark, ckks, rng, shape):
    encoded = ts.enc_matmul_encoding(ckks, rng.standard_normal(shape).tolist())
    vector = rng.standard_normal(shape[1])
    run(benchmark, lambda: encoded.enc_matmul_plain(vector.tolist(), shape[0]))


@pytest.mark.parametrize("side", [8, 16, 28, 64, 256])  # 64 and 256 span 7 and 98 ciphertexts
def test_ckks_im2col_encoding(benchmark, ckks, rng, side):
    image = rng.standard_normal((side, side)).tolist()
    run(benchmark, lambda: ts.im2col_encoding(ckks, image, 7, 7, 3))


@pytest.mark.parametrize("side", [8, 16, 28])
def test_ckks_conv_eval(benchmark, ckks, rng, side):
    # Four 7 x 7 kernels, stride 3, then the channels packed: TenSEAL's case.
    kernels = rng.uniform(-1 / 7, 1 / 7, (4, 7, 7)).tolist()
    bias = rng.uniform(-1 / 7, 1 / 7, 4).tolist()
    encoded, windows = ts.im2col_encoding(ckks, rng.standard_normal((side, side)).tolist(),
                                          7, 7, 3)

    def convolve():
        channels = [encoded.conv2d_im2col(k, windows) + b for k, b in zip(kernels, bias)]
        ts.CKKSVector.pack_vectors(channels)

    run(benchmark, convolve)
