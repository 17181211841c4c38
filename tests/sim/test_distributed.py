"""torch.distributed in the simulated GPU: NCCL groups on gloo, NCCL's device rules.

In-process tests use a one-rank group on a HashStore; the 2-rank tests start real
ranks through torch's launcher (``torch.distributed.run``), as torchrun does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

import torchferry as tf
from torchferry.diagnose.distributed import explain_distributed
from torchferry.errors import UnsupportedFeatureError, UsageError
from torchferry.sim.launcher import launch, rank_argv

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="torch without distributed")

TRAIN = Path(__file__).parent / "ddp" / "train.py"
SRC = str(Path(__file__).resolve().parents[2] / "src")
PACKAGE = os.path.dirname(os.path.abspath(tf.__file__)) + os.sep


def _one_rank(backend="nccl", **kw):
    dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, **kw)


def _real_no_backend_text() -> str:
    """The text this torch build gives for a CPU tensor on a GPU-only group."""
    _one_rank("cuda:gloo")
    try:
        dist.all_reduce(torch.ones(1))
    except RuntimeError as exc:
        return str(exc)
    finally:
        dist.destroy_process_group()
    raise AssertionError("a CPU tensor on a cuda-only group did not fail")


def test_nccl_group_runs_on_gloo_and_answers_nccl():
    real_init = dist.init_process_group
    with tf.simulate("cuda", count=2):
        assert dist.is_nccl_available()
        _one_rank()
        try:
            assert dist.get_backend() == "nccl"
            t = torch.tensor([1.0, 2.0], device="cuda")
            dist.all_reduce(t)
            out = [torch.zeros(2, device="cuda")]
            dist.all_gather(out, t * 3)
            dist.broadcast(t, src=0)
            dist.barrier()
            assert str(t.device) == "cuda:0" and str(out[0].device) == "cuda:0"
            assert out[0].tolist() == [3.0, 6.0] and t.tolist() == [1.0, 2.0]
            objs = [None]
            dist.all_gather_object(objs, {"rank": 0})
            assert objs == [{"rank": 0}]
        finally:
            dist.destroy_process_group()
    assert dist.init_process_group is real_init
    assert not dist.is_initialized()


def test_cpu_tensor_on_an_nccl_group_fails_with_torchs_text():
    expected = _real_no_backend_text()
    assert expected == "No backend type associated with device type cpu"
    with tf.simulate("cuda"):
        _one_rank()
        try:
            with pytest.raises(RuntimeError) as info:
                dist.all_reduce(torch.ones(1))
            assert str(info.value) == expected
            report = explain_distributed(info.value)
            assert report["kind"] == "collective_on_cpu" and "t.to(device)" in report["fix"]
            assert report["path"] == __file__
        finally:
            dist.destroy_process_group()


def test_cpu_and_gpu_backends_together():
    with tf.simulate("cuda"):
        _one_rank("cpu:gloo,cuda:nccl")
        try:
            cpu = torch.ones(1)
            dist.all_reduce(cpu)  # gloo serves the CPU tensor
            assert cpu.tolist() == [1.0]
            with pytest.raises(ValueError, match="^Tensors must be CUDA and dense$"):
                dist.all_gather([torch.zeros(1)], torch.ones(1, device="cuda"))
        finally:
            dist.destroy_process_group()


def test_device_id_binds_the_group():
    with tf.simulate("cuda", count=2):
        _one_rank(device_id=torch.device("cuda", 1))
        try:
            dist.all_reduce(torch.ones(1, device="cuda:1"))
            with pytest.raises(dist.DistBackendError) as info:
                dist.all_reduce(torch.ones(1, device="cuda:0"))
            assert str(info.value) == "Tensor found on device cuda:0 but backend constrained to cuda:1"
            assert explain_distributed(info.value)["kind"] == "nccl_bound_device"
        finally:
            dist.destroy_process_group()
        with pytest.raises(ValueError, match="device_id cuda:2 is out of range"):
            _one_rank(device_id=2)


def test_fsdp_is_refused_naming_it():
    from torch.distributed.fsdp import FullyShardedDataParallel, fully_shard

    with tf.simulate("cuda"):
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp import fully_shard as shard

        m = torch.nn.Linear(2, 2).to("cuda")
        with pytest.raises(UnsupportedFeatureError, match=r"^FSDP \(torch.distributed.fsdp.Fully"):
            FSDP(m)
        assert shard is fully_shard  # FSDP2 runs (tests/sim/test_fsdp.py)
    from torch.distributed import fsdp

    assert fsdp.FullyShardedDataParallel is FullyShardedDataParallel and fsdp.fully_shard is fully_shard


def test_fsdp_patched_over_in_the_simulation_is_left_to_its_owner_with_a_warning():
    # the refusal goes through Patch: a name someone replaced on top of ours survives the exit
    # (theirs to undo; the old refusal put the original back over it), the rest is restored,
    # one RuntimeWarning names it, and our stale refusal underneath calls the original
    from torch.distributed import fsdp

    orig_fsdp, orig_shard = fsdp.FullyShardedDataParallel, fsdp.fully_shard
    try:
        with pytest.warns(RuntimeWarning, match=r"torch\.distributed\.fsdp\.FullyShardedDataParallel was "
                          r"replaced by other code") as record:
            with tf.simulate("cuda"):
                ours = fsdp.FullyShardedDataParallel
                assert ours is not orig_fsdp
                fsdp.FullyShardedDataParallel = lambda *a, **k: ours(*a, **k)  # never undone
                theirs = fsdp.FullyShardedDataParallel
                with pytest.raises(UnsupportedFeatureError, match=r"^FSDP \(torch"):
                    theirs(torch.nn.Linear(2, 2).to("cuda"))
        assert [w.filename for w in record if "fsdp" in str(w.message)] == [__file__]
        assert fsdp.FullyShardedDataParallel is theirs and fsdp.fully_shard is orig_shard
        with pytest.raises(RuntimeError, match="FSDP needs a non-CPU accelerator"):
            theirs(torch.nn.Linear(2, 2))  # the real FSDP's own refusal of this CPU machine
        with tf.simulate("cuda"):  # and the next simulation refuses FSDP again
            with pytest.raises(UnsupportedFeatureError, match=r"^FSDP \(torch"):
                fsdp.FullyShardedDataParallel(torch.nn.Linear(2, 2).to("cuda"))
        assert fsdp.FullyShardedDataParallel is theirs  # what was there when it began
    finally:
        fsdp.FullyShardedDataParallel = orig_fsdp


def test_explanations_by_text():
    dup = RuntimeError(
        "NCCL error in: x.cpp:1, invalid usage\nLast error:\n"
        "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"
    )
    r = explain_distributed(dup)
    assert r["kind"] == "nccl_duplicate_gpu" and "rank 1 and rank 0" in r["title"]
    assert 'torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))' in r["fix"]
    assert "torchferry.device()" in r["fix"]
    ddp = ValueError(
        "DistributedDataParallel device_ids and output_device arguments only work with "
        "single-device/multiple-device GPU modules or CPU modules, but got device_ids [1], "
        "output_device None, and module parameters {device(type='cpu')}."
    )
    assert explain_distributed(ddp)["kind"] == "ddp_cpu_module"
    assert explain_distributed(RuntimeError("Expected all tensors to be on the same device")) is None


def test_launcher_argv_and_bad_input(tmp_path):
    assert rank_argv("t.py", ["a"], simulate="cuda", nproc_per_node=3, count=1) == [
        "--standalone", "--nproc-per-node", "3", "-m", "torchferry", "run",
        "--simulate", "cuda", "--device-count", "1", "t.py", "a",
    ]
    assert rank_argv("pkg.mod", module=True, nproc_per_node=2)[-2:] == ["-m", "pkg.mod"]
    with pytest.raises(UsageError, match="no such script"):
        launch(str(tmp_path / "missing.py"), nproc_per_node=2)
    with pytest.raises(UsageError, match="no module named"):
        launch("no_such_module_for_ferry", module=True, nproc_per_node=2)
    with pytest.raises(UsageError, match="positive whole number"):
        launch(str(TRAIN), nproc_per_node=0)


# ------------------------------------------------------------------ 2 real ranks
def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("LOCAL_RANK", None)
    env.pop("TORCHFERRY_DEVICE", None)
    return env


def _losses(out: str) -> list[str]:
    return sorted(line for line in out.splitlines() if line.startswith("rank "))


def _torchrun(*args, cwd):
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", *args]
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def gloo_cpu_run(tmp_path_factory):
    """The reference: the same script, 2 processes, gloo on the CPU (no simulation)."""
    r = _torchrun(str(TRAIN), cwd=tmp_path_factory.mktemp("gloo"))
    assert r.returncode == 0, r.stderr[-3000:]
    return _losses(r.stdout)


def _without_devices(lines):
    return [re.sub(r" backend \S+ device \S+", "", x) for x in lines]


@pytest.mark.slow
def test_ddp_training_under_the_launcher_equals_gloo_cpu(gloo_cpu_run, tmp_path):
    # ferry run --simulate cuda --nproc-per-node 2 train.py
    cmd = [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda", "--nproc-per-node",
           "2", str(TRAIN)]
    r = subprocess.run(cmd, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    sim = _losses(r.stdout)
    assert len(sim) == 2 * 8 + 2 * 2
    assert _without_devices(sim) == _without_devices(gloo_cpu_run)
    assert "rank 0 backend nccl device cuda:0" in sim and "rank 1 backend nccl device cuda:1" in sim
    assert "rank 0 backend gloo device cpu" in gloo_cpu_run


@pytest.mark.slow
def test_torchferry_device_under_torchrun(gloo_cpu_run, tmp_path):
    # torchrun -m torchferry run --simulate cuda: LOCAL_WORLD_SIZE (2) devices per rank
    r = _torchrun("-m", "torchferry", "run", "--simulate", "cuda", str(TRAIN), "ferry-device",
                  cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    sim = _losses(r.stdout)
    assert _without_devices(sim) == _without_devices(gloo_cpu_run)
    assert "rank 1 backend nccl device cuda:1" in sim


MISTAKES = {
    "no-set-device": (
        "torch.distributed.DistBackendError: NCCL error in: "
        "/__w/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:92, invalid usage (run "
        "with NCCL_DEBUG=WARN for details), NCCL version 2.29.7\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "Last error:\n"
        "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
        "torchferry explain: two ranks on the same GPU (rank 1 and rank 0)",
    ),
    "other-rank-device": (
        "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
        "torchferry explain: two ranks on the same GPU",
    ),
    "cpu-tensor": (
        "RuntimeError: No backend type associated with device type cpu",
        "torchferry explain: a collective on a CPU tensor",
    ),
    "cpu-model": (
        "ValueError: DistributedDataParallel device_ids and output_device arguments only work "
        "with single-device/multiple-device GPU modules or CPU modules, but got device_ids [1], "
        "output_device None, and module parameters {device(type='cpu')}.",
        "torchferry explain: DistributedDataParallel(device_ids=...) of a model still on the CPU",
    ),
    "device-ids": (
        "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on "
        "cuda:0, different from other tensors on cuda:1 (when checking argument in method "
        "wrapper_CUDA_addmm)",
        "torchferry explain: DistributedDataParallel(device_ids=[0]) moved the inputs to "
        "cuda:0, but the model is on cuda:1 [rank 1, LOCAL_RANK=1]",
    ),
}


def _side_stream_simulated() -> bool:
    """DDP copies inputs to device_ids[0] on a side stream: does the simulation give one?"""
    from torch.nn.parallel import _functions

    with tf.simulate("cuda"):
        try:
            with _functions._get_stream(torch.device("cuda", 0)):
                return True
        except Exception:
            return False


@pytest.mark.parametrize("mistake", [
    pytest.param(m, marks=pytest.mark.skipif(
        m == "device-ids" and not _side_stream_simulated(),
        reason="DDP's side-stream input copy needs the simulated torch.Stream (DataParallel work)"))
    for m in sorted(MISTAKES)
])
@pytest.mark.slow
def test_each_ddp_mistake_fails_with_the_real_text_and_is_explained(mistake, tmp_path):
    text, explained = MISTAKES[mistake]
    r = _torchrun("-m", "torchferry", "run", "--simulate", "cuda", str(TRAIN), mistake,
                  cwd=tmp_path)
    assert r.returncode == 1
    # torch.distributed's excepthook prefixes each line with [rankN]:, as on a GPU machine
    stderr = re.sub(r"^\[rank\d+\]: ", "", r.stderr, flags=re.MULTILINE)
    assert text in stderr, stderr[-4000:]
    assert explained in stderr, stderr[-4000:]
    # The user's traceback shows no frame from our package (matched by file path: a clone's
    # folder is named torchferry too).
    files = re.findall(r'^  File "([^"]+)"', stderr.split("Traceback", 2)[1], re.MULTILINE)
    assert files and not [f for f in files if os.path.abspath(f).startswith(PACKAGE)], files


@pytest.mark.slow
def test_fsdp_imported_inside_the_simulation_is_refused_and_restored():
    # torch.distributed.fsdp is heavy, so the simulation patches it when it is imported
    code = (
        "import sys, torch, torchferry as tf\nfrom torchferry.errors import UnsupportedFeatureError\n"
        "assert 'torch.distributed.fsdp' not in sys.modules\n"
        "finders = list(sys.meta_path)\n"
        "with tf.simulate('cuda'):\n"
        "    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "    try:\n"
        "        FSDP(torch.nn.Linear(2, 2).to('cuda'))\n"
        "    except UnsupportedFeatureError as e:\n"
        "        print(str(e).split(':')[0])\n"
        "import torch.distributed.fsdp as fsdp\n"
        "print(fsdp.FullyShardedDataParallel.__module__, sys.meta_path == finders)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == [
        "FSDP (torch.distributed.fsdp.FullyShardedDataParallel) cannot run in the simulated GPU",
        "torch.distributed.fsdp.fully_sharded_data_parallel True",
    ]


def test_a_failed_launch_is_named_after_the_users_script_as_torchrun_names_it(
    monkeypatch, capsys
):
    import torch.distributed.run as torchrun
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

    def fail(args):
        failure = ProcessFailure(local_rank=1, pid=4242, exitcode=1, error_file="")
        raise ChildFailedError("torchferry", {1: failure})  # what -m torchferry gives

    monkeypatch.setattr(torchrun, "run", fail)
    assert launch(str(TRAIN), nproc_per_node=2) == 1
    err = capsys.readouterr().err
    assert f"{TRAIN} FAILED" in err and "torchferry FAILED" not in err
    assert "local_rank: 1" in err and "exitcode  : 1" in err


# ------------------------------------------------------------------ 2 nodes x 2 ranks
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _two_nodes(*args, cwd, wait_for_both=True):
    """Two torchrun launchers on this machine, one per node, joined by c10d rendezvous:
    ``torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint
    127.0.0.1:PORT ARGS`` twice.  Returns (exit statuses, stdout, stderr) of both.

    Without ``wait_for_both``, once one launcher has ended the other gets 120 s and is then
    ended (with its ranks): a node whose peers died before ``init_process_group`` waits
    for them until the group's timeout, on a GPU machine too.
    """
    import signal

    port = _free_port()
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2", "--nproc-per-node", "2",
           "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", *args]
    procs = [subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
             for _ in range(2)]
    import threading

    results: list[tuple[str, str] | None] = [None, None]

    def collect(i):
        results[i] = procs[i].communicate()

    threads = [threading.Thread(target=collect, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    try:
        if wait_for_both:
            for t in threads:
                t.join(600)
        else:
            import time

            deadline = time.monotonic() + 600
            while all(p.poll() is None for p in procs) and time.monotonic() < deadline:
                time.sleep(0.5)
            for t in threads:
                t.join(120)
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
        for t in threads:
            t.join(60)
    outs = [r or ("", "") for r in results]
    return [p.returncode for p in procs], outs[0][0] + outs[1][0], outs[0][1] + outs[1][1]


SIM_RUN = ("-m", "torchferry", "run", "--simulate", "cuda")


@pytest.fixture(scope="module")
def gloo_two_nodes(tmp_path_factory):
    """The reference: the same script on 2 nodes x 2 processes, gloo on the CPU."""
    codes, out, err = _two_nodes(str(TRAIN), cwd=tmp_path_factory.mktemp("gloo2"))
    assert codes == [0, 0], err[-3000:]
    return _losses(out)


@pytest.mark.slow
def test_two_nodes_of_two_simulated_gpus_give_gloos_losses(gloo_two_nodes, tmp_path):
    codes, out, err = _two_nodes(*SIM_RUN, str(TRAIN), cwd=tmp_path)
    assert codes == [0, 0], err[-3000:]
    sim = _losses(out)
    assert len(sim) == 4 * 4 + 4 * 2  # 4 ranks: 2 epochs x 2 steps, then 2 summary lines
    assert _without_devices(sim) == _without_devices(gloo_two_nodes)
    # each node has its own cuda:0 and cuda:1 (LOCAL_WORLD_SIZE devices per rank)
    for rank, dev in ((0, 0), (1, 1), (2, 0), (3, 1)):
        assert f"rank {rank} backend nccl device cuda:{dev}" in sim
    assert "rank 3 all_reduce" in out and "all_gather [0.0, 1.0, 2.0, 3.0]" in out
    assert "rank 2 backend gloo device cpu" in gloo_two_nodes


def _unprefixed(stderr: str) -> str:
    return re.sub(r"^\[rank\d+\]: ", "", stderr, flags=re.MULTILINE)


@pytest.mark.slow
def test_two_nodes_duplicate_gpus_are_per_node(tmp_path):
    # no set_device: every rank on its node's cuda:0; NCCL compares bus ids per host only
    codes, out, err = _two_nodes(*SIM_RUN, str(TRAIN), "no-set-device", cwd=tmp_path)
    assert codes == [1, 1]
    stderr = _unprefixed(err)
    for a, b in ((0, 1), (1, 0), (2, 3), (3, 2)):
        assert f"Duplicate GPU detected : rank {a} and rank {b} both on CUDA device 1000" in stderr
    assert not re.search(r"rank [01] and rank [23]|rank [23] and rank [01]", stderr)
    assert "torchferry explain: two ranks on the same GPU (rank 3 and rank 2)" in stderr


@pytest.mark.slow
def test_two_nodes_device_by_global_rank_fails_on_the_second_node(tmp_path):
    # torch.cuda.set_device(RANK): cuda:2 and cuda:3 do not exist on a node of 2 GPUs
    codes, out, err = _two_nodes(*SIM_RUN, str(TRAIN), "global-rank", cwd=tmp_path,
                                 wait_for_both=False)
    assert 1 in codes
    stderr = _unprefixed(err)
    assert stderr.count("torch.AcceleratorError: CUDA error: invalid device ordinal") == 2
    for rank in (2, 3):
        assert (f"torchferry explain: a device index past this node's GPUs (rank {rank} on node 1, "
                f"LOCAL_RANK={rank - 2}): RANK is the global rank") in stderr
    assert 'torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))' in stderr
