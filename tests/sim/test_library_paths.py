"""What widely used libraries do with a GPU, each reproduced in a few lines.

Each test fails on a simulation that differs from a real GPU in that behaviour.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from torchferry.errors import UnsupportedFeatureError
from torchferry.sim.session import simulate


# ---------------------------------------------------------------- Module.to(device=...)
def test_module_to_device_keyword_moves_parameters():
    with simulate("cuda"):
        m = nn.Linear(2, 2)
        assert m.to(device="cuda") is m
        assert str(m.weight.device) == "cuda:0"
        m.to(device=torch.device("cpu"))
        assert str(m.weight.device) == "cpu"


def test_parse_to_device_keyword_reads_the_device():
    with simulate("cuda"):
        assert torch._C._nn._parse_to(device="cuda")[0] == torch.device("cuda")
        assert torch._C._nn._parse_to(device=0)[0] == torch.device("cuda", 0)
        assert torch._C._nn._parse_to("cuda", torch.float16)[:2] == (
            torch.device("cuda"), torch.float16)


# ---------------------------------------------------------------- CUDA graph classes
def test_cuda_graph_classes_work_in_annotations_and_refuse_when_made():
    with simulate("cuda"):
        assert isinstance(torch.cuda.CUDAGraph, type) and isinstance(torch.cuda.graph, type)
        hint = torch.cuda.CUDAGraph | None  # transformers' generation utils annotate this way
        assert type(None) in hint.__args__
        assert not isinstance(object(), torch.cuda.CUDAGraph)
        with pytest.raises(UnsupportedFeatureError, match=r"CUDA graphs \(torch.cuda.CUDAGraph\)"):
            torch.cuda.CUDAGraph()
        with pytest.raises(UnsupportedFeatureError, match=r"CUDA graphs \(torch.cuda.graph\)"):
            torch.cuda.graph(None)


# ---------------------------------------------------------------- probing for Triton
def test_find_spec_triton_answers_none_and_import_is_refused(monkeypatch):
    import importlib.machinery
    import importlib.util
    import sys

    class Installed(importlib.abc.MetaPathFinder):  # triton as a CUDA wheel installs it
        def find_spec(self, name, path=None, target=None):
            if name == "triton":
                return importlib.machinery.ModuleSpec("triton", None)
            return None

    for installed in (False, True):
        if installed:
            monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Installed()])
        with simulate("cuda"):
            assert importlib.util.find_spec("triton") is None
            with pytest.raises(ModuleNotFoundError, match="Triton kernels cannot run") as info:
                import triton  # noqa: F401
            assert info.value.name == "triton"
        assert importlib.util.find_spec("triton") is not None or not installed
    with simulate("cuda"):
        assert importlib.util.find_spec("triton") is None
        with pytest.raises(ModuleNotFoundError, match="Triton kernels cannot run") as info:
            import triton  # noqa: F401
        assert info.value.name == "triton"


# ---------------------------------------------------------------- torch.compile
def test_compile_wraps_as_on_a_gpu_and_runs_at_the_first_call(capsys):
    from torch._dynamo.eval_frame import OptimizedModule

    with simulate("cuda"):
        cpu_model = torch.compile(nn.Linear(2, 2))  # never called: only wrapped
        assert isinstance(cpu_model, OptimizedModule)
        assert isinstance(cpu_model._orig_mod, nn.Linear)
        assert list(cpu_model.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
        assert capsys.readouterr().err == ""
        m = torch.compile(nn.Linear(2, 2).cuda(), mode="max-autotune", fullgraph=True,
                          dynamic=True)
        out = m(torch.ones(3, 2, device="cuda"))
        assert str(out.device) == "cuda:0"
        m(torch.ones(3, 2, device="cuda"))
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "compiled kernels are not what runs" in err


def test_compiled_functions_and_methods_run_their_code():
    with simulate("cuda"):

        @torch.compile
        def double(t):
            return t * 2

        @torch.compile(mode="reduce-overhead")
        def triple(t):
            return t * 3

        x = torch.ones(2, device="cuda")
        assert double(x).tolist() == [2.0, 2.0] and str(triple(x).device) == "cuda:0"
        assert double._torchdynamo_orig_callable.__name__ == "double"
        m = nn.Linear(2, 2).cuda()
        m.compile()  # Module.compile: torch.compile of its _call_impl
        assert str(m(torch.ones(1, 2, device="cuda")).device) == "cuda:0"
        assert torch.compile(double, disable=True) is double
        f = torch.compile(lambda t: t * 2, backend="eager")
        assert str(f(x).device) == "cuda:0"


def test_compile_refuses_what_torch_refuses_when_wrapping():
    with simulate("cuda"):
        with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
            torch.compile(nn.Linear(2, 2), mode="default", options={})
        with pytest.raises(RuntimeError, match="Unrecognized mode=fastest"):
            torch.compile(nn.Linear(2, 2), mode="fastest")
        with pytest.raises(Exception, match="no-such-backend"):
            torch.compile(nn.Linear(2, 2), backend="no-such-backend")


def _explained(fn, *args):
    import torch._dynamo as dynamo

    e = dynamo.explain(fn)(*args)
    return e.graph_count, e.graph_break_count


def _sin_cos(t):
    return (t.sin() + 1).cos()


def test_dynamo_explain_counts_the_graphs_of_the_program_not_of_the_simulation():
    import torch._dynamo as dynamo

    real = dynamo.explain
    cpu = _explained(_sin_cos, torch.randn(3))
    assert cpu == (1, 0)
    with simulate("cuda"):
        x = torch.randn(3, device="cuda")
        assert _explained(_sin_cos, x) == cpu  # traced through the mode: (3, 2)
        m = nn.Linear(2, 2).cuda()
        assert _explained(m, torch.ones(1, 2, device="cuda")) == (1, 0)
        assert str(m(torch.ones(1, 2, device="cuda")).device) == "cuda:0"  # the mode is back
        with pytest.warns(FutureWarning, match=r"explain\(f, \*args, \*\*kwargs\) is deprecated") as w:
            assert dynamo.explain(_sin_cos, x).graph_break_count == 0
        assert w[0].filename == __file__
    assert dynamo.explain is real


def test_fx_generated_code_names_torch_device():
    # torch.fx writes a device constant as device(type='cpu') and binds `device` to
    # torch.device in the generated code's globals only when it is the class it registered
    class AddOnes(nn.Module):
        def forward(self, x):
            return x.to(torch.device("cpu")) + 1

    with simulate("cuda"):
        assert torch.device == torch.device("cpu").__class__
        gm = torch.fx.symbolic_trace(AddOnes())
        assert "device(type='cpu')" in gm.code
        assert gm(torch.zeros(2)).tolist() == [1.0, 1.0]
        assert isinstance(torch.device("cuda"), torch.device) and {torch.device: 1}[torch.device] == 1


@pytest.mark.slow
def test_dynamo_imported_in_the_simulation_resets_and_explains():
    # torch._dynamo.reset() imports torch._inductor.cudagraph_trees when CUDA is available;
    # on the CPU wheel its CUDA branch (torch.backends.cuda.is_built()) cannot import
    import subprocess
    import sys

    code = (
        "import sys, torch, torchferry as tf\n"
        "assert 'torch._dynamo' not in sys.modules\n"
        "with tf.simulate('cuda'):\n"
        "    import torch._dynamo as dynamo\n"
        "    dynamo.reset()\n"
        "    e = dynamo.explain(lambda t: (t.sin() + 1).cos())(torch.ones(3, device='cuda'))\n"
        "    print(e.graph_count, e.graph_break_count, torch.backends.cuda.is_built())\n"
        "from torch._inductor import cudagraph_trees\n"
        "from torch._dynamo.eval_frame import explain\n"
        "print(cudagraph_trees.AllocatorState.__module__, dynamo.explain is explain)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.splitlines() == ["1 0 True", "torch._inductor.cudagraph_trees True"]


_GCN_LIKE = """
import torch


def spread(src, index, n):
    return src.new_zeros(n, src.size(1)).index_add_(0, index, src)  # a scatter-add


class MeanConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, edge_index):
        ones = torch.ones(edge_index.size(1), 1, device=edge_index.device)
        deg = spread(ones, edge_index[1], x.size(0))
        return spread(self.lin(x)[edge_index[0]], edge_index[1], x.size(0)) / deg.clamp(min=1)
"""


@pytest.mark.slow
def test_dynamo_imported_in_the_simulation_explains_a_graph_conv_in_one_graph(tmp_path):
    # as under `pytest --ferry-simulate cuda`: dynamo and the model's module are imported
    # after the simulation started.  dynamo's import keeps torch.device in the types it
    # wraps as constants; with the simulation's stand-in there, `edge_index.device` split
    # the forward into graphs with no break reason (torch_geometric's GCN: 3 graphs)
    import subprocess
    import sys

    (tmp_path / "gcn_like.py").write_text(_GCN_LIKE)
    code = (
        "import sys, torch, torchferry as tf\n"
        "assert 'torch._dynamo' not in sys.modules\n"
        "with tf.simulate('cuda'):\n"
        "    import torch._dynamo as dynamo\n"
        "    from gcn_like import MeanConv\n"
        "    x = torch.randn(3, 4, device='cuda')\n"
        "    ei = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]], device='cuda')\n"
        "    e = dynamo.explain(MeanConv().cuda())(x, ei)\n"
        "    print(e.graph_count, e.graph_break_count, e.break_reasons)\n"
        "e = dynamo.explain(MeanConv())(x.cpu(), ei.cpu())\n"
        "print(e.graph_count, e.graph_break_count, e.break_reasons)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.splitlines() == ["1 0 []", "1 0 []"]


# ---------------------------------------------------------------- tensor wrapper classes
class _Wrapper:
    """A non-Tensor class with ``__torch_function__``, as tensor wrapper libraries write it."""

    def __init__(self, t):
        self.t = t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        def un(a):
            return a.t if isinstance(a, _Wrapper) else a

        out = func(*map(un, args), **{k: un(v) for k, v in (kwargs or {}).items()})
        return cls(out) if isinstance(out, torch.Tensor) else out


def test_results_inside_a_wrapper_class_torch_function_are_on_the_device():
    with simulate("cuda"):
        w = _Wrapper(torch.ones(2, device="cuda"))
        assert str(torch.add(w, 1).t.device) == "cuda:0"
        assert str(torch.mul(w, torch.ones(2, device="cuda")).t.device) == "cuda:0"
        assert str(torch.nn.functional.relu(w).t.device) == "cuda:0"
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            torch.add(w, torch.ones(2))
        # a CPU tensor wrapped stays on the CPU
        assert str(torch.add(_Wrapper(torch.ones(2)), 1).t.device) == "cpu"


# ---------------------------------------------------------------- FSDP's static methods
def test_distributed_checkpoint_state_dict_of_a_plain_model():
    with simulate("cuda"):
        from torch.distributed.checkpoint.state_dict import get_model_state_dict
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

        m = nn.Linear(2, 2).cuda()
        assert FSDP.fsdp_modules(m) == []
        sd = get_model_state_dict(m)
        assert sorted(sd) == ["bias", "weight"] and str(sd["weight"].device) == "cuda:0"
        with pytest.raises(UnsupportedFeatureError, match="FullyShardedDataParallel"):
            FSDP(m)


# ---------------------------------------------------------------- sync debug mode
def test_sync_debug_mode_flags_bincount():
    with simulate("cuda"):
        x = torch.tensor([0, 1, 1], device="cuda")
        torch.cuda.set_sync_debug_mode("error")
        try:
            with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
                torch.bincount(x)
            with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
                x.bincount(minlength=4)
            empty = torch.bincount(torch.zeros(0, dtype=torch.long, device="cuda"), minlength=2)
        finally:
            torch.cuda.set_sync_debug_mode(0)
        assert empty.tolist() == [0, 0]
        assert torch.bincount(x).tolist() == [1, 2] and str(torch.bincount(x).device) == "cuda:0"


# ---------------------------------------------------------------- warnings' frames
def _caught(fn):
    import warnings

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return got


def test_a_cpp_warning_is_attributed_to_the_frame_that_called_torch(tmp_path, monkeypatch):
    import warnings

    (tmp_path / "ferrywarnpkg").mkdir()
    (tmp_path / "ferrywarnpkg" / "__init__.py").write_text("")
    (tmp_path / "ferrywarnpkg" / "inner.py").write_text(
        "import torch\n\ndef copy(t):\n    return torch.tensor(t)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from ferrywarnpkg import inner

    with simulate("cuda"):
        got = _caught(lambda: inner.copy(torch.ones(2)))
        assert [(w.filename, w.lineno) for w in got] == [(inner.__file__, 4)]
        with warnings.catch_warnings(record=True) as kept:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", module="ferrywarnpkg")
            inner.copy(torch.ones(2))
        assert kept == []


def test_a_python_warning_with_stacklevel_names_the_callers_line():
    import warnings

    with simulate("cuda"):
        got = _caught(lambda: torch.nn.functional.softmax(torch.ones(3)))
        assert len(got) == 1 and got[0].filename == __file__
        with warnings.catch_warnings(record=True) as kept:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", module="torch")  # not the caller's module
            torch.nn.functional.softmax(torch.ones(3))
        assert len(kept) == 1


# ---------------------------------------------------------------- memory size
def test_memory_reported_is_the_simulated_size_less_live_storages():
    with simulate("cuda") as default:
        assert default.memory == 80 * 1024**3
        assert torch.cuda.mem_get_info() == (80 * 1024**3, 80 * 1024**3)
    with simulate("cuda", count=2, memory=2 * 1024**3):
        x = torch.ones(1024, device="cuda:1")
        assert torch.cuda.mem_get_info(1) == (2 * 1024**3 - x.nbytes, 2 * 1024**3)
        assert torch.cuda.mem_get_info(0) == (2 * 1024**3, 2 * 1024**3)
        assert torch.cuda.get_device_properties(0).total_memory == 2 * 1024**3


def test_memory_must_be_a_positive_number_of_bytes():
    from torchferry.errors import UsageError

    for bad in (0, -1, 1.5, True, "1G"):
        with pytest.raises(UsageError, match="memory must be a positive number of bytes"):
            simulate("cuda", memory=bad)


def test_ferry_run_memory_option(tmp_path, capsys):
    from torchferry.cli import main

    script = tmp_path / "m.py"
    script.write_text("import torch\nprint(torch.cuda.mem_get_info())\n")
    assert main(["run", "--simulate", "cuda", "--memory", "24GiB", str(script)]) == 0
    assert capsys.readouterr().out == f"({24 * 1024**3}, {24 * 1024**3})\n"
    for argv, text in ((["--memory", "24GiB"], "--memory needs --simulate KIND"),
                       (["--simulate", "cuda", "--memory", "lots"], "invalid memory size 'lots'")):
        try:
            code = main(["run", *argv, str(script)])
        except SystemExit as exc:  # argparse's own errors
            code = exc.code
        assert code == 2 and text in capsys.readouterr().err


# ---------------------------------------------------------------- found by third-party suites
def test_factories_with_pin_memory_make_pinned_host_tensors():
    with simulate("cuda"):
        t = torch.empty(4, pin_memory=True)
        assert t.is_pinned() and str(t.device) == "cpu"
        z = torch.zeros(2, 2, device="cpu", pin_memory=True)
        assert z.is_pinned() and z.sum().item() == 0.0
        assert str(t.to("cuda", non_blocking=True).device) == "cuda:0"
        assert not torch.empty(2).is_pinned()


def test_a_meta_tensor_to_the_cpu_is_refused_as_torch_refuses():
    with simulate("cuda"):
        meta = torch.zeros(2, device="meta")
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
            meta.to("cpu")
        assert meta.to("meta") is meta


def test_lazy_modules_move_load_and_materialize_on_the_device():
    with simulate("cuda"):
        lazy = nn.LazyLinear(4).to("cuda")
        other = nn.LazyLinear(4).to("cuda")
        other.load_state_dict(lazy.state_dict())  # copy_ of uninitialized parameters
        out = lazy(torch.ones(2, 3, device="cuda"))
        assert str(out.device) == "cuda:0" and str(lazy.weight.device) == "cuda:0"


def test_torchscript_compiles_the_stand_ins_of_torch_builtins():
    with simulate("cuda"):
        mha = torch.jit.script(nn.MultiheadAttention(4, 2).cuda())
        x = torch.ones(3, 1, 4, device="cuda")
        out, _ = mha(x, x, x)
        assert str(out.device) == "cuda:0"
        scripted = torch.jit.script(_autocast_on)
        assert scripted(x) is False


def _autocast_on(t: torch.Tensor) -> bool:
    return torch.is_autocast_enabled()


def test_the_calling_frame_function_is_not_user_code():
    import sys

    from torchferry._internal import frames

    seen = []

    class Probe(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(sys._getframe(1).f_code)
            return super().__torch_function__(func, types, args, kwargs or {})

    with simulate("cuda"):
        torch.add(torch.ones(1).as_subclass(Probe), 1)
    calls = [c for c in seen if c.co_name == frames.SIMULATION_CALL]
    assert calls and calls[0].co_filename == __file__
    assert not any(frames.is_user_code(c) for c in calls)
