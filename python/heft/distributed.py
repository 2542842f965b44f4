"""heft on a Dask cluster (Debian's python3-distributed): many ciphertexts, many workers.

The pattern, for the inference server's throughput mode or any map of a heft function:

    from dask.distributed import Client
    import heft as ts
    from heft import distributed as hd

    client = Client("tcp://scheduler:8786")          # or Client(LocalCluster(...))
    key = hd.share_context(client, context)           # the PUBLIC context, once per worker
    results = hd.map_bytes(client, work, requests, key)   # in the order of `requests`

- `share_context` serialises the context without its secret key (a context that would
  carry one is refused) and installs it on every worker, present and future, as a Dask
  worker plugin: each worker loads it once and caches it (`worker_context(key)`), so no
  task carries the keys (megabytes) again.
- `map_bytes` runs `work(context, item, *args)` on the workers for each item (heft's
  serialized ciphertexts, or anything picklable) and returns the results in order. A
  worker lost mid-run costs only its tasks: Dask runs them again elsewhere, and the
  context reaches a restarted worker through the same plugin.
- Task size: a task should carry enough work to amortise its transfer, e.g. a full
  ciphertext batch (N/2 images in the inference demo, docs/python.md).
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Tuple

from distributed import WorkerPlugin, get_worker

from . import _heft
from ._context import Context

if TYPE_CHECKING:
    from distributed import Client, Worker

# The contexts this process holds as a worker: key -> Context.
_CONTEXTS: Dict[str, Context] = {}


class PublicContextPlugin(WorkerPlugin):
    """Loads a public context's bytes on each worker once and caches it under `key`."""

    def __init__(self, key: str, data: bytes) -> None:
        self.key = key
        self.data = data
        self.name = f"heft-context-{key}"

    def setup(self, worker: Worker) -> None:
        context = Context(_heft.TensorContext.load(self.data, False))
        if context.is_private():  # never: share_context refuses them
            raise ValueError("heft.distributed: a worker was sent a secret key")
        _CONTEXTS[self.key] = context


def share_context(client: Client, context: Context) -> str:
    """Installs `context`'s public part on every worker of `client`; returns its key.

    Raises ValueError if `context` has no public key to ship, or if its public
    serialization would still hold a secret key."""
    data = context.serialize(save_public_key=True, save_secret_key=False,
                             save_galois_keys=True, save_relin_keys=True)
    if Context(_heft.TensorContext.load(data, False)).is_private():
        raise ValueError("share_context: the context's public bytes hold a secret key")
    key = hashlib.sha256(data).hexdigest()[:16]
    client.register_worker_plugin(PublicContextPlugin(key, data))
    return key


def worker_context(key: str) -> Context:
    """On a worker: the context share_context installed under `key`."""
    try:
        return _CONTEXTS[key]
    except KeyError:
        raise LookupError(f"heft.distributed: no context {key} on this worker; "
                          "share it first with share_context(client, context)") from None


def _run(item: Any, work: Callable[..., Any], context_key: str, args: Tuple[Any, ...]) -> Any:
    return work(worker_context(context_key), item, *args)


def map_bytes(client: Client, work: Callable[..., Any], items: Iterable[Any], key: str,
              *args: Any) -> List[Any]:
    """[work(context, item, *args) for item in items], run on the workers, in order.

    `context` is the worker's cached copy of the shared context `key`; `args` are
    passed as they are (scatter large ones first: client.scatter(x, broadcast=True))."""
    # The items go to the workers directly (not through the scheduler), then
    # each task runs where its item is.
    placed = client.scatter(list(items), direct=True, hash=False)
    futures = client.map(_run, placed, work=work, context_key=key, args=args, pure=False)
    return client.gather(futures, direct=True)


def worker_address() -> str:
    """The address of the worker running the calling task (for per-worker reports)."""
    return get_worker().address


def secret_key_held() -> bool:
    """On a worker: True if any cached context holds a secret key (tests, audits)."""
    return any(context.is_private() for context in _CONTEXTS.values())
