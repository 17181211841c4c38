"""A tiny DDP training run, written like pytorch/examples'
distributed/ddp-tutorial-series/multigpu_torchrun.py: torchrun sets LOCAL_RANK, the
script picks the GPU (or the CPU with gloo), wraps the model in DDP and trains.

``python train.py [MISTAKE]``: MISTAKE makes one of the classic DDP mistakes on a
GPU machine (the tests expect each to fail there, and under the simulated GPU):

* ``no-set-device``: nobody calls torch.cuda.set_device(local_rank); the model goes
  to "cuda" (device 0) on every rank.
* ``cpu-tensor``: an all_reduce of a CPU tensor on the NCCL group.
* ``device-ids``: DDP(model, device_ids=[0]) while the model is on cuda:LOCAL_RANK.
* ``cpu-model``: DDP(model, device_ids=[LOCAL_RANK]) with the model left on the CPU.
* ``other-rank-device``: a tensor made on "cuda:0" on every rank, all-reduced.
* ``global-rank``: torch.cuda.set_device(RANK), the global rank: right on one node,
  past the node's GPUs on the second node of a multi-node run.

``ferry-device`` is not a mistake: ``device = torchferry.device()`` instead of
set_device by hand (it makes LOCAL_RANK's GPU current under torchrun).
"""

import gc
import os
import sys

import torch
import torch.distributed as dist

# Imported before the process group exists, on purpose (see ``teardown``): DDP imports
# this module on first use, and its functions take ``group=group.WORLD`` as a default
# argument, evaluated at import; imported later, they would keep the group alive until
# the interpreter's own teardown.
import torch.distributed.nn  # noqa: F401
import torch.nn.functional as F
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

MISTAKE = sys.argv[1] if len(sys.argv) > 1 else ""


def say(line: str) -> None:
    """One line in one write: the ranks share one stdout pipe, and print()'s separate
    writes of the text and its newline let the other rank's line land in between."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def ddp_setup() -> torch.device:
    local_rank = int(os.environ["LOCAL_RANK"])
    if MISTAKE == "ferry-device":
        import torchferry

        device = torchferry.device()
        init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
        return device
    if torch.cuda.is_available():
        if MISTAKE == "no-set-device":
            init_process_group(backend="nccl")
            return torch.device("cuda")
        if MISTAKE == "global-rank":
            local_rank = int(os.environ["RANK"])
        torch.cuda.set_device(local_rank)
        init_process_group(backend="nccl")
        return torch.device("cuda", local_rank)
    init_process_group(backend="gloo")
    return torch.device("cpu")


def main() -> None:
    device = ddp_setup()
    train(device)
    teardown()


def train(device: torch.device) -> None:
    rank = dist.get_rank()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 20), torch.randn(64, 1))
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data, shuffle=False))
    model = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    if MISTAKE == "cpu-model":
        model = DDP(model, device_ids=[int(os.environ["LOCAL_RANK"])])
    elif MISTAKE == "device-ids":
        model = DDP(model.to(device), device_ids=[0])
    elif device.type == "cuda":
        model = DDP(model.to(device), device_ids=[device.index])
    else:
        model = DDP(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            say(f"rank {rank} epoch {epoch} step {step} loss {loss.item()!r}")
    total = loss.detach().clone()
    if MISTAKE == "cpu-tensor":
        total = total.cpu()
    if MISTAKE == "other-rank-device":
        total = torch.tensor([loss.item()], device="cuda:0")
    dist.all_reduce(total)
    gathered = [torch.zeros(1, device=device) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, torch.tensor([float(rank)], device=device))
    flag = torch.tensor([rank + 10.0], device=device)
    dist.broadcast(flag, src=1)
    dist.barrier()
    weight = next(model.parameters())
    say(f"rank {rank} all_reduce {total.item()!r} all_gather {[g.item() for g in gathered]} "
        f"broadcast {flag.item()!r} weight_sum {weight.sum().item()!r}")
    say(f"rank {rank} backend {dist.get_backend()} device {weight.device}")


def teardown() -> None:
    """destroy_process_group(), then the group's end while Python is fully alive, with
    the GIL free.

    destroy_process_group() drops torch.distributed's references, but the gloo group
    lives on in DDP's reducer; its destructor joins the group's worker threads, and a
    worker may still be dropping its last collective's tensors, which takes the GIL
    (torch decrefs a tensor's PyObject when its C++ refcount goes from 2 to 1,
    c10/util/intrusive_ptr.h).  Two ways to get that wrong, both seen:

    * the group destroyed during interpreter finalization (the last reference in a
      module global): the worker's GIL take ends the thread with pthread_exit, whose
      unwinding through a noexcept frame is std::terminate: "terminate called without
      an active exception", SIGABRT, now and then, at exit;
    * the last reference dropped by the reducer's destructor, which runs with the GIL
      held: the destructor waits for the worker, the worker for the GIL, forever.

    So the reducer goes first (with train()'s locals, and any cycle by gc.collect()), and
    the last reference is the Python ProcessGroup object, whose destructor releases the
    GIL before it joins the workers.
    """
    group = dist.group.WORLD
    destroy_process_group()
    gc.collect()
    del group  # the last reference: the group's threads are joined here


if __name__ == "__main__":
    main()
