"""Every torch name in the shared vocabulary exists in the installed torch, with the meaning given."""

from __future__ import annotations

import pytest
import torch

from torchferry._internal import vocabulary as v
from torchferry.check.names import MOVE_KEYWORDS


def test_every_factory_exists_and_makes_a_tensor():
    for name in sorted(v.FACTORIES):
        assert callable(getattr(torch, name, None)), f"torch.{name} does not exist"
    probe = torch.ones(2)
    for name in sorted(v.SHAPE_FACTORIES):
        args = {"full": ((2,), 1.0), "arange": (2,), "randint": (3, (2,)), "randperm": (2,),
                "eye": (2,), "linspace": (0, 1, 2), "logspace": (0, 1, 2)}.get(
            name, (4,) if name.endswith("_window") else ((2,),))
        made = getattr(torch, name)(*args)
        assert isinstance(made, torch.Tensor), name
        assert made.device == torch.ones(1).device and "device" in getattr(torch, name).__doc__, name
    for name in sorted(v.LIKE_FACTORIES):
        args = {"full_like": (probe, 1.0), "randint_like": (probe, 3)}.get(name, (probe,))
        out = getattr(torch, name)(*args)
        assert isinstance(out, torch.Tensor) and out.device == probe.device, name


def test_random_factories_draw_from_the_generator():
    probe = torch.ones(3)
    for name in sorted(v.RANDOM_FACTORIES):
        args = {"randint": (9, (3,)), "randperm": (9,), "randint_like": (probe, 9)}.get(
            name, (probe,) if name.endswith("_like") else ((3,),))
        torch.manual_seed(0)
        getattr(torch, name)(*args)
        after = torch.rand(1)
        torch.manual_seed(0)
        assert not torch.equal(after, torch.rand(1)), f"torch.{name} did not draw"


def test_legacy_constructors_and_moves_exist():
    for name in sorted(v.LEGACY_CONSTRUCTORS):
        assert isinstance(getattr(torch, name)(2), torch.Tensor), name
    t = torch.ones(1)
    for name in sorted(v.MOVE_METHODS):
        assert callable(getattr(t, name, None)), name
        assert callable(getattr(torch.nn.Linear(1, 1), name, None)), name


def test_move_keywords_are_those_torch_accepts():
    t = torch.ones(2)
    values = {"device": "cpu", "dtype": torch.float32, "non_blocking": False, "copy": False,
              "memory_format": torch.preserve_format, "tensor": t}
    assert set(MOVE_KEYWORDS) == v.DEVICE_MOVE_METHODS
    for method, keywords in MOVE_KEYWORDS.items():
        for keyword in keywords:  # accepted by the tensor's method (a CPU wheel may then fail)
            try:
                getattr(t, method)(**{keyword: values[keyword]})
            except TypeError as e:
                raise AssertionError((method, keyword)) from e
            except (AssertionError, RuntimeError):
                pass  # ``.cuda(device="cpu")``, no CUDA here: the keyword itself was taken
        for owner in (t, torch.nn.Linear(1, 1)):
            with pytest.raises(TypeError):
                getattr(owner, method)(filename="x.cif")


def test_empty_modules_hold_no_tensor_and_move_nothing():
    for name in sorted(v.EMPTY_MODULES):
        module = getattr(torch.nn, name)()
        assert not list(module.parameters()), name
        assert all(b is None for b in module.buffers()), name
        assert not list(module.children()), name
        assert module.cuda() is module, name  # moves nothing: runs without a GPU too
    assert list(torch.nn.CrossEntropyLoss(weight=torch.ones(2)).buffers())  # a tensor gives one


def test_dtypes_are_every_dtype_torch_names():
    named = {n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype)}
    assert v.DTYPES == named


def test_tensor_attributes_are_tensors_on_the_tensor_s_device():
    t = torch.ones(2, 2, dtype=torch.cfloat, requires_grad=True)
    t.abs().sum().backward()
    for name in sorted(v.TENSOR_ATTRIBUTES):
        a = getattr(t, name)
        assert isinstance(a, torch.Tensor) and a.device == t.device, name


def test_device_kinds_are_torch_device_types():
    for kind in (*v.ACCELERATOR_KINDS, *v.ASYNC_COPY_KINDS):
        assert torch.device(kind).type == kind
        assert v.ACCELERATOR_LITERAL.match(f"{kind}:1")
    assert not v.ACCELERATOR_LITERAL.match("cpu")


def test_device_kinds_are_written_once():
    """The library's preference order is the vocabulary's tuple; the simulation's kinds are
    its registry's (one module each), which ``ferry run --simulate`` offers, and each is
    one of the vocabulary's accelerator device types."""
    from torchferry import devices
    from torchferry.cli import build_parser
    from torchferry.sim import kinds

    assert devices.PREFERENCE is v.ACCELERATOR_KINDS
    assert set(kinds.NAMES) == set(v.ACCELERATOR_KINDS)
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    (simulate,) = [a for a in run._actions if a.dest == "simulate"]
    assert simulate.choices == kinds.kind_names()


def test_the_simulated_legacy_types_are_the_vocabularys():
    """The simulation's legacy tensor types (``torch.cuda.FloatTensor`` and friends) cover
    exactly the vocabulary's legacy constructors, which ``ferry check`` knows."""
    from torchferry.sim.standins import legacy

    assert set(legacy.LEGACY_DTYPES) == v.LEGACY_CONSTRUCTORS
