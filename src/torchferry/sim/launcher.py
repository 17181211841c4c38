"""``ferry run --nproc-per-node N``: start N ranks through torch's own launcher.

Each rank is ``python -m torchferry run [--simulate KIND --device-count C] SCRIPT
ARGS`` started by ``torch.distributed.run`` (what ``torchrun`` runs) with
``--standalone`` (a rendezvous on a free local port), so a rank sees exactly the
environment torchrun gives it (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``/``MASTER_PORT``, ...).  In a simulation
each rank has its own simulated devices; by default a node has one GPU per rank
(``C = N``), as on the usual GPU machine.

``torchrun --nproc-per-node N -m torchferry run --simulate cuda SCRIPT`` does the
same by hand: under torchrun, ``ferry run --simulate`` without ``--device-count``
simulates ``LOCAL_WORLD_SIZE`` devices (:func:`default_count`).

Does not import torch at import time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from torchferry.errors import UsageError
from torchferry.sim import kinds as _kinds

__all__ = ["launch", "default_count", "rank_argv"]


def default_count() -> int:
    """Simulated devices per rank: ``LOCAL_WORLD_SIZE`` under torchrun, else 1.

    >>> default_count() >= 1
    True
    """
    text = os.environ.get("LOCAL_WORLD_SIZE", "").strip()
    try:
        n = int(text)
    except ValueError:
        return 1
    return n if n >= 1 else 1


def rank_argv(
    target: str,
    argv: Sequence[str] = (),
    *,
    module: bool = False,
    simulate: str | None = None,
    count: int | None = None,
    nproc_per_node: int = 1,
    trips: bool = False,
    memory: int | None = None,
) -> list[str]:
    """The arguments torch.distributed.run gets: its options, then each rank's command.

    >>> rank_argv("train.py", ["--epochs", "1"], simulate="cuda", nproc_per_node=2)
    ['--standalone', '--nproc-per-node', '2', '-m', 'torchferry', 'run', '--simulate', 'cuda', '--device-count', '2', 'train.py', '--epochs', '1']
    """
    cmd = ["--standalone", "--nproc-per-node", str(nproc_per_node), "-m", "torchferry", "run"]
    if simulate is not None:
        cmd += ["--simulate", simulate]
        if count is None:  # one GPU per rank; a Mac has one MPS device
            count = min(nproc_per_node, _kinds.spec(simulate).max_count or nproc_per_node)
        cmd += ["--device-count", str(count)]
        if memory is not None:
            cmd += ["--memory", str(memory)]
    if trips:
        cmd.append("--trips")
    cmd += ["-m", target] if module else [target]
    return cmd + list(argv)


def launch(
    target: str,
    argv: Sequence[str] = (),
    *,
    module: bool = False,
    simulate: str | None = None,
    count: int | None = None,
    nproc_per_node: int = 1,
    trips: bool = False,
    memory: int | None = None,
) -> int:
    """Run ``target`` as ``nproc_per_node`` ranks under ``torch.distributed.run``.

    Returns 0 when every rank exited 0; otherwise torchrun's failure summary is
    printed on stderr (each rank printed its own traceback, and in a simulation
    the explanation of a device error) and the result is 1, as ``torchrun``
    exits.  A missing script or module raises :class:`~torchferry.errors.UsageError`
    before anything starts.  With ``trips`` each rank prints its own table.
    """
    if isinstance(nproc_per_node, bool) or not isinstance(nproc_per_node, int) or nproc_per_node < 1:
        raise UsageError(f"--nproc-per-node must be a positive whole number, not {nproc_per_node!r}")
    if not module and not os.path.exists(target):
        raise UsageError(f"no such script: {target}")
    if module:
        import importlib.util

        saved = sys.path[:]
        sys.path.insert(0, os.getcwd())
        try:
            found = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            found = None
        finally:
            sys.path[:] = saved
        if found is None:
            raise UsageError(f"no module named {target!r}")
    import torch.distributed.run as torchrun
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    args = torchrun.parse_args(
        rank_argv(target, argv, module=module, simulate=simulate, count=count,
                  nproc_per_node=nproc_per_node, trips=trips, memory=memory)
    )
    try:
        torchrun.run(args)
    except ChildFailedError as exc:
        # torchrun names the failure after its entry point, which here is
        # ``-m torchferry``; ``torchrun train.py`` would say "train.py FAILED".
        exc.name = target
        sys.stderr.flush()
        print(exc.format_msg(), file=sys.stderr)
        return 1
    return 0
