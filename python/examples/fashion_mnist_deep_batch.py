"""Throughput mode of the deeper network (fashion_mnist_deep.py): 32 images per
evaluation, one bootstrap for all of them.

How a batch is packed: the 32768 slots are 32 blocks of 32 x 32, image b in block b,
and each channel is its own ciphertext (a CKKSTensor batched on the slots, [32768, C]).
A rotation by dy * 32 + dx moves every image's pixels by (dy, dx) at once, so a
convolution with dilation d is: every channel rotated by the k x k offsets
d (32 u + v), hoisted (CKKSTensor.rotate_hoisted: [32768, k k, C_in]), then one plain
matrix [k k C_in, C_out] (CKKSTensor.mm): constant products summed, one level, the
same weights as latency mode. Pooling is two rotations, as there. The fully connected
layer rotates the 2 x 2 features of each channel to slot 0 of the block and multiplies
by the [4 C, 10] matrix: logit o of image b lands in slot b * 1024 of element o.

Bootstrapping 16 channel ciphertexts would cost 16 bootstraps. After the second
pooling each channel's valid values sit every 4 slots both ways, so the 16 channels
interleave in one ciphertext: channel c is masked to its valid slots (one level, the
mask also scaling by 1/4, the pooling's, so that values stay within bootstrapping's
range), rotated right by its phase 32 (c // 4) + c % 4 and added. One bootstrap
refreshes all 32 images' 16 channels; hoisted rotations by the phases take them apart.
"""
import numpy as np

import heft as ts

from fashion_mnist_deep import BLOCK, BLOCKS, SIDE, SLOTS

IMAGES_PER_BATCH = BLOCKS


def pack_batch(images):
    """Up to 32 normalised 28 x 28 images, image b in block b: a [slots, 1] array."""
    if len(images) > IMAGES_PER_BATCH:
        raise ValueError(f"{len(images)} images do not fit one batch of {IMAGES_PER_BATCH}")
    blocks = np.zeros((BLOCKS, SIDE, SIDE))
    for b, image in enumerate(images):
        blocks[b, :image.shape[0], :image.shape[1]] = image
    return blocks.reshape(SLOTS, 1)


def logits_of(decrypted, count):
    """The [count, 10] logits in a decrypted [slots, 10] answer (slot b * 1024)."""
    return np.asarray(decrypted)[np.arange(count) * BLOCK]


def phase(channel):
    """Where channel c sits in a merged block: rows c // 4 and columns c % 4 further."""
    return SIDE * (channel // 4) + channel % 4


def kernel_offsets(side, dilation):
    return [dilation * (SIDE * u + v) for u in range(side) for v in range(side)]


class BatchNetwork:
    """A DeepNetwork's weights laid out for the batch: a matrix per convolution,
    the merge before bootstrapping, the fully connected matrix, and the keys."""

    def __init__(self, network):
        self.network = network
        self.channels = network.layers[0]["kernels"].shape[0]
        pools = [i for i, layer in enumerate(network.layers) if layer["pool"]]
        # Merge and bootstrap after the last pooling, where the values are sparse enough.
        self.merge_after = pools[-1]
        merged_dilation = 2 * network.layers[self.merge_after]["pool"]
        if self.channels > merged_dilation ** 2:
            raise ValueError(f"{self.channels} channels do not interleave at dilation "
                             f"{merged_dilation}")
        self.layers = []
        for i, layer in enumerate(network.layers):
            kernels = layer["kernels"]
            if i == self.merge_after + 1:
                kernels = kernels * 4  # the merge's mask took the pooling's 1/4 ahead
            out_channels, in_channels, k, _ = kernels.shape
            self.layers.append({
                "offsets": kernel_offsets(k, layer["dilation"]),
                # Row (u k + v) C_in + i, column o: kernels[o, i, u, v].
                "matrix": kernels.transpose(2, 3, 1, 0).reshape(k * k * in_channels,
                                                                 out_channels),
                "bias": layer["bias_channels"].reshape(1, -1),
            })
        # The merge's mask: 1/4 where the last pooling left valid values, every
        # merged_dilation slots both ways over a side x side map.
        side, sides = 28, []
        for layer in network.layers:
            side = side - layer["kernels"].shape[-1] + 1
            side = side // 2 if layer["pool"] else side
            sides.append(side)
        block = np.zeros((SIDE, SIDE))
        valid = slice(0, sides[self.merge_after] * merged_dilation, merged_dilation)
        block[valid, valid] = 0.25
        self.mask = np.tile(block.ravel(), BLOCKS).reshape(SLOTS, 1)
        # The fully connected layer: features (c, i, j) of the last fc_side x fc_side map.
        fc_side, fc_dilation = sides[-1], network.layers[-1]["dilation"]
        self.fc_offsets = [fc_dilation * (SIDE * i + j) for i in range(fc_side)
                           for j in range(fc_side)]
        weights = network.fc_weights.reshape(-1, self.channels, fc_side * fc_side)
        # Row (position) C + c, column o.
        self.fc_matrix = weights.transpose(2, 1, 0).reshape(fc_side * fc_side * self.channels, -1)
        self.fc_bias = network.model["fc_bias"].reshape(1, -1)

    def levels_before_merge(self):
        """Levels spent before the merge's mask: a convolution and an activation per layer."""
        return 2 * (self.merge_after + 1)

    def galois_steps(self):
        """(steps used at any level, steps used only after the mask): the merge's
        rotations run at a low level, where keys are small."""
        steps = set()
        for batch_layer, layer in zip(self.layers, self.network.layers):
            steps |= set(batch_layer["offsets"])
            if layer["pool"]:
                steps |= {layer["pool"], SIDE * layer["pool"]}
        steps |= {phase(c) for c in range(self.channels)} | set(self.fc_offsets)
        steps.discard(0)
        return sorted(steps), sorted(-phase(c) for c in range(1, self.channels))


def classify_batch(server, batch_network, request):
    """The server's work on one batch request (bytes of a [slots, 1] tensor): the
    answer's bytes, a [slots, 10] tensor. Times go to server.layer_seconds."""
    import time
    network = batch_network.network
    t = time.perf_counter()
    x = ts.ckks_tensor_from(server.context, request)
    t = server._timed("load", t)
    for i, (layer, batch_layer) in enumerate(zip(network.layers, batch_network.layers)):
        z = _convolve(x, batch_layer["offsets"], batch_layer["matrix"]) + batch_layer["bias"]
        t = server._timed(layer["name"], t)
        x, t = server.activate_and_pool(z, layer, t)
        if i == batch_network.merge_after:
            x = _merge_and_bootstrap(server, batch_network, x)
            t = server._timed("bootstrap", t)
    rotated = x.rotate_hoisted(batch_network.fc_offsets)
    features = rotated.reshape([len(batch_network.fc_offsets) * batch_network.channels])
    x = features.mm(batch_network.fc_matrix) + batch_network.fc_bias
    t = server._timed("fc", t)
    answer = x.serialize()
    server._timed("save", t)
    return answer


CHANNEL_GROUP = 8  # input channels rotated at once: 72 ciphertexts at N = 2^16, not 144


def _convolve(x, offsets, matrix):
    """x (shape [C_in]) convolved: each group of input channels rotated by every offset
    (hoisted), times its rows of the matrix, the groups' products added. Groups bound
    the rotated copies held at once (each ciphertext is about 10 MiB at N = 2^16)."""
    in_channels = x.shape[-1]
    rows = np.arange(len(offsets) * in_channels).reshape(len(offsets), in_channels)
    total = None
    for first in range(0, in_channels, CHANNEL_GROUP):
        group = slice(first, min(first + CHANNEL_GROUP, in_channels))
        part = x if in_channels <= CHANNEL_GROUP else x[group]
        rotated = part.rotate_hoisted(offsets)  # shape [offsets, group]
        width = rows[:, group].size
        product = rotated.reshape([width]).mm(matrix[rows[:, group].ravel()])
        del rotated
        total = product if total is None else total + product
    return total


def _merge_and_bootstrap(server, batch_network, x):
    """The channels interleaved into one ciphertext, bootstrapped once, taken apart."""
    masked = x * batch_network.mask
    merged = None
    for c in range(batch_network.channels):
        part = masked[c]
        if phase(c):
            part = part.rotate(-phase(c))
        merged = part if merged is None else merged + part
    refreshed = merged.bootstrap()
    server.bootstraps += 1
    # Shape [C]: channel c back at the valid slots (other channels' values between).
    return refreshed.rotate_hoisted([phase(c) for c in range(batch_network.channels)])
