"""FRY001 and ``argparse`` option defaults: ``add_argument("--device", default="cuda")``
whose parsed value the file uses as a device (``device=args.device``, ``.to(args.device)``,
``torch.device(args.device)``, ``device = args.device``) is flagged at the default, with that
use as evidence; quiet where the program falls back (``if not torch.cuda.is_available():
args.device = "cpu"``, in the file or a file of its program), where the file assigns the
option again, where the use is under a test of availability, where the default is computed
from availability, and where the value is no device.  Opt-in: the
default set runs FRY001's findings only in a program with a CPU fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

HEAD = "import argparse\nimport torch\n\nparser = argparse.ArgumentParser()\n"

FLAGGED = {
    "keyword-to-a-function": (
        "def load(path, device):\n"
        "    return torch.load(path).to(device=device)\n"
        "parser.add_argument('--device', default='cuda')\n"
        "args = parser.parse_args()\n"
        "m = load('m.pt', device=args.device)\n"
    ),
    "moved-to-it": (
        "parser.add_argument('--device', type=str, default='cuda:0')\n"
        "args = parser.parse_args()\n"
        "x = torch.ones(2).to(args.device)\n"
    ),
    "a-device-of-it-with-dest": (
        "parser.add_argument('-d', '--run-on', dest='dev', default=torch.device('cuda'))\n"
        "args, rest = parser.parse_known_args()\n"
        "dev = torch.device(args.dev)\n"
    ),
    "a-device-variable": (
        "parser.add_argument('--map-device', default='cuda')\n"
        "opt = parser.parse_args()\n"
        "device = opt.map_device\n"
    ),
}

QUIET = {
    "falls-back": (
        "parser.add_argument('--device', default='cuda')\n"
        "args = parser.parse_args()\n"
        "if not torch.cuda.is_available():\n"
        "    args.device = 'cpu'\n"
        "x = torch.ones(2).to(args.device)\n"
    ),
    "computed-from-availability": (
        "parser.add_argument('--device', default='cuda' if torch.cuda.is_available() else 'cpu')\n"
        "args = parser.parse_args()\n"
        "x = torch.ones(2).to(args.device)\n"
    ),
    "not-a-device": (
        "parser.add_argument('--backend', default='cuda')\n"
        "args = parser.parse_args()\n"
        "print(args.backend)\n"
    ),
    "used-under-a-test": (
        "parser.add_argument('--device', default='cuda')\n"
        "args = parser.parse_args()\n"
        "if torch.cuda.is_available():\n"
        "    x = torch.ones(2).to(args.device)\n"
    ),
    "chosen-again": (
        "parser.add_argument('--device', default='cuda')\n"
        "args = parser.parse_args()\n"
        "args.device = pick(args.device)\n"
        "x = torch.ones(2).to(args.device)\n"
    ),
    "not-a-parsed-namespace": (
        "parser.add_argument('--device', default='cuda')\n"
        "x = torch.ones(2).to(cfg.device)\n"
    ),
}


def _found(source: str, select: list[str] | None = None) -> list[tuple[int, list[int]]]:
    return [(f.line, [e.line for e in f.evidence])
            for f in check_source(HEAD + source, "t.py", select=select or ["FRY001"])
            if f.code == "FRY001"]


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_an_accelerator_option_default_used_as_the_device_is_flagged(case: str) -> None:
    lines = (HEAD + FLAGGED[case]).splitlines()
    default = next(i for i, t in enumerate(lines, 1) if "add_argument" in t)
    assert _found(FLAGGED[case]) == [(default, [len(lines)])]


@pytest.mark.parametrize("case", sorted(QUIET))
def test_an_option_default_with_a_fallback_or_no_device_use_is_quiet(case: str) -> None:
    assert _found(QUIET[case]) == []


def test_the_default_set_does_not_report_it() -> None:
    assert [f.code for f in check_source(HEAD + FLAGGED["moved-to-it"], "t.py")] == []


def test_a_cpu_fallback_in_another_file_of_the_program_quiets_it(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(HEAD + "import pick\n" + FLAGGED["moved-to-it"])
    fallback = "import torch\nDEV = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    (tmp_path / "pick.py").write_text(fallback)
    opts = Options(root=tmp_path, select=["FRY001"], target_torch_version=None)
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts, cache=None, jobs=1)
    assert [f for o in outcomes for f in o.diagnostics if f.code == "FRY001"] == []
    (tmp_path / "pick.py").write_text("import torch\nif torch.cuda.is_available():\n    torch.cuda.empty_cache()\n")
    outcomes = check_paths(sorted(tmp_path.glob("*.py")), opts, cache=None, jobs=1)
    assert [f.line for o in outcomes for f in o.diagnostics if f.code == "FRY001"] == [6]
