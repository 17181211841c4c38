"""Python processes a simulated program starts get the simulation (sim/inherit.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from torchferry.sim import childenv as inherit
from torchferry.sim.session import simulate

CHILD = (
    "import torch; x = torch.ones(2).cuda(); "
    "print(torch.cuda.is_available(), torch.cuda.device_count(), x.device, "
    "torch.cuda.mem_get_info()[1])"
)


def test_the_environment_is_set_inside_and_restored_after(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    monkeypatch.delenv(inherit.ENV, raising=False)
    with simulate("cuda", count=2, memory=1024):
        assert os.environ[inherit.ENV] == "cuda:2:1024"
        assert os.environ["PYTHONPATH"].split(os.pathsep) == [inherit.CHILD_DIR, "/somewhere"]
    assert inherit.ENV not in os.environ and os.environ["PYTHONPATH"] == "/somewhere"


def test_decode_refuses_a_malformed_value():
    with pytest.raises(ValueError):
        inherit.decode("cuda")


@pytest.mark.slow
def test_a_python_child_sees_the_simulated_devices():
    with simulate("cuda", count=2, memory=2**30):
        r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                           timeout=300)
        plain = subprocess.run([sys.executable, "-c", "print('no torch')"],
                               capture_output=True, text=True, timeout=300)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"True 2 cuda:0 {2**30}\n", "")
    assert (plain.stdout, plain.stderr) == ("no torch\n", "")
    after = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True, timeout=300)
    assert after.stdout == "False\n"


@pytest.mark.slow
def test_the_childs_own_simulation_and_sitecustomize_come_first(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import builtins; builtins.THEIRS = True\n")
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import builtins, torch, torchferry as tf
        print(getattr(builtins, "THEIRS", False), torch.cuda.device_count())
        with tf.simulate("cuda", count=3):
            print(torch.cuda.device_count())
        print(torch.cuda.is_available())
    """))
    monkeypatch.setenv("PYTHONPATH", str(theirs))
    with simulate("cuda", count=2):
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           timeout=300)
    assert r.returncode == 0, r.stderr
    # the inherited simulation (2 devices) gave way to the script's own (3); after that
    # one ended nothing is simulated
    assert r.stdout.split() == ["True", "2", "3", "False"]


RANKS = textwrap.dedent("""
    import os, sys, torch, torch.distributed as dist
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    t = torch.ones(1, device="cuda") * (rank + 1)
    dist.all_reduce(t)
    with open(os.path.join(sys.argv[1], f"rank{rank}.txt"), "w") as f:  # ranks print at once
        print(rank, dist.get_backend(), t.device, t.item(), file=f)
    dist.destroy_process_group()
""")


@pytest.mark.slow
def test_torchrun_started_by_a_simulated_program_gets_simulated_ranks(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(RANKS)
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    with simulate("cuda", count=2):
        r = subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2", str(script),
                            str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    got = [(tmp_path / f"rank{i}.txt").read_text() for i in (0, 1)]
    assert got == ["0 nccl cuda:0 3.0\n", "1 nccl cuda:1 3.0\n"]
