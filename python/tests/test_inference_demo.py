"""The README's main job, short: both roles of python/examples/
fashion_mnist_inference.py on a few real Fashion-MNIST test images. The
server holds a public context (decryption there fails with heft's error),
and the encrypted predictions agree with the plain network's. (Throughput
mode's network is tested in C++: tests/tensor/test_ckks_tensor_conv.cpp.)"""
import importlib.util
import os

import numpy as np
import pytest

import heft as ts

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "examples", "fashion_mnist_inference.py")


@pytest.fixture(scope="module")
def demo():
    spec = importlib.util.spec_from_file_location("fashion_mnist_inference", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_client_and_server_roles_on_real_images(demo):
    model = demo.read_model(demo.DEFAULT_MODEL)
    mean, deviation = model["normalisation"]
    images = demo.read_idx(f"{demo.DATA}/t10k-images-idx3-ubyte.gz", 3)
    inputs = (images.astype(np.float64) / 255 - mean) / deviation
    client = demo.Client()
    server = demo.Server(client.public_context(), model)
    assert server.context.is_public()
    for image in inputs:
        request, windows = client.encrypt(image)
        with pytest.raises(ValueError):  # the server cannot read what it receives
            ts.ckks_vector_from(server.context, request).decrypt()
        logits = client.decrypt(server.classify(request, windows))
        want = demo.plain_logits(model, image)
        assert np.argmax(logits) == np.argmax(want)
        assert np.max(np.abs(logits - want)) < 0.01 * max(1.0, np.max(np.abs(want)))
