"""Gaps that running whole programs revealed: f-strings of device tensors, and the workers
a simulated program spawns."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn as nn

from torchferry.sim.session import simulate


def test_fstring_of_a_device_tensor_prints_its_device():
    # x-transformers/minGPT style progress lines: f"predicted output: {sample}"
    with simulate("cuda"):
        x = torch.ones(2, device="cuda")
        p = nn.Parameter(torch.tensor(2.0, device="cuda"))
        assert f"{x}" == "tensor([1., 1.], device='cuda:0')"
        assert format(x) == repr(x)
        assert f"{x.sum():.1f}" == "2.0"
        assert f"{p}" == "Parameter containing:\ntensor(2., device='cuda:0', requires_grad=True)"
        with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
            f"{x:.2f}"  # noqa: B018 - the error under test


_SPAWN_SCRIPT = """
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, port, mistake):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank)
    t = torch.full((2,), float(rank + 1), device="cuda")
    dist.all_reduce(t)
    sys.stdout.write(f"rank {rank}: {torch.cuda.device_count()} {t}\\n")  # one write per line
    sys.stdout.flush()
    if mistake:
        t + torch.ones(2)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(int(sys.argv[1]), len(sys.argv) > 2), nprocs=2)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_mp_spawn_workers_run_in_a_simulation_like_the_parents(tmp_path):
    # pytorch/examples imagenet --multiprocessing-distributed, the DDP tutorials: mp.spawn
    # starts fresh interpreters, which had no simulated GPU (ProcessGroupNCCL: no GPUs found)
    script = tmp_path / "spawn_ddp.py"
    script.write_text(textwrap.dedent(_SPAWN_SCRIPT))
    cmd = [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda", "--device-count", "2",
           str(script)]
    r = subprocess.run([*cmd, str(_free_port())], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == [
        "rank 0: 2 tensor([3., 3.], device='cuda:0')",
        "rank 1: 2 tensor([3., 3.], device='cuda:1')",
    ]
    # a worker's device error reaches the parent as torch reports it
    r = subprocess.run([*cmd, str(_free_port()), "mistake"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1
    assert "torch.multiprocessing.spawn.ProcessRaisedException" in r.stderr
    assert "RuntimeError: Expected all tensors to be on the same device, but found at least two " \
           "devices, cuda:" in r.stderr
