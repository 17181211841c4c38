"""Gaps real programs hit in the simulated GPU, each reproduced in a few lines.

Every test here failed before its fix (see the commit that added it).
"""

from __future__ import annotations

import sys
import warnings

import pytest
import torch
import torch.nn as nn

from torchferry.diagnose.tripcount import trips
from torchferry.errors import UnsupportedFeatureError
from torchferry.sim import created_at
from torchferry.sim import events as sim_events
from torchferry.sim.session import simulate


# ---------------------------------------------------------------- 1. grouping by device
def _amp_step(fused: bool) -> nn.Module:
    m = nn.Linear(4, 4).cuda()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, fused=fused)
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = m(torch.randn(2, 4, device="cuda")).float().sum()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    return m


def test_fp16_grad_scaler_with_fused_adamw_runs():
    with simulate("cuda"):
        m = _amp_step(fused=True)
        assert str(m.weight.device) == "cuda:0"


def test_fused_adamw_matches_cpu_numbers():
    torch.manual_seed(0)
    ref = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    cpu_model = nn.Linear(4, 3)
    cpu_model.load_state_dict(ref.state_dict())
    opt = torch.optim.AdamW(cpu_model.parameters(), lr=0.1, fused=True)
    cpu_model(x).sum().backward()
    opt.step()
    with simulate("cuda"):
        m = nn.Linear(4, 3)
        m.load_state_dict(ref.state_dict())
        m.cuda()
        opt = torch.optim.AdamW(m.parameters(), lr=0.1, fused=True)
        m(x.cuda()).sum().backward()
        opt.step()
        assert torch.equal(m.weight.detach().cpu(), cpu_model.weight.detach())


def test_clip_grad_norm_makes_no_device_to_host_copy():
    with simulate("cuda"):
        m = nn.Linear(4, 4).cuda()
        m(torch.randn(2, 4, device="cuda")).sum().backward()
        seen: list = []
        stop = sim_events.subscribe(seen.append)
        try:
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        finally:
            stop()
    assert [e for e in seen if e.kind == "transfer" and e.direction == "d2h"] == []


# ---------------------------------------------------------------- 2. conv backend
def test_conv_cpu_input_at_realistic_shape_says_mkldnn():
    assert torch.backends.mkldnn.is_available()
    with simulate("cuda"):
        c = nn.Conv2d(3, 8, 3).cuda()
        with pytest.raises(RuntimeError) as info:
            c(torch.randn(2, 3, 32, 32))
    assert str(info.value) == (
        "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
        "same or input should be a MKLDNN tensor and weight is a dense tensor"
    )


def test_conv_cpu_input_batch_one_small_kernel_still_slow_conv2d():
    with simulate("cuda"):
        c = nn.Conv2d(3, 4, 3).cuda()
        with pytest.raises(RuntimeError, match="wrapper_CUDA___slow_conv2d_forward"):
            c(torch.ones(1, 3, 5, 5))


def test_depthwise_conv_with_cpu_weight_uses_the_native_depthwise_kernel_text():
    with simulate("cuda"):
        c = nn.Conv2d(4, 4, 3, groups=4)
        with pytest.raises(RuntimeError) as info:
            c(torch.ones(2, 4, 8, 8, device="cuda"))
    assert str(info.value) == (
        "Expected all tensors to be on the same device, but got weight is on cpu, different "
        "from other tensors on cuda:0 (when checking argument in method "
        "wrapper_CUDA___conv_depthwise2d)"
    )


# ---------------------------------------------------------------- 3. tags lost
def test_torchscript_function_results_keep_the_device():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        @torch.jit.script
        def softclamp(t: torch.Tensor, value: float) -> torch.Tensor:
            return (t / value).tanh() * value

    with simulate("cuda"):
        x = torch.randn(3, device="cuda")
        y = softclamp(x, 5.0)
        assert str(y.device) == "cuda:0"
        assert str((y + x).device) == "cuda:0"
        with pytest.raises(RuntimeError, match="cuda:0 and cpu"):
            softclamp(x, 5.0) + torch.ones(3)


def test_default_device_under_ferry_run(tmp_path, capsys):
    # `ferry run` explains errors: its factory recorder wraps torch.ones & co., and torch's
    # cache of factory functions, filled then, held the wrappers
    from torchferry.diagnose.run import run_diagnosed

    script = tmp_path / "s.py"
    script.write_text(
        "import torch\n"
        "torch.set_default_device('cuda')\n"
        "print(torch.ones(2).device, torch.nn.Linear(2, 2).weight.device)\n"
        "torch.set_default_device(None)\n"
        "with torch.device('cuda'):\n"
        "    print(torch.zeros(1).device)\n"
    )
    assert run_diagnosed(str(script), [], simulate="cuda") == 0
    assert capsys.readouterr().out == "cuda:0 cuda:0\ncuda:0\n"


# ---------------------------------------------------------------- 6. ints as devices
def test_int_devices_mean_the_accelerator():
    with simulate("cuda", count=2):
        assert str(torch.device(0)) == "cuda:0"
        assert str(torch.ones(2).to(1).device) == "cuda:1"
        assert str(nn.Linear(2, 2).to(0).weight.device) == "cuda:0"
        assert str(torch.ones(2).to(torch.cuda.current_device()).device) == "cuda:0"
        assert isinstance(torch.device("cpu"), torch.device)
        assert str(torch.ones(2, device=1).device) == "cuda:1"


# ---------------------------------------------------------------- 7. output a GPU would not print
def test_lstm_and_gru_print_no_cudnn_warning():
    with simulate("cuda"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for cls in (nn.LSTM, nn.GRU, nn.RNN):
            m = cls(4, 4, num_layers=2).cuda()
            out = m(torch.randn(3, 2, 4, device="cuda"))[0]
            assert str(out.device) == "cuda:0"
    assert [str(w.message) for w in caught] == []


def test_rnn_cuda_does_not_depend_on_the_wheel_having_cudnn(monkeypatch):
    # The CUDA wheel has cuDNN: is_acceptable() then says yes and RNN.flatten_parameters
    # calls aten::_cudnn_rnn_flatten_weight, which has no CPU kernel.  Pretend to be it.
    import torch.backends.cudnn as cudnn

    monkeypatch.setattr(cudnn, "is_available", lambda: True)
    monkeypatch.setattr(cudnn, "_init", lambda: True)
    with simulate("cuda"):
        m = nn.LSTM(4, 4).cuda()
        assert str(m(torch.randn(3, 2, 4, device="cuda"))[0].device) == "cuda:0"


def test_autocast_float32_is_enabled_without_a_cpu_autocast_warning():
    with simulate("cuda"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast("cuda", dtype=torch.float32):
            assert torch.is_autocast_enabled("cuda")
            y = nn.Linear(2, 2).cuda()(torch.ones(1, 2, device="cuda"))
            assert y.dtype is torch.float32
    assert [str(w.message) for w in caught] == []


# ---------------------------------------------------------------- 8. random numbers
def test_cuda_seed_and_draws_leave_the_cpu_generator_alone():
    torch.manual_seed(1)
    expected = torch.rand(4)
    with simulate("cuda"):
        torch.manual_seed(1)
        torch.cuda.manual_seed(5)
        torch.rand(3, device="cuda")
        torch.randn(2, 2, device="cuda").uniform_()
        nn.functional.dropout(torch.ones(8, device="cuda"), 0.5)
        assert torch.equal(torch.rand(4), expected)


def test_gpu_draws_are_deterministic_per_seed_and_differ_from_cpu_stream():
    with simulate("cuda", count=2):
        torch.cuda.manual_seed(3)
        a = torch.rand(5, device="cuda").cpu()
        torch.cuda.manual_seed(3)
        b = torch.rand(5, device="cuda").cpu()
        assert torch.equal(a, b)
        torch.cuda.manual_seed_all(3)
        c = torch.rand(5, device="cuda:1").cpu()
        assert torch.equal(a, c)  # each device's generator seeded alike
        state = torch.cuda.get_rng_state()
        d = torch.rand(5, device="cuda").cpu()
        torch.cuda.set_rng_state(state)
        assert torch.equal(torch.rand(5, device="cuda").cpu(), d)
        assert len(torch.cuda.default_generators) == 2
        assert str(torch.cuda.default_generators[1].device) == "cuda:1"


def test_torch_manual_seed_also_seeds_the_device():
    with simulate("cuda"):
        torch.manual_seed(7)
        a = torch.randn(3, device="cuda").cpu()
        torch.manual_seed(7)
        b = torch.randn(3, device="cuda").cpu()
    assert torch.equal(a, b)


# ---------------------------------------------------------------- 9. GPU APIs
def test_cuda_apis_that_raised_or_answered_wrongly():
    with simulate("cuda"):
        torch.cuda.ipc_collect()
        torch.cuda.set_per_process_memory_fraction(0.5)
        assert torch.cuda.get_per_process_memory_fraction() == 0.5
        with pytest.raises(ValueError, match="Allowed range: 0~1"):
            torch.cuda.set_per_process_memory_fraction(1.5)
        x = torch.ones(256, device="cuda")
        stats = torch.cuda.memory_stats()
        assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated() >= 1024
        assert "Allocated memory" in torch.cuda.memory_summary()
        assert isinstance(torch.cuda.default_generators[0], torch.Generator)
        assert torch.cuda.nvtx.range_push("step") == 0
        assert torch.cuda.nvtx.range_pop() == 0
        assert isinstance(x, torch.cuda.FloatTensor)
        assert not isinstance(x, torch.FloatTensor)
        assert isinstance(torch.ones(2), torch.FloatTensor)
        assert str(x.untyped_storage().device) == "cuda:0"
        assert "sm_90" in torch.cuda.get_arch_list()
        with torch.autocast("cuda"):
            assert torch.is_autocast_enabled("cuda")
            assert torch.get_autocast_dtype("cuda") is torch.float16
        assert not torch.is_autocast_enabled("cuda")


def test_cuda_amp_autocast_casts_like_torch_autocast():
    with simulate("cuda"):
        m = nn.Linear(2, 2).cuda()
        with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast\(args...\)"):
            ctx = torch.cuda.amp.autocast()
        with ctx:
            assert m(torch.ones(1, 2, device="cuda")).dtype is torch.float16


# ---------------------------------------------------------------- 5. DataParallel
def _train(model: nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int = 3) -> list[float]:
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        out = model(x)
        loss = nn.functional.cross_entropy(out, y.to(out.device))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))


@pytest.mark.parametrize("count", [1, 2, 3])
def test_data_parallel_trains_as_on_the_cpu(count):
    torch.manual_seed(1)
    x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
    expected = _train(_mlp(), x, y)
    with simulate("cuda", count=count):
        model = nn.DataParallel(_mlp().cuda())
        got = _train(model, x, y)  # CPU input: DataParallel scatters it
        assert str(model(x).device) == "cuda:0"
        assert all(str(p.grad.device) == "cuda:0" for p in model.parameters())
    assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_data_parallel_module_on_the_wrong_device_fails_with_torch_text():
    with simulate("cuda", count=2):
        model = nn.DataParallel(nn.Linear(2, 2))  # left on the CPU
        with pytest.raises(RuntimeError) as info:
            model(torch.ones(4, 2))
    assert str(info.value) == (
        "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but "
        "found one of them on device: cpu"
    )


def test_data_parallel_replica_error_is_wrapped_as_on_gpus():
    class Bad(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x) + torch.ones(2)  # a CPU tensor in every replica

    with simulate("cuda", count=2):
        model = nn.DataParallel(Bad().cuda())
        with pytest.raises(RuntimeError) as info:
            model(torch.ones(4, 2))
    assert str(info.value).startswith("Caught RuntimeError in replica 0 on device 0.")
    assert "cuda:0 and cpu!" in str(info.value)


def test_comm_scatter_gather_broadcast_reduce():
    from torch.nn.parallel import comm

    with simulate("cuda", count=2):
        t = torch.arange(6.0, device="cuda:0")
        parts = comm.scatter(t, [0, 1])
        assert [str(p.device) for p in parts] == ["cuda:0", "cuda:1"]
        back = comm.gather(parts, destination=1)
        assert str(back.device) == "cuda:1" and back.tolist() == t.tolist()
        copies = comm.broadcast(t, [0, 1])
        assert copies[0] is t and str(copies[1].device) == "cuda:1"
        total = comm.reduce_add(copies, destination=0)
        assert str(total.device) == "cuda:0" and total.tolist() == (2 * t).tolist()
        assert str(comm.gather(parts, destination="cpu").device) == "cpu"


def test_torch_warnings_are_shown_at_the_users_line():
    import torch.nn.functional as F

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with simulate("cuda"):
            x = torch.ones(3, 2, device="cuda")
            F.softmax(x)  # Python warning inside torch
            torch.tensor(x)  # C++ warning
    assert [w.filename for w in caught] == [__file__, __file__]


def test_profiler_with_cuda_activity_prints_no_cpp_warnings(capfd):
    with simulate("cuda"):
        x = torch.ones(4, device="cuda")
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            (x * 2).sum()
        assert len(prof.key_averages()) > 0
    assert "CUDA used in profiler but not enabled" not in capfd.readouterr().err


# ---------------------------------------------------------------- 8. legacy constructors
# torch/csrc/utils/tensor_new.cpp legacy_tensor_generic_ctor_new: a legacy type accepts a
# tensor only of its own device type and dtype (TypeError "expected <options> (got
# <options>)"), a storage only on its device.  The CPU build aliased a simulated tensor, so
# torch.FloatTensor(cuda_tensor) returned a cuda tensor where a GPU build raises.
_CPU_LEGACY = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
               "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor")


def _text_for(ctor, t: torch.Tensor, device: str) -> str:
    """torch's own message for ``ctor`` given a meta tensor like ``t``, on ``device`` instead."""
    with pytest.raises(TypeError) as info:
        ctor(torch.empty(0, dtype=t.dtype, device="meta"))
    return str(info.value).replace("device=meta,", f"device={device},")


def test_legacy_cpu_constructors_refuse_a_cuda_tensor_as_a_gpu_build():
    expected = {n: _text_for(getattr(torch, n), torch.ones(1), "cuda:1") for n in _CPU_LEGACY}
    assert "dtype=long int, device=cpu," in expected["LongTensor"]
    with simulate("cuda", count=2):
        x = torch.ones(2, device="cuda:1")
        for name in _CPU_LEGACY:
            with pytest.raises(TypeError) as info:
                getattr(torch, name)(x)
            assert str(info.value) == expected[name], name


def test_legacy_cpu_constructor_refuses_a_cuda_storage():
    text = ('Attempted to set the storage of a tensor on device "cpu" to a storage on different '
            'device "cuda:0".  This is no longer allowed; the devices must match.')
    with simulate("cuda"):
        x = torch.ones(2, device="cuda")
        for st in (x.untyped_storage(), x.double().untyped_storage()):
            with pytest.raises(RuntimeError) as info:
                torch.FloatTensor(st)
            assert str(info.value) == text
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TypedStorage is deprecated
            # a typed storage of another dtype: torch's dtype check comes first
            with pytest.raises(RuntimeError, match="^Expected a Storage of type Float"):
                torch.FloatTensor(x.double().storage())


def test_legacy_constructor_forms_that_work_on_a_gpu_keep_working():
    with simulate("cuda"):
        p = torch.ones(2)
        x = torch.ones(2, device="cuda")
        assert torch.FloatTensor(p).data_ptr() == p.data_ptr()  # an alias, as on the CPU
        assert torch.DoubleTensor(2, 3).shape == (2, 3)
        assert torch.LongTensor([1, 2]).tolist() == [1, 2]
        assert str(torch.FloatTensor(p.untyped_storage()).device) == "cpu"
        # torch.Tensor (BASE_CTOR) accepts any device and dtype: the GPU tensor's alias
        assert str(torch.Tensor(x).device) == "cuda:0"
        assert isinstance(x, torch.cuda.FloatTensor) and isinstance(p, torch.FloatTensor)
        with pytest.raises(RuntimeError, match="^legacy constructor expects device type: cpu "
                           "but device type: cuda was passed$"):
            torch.FloatTensor(2, device="cuda")


def test_tensor_new_checks_device_type_dtype_storage_and_device_as_a_gpu_build():
    opts = ", layout=Strided, requires_grad=false (default), pinned_memory=false (default), " \
        "memory_format=(nullopt))"
    with simulate("cuda", count=2):
        p = torch.ones(2)
        x = torch.ones(2, device="cuda")
        x1 = torch.ones(2, device="cuda:1")
        cases = [
            (lambda: x.new(p), TypeError, "expected TensorOptions(dtype=float, device=cuda" + opts
             + " (got TensorOptions(dtype=float, device=cpu" + opts + ")"),
            (lambda: p.new(x), TypeError, "expected TensorOptions(dtype=float, device=cpu" + opts
             + " (got TensorOptions(dtype=float, device=cuda:0" + opts + ")"),
            (lambda: x.new(x.double()), TypeError, "expected TensorOptions(dtype=float, "
             "device=cuda" + opts + " (got TensorOptions(dtype=double, device=cuda:0" + opts + ")"),
            (lambda: x.new(2, device="cpu"), RuntimeError,
             "legacy constructor expects device type: cuda but device type: cpu was passed"),
            (lambda: p.new([1.0], device="cuda"), RuntimeError,
             "legacy constructor expects device type: cpu but device type: cuda was passed"),
            (lambda: x.new(p.untyped_storage()), RuntimeError,
             'Attempted to set the storage of a tensor on device "cuda:0" to a storage on '
             'different device "cpu".  This is no longer allowed; the devices must match.'),
            (lambda: x.new(x1.untyped_storage()), RuntimeError,
             'Attempted to set the storage of a tensor on device "cuda:0" to a storage on '
             'different device "cuda:1".  This is no longer allowed; the devices must match.'),
        ]
        for call, exc, text in cases:
            with pytest.raises(exc) as info:
                call()
            assert str(info.value) == text
        assert str(p.device) == "cpu"  # x.new(p's storage) once tagged p's storage as cuda
        assert str(x.new(x1).device) == "cuda:1"  # an alias: same device type and dtype
        assert str(x.new(2, device="cuda:1").device) == "cuda:1"
        assert str(x.new([1.0]).device) == "cuda:0" and str(x.new().device) == "cuda:0"
        assert str(x.new(x.untyped_storage()).device) == "cuda:0"


# ---------------------------------------------------------------- 9. type_as, .type(...)
def test_type_as_a_cuda_tensor_is_a_tracked_move():
    with simulate("cuda", count=2):
        b = torch.ones(3, device="cuda:1", dtype=torch.float64)
        a = torch.ones(3)
        seen: list = []
        stop = sim_events.subscribe(seen.append)
        try:
            y = a.type_as(b); line = sys._getframe().f_lineno  # noqa: E702
        finally:
            stop()
        assert (str(y.device), y.dtype) == ("cuda:1", torch.float64)  # self.to(other.options())
        assert str((y + b).device) == "cuda:1"
        with pytest.raises(RuntimeError, match="found at least two devices, cuda:1 and cpu!"):
            y + a
        assert created_at(y)[:2] == (__file__, line)
        assert [(e.kind, e.direction, e.nbytes) for e in seen] == [("transfer", "h2d", 12)]
        assert y.type_as(b) is y  # nothing to change: the tensor itself, as ATen's to()
        back = y.type_as(a)
        assert str(back.device) == "cpu" and back.dtype is torch.float32


def test_type_as_counts_as_a_ride_in_trips():
    with simulate("cuda"):
        b = torch.ones(4, device="cuda")
        with trips() as t:
            y = a_on_cpu = torch.ones(4)
            y = a_on_cpu.type_as(b)
        assert str(y.device) == "cuda:0"
    assert [(r["kind"], r["count"], r["bytes"]) for r in t.rows] == [("h2d", 1, 16)]


def test_type_with_accelerator_and_cpu_type_names_moves_as_on_a_gpu():
    with simulate("cuda", count=2):
        p = torch.ones(2)
        x1 = torch.ones(2, device="cuda:1")
        for spec in (torch.cuda.FloatTensor, "torch.cuda.FloatTensor"):
            y = p.type(spec)
            assert (str(y.device), y.type()) == ("cuda:0", "torch.cuda.FloatTensor")
        y = p.type("torch.cuda.DoubleTensor")
        assert (str(y.device), y.dtype) == ("cuda:0", torch.float64)
        # already on an accelerator: stays on its device (THPVariable_type keeps the index)
        assert str(x1.type(torch.cuda.DoubleTensor).device) == "cuda:1"
        assert x1.type(torch.cuda.FloatTensor) is x1 and x1.type() == "torch.cuda.FloatTensor"
        for spec in ("torch.FloatTensor", torch.DoubleTensor, torch.Tensor):
            h = x1.type(spec)
            assert str(h.device) == "cpu", spec
        assert x1.type(torch.DoubleTensor).type() == "torch.DoubleTensor"
        assert p.type(torch.DoubleTensor).dtype is torch.float64  # a ValueError before
        assert p.type(torch.FloatTensor) is p
        assert str(x1.type(torch.float16).device) == "cuda:1"
        with pytest.raises(ValueError, match=r"^invalid type: 'torch\.cuda\.Nope'$"):
            p.type("torch.cuda.Nope")
        with pytest.raises(ValueError, match=r"^invalid type: 'torch\.Nope'$"):
            x1.type("torch.Nope")


def test_new_factories_of_a_cuda_tensor_stay_on_its_device():
    with simulate("cuda", count=2):
        x = torch.ones(2, device="cuda:1")
        for y in (x.new_tensor([1, 2]), x.new_zeros(2), x.new_ones(2), x.new_empty(2),
                  x.new_full((2,), 3.0), x.new(2)):
            assert str(y.device) == "cuda:1"


def test_type_names_of_other_kinds_follow_their_builds():
    with simulate("xpu"):
        y = torch.ones(2).type("torch.xpu.DoubleTensor")
        assert (str(y.device), y.dtype) == ("xpu:0", torch.float64)
    with simulate("mps"):  # options_from_string has no "torch.mps." prefix: a CPU name lookup
        with pytest.raises(ValueError, match=r"^invalid type: 'torch\.mps\.FloatTensor'$"):
            torch.ones(2, device="mps").type("torch.mps.FloatTensor")


def test_set_default_tensor_type_takes_the_legacy_types_inside_the_simulation():
    # the isinstance stand-ins for torch.DoubleTensor & co. were refused by torch's C check
    # ("invalid type object: only floating-point types are supported as the default type")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # set_default_tensor_type is deprecated
        try:
            with simulate("cuda"):
                torch.set_default_tensor_type(torch.DoubleTensor)
                assert torch.ones(1).dtype is torch.float64
                torch.set_default_tensor_type("torch.FloatTensor")
                assert torch.ones(1).dtype is torch.float32
                # not simulated: refused on every build, the default left as it was (on a
                # CUDA wheel without a GPU the real call made every later tensor a CUDA one)
                for cuda_type in (torch.cuda.FloatTensor, "torch.cuda.DoubleTensor"):
                    with pytest.raises(UnsupportedFeatureError, match=(
                            r"^torch\.set_default_tensor_type\(torch\.cuda\.(Float|Double)Tensor\) "
                            r"is not simulated: use torch\.set_default_device\('cuda'\)")):
                        torch.set_default_tensor_type(cuda_type)
                    assert torch.ones(1).device.type == "cpu" and torch.ones(1).dtype is torch.float32
        finally:
            torch.set_default_dtype(torch.float32)


def test_legacy_cuda_constructors_make_tensors_on_the_device(monkeypatch):
    # python_tensor.cpp Tensor_new on a GPU build; the CPU build said "type
    # torch.cuda.FloatTensor not available. Torch not compiled with CUDA enabled."
    import numpy as np

    from torchferry.sim import modes

    monkeypatch.setattr(modes, "_accel_ctor_warned", False)  # TORCH_WARN_ONCE: once a process
    opts = ", layout=Strided, requires_grad=false (default), pinned_memory=false (default), " \
        "memory_format=(nullopt))"
    with simulate("cuda", count=2), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T = torch.cuda.FloatTensor
        x = T(2, 3)
        assert (str(x.device), x.shape) == ("cuda:0", (2, 3))
        data = np.ones(2)
        y = T(data)
        data[0] = 5.0  # a copy on the device, not a view of the array
        assert (str(y.device), y.dtype, y.tolist()) == ("cuda:0", torch.float32, [1.0, 1.0])
        assert torch.cuda.LongTensor([1, 2]).tolist() == [1, 2]
        assert str(T(2, device="cuda:1").device) == "cuda:1"
        assert str(T(x).device) == "cuda:0" and T(x).data_ptr() == x.data_ptr()
        assert str(torch.ones(2).type(T).device) == "cuda:0"
        with pytest.raises(TypeError) as info:
            T(torch.ones(2))
        assert str(info.value) == ("expected TensorOptions(dtype=float, device=cuda" + opts
                                   + " (got TensorOptions(dtype=float, device=cpu" + opts + ")")
        with pytest.raises(RuntimeError, match="^legacy constructor expects device type: cuda "
                           "but device type: cpu was passed$"):
            T(2, device="cpu")
        with pytest.raises(RuntimeError, match='^Attempted to set the storage of a tensor on '
                           'device "cuda:0" to a storage on different device "cpu"'):
            T(torch.ones(2).untyped_storage())
    assert [str(w.message) for w in caught] == [modes._ACCEL_CTOR_WARNING]
    assert caught[0].filename == __file__
