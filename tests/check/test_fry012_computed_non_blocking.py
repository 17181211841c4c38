"""FRY012 knows ``non_blocking=f(...)`` is True where ``f`` is a small pure function of the
run (one ``return`` of an expression) that returns True for the arguments the call gives
it, and knows a class attribute or a module-level name bound once to
``torch.device("cpu")`` as the CPU target.  Quiet where the result or the target is not
established by the code (a parameter, a function that tests anything else, a constant
bound again)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

HELPERS = """
    import torch
    CPU = torch.device("cpu")
    def nb(d):
        "Non-blocking except towards MPS."
        return False if d.type == "mps" else True
    def to_cuda_only(d):
        return d.type == "cuda"
    def logged(d):
        print(d)
        return True
    def not_mps(d, kinds=("mps", "xla")):
        return d.type not in kinds and True
    class Devices:
        CPU_DEVICE = torch.device("cpu")
        @staticmethod
        def get_non_blocking(to_device):
            return False if to_device.type == "mps" else True
        @classmethod
        def flag(cls, to_device):
            return to_device.type != "mps"
"""

FIRES = {
    "module-function": "y = x.to(CPU, non_blocking=nb(CPU))",
    "static-method-and-class-constant":
        "y = x.to(Devices.CPU_DEVICE, non_blocking=Devices.get_non_blocking(Devices.CPU_DEVICE))",
    "class-method-keyword": "y = x.to(device='cpu', non_blocking=Devices.flag(to_device=torch.device('cpu')))",
    "default-argument": "y = x.to('cpu', non_blocking=not_mps(CPU))",
}

QUIET = {
    "target-parameter": "y = x.to(target, non_blocking=nb(target))",
    "false-for-the-cpu": "y = x.to(CPU, non_blocking=to_cuda_only(CPU))",
    "not-a-single-return": "y = x.to(CPU, non_blocking=logged(CPU))",
    "unknown-argument": "y = x.to(CPU, non_blocking=nb(target))",
    "towards-mps": "y = x.to(CPU, non_blocking=nb(torch.device('mps')))",
    "false-literal-default": "y = x.to(CPU, non_blocking=not_mps(CPU, ('cpu',)))",
}


def case(line: str) -> str:
    return textwrap.dedent(HELPERS) + f"def run(x, target):\n    {line}\n    print(y.sum())\n"


def lines(src: str) -> list[int]:
    return [f.line for f in check_source(src, "<case>", select=["FRY012"])]


@pytest.mark.parametrize("name", sorted(FIRES))
def test_fires_where_the_function_returns_true_towards_the_cpu(name: str) -> None:
    src = case(FIRES[name])
    assert lines(src) == [len(src.splitlines()) - 1]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_where_the_value_or_the_target_is_not_established(name: str) -> None:
    assert lines(case(QUIET[name])) == []


def test_quiet_where_the_class_constant_is_bound_again() -> None:
    src = case(FIRES["static-method-and-class-constant"]) + "Devices.CPU_DEVICE = torch.device('cuda')\n"
    assert lines(src) == []


def test_quiet_where_the_function_is_bound_again() -> None:
    src = case(FIRES["module-function"]).replace("def run(", "nb = lambda d: False\ndef run(")
    assert lines(src) == []


def test_fires_across_files(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/devices.py": """
            import torch
            class TorchDevice:
                CPU_DEVICE = torch.device("cpu")
                @staticmethod
                def get_non_blocking(to_device: torch.device) -> bool:
                    \"\"\"Non-blocking except towards MPS.\"\"\"
                    return False if to_device.type == "mps" else True
        """,
        "pkg/cache.py": """
            from pkg.devices import TorchDevice
            def offload(x, target_device):
                y = x.to(TorchDevice.CPU_DEVICE, non_blocking=TorchDevice.get_non_blocking(TorchDevice.CPU_DEVICE))
                z = x.to(target_device, non_blocking=TorchDevice.get_non_blocking(target_device))
                return y.sum() + z.sum()
        """,
    }
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    opts = Options(root=tmp_path, select=("FRY012",), target_torch_version=None)
    got = sorted((Path(o.path).name, d.line)
                 for o in check_paths(sorted(tmp_path.rglob("*.py")), opts, cache=None, jobs=1)
                 for d in o.diagnostics)
    assert got == [("cache.py", 4)]
