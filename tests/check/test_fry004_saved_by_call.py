"""FRY004 stays quiet on a ``torch.load`` of a file that a call earlier in the same
function has just written: the path is handed to a function (of the file, a method of
the same class, or one imported from another file of the run) that always saves to it
with ``torch.save``, so the load runs in the process that wrote the file.  It still
fires where the save may not have run, or the path may name another file."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths


def lines(src: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(src), "<case>", select=["FRY004"])]


QUIET = {
    "helper-by-keyword": """
        import torch
        def save_ckpt(state, path):
            torch.save(state, path)
        def train(model, out):
            save_ckpt(model.state_dict(), path=out)
            return torch.load(out)
    """,
    "method-on-self": """
        import torch
        class Trainer:
            def _checkpoint(self, path):
                with open(path + ".log", "w") as log:
                    torch.save(self.model.state_dict(), path)
                    log.write("saved")
            def run(self, path, epochs):
                for _ in range(epochs):
                    self._checkpoint(path)
                    self.model.load_state_dict(torch.load(path))
    """,
    "local-path-and-try": """
        import os, torch
        def fit(model, data, ckpt):
            try:
                torch.save(model.state_dict(), ckpt)
            finally:
                print("start")
            for x in data:
                model(x)
        def main(model, data, root):
            best = os.path.join(root, "best.pt")
            fit(model, data, best)
            model.load_state_dict(torch.load(best))
    """,
}

FIRES = {
    "save-under-if": """
        import torch
        def maybe_save(model, path, better):
            if better:
                torch.save(model.state_dict(), path)
        def train(model, path):
            maybe_save(model, path, False)
            return torch.load(path)
    """,
    "save-after-early-return": """
        import torch
        def save(model, path, rank):
            if rank != 0:
                return
            torch.save(model.state_dict(), path)
        def train(model, path, rank):
            save(model, path, rank)
            return torch.load(path)
    """,
    "other-branch": """
        import torch
        def save(model, path):
            torch.save(model.state_dict(), path)
        def main(model, path, train):
            if train:
                save(model, path)
            else:
                return torch.load(path)
    """,
    "other-parameter": """
        import torch
        def save(model, path, log):
            torch.save(model.state_dict(), path)
        def main(model, path, log):
            save(model, path, log)
            return torch.load(log)
    """,
    "path-rebound": """
        import torch
        def save(model, path):
            torch.save(model.state_dict(), path)
        def main(model, path, args):
            save(model, path)
            path = args.resume
            return torch.load(path)
    """,
    "helper-rebinds-parameter": """
        import torch
        def save(model, path):
            path = path + ".bak"
            torch.save(model.state_dict(), path)
        def main(model, path):
            save(model, path)
            return torch.load(path)
    """,
    "load-before-call": """
        import torch
        def save(model, path):
            torch.save(model.state_dict(), path)
        def main(model, path):
            sd = torch.load(path)
            save(model, path)
            return sd
    """,
    "unknown-callee": """
        import torch
        def main(trainer, model, path):
            trainer.fit(model, path)
            return torch.load(path)
    """,
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_on_a_file_a_call_has_just_saved(name: str) -> None:
    assert lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FIRES))
def test_fires_where_the_save_is_not_established(name: str) -> None:
    assert len(lines(FIRES[name])) == 1


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY004",), target_torch_version=None)
    return sorted((Path(o.path).name, d.line)
                  for o in check_paths(sorted(root.rglob("*.py")), opts, cache=None, jobs=1)
                  for d in o.diagnostics)


UTILS = """
    import torch
    def fit(model, data, checkpoint_path, epochs=1):
        torch.save(model.state_dict(), checkpoint_path)
        for _ in range(epochs):
            pass
    def maybe_fit(model, checkpoint_path, best):
        if best:
            torch.save(model.state_dict(), checkpoint_path)
"""


def test_quiet_on_a_helper_imported_from_another_file(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/train_utils.py": UTILS,
        "pkg/a.py": """
            import torch
            from pkg.train_utils import fit
            def run(model, data, ckpt):
                fit(model, data, ckpt, epochs=3)
                model.load_state_dict(torch.load(ckpt))
        """,
        "pkg/b.py": """
            import torch
            from pkg import train_utils
            def run(model, data, out):
                train_utils.fit(model, data, checkpoint_path=out)
                model.load_state_dict(torch.load(out))
        """,
    }
    assert found(tmp_path, files) == []


def test_fires_on_an_imported_helper_that_may_not_save(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/train_utils.py": UTILS,
        "pkg/a.py": """
            import torch
            from pkg.train_utils import maybe_fit
            def run(model, ckpt):
                maybe_fit(model, ckpt, False)
                model.load_state_dict(torch.load(ckpt))
        """,
    }
    assert found(tmp_path, files) == [("a.py", 6)]


def test_fires_where_the_callee_is_a_parameter_named_as_a_saving_function() -> None:
    src = """
        import torch
        def fit(model, path):
            torch.save(model.state_dict(), path)
        def train(model, path, fit):
            fit(model, path)
            return torch.load(path)
    """
    assert lines(src) == [7]
