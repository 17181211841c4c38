"""One rank of ``accelerate launch``: its device, backend, and a sum over the ranks."""

import sys

import torch
from accelerate import Accelerator

acc = Accelerator()
t = torch.tensor([float(acc.process_index + 1)], device=acc.device)
total = acc.reduce(t, reduction="sum")
sys.stdout.write(  # one write: the ranks share one stdout pipe
    f"rank {acc.process_index} of {acc.num_processes} device {acc.device} "
    f"backend {torch.distributed.get_backend()} sum {total.item()} on {total.device}\n"
)
