"""FRY009 through the legacy ``Variable(...)`` wrapper: ``Variable(t)`` returns
``t.detach()``, on ``t``'s device, so ``Variable(torch.zeros(n)).to(device)`` builds the
tensor on the CPU and copies it, as ``torch.zeros(n).to(device)`` does.  The fix passes the
device to the factory and keeps the wrapper; with ``requires_grad=`` on the wrapper it is
unsafe (the leaf that gets the gradient moves from the CPU original to the device tensor),
as with ``requires_grad=`` on the factory."""

from __future__ import annotations

import pytest

from torchferry.check.engine import apply_fixes, check_source

HEAD = "import torch\nfrom torch.autograd import Variable\n\n\n"


def _found(src: str) -> list[tuple[int, bool | None]]:
    return [(f.line, f.fix.safe if f.fix else None)
            for f in check_source(HEAD + src, "t.py", select=["FRY009"])]


def _fixed(src: str, unsafe: bool = False) -> str:
    findings = check_source(HEAD + src, "t.py", select=["FRY009"])
    return apply_fixes(HEAD + src, findings, unsafe=unsafe)[len(HEAD):]


FLAGGED = {
    # (source, (line, fix safe?)); lines count from the header's end
    "to-a-literal-device": ("h = Variable(torch.zeros(2, 16)).to('cuda')\n", (5, True)),
    "cuda": ("h = Variable(torch.ones(3)).cuda()\n", (5, True)),
    "qualified-wrapper": ("h = torch.autograd.Variable(torch.zeros(2)).to('cuda')\n", (5, True)),
    "tensor-device": ("def f(x):\n    return Variable(torch.zeros(2, 16)).to(x.device)\n", (6, False)),
    "requires-grad-on-the-wrapper": (
        "s = Variable(torch.zeros(3), requires_grad=True).cuda()\n", (5, False)),
    "random-factory": ("n = Variable(torch.randn(3)).to('cuda')\n", (5, False)),
}

QUIET = {
    "a-tensor-not-a-factory": "def f(x):\n    return Variable(x).to('cuda')\n",
    "factory-with-a-device": "h = Variable(torch.zeros(2, device='cpu')).to('cuda')\n",
    "another-argument": "h = Variable(torch.zeros(2), name='h').to('cuda')\n",
}


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_a_factory_moved_through_the_wrapper_is_flagged(case: str) -> None:
    src, expected = FLAGGED[case]
    assert _found(src) == [expected]


@pytest.mark.parametrize("case", sorted(QUIET))
def test_what_is_not_a_wrapped_factory_is_quiet(case: str) -> None:
    assert _found(QUIET[case]) == []


def test_the_fix_keeps_the_wrapper() -> None:
    assert _fixed(FLAGGED["to-a-literal-device"][0]) == "h = Variable(torch.zeros(2, 16, device='cuda'))\n"
    assert _fixed(FLAGGED["cuda"][0]) == 'h = Variable(torch.ones(3, device="cuda"))\n'


def test_the_fix_with_requires_grad_is_offered_as_unsafe_only() -> None:
    src = FLAGGED["requires-grad-on-the-wrapper"][0]
    assert _fixed(src) == src
    assert _fixed(src, unsafe=True) == 's = Variable(torch.zeros(3, device="cuda"), requires_grad=True)\n'


def test_the_safe_fix_computes_the_same_tensor() -> None:
    """Where it runs, the fixed line makes the same values, gradient-free, as the original.
    (``.to('cpu')`` written out is not flagged: the tensor is already there.)"""
    torch = pytest.importorskip("torch")
    dev = "dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    src = dev + "h = Variable(torch.zeros(2, 16)).to(dev)\n"
    fixed = _fixed(src)
    assert fixed == dev + "h = Variable(torch.zeros(2, 16, device=dev))\n"
    assert _found("h = Variable(torch.zeros(2, 16)).to('cpu')\n") == []
    before: dict[str, object] = {}
    after: dict[str, object] = {}
    exec(HEAD + src, before)  # noqa: S102 - the test's own two lines
    exec(HEAD + fixed, after)  # noqa: S102
    a, b = before["h"], after["h"]
    assert isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    assert torch.equal(a, b) and a.device == b.device
    assert (a.requires_grad, a.is_leaf) == (b.requires_grad, b.is_leaf)
