#!/usr/bin/env python3
"""Encrypted Fashion-MNIST inference with heft, client and server as separate roles.

The client makes the keys, encrypts real Fashion-MNIST test images (Debian's
dataset-fashion-mnist) and sends the server only bytes: the public context
(evaluation keys, no secret key) and one ciphertext per image. The server
loads them, runs the model on the ciphertexts and returns the encrypted logits
as bytes; the client decrypts them. The model is TenSEAL's MNIST tutorial
network (conv 7x7 stride 3 with 4 channels, x^2, fc 256 -> 64, x^2, fc 64 -> 10),
trained in plaintext by models/train_fashion_mnist.py and shipped as
models/fashion_mnist_tutorial.txt. The same network in numpy is the oracle:
the demo reports how often the encrypted and plain predictions agree, the
accuracy of each against the labels, the logits' largest error, the bytes
each way, the time of each step and of each layer, with a progress bar
(python3-tqdm) and a report picture (python3-matplotlib: sample images with
their labels and predictions, the confusion matrix, time per layer).

Two modes: latency, one image per request (TenSEAL's tutorial code, with
`import heft as ts` the only change), and throughput, up to 4096 images in
one evaluation, one per slot (batched convolution and products, which
TenSEAL does not have). With --dask, throughput mode runs on a Dask cluster
(heft.distributed): the public context goes to each worker once, each task
classifies one batch of --batch images, and the report gives the throughput
of each worker and in all.

Then a deeper network that TenSEAL cannot run (python/examples/fashion_mnist_deep.py:
four convolutions with polynomial activations, 90.2% plain accuracy, nine levels) on a
bootstrappable N = 2^16 context: the server bootstraps when the levels run out. Its
latency mode packs one image's 16 channels in one ciphertext; its throughput mode
(fashion_mnist_deep_batch.py) packs 32 images per ciphertext, a ciphertext per channel,
and bootstraps once per 32 images.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/fashion_mnist_inference.py \
        [--network tutorial|deep|both] [--deep-images 4] [--deep-batch-images 32] \
        [--preset n16-encaps] \
        [--images 100] [--batch 4096] [--mode latency|throughput|both] [--threads T] \
        [--report fashion_mnist_report.png] [--dask SCHEDULER_ADDRESS|local] [--workers 2] \
        [--dask-images 8192]
"""
import argparse
import os
import sys
import time

import numpy as np

import heft as ts

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_data import CLASSES, DATA, read_idx, read_model, test_images  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.join(HERE, "..", "..", "models", "fashion_mnist_tutorial.txt")
KERNEL, STRIDE = 7, 3


def plain_logits(model, image):
    """The network in numpy: the oracle of the encrypted evaluation."""
    side = (image.shape[0] - KERNEL) // STRIDE + 1
    channels = []
    for kernel, bias in zip(model["conv_kernels"], model["conv_bias"]):
        out = np.empty((side, side))
        for r in range(side):
            for c in range(side):
                window = image[r * STRIDE:r * STRIDE + KERNEL, c * STRIDE:c * STRIDE + KERNEL]
                out[r, c] = np.sum(window * kernel) + bias
        channels.append(out.ravel())
    x = np.concatenate(channels) ** 2
    x = (x @ model["fc1"] + model["fc1_bias"]) ** 2
    return x @ model["fc2"] + model["fc2_bias"]


class Client:
    """Holds the secret key; encrypts images and decrypts the server's answers."""

    def __init__(self, threads=None):
        # TenSEAL's tutorial context shape with 25-bit scales: 34 + 6 x 25 + 34
        # = 218 bits, the most N = 8192 allows at 128-bit security.
        self.context = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                                  coeff_mod_bit_sizes=[34, 25, 25, 25, 25, 25, 25, 34],
                                  n_threads=threads)
        self.context.global_scale = 2 ** 25
        self.context.generate_galois_keys()

    def public_context(self):
        """What the server gets: parameters and evaluation keys, no secret key."""
        return self.context.serialize(save_public_key=True, save_secret_key=False,
                                      save_galois_keys=True, save_relin_keys=True)

    def encrypt(self, image):
        encrypted, windows = ts.im2col_encoding(self.context, image.tolist(), KERNEL, KERNEL,
                                                STRIDE)
        return encrypted.serialize(), windows

    def decrypt(self, answer):
        return np.array(ts.ckks_vector_from(self.context, answer).decrypt())

    def encrypt_batch(self, images):
        return ts.ckks_tensor(self.context, images, batch=True).serialize()

    def decrypt_batch(self, answer):
        return ts.ckks_tensor_from(self.context, answer).decrypt().numpy()


class Server:
    """Never sees the secret key: a public context, the model, ciphertext bytes."""

    def __init__(self, public_context, model):
        # The client's bytes, or a context a Dask worker already holds.
        self.context = (public_context if isinstance(public_context, ts.Context)
                        else ts.context_from(public_context))
        assert not self.context.is_private(), "the server must not hold the secret key"
        self.model = model
        self.kernels = [k.tolist() for k in model["conv_kernels"]]
        self.layer_seconds = {}

    def _timed(self, layer, start):
        now = time.perf_counter()
        self.layer_seconds[layer] = self.layer_seconds.get(layer, 0.0) + now - start
        return now

    def classify_batch(self, request):
        """Throughput mode (heft beyond TenSEAL): a batch of images, one per slot."""
        t = time.perf_counter()
        x = ts.ckks_tensor_from(self.context, request)
        t = self._timed("load", t)
        x = x.conv2d(self.model["conv_kernels"], STRIDE)
        x = x + ts.plain_tensor(self.model["conv_bias"].reshape(-1, 1, 1))
        t = self._timed("conv", t)
        x = x.square().reshape([256])  # the batch stays: TenSEAL's shape leaves it out
        t = self._timed("square1", t)
        x = x.mm(self.model["fc1"]) + self.model["fc1_bias"]
        t = self._timed("fc1", t)
        x = x.square()
        t = self._timed("square2", t)
        x = x.mm(self.model["fc2"]) + self.model["fc2_bias"]
        t = self._timed("fc2", t)
        answer = x.serialize()
        self._timed("save", t)
        return answer

    def classify(self, request, windows):
        """Latency mode, TenSEAL's tutorial code: one image, im2col-encoded."""
        t = time.perf_counter()
        x = ts.ckks_vector_from(self.context, request)
        t = self._timed("load", t)
        channels = [x.conv2d_im2col(kernel, windows) + float(bias)
                    for kernel, bias in zip(self.kernels, self.model["conv_bias"])]
        x = ts.CKKSVector.pack_vectors(channels)
        t = self._timed("conv", t)
        x.square_()
        t = self._timed("square1", t)
        x = x.mm(self.model["fc1"].tolist()) + self.model["fc1_bias"].tolist()
        t = self._timed("fc1", t)
        x.square_()
        t = self._timed("square2", t)
        x = x.mm(self.model["fc2"].tolist()) + self.model["fc2_bias"].tolist()
        t = self._timed("fc2", t)
        answer = x.serialize()
        self._timed("save", t)
        return answer


def progress(items, description, unit="image"):
    """tqdm's bar when python3-tqdm is there, a plain counter otherwise."""
    try:
        from tqdm import tqdm
        return tqdm(items, desc=description, unit=unit, leave=False)
    except ImportError:
        return items


def write_report(path, images, labels, guesses, layer_ms, title):
    """Sample images with true and predicted labels, the confusion matrix and
    the time per layer, as one PNG (needs python3-matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  (no report picture: apt-get install python3-matplotlib)")
        return
    fig = plt.figure(figsize=(13, 7))
    grid = fig.add_gridspec(2, 8)
    for k in range(min(8, len(images))):
        ax = fig.add_subplot(grid[0, k])
        ax.imshow(images[k], cmap="gray")
        ok = "" if guesses[k] == labels[k] else " (x)"
        ax.set_title(f"{CLASSES[labels[k]]}\n-> {CLASSES[guesses[k]]}{ok}", fontsize=8)
        ax.axis("off")
    confusion = np.zeros((10, 10), dtype=int)
    for truth, guess in zip(labels, guesses):
        confusion[truth, guess] += 1
    ax = fig.add_subplot(grid[1, :4])
    ax.imshow(confusion, cmap="Blues")
    ax.set_xticks(range(10), CLASSES, rotation=60, fontsize=7)
    ax.set_yticks(range(10), CLASSES, fontsize=7)
    ax.set_xlabel("encrypted prediction")
    ax.set_ylabel("label")
    for (r, c), v in np.ndenumerate(confusion):
        if v:
            ax.text(c, r, str(v), ha="center", va="center", fontsize=6)
    ax = fig.add_subplot(grid[1, 5:])
    ax.barh(list(layer_ms), list(layer_ms.values()))
    ax.set_xlabel("server ms per image")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"  report picture: {os.path.abspath(path)}")


def run_latency(args, client, server, model, inputs, labels):
    """One image per request; returns (agreement, encrypted guesses)."""
    n = args.images
    sent = received = 0
    times = {"encrypt": 0.0, "server": 0.0, "decrypt": 0.0}
    agree = right_encrypted = right_plain = 0
    worst = 0.0
    guesses = []
    server.layer_seconds = {}
    for i in progress(range(n), "latency mode"):
        image, label = inputs[i], labels[i]
        t0 = time.perf_counter()
        request, windows = client.encrypt(image)
        t1 = time.perf_counter()
        answer = server.classify(request, windows)
        t2 = time.perf_counter()
        logits = client.decrypt(answer)
        t3 = time.perf_counter()
        times["encrypt"] += t1 - t0
        times["server"] += t2 - t1
        times["decrypt"] += t3 - t2
        sent += len(request)
        received += len(answer)
        want = plain_logits(model, image)
        worst = max(worst, float(np.max(np.abs(logits - want)) / max(1.0, np.max(np.abs(want)))))
        guess, plain_guess = int(np.argmax(logits)), int(np.argmax(want))
        guesses.append(guess)
        agree += guess == plain_guess
        right_encrypted += guess == label
        right_plain += plain_guess == label
        if i < args.show:
            print(f"image {i}: encrypted says {CLASSES[guess]!r}, plain says "
                  f"{CLASSES[plain_guess]!r}, label {CLASSES[label]!r} "
                  f"(server {1000 * (t2 - t1):.0f} ms)")
    layer_ms = {k: 1000 * v / n for k, v in server.layer_seconds.items()}
    print(f"\nlatency mode: {n} images, one request each")
    print(f"  encrypted accuracy {right_encrypted / n:.1%}, plain accuracy {right_plain / n:.1%}, "
          f"predictions agree on {agree}/{n}; largest logit error {worst:.2e} of the largest")
    print(f"  per image: encrypt {1000 * times['encrypt'] / n:.1f} ms, server "
          f"{1000 * times['server'] / n:.1f} ms ({n / times['server']:.1f} images/s), decrypt "
          f"{1000 * times['decrypt'] / n:.1f} ms")
    print("  server per layer: " + ", ".join(f"{k} {v:.1f} ms" for k, v in layer_ms.items()))
    print(f"  bytes per image: client -> server {sent / n / 1024:.0f} KiB, "
          f"server -> client {received / n / 1024:.0f} KiB")
    if args.report:
        write_report(args.report, [img for img in inputs[:8]], labels[:n], guesses, layer_ms,
                     f"heft: encrypted Fashion-MNIST, latency mode, {n} images, "
                     f"accuracy {right_encrypted / n:.1%} (plain {right_plain / n:.1%})")
    return agree


def run_throughput(args, client, server, model, inputs, labels):
    """Every image in one evaluation, one per slot; returns the agreement."""
    b = args.batch
    server.layer_seconds = {}
    t0 = time.perf_counter()
    request = client.encrypt_batch(inputs[:b])
    t1 = time.perf_counter()
    answer = server.classify_batch(request)
    t2 = time.perf_counter()
    guesses = client.decrypt_batch(answer).argmax(1)
    plain = np.array([np.argmax(plain_logits(model, image))
                      for image in progress(inputs[:b], "plain oracle")])
    agree = int((guesses == plain).sum())
    print(f"\nthroughput mode: {b} images in one evaluation, one per slot")
    print(f"  encrypted accuracy {(guesses == labels[:b]).mean():.1%}, plain accuracy "
          f"{(plain == labels[:b]).mean():.1%}, predictions agree on {agree}/{b}")
    print(f"  encrypt {t1 - t0:.2f} s, server {t2 - t1:.2f} s: {b / (t2 - t1):.0f} images/s; "
          f"{len(request) / 2**20:.0f} MiB sent, {len(answer) / 2**20:.1f} MiB back")
    print("  server per layer: " + ", ".join(f"{k} {v:.2f} s"
                                             for k, v in server.layer_seconds.items()))
    return agree


def classify_task(context, request, model):
    """One Dask task: a batch of images classified on a worker's cached context."""
    from heft import distributed as hd
    server = Server(context, model)
    start = time.perf_counter()
    answer = server.classify_batch(request)
    return answer, time.perf_counter() - start, hd.worker_address(), server.layer_seconds


def run_throughput_dask(args, client, model, inputs, labels):
    """Throughput mode over a Dask cluster: one task per batch; returns the agreement."""
    from distributed import Client as DaskClient, LocalCluster
    from heft import distributed as hd
    if args.dask == "local":
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None,
                               env={"HEFT_NUM_THREADS": str(args.threads or 1)})
        dask = DaskClient(cluster)
    else:
        cluster, dask = None, DaskClient(args.dask)
    workers = len(dask.scheduler_info()["workers"])
    total = min(args.dask_images or workers * args.batch, len(inputs))
    t0 = time.perf_counter()
    key = hd.share_context(dask, client.context)
    model_future = dask.scatter(model, broadcast=True)  # once per worker, not per task
    t1 = time.perf_counter()
    batches = [inputs[i:i + args.batch] for i in range(0, total, args.batch)]
    requests = [client.encrypt_batch(batch) for batch in progress(batches, "encrypt")]
    t2 = time.perf_counter()
    results = hd.map_bytes(dask, classify_task, requests, key, model_future)
    t3 = time.perf_counter()
    guesses = np.concatenate([client.decrypt_batch(answer).argmax(1)
                              for answer, _, _, _ in results])
    plain = np.array([np.argmax(plain_logits(model, image))
                      for image in progress(inputs[:total], "plain oracle")])
    agree = int((guesses == plain).sum())
    wall = t3 - t2
    busy, done, layers = {}, {}, {}
    for (answer, seconds, worker, layer_seconds), batch in zip(results, batches):
        busy[worker] = busy.get(worker, 0.0) + seconds
        done[worker] = done.get(worker, 0) + len(batch)
        for layer, value in layer_seconds.items():
            layers[layer] = layers.get(layer, 0.0) + value
    sent = sum(len(r) for r in requests)
    back = sum(len(answer) for answer, _, _, _ in results)
    print(f"\nthroughput mode on Dask: {total} images in {len(batches)} tasks of up to "
          f"{args.batch}, {workers} workers")
    print(f"  encrypted accuracy {(guesses == labels[:total]).mean():.1%}, plain accuracy "
          f"{(plain == labels[:total]).mean():.1%}, predictions agree on {agree}/{total}")
    print(f"  context and model to the workers {t1 - t0:.2f} s (once); encrypt {t2 - t1:.2f} s; "
          f"map {wall:.2f} s: {total / wall:.0f} images/s in all")
    for worker in sorted(busy):
        print(f"  worker {worker}: {done[worker]} images, busy {busy[worker]:.2f} s, "
              f"{done[worker] / busy[worker]:.0f} images/s")
    print("  all workers per layer: " + ", ".join(f"{k} {v:.2f} s" for k, v in layers.items()))
    # What the tasks did not spend computing: transfer, scheduling, waiting.
    share = 1 - sum(busy.values()) / (wall * workers)
    print(f"  {sent / 2**20:.0f} MiB sent, {back / 2**20:.1f} MiB back; transfer and "
          f"scheduling share of the workers' time: {share:.0%}")
    dask.close()
    if cluster is not None:
        cluster.close()
    return agree, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=100,
                        help="test images classified one by one in latency mode")
    parser.add_argument("--batch", type=int, default=4096,
                        help="test images classified in one evaluation in throughput mode")
    parser.add_argument("--mode", choices=["latency", "throughput", "both"], default="both")
    parser.add_argument("--threads", type=int, default=None,
                        help="heft's threads (default: HEFT_NUM_THREADS or every core)")
    parser.add_argument("--model", default=DEFAULT_MODEL,
                        help="the tutorial network's weights (models/fashion_mnist_tutorial.txt)")
    parser.add_argument("--network", choices=["tutorial", "deep", "both"], default="both",
                        help="TenSEAL's tutorial network, the deeper network that bootstraps "
                             "(fashion_mnist_deep.py), or both")
    parser.add_argument("--deep-images", type=int, default=4,
                        help="test images through the deeper network in latency mode, one "
                             "request each (about 6 s each on 2 cores, after a minute of keys)")
    parser.add_argument("--deep-batch-images", type=int, default=32,
                        help="test images through the deeper network in throughput mode, 32 "
                             "per request (about 0.5 s each on 2 cores)")
    parser.add_argument("--preset", default="n16-encaps",
                        help="the deeper network's bootstrapping parameters: n16-encaps "
                             "(sparse-secret encapsulation) or n16 (dense secret; 11 GiB of "
                             "keys)")
    parser.add_argument("--show", type=int, default=5, help="images printed one by one")
    parser.add_argument("--report", default="fashion_mnist_report.png",
                        help="the report picture to write ('' for none)")
    parser.add_argument("--dask", default=None,
                        help="run throughput mode on this Dask scheduler ('local': start a "
                             "LocalCluster of --workers processes)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--dask-images", type=int, default=0,
                        help="images over Dask (default: one batch per worker)")
    args = parser.parse_args()
    if args.images < 1 or not 1 <= args.batch <= 4096:
        sys.exit("--images must be positive, --batch in [1, 4096] (the slots of N = 8192)")
    if args.threads:
        os.environ["HEFT_NUM_THREADS"] = str(args.threads)

    failed = False
    if args.network in ("tutorial", "both"):
        failed |= run_tutorial(args)
    if args.network in ("deep", "both"):
        # The deeper network's keys and bootstrapper take most of the memory
        # (about 18 GiB at its peak): what the first one left idle goes back first.
        ts.release_idle_memory()
        failed |= run_deeper(args)
    if failed:
        sys.exit("the encrypted and plain predictions differ on more than 5% of the images")


def run_deeper(args):
    """The deeper network (fashion_mnist_deep.py) in the modes asked for; True if it
    failed."""
    import fashion_mnist_deep as deep
    model = read_model(deep.DEEP_MODEL)
    latency = args.deep_images if args.mode in ("latency", "both") else 0
    throughput = args.deep_batch_images if args.mode in ("throughput", "both") else 0
    inputs, labels = test_images(max(latency, throughput), *model["normalisation"])
    report = None
    if args.report:
        root, extension = os.path.splitext(args.report)
        report = lambda mode, *a: write_report(  # noqa: E731
            f"{root}_deep{'' if mode == 'latency' else '_' + mode}{extension or '.png'}", *a)
    agree, ran = deep.run_deep(args, inputs[:latency], labels[:latency], progress=progress,
                               report=report, batch_images=inputs[:throughput],
                               batch_labels=labels[:throughput])
    return agree < 0.95 * ran


def run_tutorial(args):
    """TenSEAL's tutorial network in the modes asked for; True if it failed."""
    model = read_model(args.model)
    mean, deviation = model["normalisation"]
    count = max(args.images, args.batch, min(10000, args.dask_images or
                                              (args.workers * args.batch if args.dask else 0)))
    images = read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz", count)
    labels = read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz", count)
    inputs = (images.astype(np.float64) / 255 - mean) / deviation

    start = time.perf_counter()
    client = Client(args.threads)
    public = client.public_context()
    keygen_s = time.perf_counter() - start
    start = time.perf_counter()
    server = Server(public, model)
    load_s = time.perf_counter() - start
    print(f"client: keys made in {keygen_s:.2f} s; public context sent to the server: "
          f"{len(public) / 2**20:.1f} MiB (evaluation keys, no secret key), loaded in "
          f"{load_s:.2f} s")

    # CKKS is approximate: an image whose two best logits are closer than the
    # error may flip; more than a few such images means something is wrong.
    failed = False
    if args.mode in ("latency", "both"):
        agree = run_latency(args, client, server, model, inputs, labels)
        failed |= agree < 0.95 * args.images
    if args.mode in ("throughput", "both") and args.dask:
        agree, total = run_throughput_dask(args, client, model, inputs, labels)
        failed |= agree < 0.95 * total
    elif args.mode in ("throughput", "both"):
        agree = run_throughput(args, client, server, model, inputs, labels)
        failed |= agree < 0.95 * args.batch
    return failed


if __name__ == "__main__":
    main()
