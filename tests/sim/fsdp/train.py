"""A tiny FSDP2 (``fully_shard``) training run under torchrun, written like
pytorch/examples' distributed/FSDP2/example.py: torchrun sets LOCAL_RANK, the script
picks the GPU with NCCL (or the CPU with gloo), shards each layer and the model, and
trains a small MLP.  Each rank prints its losses and, at the end, the full weights'
sum (gathered with ``full_tensor()``) and where the parameters live.
"""

import gc
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard


def say(line: str) -> None:
    sys.stdout.write(line + "\n")  # one write: the ranks share one stdout pipe
    sys.stdout.flush()


def setup() -> torch.device:
    if torch.cuda.is_available():
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        dist.init_process_group(backend="nccl", device_id=local_rank)
        return torch.device("cuda", local_rank)
    dist.init_process_group(backend="gloo")
    return torch.device("cpu")


def main() -> None:
    device = setup()
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(),
        torch.nn.Linear(32, 1),
    )
    model.to(device)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(rank)
    for step in range(6):
        x = torch.randn(8, 20, generator=generator).to(device)
        y = torch.randn(8, 1, generator=generator).to(device)
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        say(f"rank {rank} step {step} loss {loss.item()!r}")
    weight = model[0].weight
    full = weight.full_tensor()
    say(f"rank {rank} weight_sum {full.sum().item()!r} shard {tuple(weight.to_local().shape)}")
    say(f"rank {rank} backend {dist.get_backend()} device {weight.device} "
        f"local {weight.to_local().device} full {full.device}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    # the sharded model's reference cycles hold the gloo group's work until the interpreter's
    # own teardown, where a rank can abort ("terminate called without an active exception",
    # no Python frame), plain torchrun without torchferry included: free them while Python
    # is still whole
    gc.collect()
