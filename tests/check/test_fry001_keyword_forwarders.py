"""FRY001, a parameter default and a ``**kw`` forwarder: ``def run(x, **kw): return
helper(x, **kw)`` passes ``device`` to ``helper`` only where a caller of ``run`` puts it in
``kw``.  A call of ``run`` that passes no ``device=`` relies on ``helper``'s default (that
call is the evidence); a forwarder whose own ``device`` parameter keeps it out of ``kw``
relies on it at the forwarding call.  A forwarder no call of the run reaches proves nothing
and no longer hides a direct call that relies on the default.  What is not known stays
quiet: ``kw`` read or changed in the forwarder, a ``*args`` spread, a caller spreading
``**``."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = "import torch\n\n\n"

HELPER = (
    "def helper(x, device='cuda'):\n"
    "    return x.to(device)\n"
)
RUN = (
    "def run(x, **kw):\n"
    "    return helper(x, **kw)\n"
)

RELIED = {
    # (source, the line of the call named as evidence, counted from the source's start)
    "a-caller-of-the-forwarder-leaves-it": (HELPER + RUN + "y = run(torch.ones(2))\n", 5),
    "a-caller-passes-other-keywords": (HELPER + RUN + "y = run(torch.ones(2), scale=2)\n", 5),
    "the-forwarder-keeps-it-out-of-kw": (
        HELPER + "def run(x, device='cpu', **kw):\n    return helper(x, **kw), x.to(device)\n", 4),
    "a-direct-call-beside-an-unreached-forwarder": (HELPER + RUN + "y = helper(torch.ones(2))\n", 5),
    "a-constructor-through-a-forwarder": (
        "class Net(torch.nn.Module):\n"
        "    def __init__(self, n, device='cuda'):\n"
        "        super().__init__()\n"
        "        self.w = torch.nn.Parameter(torch.zeros(n).to(device))\n"
        "def build(n, **kw):\n"
        "    return Net(n, **kw)\n"
        "net = build(3)\n", 7),
}

QUIET = {
    "every-caller-passes-it": HELPER + RUN + "y = run(torch.ones(2), device='cpu')\n",
    "no-caller-of-the-forwarder": HELPER + RUN,
    "the-forwarding-call-passes-it": (
        HELPER + "def run(x, **kw):\n    return helper(x, device='cpu', **kw)\n" + "y = run(torch.ones(2))\n"),
    "kw-changed-in-the-forwarder": (
        HELPER + "def run(x, **kw):\n    kw.setdefault('device', 'cpu')\n    return helper(x, **kw)\n"
        "y = run(torch.ones(2))\n"),
    "kw-read-in-a-nested-function": (
        HELPER + "def run(x, **kw):\n    pick = lambda: kw.get('device')\n    return helper(x, **kw)\n"
        "y = run(torch.ones(2))\n"),
    "a-caller-spreads-keywords": HELPER + RUN + "opts = {'device': 'cpu'}\ny = run(torch.ones(2), **opts)\n",
    "args-spread-too": (
        HELPER + "def run(*a, **kw):\n    return helper(*a, **kw)\n" + "y = run(torch.ones(2))\n"),
    "a-dict-not-the-forwarders-kw": (
        HELPER + "def run(x, **kw):\n    opts = dict(kw)\n    return helper(x, **opts)\n"
        "y = run(torch.ones(2))\n"),
    "the-forwarder-handed-on": HELPER + RUN + "fs = [run]\ny = run(torch.ones(2))\n",
}


def _found(source: str) -> list[tuple[int, list[int]]]:
    return [(f.line - 3, [e.line - 3 for e in f.evidence])
            for f in check_source(HEAD + source, "t.py", select=["FRY001"]) if f.code == "FRY001"]


@pytest.mark.parametrize("case", sorted(RELIED))
def test_a_default_relied_on_through_a_forwarder_is_flagged(case: str) -> None:
    source, relying = RELIED[case]
    default = next(i for i, t in enumerate(source.splitlines(), 1) if "'cuda'" in t)
    assert _found(source) == [(default, [relying])]


@pytest.mark.parametrize("case", sorted(QUIET))
def test_a_forwarder_that_may_pass_the_device_is_quiet(case: str) -> None:
    assert _found(QUIET[case]) == []
