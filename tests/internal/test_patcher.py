"""torchferry._internal.patcher: refcounted patch/restore with one policy for being patched over."""

from __future__ import annotations

import subprocess
import sys
import types
import warnings

import pytest

from torchferry._internal.patcher import MISSING, Patch


def _ns():
    return types.SimpleNamespace(f=lambda: "f", g=lambda: "g")


def test_nested_users_share_one_installation():
    mod = _ns()
    calls = []

    def plan():
        calls.append(1)
        return [(mod, "f", lambda: "F")]

    p = Patch("t", plan)
    p.acquire()
    p.acquire()
    assert mod.f() == "F" and p.depth == 2 and len(calls) == 1
    p.release()
    assert mod.f() == "F" and p.active
    p.release()
    assert mod.f() == "f" and not p.active
    p.release()  # one release too many: nothing happens
    assert mod.f() == "f" and p.depth == 0


def test_an_inherited_attribute_is_deleted_again_not_copied_down():
    class Base:
        def m(self):
            return "base"

    class Child(Base):
        pass

    with Patch("t", lambda: [(Child, "m", lambda self: "patched")]) as p:
        assert Child().m() == "patched"
        assert p.original(Child, "m") is MISSING
    assert "m" not in Child.__dict__ and Child().m() == "base"


def test_patched_over_leaves_theirs_restores_the_rest_and_warns():
    mod = _ns()
    orig_g = mod.g
    p = Patch("demo", lambda: [(mod, "f", lambda: "ours"), (mod, "g", lambda: "ours")])
    p.acquire()
    theirs = lambda: "theirs"  # noqa: E731
    mod.f = theirs  # someone patches over us and has not undone it when we leave
    with pytest.warns(RuntimeWarning, match=r"demo.*namespace\.f|demo.*\.f was replaced"):
        p.release()
    assert mod.f is theirs  # not clobbered
    assert mod.g is orig_g  # ours restored
    assert p.contested == ["SimpleNamespace.f"]


def test_no_warning_when_restored_in_order():
    mod = _ns()
    p = Patch("t", lambda: [(mod, "f", lambda: "ours")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with p:
            saved = mod.f
            mod.f = lambda: "theirs"
            mod.f = saved  # they undo theirs first (LIFO)
    assert mod.f() == "f" and p.contested == []


def test_a_failing_plan_installs_nothing():
    mod = _ns()

    def plan():
        yield (mod, "f", lambda: "F")
        raise RuntimeError("boom")

    p = Patch("t", plan)
    with pytest.raises(RuntimeError, match="boom"):
        p.acquire()
    assert mod.f() == "f" and p.depth == 0


@pytest.mark.slow
def test_importing_the_internal_package_imports_no_torch():
    code = (
        "import sys, torchferry._internal.patcher, torchferry._internal.frames;"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---- the four users, patched over while active: theirs stays, ours does nothing any more
# (the simulation's FSDP refusal: tests/sim/test_distributed.py, where FSDP is imported)
def test_trips_wrappers_are_inert_after_being_patched_over():
    import torch

    import torchferry as tf

    orig_item = torch.Tensor.item
    try:
        with pytest.warns(RuntimeWarning, match="torch.Tensor.item"):
            with tf.trips() as t:
                ours = torch.Tensor.item
                torch.Tensor.item = lambda self: ours(self)  # wraps trips' wrapper, never undone
        theirs = torch.Tensor.item
        assert not hasattr(torch.Tensor.to, "__wrapped__")  # the uncontested ones restored
        assert torch.Tensor.item is theirs
        assert torch.ones(()).item() == 1.0  # trips' stale wrapper underneath just calls through
        assert t.rows == []
    finally:
        torch.Tensor.item = orig_item


def test_explain_recorder_is_inert_after_being_patched_over():
    import torch

    import torchferry as tf
    from torchferry.diagnose.explanation import RECORDER

    orig = torch.zeros
    try:
        with pytest.warns(RuntimeWarning, match="zeros"):
            with tf.explain(file=None):
                ours = torch.zeros
                torch.zeros = lambda *a, **k: ours(*a, **k)
        n = len(RECORDER.sites)
        torch.zeros(3)
        assert len(RECORDER.sites) == n  # the stale recorder records nothing
        assert not getattr(torch.ones, "__ferry_site__", False)  # the uncontested ones restored
    finally:
        torch.zeros = orig


def test_simulation_patched_over_warns_and_restores_the_rest():
    import torch

    import torchferry as tf

    orig_avail, orig_count = torch.cuda.is_available, torch.cuda.device_count
    try:
        with pytest.warns(RuntimeWarning, match="is_available"):
            with tf.simulate("cuda"):
                torch.cuda.is_available = lambda: "theirs"
        assert torch.cuda.is_available() == "theirs"
        assert torch.cuda.device_count is orig_count
    finally:
        torch.cuda.is_available = orig_avail



def test_suspended_shows_the_originals_then_the_same_replacements():
    class Base:
        def m(self):
            return "base"

    class Child(Base):
        pass

    mod = _ns()
    orig_f, plans = mod.f, []

    def plan():
        plans.append(1)
        return [(mod, "f", lambda: "F"), (mod, "g", lambda: "G"), (Child, "m", lambda self: "M")]

    with Patch("t", plan) as p:
        ours_f, ours_g = mod.f, mod.g
        theirs = lambda: "theirs"  # noqa: E731
        mod.g = theirs  # patched over: left alone while suspended
        with p.suspended():
            assert mod.f is orig_f and mod.g is theirs and "m" not in Child.__dict__
            assert Child().m() == "base" and p.active
        assert mod.f is ours_f and mod.g is theirs and Child().m() == "M" and plans == [1]
        mod.g = ours_g  # they undo theirs
    assert mod.g() == "g" and not p.contested
    with p.suspended():  # not installed: nothing to suspend
        assert mod.f is orig_f
    assert mod.f is orig_f
