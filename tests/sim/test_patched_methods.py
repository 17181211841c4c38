"""The simulation's handlers when Tensor methods are replaced by other code (trips, a user).

The function mode receives a Tensor method as ``torch.Tensor`` holds it at call time, so
the handlers must be keyed on torch's own methods, whatever was installed when
``torchferry.sim.modes`` was imported, and a replacement in place when the simulation
starts must reach its handler too.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest
import torch

import torchferry as tf
from torchferry.sim import modes
from torchferry.sim.session import simulate


def _fresh_modes_module():
    """A second, independent execution of sim/modes.py (its import-time registrations)."""
    spec = importlib.util.spec_from_file_location("_ferry_modes_copy", modes.__file__)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_handlers_imported_while_trips_wraps_tensor_methods_are_keyed_on_torchs_own():
    t = tf.trips()
    t.__enter__()
    try:
        wrapped = torch.Tensor.to  # trips' wrapper, installed outside a simulation
        assert wrapped is not torch._C.TensorBase.to
        copy = _fresh_modes_module()
    finally:
        t.__exit__(None, None, None)
    assert torch.Tensor.to is torch._C.TensorBase.to
    own_repr = vars(torch.Tensor)["__repr__"]
    for func in (torch._C.TensorBase.to, torch._C.TensorBase.cpu, torch._C.TensorBase.item,
                 torch._C.TensorBase.__getitem__, own_repr, vars(torch.Tensor)["__format__"],
                 torch._C._VariableFunctions.nonzero):
        assert func in copy.HANDLERS, func
    assert wrapped not in copy.HANDLERS
    assert torch._C._VariableFunctions.tensor in copy._COPIES_IN


@pytest.mark.slow
def test_simulation_first_imported_inside_trips_works_after_trips_ends(tmp_path):
    # the reproduction from a notebook's failure, in a fresh interpreter
    script = tmp_path / "repro.py"
    script.write_text(textwrap.dedent("""
        import sys, torch, torchferry as tf
        assert "torchferry.sim.modes" not in sys.modules
        t = tf.trips(); t.__enter__()
        import torchferry.sim.session
        t.__exit__(None, None, None)
        with tf.simulate("cuda"):
            x = torch.ones(2).to("cuda")
            print(x)
            print(f"{x.sum():.1f}", torch.tensor([1.0], device="cuda").device, x.nonzero().device)
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["tensor([1., 1.], device='cuda:0')", "2.0 cuda:0 cuda:0"]


def test_a_tensor_method_replaced_before_the_simulation_reaches_its_handler(monkeypatch):
    calls = []
    own_to = torch.Tensor.to
    own_repr = torch.Tensor.__repr__

    def to(self, *args, **kwargs):  # a user's spy, as a test would install it
        calls.append((args, kwargs))
        return own_to(self, *args, **kwargs)

    def spy_repr(self, *args, **kwargs):
        calls.append("repr")
        return own_repr(self, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "to", to)
    monkeypatch.setattr(torch.Tensor, "__repr__", spy_repr)
    repr(torch.ones(2))  # printing calls .to(dtype=...) itself: what the CPU does
    on_cpu = calls[:]
    calls.clear()
    with simulate("cuda"):
        x = torch.ones(2).to("cuda")
        assert str(x.device) == "cuda:0"
        assert repr(x) == "tensor([1., 1.], device='cuda:0')"
        y = x.to(torch.float64)
        assert str(y.device) == "cuda:0" and y.dtype is torch.float64
    # each replacement ran once per call, as on the CPU
    assert calls == [(("cuda",), {}), *on_cpu, ((torch.float64,), {})]
    assert to not in modes.HANDLERS and spy_repr not in modes.HANDLERS
