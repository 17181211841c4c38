"""torchferry.explain: every device-error kind, operands as written, culprit, site, fix, rule.

Two ways to get real device errors on a CPU-only machine: the ``meta`` device
(a real second device: ``cpu + meta`` and RNN hidden state raise PyTorch's own
errors, ``.numpy()`` of a meta tensor too), and the simulated GPU, which raises
the exact CUDA/MPS texts.  Where neither raises (the codegen "but got mat1"
form on meta), a stand-in op compiled under torch's own directory raises the
exact text, so the failing frame is "library code" as it is for the real op.
"""

from __future__ import annotations

import collections
import io
import os

import numpy as np
import pytest
import torch
from torch import nn

import torchferry as tf
from torchferry.diagnose.explanation import RECORDER, classify, explain_exception, format_report

MIXED = "Expected all tensors to be on the same device, but found at least two devices, {} and {}!"
CODEGEN = (
    "Expected all tensors to be on the same device, but got {} is on {}, different from other "
    "tensors on {} (when checking argument in method wrapper_CUDA_addmm)"
)


def _library_op(message: str, exc_type: type = RuntimeError):
    """A function whose code lives under torch's directory (not user code) and raises."""
    ns: dict = {"_msg": message, "_exc": exc_type}
    path = os.path.join(os.path.dirname(torch.__file__), "_ferry_test_stand_in.py")
    exec(compile("def op(*args, **kwargs):\n    raise _exc(_msg)\n", path, "exec"), ns)
    return ns["op"]


def _explained(fn):
    with pytest.raises(BaseException) as info:  # noqa: PT011 - each test checks the type
        with tf.explain(file=None) as ex:
            fn()
    return info.value, ex.report


def _ops(report):
    return {o.expr: o.to_dict() for o in report.operands}


# ---------------------------------------------------------------- kinds, no simulation
@pytest.mark.slow
def test_mixed_devices_real_meta_error_names_the_operand_left_behind():
    inputs = torch.randn(4, 3).to("meta")
    weights = torch.randn(4, 3).to("meta")
    labels = torch.randn(4, 3)

    def step():
        return inputs * weights + labels

    exc, report = _explained(step)
    assert type(exc) is RuntimeError and "not on the expected device" in str(exc)
    assert report.family.value == "mixed_devices"
    ops = _ops(report)
    assert set(ops) == {"inputs", "weights", "labels"}
    assert ops["labels"]["culprit"] and ops["labels"]["device"] == "cpu"
    assert ops["labels"]["dtype"] == "float32" and ops["labels"]["shape"] == [4, 3]
    assert not ops["inputs"]["culprit"] and ops["inputs"]["device"] == "meta"
    assert report.at.source == "return inputs * weights + labels"
    assert report.at.line == step.__code__.co_firstlineno + 1
    # `ferry check` does not report FRY013 partial-batch-move here: no rule is claimed
    assert report.rule is None
    assert report.fix.startswith("labels = labels.to(")


def test_exception_propagates_unchanged_same_object():
    err = RuntimeError(MIXED.format("cuda:0", "cpu"))

    def boom():
        raise err

    with pytest.raises(RuntimeError) as info:
        with tf.explain(file=None):
            boom()
    assert info.value is err and str(info.value) == MIXED.format("cuda:0", "cpu")


def test_codegen_form_uses_the_argument_the_message_names():
    addmm = _library_op(CODEGEN.format("mat1", "cpu", "meta"))
    x = torch.randn(3, 4)
    w = torch.randn(4, 2).to("meta")
    b = torch.randn(2).to("meta")

    def step():
        return addmm(b, x, w)

    _, report = _explained(step)
    ops = _ops(report)
    assert [e for e, o in ops.items() if o["culprit"]] == ["x"]
    assert report.message.startswith("Expected all tensors")
    assert "calls it `mat1`" in format_report(report)


def test_older_codegen_form_is_recognised():
    k = classify(RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)"
    ))
    assert k is not None and k.family.value == "mixed_devices" and k.arg == "mat1"
    assert k.devices == ("cuda:0", "cpu")


def test_rnn_hidden_state_real_error_points_at_the_factory_without_device():
    gru = nn.GRU(3, 4).to("meta")
    x = torch.randn(5, 1, 3).to("meta")
    with tf.explain(file=None):
        pass
    def step():
        h0 = torch.zeros(1, 1, 4)
        return gru(x, h0)

    exc, report = _explained(step)
    assert str(exc).startswith("Input and hidden tensors are not at the same device")
    assert report.family.value == "rnn_hidden"
    ops = _ops(report)
    assert ops["h0"]["culprit"] and ops["h0"]["device"] == "cpu"
    assert ops["gru"]["device"] == "meta" and not ops["gru"]["culprit"]
    site = ops["h0"]["created_at"]
    assert site["line"] == step.__code__.co_firstlineno + 1
    assert site["call"] == "torch.zeros(...) without device="
    assert report.rule == "FRY010"
    assert "torch.zeros(1, 1, 4, device=x.device)" in report.fix


def test_numpy_of_device_tensor_real_error():
    x = torch.randn(3, requires_grad=True).to("meta")

    def show():
        return x.numpy()

    exc, report = _explained(show)
    assert type(exc) is TypeError
    assert report.family.value == "numpy_on_device" and report.rule == "FRY003"
    assert _ops(report)["x"]["culprit"]
    assert report.fix.startswith("x.detach().cpu().numpy()")


def test_index_on_another_device():
    index = _library_op("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
    table = torch.randn(10, 3)
    idx = torch.tensor([1, 2]).to("meta")

    def lookup():
        return index(table, idx)

    _, report = _explained(lookup)
    assert report.family.value == "index_device"
    assert {e for e, o in _ops(report).items() if o["culprit"]} == {"table"}


def test_checkpoint_without_map_location_real_error(tmp_path):
    import torch.serialization as ser

    buf = io.BytesIO()
    ser._package_registry.insert(0, (-1, lambda s: "cuda:0", lambda o, loc: None))
    try:
        torch.save({"w": torch.ones(2)}, buf)
    finally:
        ser._package_registry.pop(0)

    def load():
        buf.seek(0)
        return torch.load(buf, weights_only=True)

    exc, report = _explained(load)
    assert str(exc).startswith("Attempting to deserialize object on a CUDA device")
    assert report.family.value == "checkpoint_map_location" and report.rule == "FRY004"
    assert report.fix.startswith("torch.load(buf, weights_only=True, map_location='cpu')")
    assert report.operands == ()


def test_mps_float64_message():
    to_mps = _library_op(
        "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support "
        "float64. Please use float32 instead.", TypeError)
    t = torch.from_numpy(np.ones(3))
    w = torch.ones(3)

    def move():
        return to_mps(t, w)

    _, report = _explained(move)
    assert report.family.value == "mps_float64"
    ops = _ops(report)
    assert ops["t"]["culprit"] and ops["t"]["dtype"] == "float64" and not ops["w"]["culprit"]
    assert report.fix.startswith("t = t.float()")


def test_cuda_on_a_cpu_build_real_error():
    def go():
        return torch.ones(2).cuda()

    exc, report = _explained(go)
    if torch.version.cuda is None:  # the CPU wheel
        assert type(exc) is AssertionError and "Torch not compiled with CUDA enabled" in str(exc)
    else:  # the CUDA wheel on a machine without a GPU
        assert type(exc) is RuntimeError and "Found no NVIDIA driver on your system" in str(exc)
    assert report.family.value == "no_device" and report.rule == "FRY001"


def test_invalid_ordinal_and_not_device_errors():
    assert classify(RuntimeError("CUDA error: invalid device ordinal\nGPU device may be out of range")).family.value == "invalid_ordinal"
    assert classify(ValueError("something else")) is None
    assert classify(KeyError("x")) is None

    def other():
        raise ValueError("not about devices")

    _, report = _explained(other)
    assert report is None


# ---------------------------------------------------------------- operands and safety
class _Prop:
    reads = 0

    @property
    def value(self):
        _Prop.reads += 1
        return torch.ones(3)


class _Dyn:
    calls = 0

    def __getattr__(self, name):
        _Dyn.calls += 1
        return torch.ones(3)


def test_operands_are_read_without_side_effects():
    import ast
    import sys

    from torchferry.diagnose import operands as ops

    p, d = _Prop(), _Dyn()
    batch = collections.defaultdict(list, {"x": torch.ones(3)})
    items = [torch.ones(1), torch.zeros(1)]
    k = 1  # noqa: F841 - read by the resolver through the frame
    frame = sys._getframe()

    def read(expr):
        return ops.resolve(ast.parse(expr, mode="eval").body, frame)

    assert read("p.value") is ops.UNKNOWN and _Prop.reads == 0  # a property: never run
    assert read("d.thing") is ops.UNKNOWN and _Dyn.calls == 0  # __getattr__: never run
    assert read('batch["missing"]') is ops.UNKNOWN and "missing" not in batch  # no insertion
    assert read('batch["x"]') is batch["x"]
    assert read("items[k]") is items[1] and read("items[-1]") is items[1]
    assert read("items[f(0)]") is ops.UNKNOWN  # a call in the key: never run
    assert read("os.sep") == os.sep  # module attribute

    mix = _library_op(MIXED.format("meta", "cpu"))
    a = torch.ones(3).to("meta")

    def step():
        return mix(p.value, d.thing, a)

    _, report = _explained(step)
    assert _Prop.reads == 1 and _Dyn.calls == 1  # only the user's own line read them
    # their values are the arguments the called function received: no re-evaluation needed
    assert [o.expr for o in report.operands] == ["p.value", "d.thing", "a"]
    # the CPU against one other device: the CPU side missed the ferry
    assert [o.culprit for o in report.operands] == [True, True, False]


@pytest.mark.slow
def test_operands_as_written_attribute_subscript_and_call_results():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.scale = torch.full((3,), 2.0)  # not a buffer: model.to() leaves it behind

        def forward(self, x):
            return self.fc(x) * self.scale

    with tf.explain(file=None):
        net = Net().to("meta")
    batch = {"x": torch.ones(2, 3).to("meta")}

    exc, report = _explained(lambda: net(batch["x"]))
    ops = _ops(report)
    assert report.at.source == "return self.fc(x) * self.scale"
    assert ops["self.fc(x)"]["device"] == "meta" and not ops["self.fc(x)"]["culprit"]
    assert ops["self.scale"]["culprit"] and ops["self.scale"]["device"] == "cpu"
    site = ops["self.scale"]["created_at"]
    assert site["line"] == Net.__init__.__code__.co_firstlineno + 3
    assert report.rule == "FRY011"
    assert report.fix.startswith("self.register_buffer('scale', torch.full((3,), 2.0))")
    text = format_report(report)
    assert "self.scale" in text and "on cpu while the others are on meta" in text


def test_factory_on_the_failing_line_is_the_culprit():
    x = torch.ones(4).to("meta")

    def step():
        return x + torch.ones(4)

    _, report = _explained(step)
    ops = _ops(report)
    assert ops["torch.ones(4)"]["culprit"] and ops["torch.ones(4)"]["device"] == "cpu"
    assert report.rule == "FRY010" and report.fix == "torch.ones(4, device=x.device)"


def test_zero_dim_cpu_tensors_are_never_the_culprit():
    mix = _library_op(MIXED.format("meta", "cpu"))
    a = torch.ones(3).to("meta")
    lr = torch.tensor(0.1)
    m = torch.ones(3)

    _, report = _explained(lambda: mix(a, lr, m))
    ops = _ops(report)
    assert not ops["lr"]["culprit"] and ops["m"]["culprit"]


def test_call_result_values_come_from_the_callee_frame():
    model = nn.Linear(3, 2).to("meta")
    loss_fn = _library_op(CODEGEN.format("target", "cpu", "meta"))

    def wrapped(*args):
        return loss_fn(*args)

    wrapped.__code__ = wrapped.__code__.replace(
        co_filename=os.path.join(os.path.dirname(torch.__file__), "_ferry_test_wrap.py"))
    inputs = torch.ones(5, 3).to("meta")
    labels = torch.zeros(5, dtype=torch.long)

    def step():
        return wrapped(model(inputs), labels)

    _, report = _explained(step)
    ops = _ops(report)
    assert ops["model(inputs)"]["device"] == "meta" and ops["model(inputs)"]["shape"] == [5, 2]
    assert ops["labels"]["culprit"] and ops["labels"]["dtype"] == "int64"


# ---------------------------------------------------------------- the context manager
def test_recording_only_while_active_and_torch_restored():
    orig = torch.randint
    with tf.explain(file=None):
        assert torch.randint is not orig and torch.randint.__ferry_site__
        with tf.explain(file=None):  # nesting keeps one patch
            pass
        assert torch.randint is not orig
        t = torch.randint(0, 3, (4,))
    assert torch.randint is orig and RECORDER.depth == 0
    assert RECORDER.site_of(t)[2] == "torch.randint(...) without device="
    with tf.explain(record=False, file=None):
        assert torch.randint is orig


def test_no_error_no_report_and_decorator_form():
    @tf.explain(file=None)
    def fine():
        return torch.ones(2) + 1

    assert fine().tolist() == [2.0, 2.0]


def test_explain_exception_outside_a_block_and_text_report():
    a, b = torch.ones(3), torch.ones(3).to("meta")
    try:
        a + b
    except RuntimeError as e:
        report = explain_exception(e)
    assert report is not None
    text = format_report(report)
    assert text.startswith("torchferry explain: tensors on different devices (RuntimeError)")
    # `a` was made a line above without device=: the fix is at its creation
    assert "> a " in text and "a was created at" in text
    assert "fix: a, b = (torch.ones(3, device=b.device), " in text
    assert "rule: FRY010 factory-without-device" in text


def _meta_mix_in_explain():
    x = torch.ones(3).to("meta")
    try:
        with tf.explain():
            bias = torch.ones(3)
            y = x + bias  # noqa: F841
    except RuntimeError as e:
        return e
    raise AssertionError("no error")


def test_report_printed_after_the_traceback_by_excepthook(capsys, monkeypatch):
    import sys
    import traceback

    # the hook chains to whatever excepthook was there (here: Python's default printer)
    monkeypatch.setattr(sys, "excepthook", sys.__excepthook__)
    err = _meta_mix_in_explain()
    assert sys.excepthook is not sys.__excepthook__  # installed on the first explained error
    capsys.readouterr()
    sys.excepthook(type(err), err, err.__traceback__)  # what Python does at the top level
    out = capsys.readouterr().err
    expected_tb = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    assert out.startswith(expected_tb)  # the normal traceback, unchanged, comes first
    rep = out[len(expected_tb):]
    assert rep.startswith("torchferry explain: tensors on different devices (RuntimeError)")
    assert "> bias" in rep and "bias was created at" in rep
    # used once: the previous hook is back
    assert sys.excepthook is sys.__excepthook__


def test_in_ipython_without_the_extension_the_report_is_printed_at_once(capsys, monkeypatch):
    """IPython shows a cell's error itself and never calls sys.excepthook: a hook would print
    nothing and stay installed.  Without ``%load_ext torchferry`` the report comes at once."""
    import sys
    import types

    shell = types.SimpleNamespace(custom_exceptions=())
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setattr(sys, "excepthook", sys.__excepthook__)
    _meta_mix_in_explain()
    err = capsys.readouterr().err
    assert err.startswith("torchferry explain: tensors on different devices (RuntimeError)")
    assert "> bias" in err
    assert sys.excepthook is sys.__excepthook__  # nothing installed

    # with the extension loaded, its handler explains the errors it is given: nothing here
    from torchferry.diagnose import ipython as ext

    monkeypatch.setitem(ext._STATE, id(shell), object())
    shell.custom_exceptions = (RuntimeError,)
    _meta_mix_in_explain()
    assert capsys.readouterr().err == "" and sys.excepthook is sys.__excepthook__
    # ... and only those: another type (a wrapper raised from the device error) is printed here
    shell.custom_exceptions = (KeyError,)
    _meta_mix_in_explain()
    assert capsys.readouterr().err.startswith("torchferry explain: tensors on different devices")


def test_excepthook_is_restored_and_chains_to_the_previous_one(capsys, monkeypatch):
    import sys

    from torchferry.diagnose.explanation import restore_excepthook

    seen = []

    def previous(typ, value, tb):
        seen.append(value)

    monkeypatch.setattr(sys, "excepthook", previous)

    # the error was caught: the undo handle puts the previous hook back
    _meta_mix_in_explain()
    assert sys.excepthook is not previous
    restore_excepthook()
    assert sys.excepthook is previous
    restore_excepthook()  # nothing installed: nothing happens
    assert sys.excepthook is previous

    # an unrelated uncaught error reaching a stale hook: printed normally, hook removed
    _meta_mix_in_explain()
    other = ValueError("x")
    sys.excepthook(ValueError, other, None)
    assert seen == [other] and "torchferry explain" not in capsys.readouterr().err
    assert sys.excepthook is previous

    # a block without an error installs nothing
    with tf.explain():
        pass
    assert sys.excepthook is previous


def _fill_like(x):
    return torch.empty_like(x).fill_(2.0) + torch.zeros_like(x)


def test_torchscript_compiles_the_factories_while_sites_are_recorded():
    # TorchScript compiles torch.empty_like as its operator only when the object is in its
    # builtin table; the recorder's wrapper was compiled as Python and failed in inspect
    # ("module, class, method, function, ... was expected, got builtin_function_or_method")
    torch.jit._builtins._get_builtin_table()  # built before, as a simulation builds it
    real = torch.empty_like
    with tf.explain():
        assert torch.empty_like is not real
        scripted = torch.jit.script(_fill_like)
        assert scripted(torch.ones(2)).tolist() == [2.0, 2.0]
    assert torch.empty_like is real and id(real) in torch.jit._builtins._get_builtin_table()
    assert torch.jit.script(_fill_like)(torch.ones(1)).tolist() == [2.0]
