"""Behaviour inside ``torchferry.simulate`` beyond the fidelity table, and exact restoration."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.serialization as ser

import torchferry as tf
from torchferry.sim import created_at, device_of, subscribe
from torchferry.sim.modes import UnsupportedFeatureError
from torchferry.sim.session import SimulationError, simulate

PATCHED_MODULES = [
    torch.cuda,
    torch.accelerator,
    torch.mps,
    torch.backends.mps,
    torch.backends.cuda,
]


def _snapshot():
    snap = {}
    for mod in [*PATCHED_MODULES, torch, getattr(torch, "xpu", torch)]:
        snap[mod.__name__] = dict(vars(mod))
    snap["Tensor"] = dict(vars(torch.Tensor))
    snap["TensorBase"] = dict(vars(torch._C.TensorBase))
    snap["Module"] = dict(vars(nn.Module))
    return snap


def _same(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].keys() == b[name].keys(), name
        for k in a[name]:
            assert a[name][k] is b[name][k], (name, k)


@pytest.mark.parametrize("kind", ["cuda", "mps", "xpu"])
def test_everything_is_restored_exactly(kind):
    before = _snapshot()
    registry = list(ser._package_registry)
    meta_path = list(sys.meta_path)
    modes_before = torch.overrides._get_current_function_mode_stack()
    with simulate(kind):
        x = torch.ones(2, device=kind)
        assert str(x.device) == f"{kind}:0"
        assert ser._package_registry != registry
    _same(before, _snapshot())
    assert ser._package_registry == registry
    assert sys.meta_path == meta_path
    assert torch.overrides._get_current_function_mode_stack() == modes_before
    assert not torch.cuda.is_available()
    assert str(x.device) == "cpu"  # the data was always on the CPU


def test_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError), simulate("cuda"):
        1 / 0  # noqa: B018
    assert not torch.cuda.is_available()


def test_toplevel_export_and_decorator():
    @tf.simulate("cuda", count=2)
    def inside():
        return torch.cuda.device_count(), str(torch.ones(1, device="cuda:1").device)

    assert inside() == (2, "cuda:1")
    assert inside() == (2, "cuda:1")  # re-entrant as a decorator
    assert not torch.cuda.is_available()


def test_nesting_is_refused():
    with simulate("cuda"), pytest.raises(SimulationError, match="cannot be nested"):
        with simulate("mps"):
            pass


def test_real_device_present_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with pytest.raises(SimulationError, match="real cuda device"):
        with simulate("cuda"):
            pass


@pytest.mark.parametrize("kind, count", [("tpu", 1), ("cuda", 0), ("cuda", True), ("mps", 2)])
def test_bad_arguments(kind, count):
    """A bad kind or count is a UsageError: a FerryError, and a ValueError as before."""
    from torchferry.errors import FerryError, UsageError

    with pytest.raises(UsageError) as info:
        simulate(kind, count)
    assert isinstance(info.value, FerryError) and isinstance(info.value, ValueError)
    assert str(info.value).startswith("simulate: ")


def test_device_api_stand_ins():
    with simulate("cuda", count=2):
        assert torch.cuda.is_available() and torch.cuda.device_count() == 2
        assert torch.cuda.current_device() == 0
        assert "simulated" in torch.cuda.get_device_name()
        assert torch.cuda.get_device_properties(1).total_memory > 0
        with pytest.raises(AssertionError, match="Invalid device id"):
            torch.cuda.get_device_properties(2)
        torch.cuda.set_device(1)
        assert torch.cuda.current_device() == 1
        assert str(torch.ones(1, device="cuda").device) == "cuda:1"
        assert str(torch.ones(1).cuda().device) == "cuda:1"
        with torch.cuda.device(0):
            assert str(torch.ones(1, device="cuda").device) == "cuda:0"
        assert torch.cuda.current_device() == 1
        with pytest.raises(torch.AcceleratorError, match="invalid device ordinal"):
            torch.cuda.set_device(2)
        torch.cuda.synchronize()
        assert torch.accelerator.is_available()
        assert torch.accelerator.current_accelerator() == torch.device("cuda")
        assert torch.accelerator.device_count() == 2
        assert torch.accelerator.current_device_index() == 1
        torch.accelerator.set_device_index(0)
        assert torch.cuda.current_device() == 0
        torch.cuda.manual_seed(3)
        a = torch.randn(3, device="cuda")
        torch.cuda.manual_seed_all(3)
        assert torch.equal(a.cpu(), torch.randn(3, device="cuda").cpu())


def test_memory_allocated_counts_live_device_tensors():
    with simulate("cuda"):
        base = torch.cuda.memory_allocated()
        x = torch.ones(1024, device="cuda")
        assert torch.cuda.memory_allocated() - base == 4096
        assert torch.cuda.max_memory_allocated() >= base + 4096
        cpu = torch.ones(1024)  # noqa: F841 - host memory is not counted
        assert torch.cuda.memory_allocated() - base == 4096
        del x
        assert torch.cuda.memory_allocated() == base
        assert torch.cuda.max_memory_allocated() >= base + 4096
        torch.cuda.reset_peak_memory_stats()
        assert torch.cuda.max_memory_allocated() == base


def test_streams_and_events():
    with simulate("cuda"):
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            assert torch.cuda.current_stream() == s
        assert torch.cuda.current_stream() == torch.cuda.default_stream()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        end.record()
        end.synchronize()
        assert isinstance(start.elapsed_time(end), float) and start.elapsed_time(end) >= 0


def test_module_to_in_place_with_grads_and_optimizer_state():
    with simulate("cuda"):
        m = nn.Linear(3, 2)
        m(torch.ones(1, 3)).sum().backward()
        w = m.weight
        assert m.to("cuda") is m and m.weight is w
        assert str(m.weight.device) == "cuda:0" and str(m.weight.grad.device) == "cuda:0"
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        m(torch.ones(4, 3, device="cuda")).sum().backward()
        opt.step()
        buf = opt.state[m.weight]["momentum_buffer"]
        assert str(buf.device) == "cuda:0"
        assert str(m.cpu().weight.device) == "cpu" and m.weight.grad.device.type == "cpu"


def test_views_like_new_and_autograd_grad():
    with simulate("cuda"):
        x = torch.arange(6.0, device="cuda").reshape(2, 3)
        for t in (x[0], x.T, x.view(-1), torch.zeros_like(x), x.new_zeros(2), x.detach()):
            assert t.is_cuda and t.get_device() == 0
        p = torch.ones(3, device="cuda", requires_grad=True)
        (g,) = torch.autograd.grad((p * 2).sum(), p)
        assert str(g.device) == "cuda:0"
        seen = []
        q = torch.ones(2, device="cuda", requires_grad=True)
        q.register_hook(lambda grad: seen.append(device_of(grad)))
        (q * 3).sum().backward()
        assert seen == [torch.device("cuda", 0)]


def test_numerics_equal_cpu():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 1))
    x = torch.randn(8, 5)
    expected = m(x)
    with simulate("cuda"):
        got = m.to("cuda")(x.to("cuda"))
        assert got.is_cuda
        assert torch.equal(got.cpu(), expected)


def test_pin_memory_and_non_blocking():
    with simulate("cuda"):
        x = torch.ones(3).pin_memory()
        assert x.is_pinned() and not torch.ones(3).is_pinned()
        y = x.to("cuda", non_blocking=True)
        assert y.is_cuda and y.cpu(memory_format=torch.contiguous_format).device.type == "cpu"


def test_pinned_storages_are_forgotten_when_they_die():
    # a loop that pins every batch (DataLoader(pin_memory=True)) used to leave one record per
    # pin_memory() call in the simulation's own table, never swept: 2,000 after 2,000 batches
    from torchferry.sim import tags

    with simulate("cuda"):
        keep = torch.ones(4).pin_memory()
        for _ in range(2000):
            batch = torch.ones(4).pin_memory()
            assert batch.is_pinned()
            batch.to("cuda", non_blocking=True)
        del batch
        assert len(tags.PINNED) <= 2 + 16  # the live ones and at most one sweep's worth
        assert keep.is_pinned() and keep[1:].is_pinned() and keep.view(2, 2).is_pinned()
        assert keep.detach().is_pinned() and not keep.clone().is_pinned()
        assert not keep.to("cuda", non_blocking=True).is_pinned()
        assert keep.is_pinned()  # still, after its non-blocking copy
    assert len(tags.PINNED) == 0  # nothing outlives the simulation
    assert not keep.is_pinned()  # a CPU wheel's tensor, outside the simulation


class _Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i


def test_dataloader_with_workers_and_pin_memory():
    with simulate("cuda"):
        loader = torch.utils.data.DataLoader(
            _Squares(), batch_size=4, num_workers=2, pin_memory=True
        )
        seen = []
        for x, y in loader:
            assert x.device.type == "cpu" and x.is_pinned()
            x = x.to("cuda", non_blocking=True)
            seen.append((str(x.device), y.tolist()))
    assert seen == [("cuda:0", [0, 1, 4, 9]), ("cuda:0", [16, 25, 36, 49])]


def test_mps_rules():
    with simulate("mps"):
        assert torch.backends.mps.is_available() and not torch.cuda.is_available()
        x = torch.ones(2, device="mps")
        assert repr(x) == "tensor([1., 1.], device='mps:0')"
        msg = "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support"
        for bad in (
            lambda: torch.ones(2, device="mps", dtype=torch.float64),
            lambda: x.double(),
            lambda: x.to(torch.float64),
            lambda: torch.ones(2, dtype=torch.float64).to("mps"),
        ):
            with pytest.raises(TypeError, match=msg):
                bad()
        with pytest.raises(TypeError, match="can't convert mps:0 device type tensor to numpy"):
            x.numpy()


def test_xpu_basics():
    with simulate("xpu"):
        assert torch.xpu.is_available()
        x = torch.ones(2).to("xpu")
        assert repr(x * 2) == "tensor([2., 2.], device='xpu:0')"
        assert x.is_xpu and not x.is_cuda


@pytest.mark.slow
def test_checkpoint_from_simulation_is_a_real_gpu_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    with simulate("cuda"):
        torch.save({"w": torch.ones(2, device="cuda"), "c": torch.zeros(1)}, path)
        inside = torch.load(path)
        assert str(inside["w"].device) == "cuda:0" and inside["c"].device.type == "cpu"
        mapped = torch.load(path, map_location="cpu")
        assert mapped["w"].device.type == "cpu"
    code = textwrap.dedent(
        f"""
        import torch
        try:
            torch.load({str(path)!r})
        except RuntimeError as e:
            print(e)
        print(torch.load({str(path)!r}, map_location="cpu")["w"].tolist())
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.\n[1.0, 1.0]\n"
    )


def test_checkpoint_on_a_device_index_too_high(tmp_path):
    path = tmp_path / "ckpt1.pt"
    with simulate("cuda", count=2):
        torch.save(torch.ones(1, device="cuda:1"), path)
    with simulate("cuda"), pytest.raises(RuntimeError, match="on CUDA device 1 but"):
        torch.load(path)


def test_unsupported_features_fail_clearly():
    with simulate("cuda"):
        with pytest.raises(UnsupportedFeatureError, match="CUDA graphs"):
            torch.cuda.CUDAGraph()
        with pytest.raises(ModuleNotFoundError, match="Triton kernels cannot run"):
            import triton  # noqa: F401


def test_custom_cuda_only_kernel_fails_clearly():
    lib = torch.library.Library("ferry_sim_test", "DEF")
    lib.define("double_it(Tensor x) -> Tensor")
    lib.impl("double_it", lambda x: x * 2, "CUDA")
    with (
        simulate("cuda"),
        pytest.raises(UnsupportedFeatureError, match="ferry_sim_test::double_it"),
    ):
        torch.ops.ferry_sim_test.double_it(torch.ones(2, device="cuda"))


def test_sync_debug_mode_flags_syncs_only_on_device_tensors():
    with simulate("cuda"):
        x = torch.ones(3, device="cuda")
        torch.cuda.set_sync_debug_mode("warn")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x.sum().item()
            torch.ones(3).sum().item()  # a CPU tensor: no sync
        msgs = [str(m.message) for m in w]
        assert msgs.count("called a synchronizing CUDA operation") == 1
        torch.cuda.set_sync_debug_mode("error")
        for op in (lambda: x.tolist(), lambda: bool(x[0]), lambda: x.nonzero(), lambda: x[x > 0]):
            with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
                op()
        x.to("cpu", non_blocking=True)  # not a sync
        torch.cuda.set_sync_debug_mode(0)
        assert torch.cuda.get_sync_debug_mode() == 0


def test_events_and_created_at():
    events = []
    with simulate("cuda"):
        stop = subscribe(events.append)
        x = torch.ones(256).to("cuda")  # line A
        y = x * 2
        y.sum().item()
        y.cpu()
        print(y[:2])
        stop()
        x.cpu()  # after unsubscribing: not seen
        where = created_at(y)
        assert device_of(y) == torch.device("cuda", 0)
        assert device_of(torch.ones(1)) == torch.device("cpu")
        assert created_at(torch.ones(1)) is None
    got = [(e.kind, e.op, e.direction, e.nbytes) for e in events]
    assert got == [
        ("transfer", "to", "h2d", 1024),
        ("sync", "item", None, 0),
        ("sync", "cpu", None, 0),
        ("transfer", "cpu", "d2h", 1024),
        ("sync", "print", None, 0),
    ]
    assert events[0].site[0] == __file__ and events[0].site[2] == "test_events_and_created_at"
    assert where == (__file__, events[0].site[1] + 1, "test_events_and_created_at")


def test_numpy_interop_after_cpu():
    with simulate("cuda"):
        x = torch.arange(3.0, device="cuda")
        assert np.asarray(x.cpu()).tolist() == [0.0, 1.0, 2.0]
        buf = io.StringIO()
        print(f"{x.sum():.1f}", file=buf)
        assert buf.getvalue() == "3.0\n"


def test_autocast_on_the_simulated_device_produces_gpu_dtypes():
    # on a GPU, autocast("cuda") runs linear in float16 (torch/amp/autocast_mode.py docs)
    with simulate("cuda"):
        m = nn.Linear(4, 4).cuda()
        with torch.autocast("cuda"):
            y = m(torch.ones(2, 4, device="cuda"))
        assert y.dtype == torch.float16 and str(y.device) == "cuda:0"
        assert m(torch.ones(2, 4, device="cuda")).dtype == torch.float32


def test_generator_stand_in_keeps_isinstance():
    with simulate("cuda"):
        g = torch.Generator(device="cuda")
        assert isinstance(g, torch.Generator) and isinstance(
            torch.default_generator, torch.Generator
        )
        assert g.device == torch.device("cuda")
    assert torch.Generator is torch._C.Generator


def test_deepcopy_keeps_the_device():
    import copy

    with simulate("cuda"):
        m = nn.Linear(2, 2).cuda()
        m2 = copy.deepcopy(m)
        assert str(m2.weight.device) == "cuda:0"
        x = torch.ones(2, device="cuda")
        assert str(copy.deepcopy(x).device) == "cuda:0"


def test_docstring_examples_run():
    import doctest

    import torchferry.sim
    import torchferry.sim.events
    import torchferry.sim.runner
    import torchferry.sim.session
    import torchferry.sim.tags

    for mod in (torchferry.sim, torchferry.sim.session, torchferry.sim.events,
                torchferry.sim.runner, torchferry.sim.tags):
        result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, mod.__name__


def test_set_default_device_to_the_simulated_device():
    before = torch.get_default_device()
    with simulate("cuda"):
        torch.set_default_device("cuda")
        assert str(torch.ones(1).device) == "cuda:0"
        assert str(nn.Linear(2, 2).weight.device) == "cuda:0"  # factories with device=None
        assert str(torch.get_default_device()) == "cuda:0"
        torch.set_default_device("cpu")
        assert torch.ones(1).device.type == "cpu"
        torch.set_default_device("cuda")  # left set: undone on exit
    assert torch.get_default_device() == before
    assert torch.ones(1).device.type == "cpu"


def test_mps_module_functions_and_buffers_follow_module_to():
    with simulate("mps"):
        assert torch.mps.device_count() == 1
        torch.mps.manual_seed(1)
        a = torch.rand(2, device="mps")
        torch.mps.manual_seed(1)
        assert torch.equal(a.cpu(), torch.rand(2, device="mps").cpu())
        torch.mps.synchronize()
        bn = nn.BatchNorm1d(3).to("mps")
        assert {str(b.device) for b in bn.buffers()} == {"mps:0"}
        assert torch.mps.current_allocated_memory() > 0


def test_functorch_transforms_keep_the_device():
    with simulate("cuda"):
        x = torch.ones(3, 2, device="cuda")
        assert str(torch.vmap(lambda r: r * 2)(x).device) == "cuda:0"
        g = torch.func.grad(lambda r: (r * r).sum())(torch.ones(2, device="cuda"))
        assert repr(g) == "tensor([2., 2.], device='cuda:0')"
        with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cpu!"):
            torch.vmap(lambda r: r + torch.ones(2))(x)


def test_pickle_round_trip_is_a_gpu_pickle():
    import pickle

    with simulate("cuda"):
        blob = pickle.dumps(torch.ones(2, device="cuda"))
        assert str(pickle.loads(blob).device) == "cuda:0"
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        pickle.loads(blob)


def test_as_tensor_onto_the_device_copies_like_a_gpu():
    with simulate("cuda"):
        x = torch.ones(2)
        y = torch.as_tensor(x, device="cuda")
        y.add_(1)
        a = np.ones(2, dtype=np.float32)
        z = torch.as_tensor(a, device="cuda")
        z.add_(1)
        assert x.tolist() == [1.0, 1.0] and a.tolist() == [1.0, 1.0]  # no shared memory
        assert y.is_cuda and z.is_cuda and torch.as_tensor(y, device="cuda") is y


def test_a_stand_in_left_behind_by_a_users_patch_calls_the_real_function():
    """A test's monkeypatch made inside the block is left in place at exit (theirs to
    undo, with a warning); its teardown then restores what it saved: the stand-in.  That
    stand-in used to go on answering True with no simulation; now it calls what it replaced
    (the patcher's rule for replacements that outlive their patch)."""
    import warnings

    real = torch.cuda.is_available
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with simulate("cuda"):
            standin = torch.cuda.is_available
            assert standin() is True
            torch.cuda.is_available = lambda: "the user's"
    assert torch.cuda.is_available() == "the user's"  # theirs, left in place
    assert any("torch.cuda.is_available was replaced" in str(w.message) for w in caught)
    try:
        torch.cuda.is_available = standin  # the user's teardown puts back what it saved
        assert torch.cuda.is_available() is real()  # the real answer, not the simulation's
        with simulate("cuda"):  # a later simulation installs its own stand-in again
            assert torch.cuda.is_available() is True
    finally:
        torch.cuda.is_available = real
