"""Shared pieces of the Python benchmarks: TenSEAL's benchmark parameters (N = 8192,
primes 60 / 40 / 40 / 60, scale 2^40) and its rounds and iterations, so that the
numbers compare with TenSEAL's own pytest-benchmark runs (BENCHMARKS.md)."""
import numpy as np
import pytest

import heft as ts

ROUNDS = 5  # TenSEAL's tests/python/benchmarks use 5 rounds
OPS_ITERATIONS = 10  # ... of 10 iterations for the operations
MNIST_ITERATIONS = 5  # ... and of 5 for the MNIST stages


def ckks_context():
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, 8192, coeff_mod_bit_sizes=[60, 40, 40, 60])
    ctx.global_scale = 2 ** 40
    ctx.generate_galois_keys()
    return ctx


@pytest.fixture(scope="session")
def ckks():
    return ckks_context()


@pytest.fixture(scope="session")
def bfv():
    return ts.context(ts.SCHEME_TYPE.BFV, 8192, 1032193)


@pytest.fixture
def rng():
    return np.random.default_rng(7)
