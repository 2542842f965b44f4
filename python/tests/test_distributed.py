"""heft on a Dask LocalCluster of 2 worker processes (heft.distributed): a map of a
heft function over ciphertexts against plain floats, in order; one worker killed
mid-run and every result still there and right; no worker ever holding a secret key."""
import os
import random
import signal
import sys
import time

import pytest

distributed = pytest.importorskip("distributed")

import heft as ts  # noqa: E402
from heft import distributed as hd  # noqa: E402

# The workers cannot import this test module: its functions travel by value.
import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def square_plus_one(context, data, pause):
    time.sleep(pause)  # long enough for a worker to be killed mid-run
    x = ts.ckks_vector_from(context, data)
    return (x * x + 1).serialize()


def worker_pid():
    return os.getpid()


@pytest.fixture(scope="module")
def cluster():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None,
                                       env={"HEFT_NUM_THREADS": "1"})
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def context():
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                     coeff_mod_bit_sizes=[60, 40, 40, 60])
    ctx.global_scale = 2 ** 40
    return ctx


def inputs(context, count):
    """`count` vectors of plain values and their encryptions' bytes."""
    rng = random.Random(3)
    values = [[rng.uniform(-1, 1) for _ in range(8)] for _ in range(count)]
    return values, [ts.ckks_vector(context, v).serialize() for v in values]


def check(context, values, answers):
    """Every answer there, in order, and x * x + 1 of its values."""
    assert len(answers) == len(values)
    for v, answer in zip(values, answers):
        got = ts.ckks_vector_from(context, answer).decrypt()
        assert got == pytest.approx([x * x + 1 for x in v], abs=1e-4)


def test_a_map_over_ciphertexts_comes_back_in_order_and_right(cluster, context):
    key = hd.share_context(cluster, context)
    values, requests = inputs(context, 6)
    check(context, values, hd.map_bytes(cluster, square_plus_one, requests, key, 0.0))
    # The context reached the workers without its secret key.
    assert not any(cluster.run(hd.secret_key_held).values())


def test_a_worker_killed_mid_run_costs_only_its_tasks(cluster, context):
    key = hd.share_context(cluster, context)
    values, requests = inputs(context, 8)
    futures = cluster.map(hd._run, requests, work=square_plus_one, context_key=key,
                          args=(0.5,), pure=False)
    time.sleep(0.7)  # both workers are busy with their first tasks
    victim = sorted(cluster.scheduler_info()["workers"])[0]
    pid = cluster.run(worker_pid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    answers = cluster.gather(futures)  # Dask reruns the lost tasks
    assert victim not in cluster.scheduler_info()["workers"]  # it did die
    check(context, values, answers)
    # The restarted worker got the context again, without the secret key.
    assert not any(cluster.run(hd.secret_key_held).values())


def test_a_private_context_is_never_shipped(cluster, context):
    # share_context sends the public part only; a context loaded from those bytes
    # has no secret key, and the workers never see one.
    key = hd.share_context(cluster, context)
    assert context.is_private()  # the client's own copy keeps it
    held = cluster.run(hd.secret_key_held)
    assert held and not any(held.values())
    with pytest.raises(LookupError):
        hd.worker_context("no-such-key")
    assert key in cluster.run(lambda: sorted(hd._CONTEXTS)).popitem()[1]
