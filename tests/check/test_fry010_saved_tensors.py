"""FRY010 and the tensors an autograd ``Function``'s ``backward`` reads from its context
(``ctx.saved_tensors``): tensors ``forward`` saved where the function's inputs were. Where
``backward`` makes tensors on their device (``device=M.device``), the code says they may be
on an accelerator, and a factory without ``device=`` that meets them is reported; the fix
names a saved tensor's device, never the context's."""

from __future__ import annotations

import ast

from torchferry.check.engine import check_source
from torchferry.check.flow import analyze
from torchferry.check.flow.lattice import Kind, param


def src(base: str = "torch.autograd.Function", unpack: str = "M, P = ctx.saved_tensors",
        follow: str = "e = torch.eye(3, device=M.device)", use: str = "v = P @ e") -> str:
    return (
        "import torch\n"
        f"class F({base}):\n"
        "    @staticmethod\n"
        "    def forward(ctx, M, P):\n"
        "        ctx.save_for_backward(M, P)\n"
        "        return P\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        f"        {unpack}\n"
        f"        {follow}\n"
        f"        {use}\n"
        "        return torch.cat((torch.zeros(3, 1), v), dim=1), None\n"
    )


def found(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.fix.message if f.fix else "")
            for f in check_source(text, "<case>", select=["FRY010"])]


def test_a_factory_meeting_what_follows_a_saved_tensor_is_reported() -> None:
    assert found(src()) == [(12, "Pass `device=v.device`")]


def test_the_fix_names_a_saved_tensor_not_the_context() -> None:
    text = src(use="v = torch.sum(P * e, dim=1) * 2")
    lines = found(text.replace("torch.cat((torch.zeros(3, 1), v), dim=1)",
                               "torch.cat((torch.zeros(3, 1), torch.sum(P * e, dim=1)), dim=1)"))
    assert lines == [(12, "Pass `device=M.device`")]


def test_imported_function_base() -> None:
    text = src(base="Function").replace("import torch\n", "import torch\nfrom torch.autograd import Function\n")
    assert [line for line, _ in found(text)] == [13]


def test_saved_tensors_whose_place_nothing_follows_stay_quiet() -> None:
    # (a backward may compute on the CPU by design: NumPy, SciPy)
    assert found(src(follow="e = torch.eye(3)")) == []


def test_not_an_autograd_function_stays_quiet() -> None:
    assert found(src(base="object")) == []


def test_another_objects_saved_tensors_stay_quiet() -> None:
    assert found(src(unpack="M, P = g.saved_tensors")) == []


def test_saved_tensors_are_tensors_where_the_context_is() -> None:
    tree = ast.parse(src())
    ff = analyze(tree, "<case>")
    backward = tree.body[1].body[1]
    assert isinstance(backward, ast.FunctionDef)
    res = ff.result(backward)
    names = {n.id: res.value(n) for n in ast.walk(backward) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Load)}
    for name in ("M", "P"):
        v = names[name]
        assert v is not None and v.kinds == {Kind.TENSOR} and v.places == {param(0)}
