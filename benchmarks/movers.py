"""Per-call cost of the nested-batch movers, side by side in one process.

    python benchmarks/movers.py [--repeat 7] [--target cpu]

Compares ``torchferry.to`` with ``accelerate.utils.send_to_device``, Lightning
Fabric's ``move_data_to_device`` and ``torch.utils._pytree.tree_map`` on the
batch shapes people ship every step.  The target is the CPU (this machine has no
GPU), so ``Tensor.to`` returns its input and what is measured is each mover's
own overhead: traversal, type tests, container rebuilding.

Each figure is the median over ``--repeat`` rounds of the mean per-call time of
an inner loop sized to run about 0.2 s; rounds interleave the movers so that
machine noise hits all of them alike.  The "moves it?" columns check that each
mover really puts every tensor on the target, by moving each batch to the
``meta`` device once (a move to the CPU cannot be seen on a CPU-only machine).  Needs ``pip install 'torchferry[bench]'``
plus ``lightning-fabric``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

import torch
from torch.utils import _pytree

import torchferry


@dataclasses.dataclass
class Pair:
    x: torch.Tensor
    y: torch.Tensor


def batches() -> dict[str, object]:
    t = torch.ones
    mixed = {
        "inputs": {"input_ids": t(2, 8), "attention_mask": t(2, 8), "token_type_ids": t(2, 8)},
        "labels": t(2),
        "images": [t(3, 4, 4) for _ in range(6)],
        "meta": {"ids": ["a", "b"], "epoch": 3, "lr": 0.1, "name": "run", "flag": None},
        "pairs": [(t(1), t(1)) for _ in range(4)],
        "extra": (t(2), {"mask": t(2), "scale": t(1), "n": 5}, [t(1), t(1), "tag"]),
    }
    return {
        "one tensor": t(4, 4),
        "tuple of 2": (t(4, 4), t(4)),
        "dict of 4 (tokenizer-style)": {
            "input_ids": t(2, 8), "attention_mask": t(2, 8), "token_type_ids": t(2, 8), "labels": t(2),
        },
        "mixed nest (32 leaves, 22 tensors)": mixed,
        "dataclass of 2 tensors": Pair(t(2), t(2)),
        "list of 1000 tensors": [t(1) for _ in range(1000)],
    }


def movers() -> dict[str, Callable[[object, torch.device], object]]:
    out: dict[str, Callable[[object, torch.device], object]] = {"torchferry.to": torchferry.to}
    try:
        from accelerate.utils import send_to_device

        out["accelerate"] = send_to_device
    except ImportError:
        pass
    try:
        from lightning_fabric.utilities.apply_func import move_data_to_device
    except ImportError:
        try:
            from lightning.fabric.utilities.apply_func import move_data_to_device
        except ImportError:
            move_data_to_device = None
    if move_data_to_device is not None:
        out["lightning"] = move_data_to_device

    def pytree_to(b, target):
        return _pytree.tree_map(lambda x: x.to(target) if isinstance(x, torch.Tensor) else x, b)

    out["_pytree.tree_map"] = pytree_to
    return out


def time_call(fn: Callable[[], object], budget: float = 0.2) -> float:
    n = 1
    while True:  # size the loop to the budget
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= budget / 4:
            break
        n *= 4
    n = max(1, int(n * budget / dt))
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def tensors_in(obj) -> list[torch.Tensor]:
    """Every tensor inside obj, looking into containers and dataclasses alike."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if dataclasses.is_dataclass(obj):
        return [t for f in dataclasses.fields(obj) for t in tensors_in(getattr(obj, f.name))]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in tensors_in(v)]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in tensors_in(v)]
    return []


def moves_everything(mover: Callable[[object, torch.device], object], batch: object) -> bool:
    """Does the mover put every tensor on the target?  Checked with the meta device, where a
    move is visible on this CPU-only machine."""
    meta = torch.device("meta")
    return all(t.device == meta for t in tensors_in(mover(batch, meta)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--target", default="cpu")
    args = ap.parse_args()
    target = torch.device(args.target)
    torch.set_num_threads(1)
    ms = movers()
    rows = []
    for name, batch in batches().items():
        samples: dict[str, list[float]] = {m: [] for m in ms}
        for _ in range(args.repeat):
            for m, fn in ms.items():
                samples[m].append(time_call(lambda fn=fn, b=batch: fn(b, target)))
        med = {m: statistics.median(v) * 1e6 for m, v in samples.items()}
        walked = {m: moves_everything(fn, batch) for m, fn in ms.items()}
        rows.append((name, med, walked))

    names = list(ms)
    print(f"torch {torch.__version__}, target {target}, median of {args.repeat} rounds, µs per call")
    header = f"| batch | {' | '.join(names)} | torchferry / fastest other |"
    print(header)
    print("|" + "---|" * (len(names) + 2))
    for name, med, walked in rows:
        others = [med[m] for m in names if m != "torchferry.to" and walked[m]]
        cells = []
        for m in names:
            cell = f"{med[m]:.2f}" if med[m] < 10 else f"{med[m]:.1f}"
            if not walked[m]:
                cell += " (not moved)"
            cells.append(cell)
        ratio = f"{med['torchferry.to'] / min(others):.2f}x" if others else "n/a (others do not move it)"
        print(f"| {name} | {' | '.join(cells)} | {ratio} |")


if __name__ == "__main__":
    main()
