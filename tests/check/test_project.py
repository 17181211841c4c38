"""Files checked together: a module class defined in one file is known in the others."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

TRAIN = (
    "import torch\n"
    "from model import Net\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "net = Net()\n"
    "out = net(torch.ones(2, 2).to(device))\n"
    "print(out.numpy())\n"
)
MODEL = "import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n\nclass Net(Base):\n    pass\n"


def codes(outcomes) -> list[tuple[str, int, str]]:
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


def test_module_class_of_another_file_is_known(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    paths = [tmp_path / "model.py", tmp_path / "train.py"]
    assert codes(check_paths(paths, opts, jobs=1)) == [("train.py", 6, "FRY003")]
    # alone, Net is unknown: a callable given a tensor on the device is taken to return
    # its result there too
    assert codes(check_paths([tmp_path / "train.py"], opts, jobs=1)) == [("train.py", 6, "FRY003")]
    # a class of the run that is no module: calling its instance gives nothing known
    (tmp_path / "model.py").write_text(MODEL.replace("nn.Module", "object"))
    assert codes(check_paths(paths, opts, jobs=1)) == []


CONVERTERS = (
    "def to_cpu(x):\n"
    "    return x.detach().cpu()\n"
    "\n"
    "\n"
    "def double(x):\n"
    "    return x * 2\n"
)
SHOW = (
    "import torch\n"
    "from helpers import double, to_cpu\n"
    "x = torch.ones(2, device='cuda')\n"
    "a = to_cpu(x).numpy()\n"
    "b = double(x).numpy()\n"
)


def test_a_helper_of_another_file_decides_where_its_result_is(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(CONVERTERS)
    (tmp_path / "show.py").write_text(SHOW)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    paths = [tmp_path / "helpers.py", tmp_path / "show.py"]
    # in the run, ``to_cpu`` is read: its result is on the CPU
    assert codes(check_paths(paths, opts, jobs=1)) == [("show.py", 5, "FRY003")]
    # left out, a callable given a tensor on the device is taken to return it there
    alone = check_paths([tmp_path / "show.py"], opts, jobs=1)
    assert codes(alone) == [("show.py", 4, "FRY003"), ("show.py", 5, "FRY003")]


def test_cache_entries_depend_on_the_classes_of_the_run(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    opts = Options(root=tmp_path, select=("FRY003",), target_torch_version=None)
    paths = [tmp_path / "model.py", tmp_path / "train.py"]
    cache = Cache(tmp_path, "test")
    first = check_paths(paths, opts, cache=cache, jobs=1)
    cache.save()
    again = check_paths(paths, opts, cache=Cache(tmp_path, "test"), jobs=1)
    assert all(o.cached for o in again) and codes(again) == codes(first)
    (tmp_path / "model.py").write_text(MODEL.replace("nn.Module", "object"))
    second = check_paths(paths, opts, cache=Cache(tmp_path, "test"), jobs=1)
    assert codes(first) == [("train.py", 6, "FRY003")] and codes(second) == []
    assert not any(o.cached for o in second)  # train.py's entry no longer applies


BASE = "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(3, 4)\n"
#: no "torch" in it: the pre-filter skips checking it, but the classes it defines count
MID = "from .base import Base as B\n\n\nclass Mid(B):\n    def forward(self, x):\n        return self.fc(x)\n"
NET = (
    "import torch\n"
    "import pkg.mid as m\n"
    "\n"
    "\n"
    "class Net(m.Mid):\n"
    "    def go(self):\n"
    "        self.cuda()\n"
    "        return self.fc(torch.ones(3))\n"
    "\n"
    "\n"
    "def other():\n"
    "    net = Net()\n"
    "    y = torch.ones(2, 3).to('cuda')\n"
    "    return net(y)\n"
)


def _package(tmp_path: Path, base: str) -> list[Path]:
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    for name, text in (("__init__", ""), ("base", base), ("mid", MID), ("net", NET)):
        (pkg / f"{name}.py").write_text(text)
    return sorted(pkg.glob("*.py"))


def test_module_base_through_files_and_an_alias_is_a_module(tmp_path: Path) -> None:
    """``Net(m.Mid)``, ``Mid(B)`` in a file without "torch", ``B`` the alias of an
    ``nn.Module`` subclass of a third file: ``Net`` is a module with ``Base``'s weights,
    moved by ``self.cuda()`` and left on the CPU by ``Net()`` (``self.fc`` on the device after
    ``self.cuda()``, given ``torch.ones(3)``: FRY010 at the factory, FRY014 at the call)."""
    opts = Options(root=tmp_path, select=("FRY010", "FRY014"), target_torch_version=None)
    found = codes(check_paths(_package(tmp_path, BASE), opts, jobs=1))
    assert sorted(found) == [("net.py", 8, "FRY010"), ("net.py", 8, "FRY014"), ("net.py", 14, "FRY014")]


def test_base_of_another_file_that_is_no_module_gives_nothing(tmp_path: Path) -> None:
    opts = Options(root=tmp_path, select=("FRY010", "FRY014"), target_torch_version=None)
    plain = BASE.replace("nn.Module", "object").replace("super().__init__()", "pass")
    assert codes(check_paths(_package(tmp_path, plain), opts, jobs=1)) == []


def test_renamed_imports_count_in_the_module_pre_pass() -> None:
    from torchferry.check.project import headers, module_classes

    base = b"import torch.nn as nn\nclass C(nn.Module): pass\nclass D: pass\n"
    user = b"from .c import (C as Alias,\n    D as Other)\nclass E(Alias): pass\nclass F(Other): pass\n"
    assert module_classes([base, user]) == {"C", "E"}
    assert module_classes([base, headers(user)]) == {"C", "E"}  # what the server keeps


HELPERS = (
    "import torch\n"
    "\n"
    "\n"
    "def summary(model, input_size):\n"
    "    x = torch.rand(2, *input_size).cuda()\n"
    "    return model(x)\n"
    "\n"
    "\n"
    "def flops(model, res):\n"
    "    batch = torch.ones(1, *res)\n"
    "    return model(batch)\n"
)
CALLS = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from pk.helpers import summary, flops\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(3, 4)\n"
    "\n"
    "\n"
    "def main():\n"
    "    summary({summary}, (3,))\n"
    "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "    flops({flops}, (3,))\n"
)


def _helpers(tmp_path: Path, summary: str = "Net()", flops: str = "Net().to(device)",
             more: str = "") -> list[Path]:
    pk = tmp_path / "pk"
    pk.mkdir(exist_ok=True)
    (pk / "__init__.py").write_text("")
    (pk / "helpers.py").write_text(HELPERS)
    (pk / "use.py").write_text(CALLS.format(summary=summary, flops=flops) + more)
    return sorted(pk.glob("*.py"))


def test_parameters_take_what_every_caller_in_other_files_passes(tmp_path: Path) -> None:
    """``summary(model, ...)`` runs the model on an input it moves, and every call of the
    run (in another file) passes a model built on the CPU; ``flops`` makes its input on
    the CPU, and every call passes a model moved to the device."""
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths(_helpers(tmp_path), opts, jobs=1)
    assert codes(outcomes) == [("helpers.py", 6, "FRY014"), ("helpers.py", 11, "FRY014")]
    notes = [(Path(e.path or "").name, e.line) for o in outcomes for d in o.diagnostics
             for e in d.evidence]
    assert ("use.py", 13) in notes and ("use.py", 15) in notes  # where the callers place them


def test_parameters_of_mixed_or_unknown_callers_stay_unknown(tmp_path: Path) -> None:
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    # one caller moves the model and one does not: neither call is sure to fail
    mixed = "    summary(Net().to(device), (3,))\n    flops(Net(), (3,))\n"
    assert codes(check_paths(_helpers(tmp_path, more=mixed), opts, jobs=1)) == []
    # a model from a call the analysis cannot see into
    unknown = "torch.hub.load('a', 'b')"
    assert codes(check_paths(_helpers(tmp_path, unknown, unknown), opts, jobs=1)) == []
    # the function handed on as a value: it may be called anywhere
    handed = "    hooks = [summary, flops]\n    print(hooks)\n"
    assert codes(check_paths(_helpers(tmp_path, more=handed), opts, jobs=1)) == []
    # the moved calls alone are right
    assert codes(check_paths(_helpers(tmp_path, "Net().to(device)", "Net().to(device)"),
                             opts, jobs=1)) == [("helpers.py", 11, "FRY014")]


def test_cache_entry_of_a_callee_depends_on_its_callers(tmp_path: Path) -> None:
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    paths = _helpers(tmp_path)
    cache = Cache(tmp_path, "test")
    first = check_paths(paths, opts, cache=cache, jobs=1)
    assert ("helpers.py", 6, "FRY014") in codes(first)
    cache.save()
    again = check_paths(paths, opts, cache=Cache(tmp_path, "test"), jobs=1)
    assert all(o.cached for o in again if not o.skipped)
    _helpers(tmp_path, "Net().to(device)")  # the caller changes, helpers.py does not
    second = check_paths(paths, opts, cache=Cache(tmp_path, "test"), jobs=1)
    assert ("helpers.py", 6, "FRY014") not in codes(second)
    assert not any(o.cached for o in second if o.path.name == "helpers.py")


CORPUS = (
    "import torch\n"
    "\n"
    "class Corpus(object):\n"
    "    def __init__(self, path):\n"
    "        self.train = self.tokenize(path)\n"
    "\n"
    "    def tokenize(self, path):\n"
    "        ids = [len(line) for line in open(path)]\n"
    "        return torch.tensor(ids).type(torch.int64)\n"
)
LANGUAGE_MODEL = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import data\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "corpus = data.Corpus('train.txt')\n"
    "def batchify(data, bsz):\n"
    "    return data.view(bsz, -1).t().contiguous(){move}\n"
    "def get_batch(source, i):\n"
    "    return source[i:i + 35], source[i + 1:i + 36].view(-1)\n"
    "train_data = batchify(corpus.train, 20)\n"
    "model = nn.Embedding(100, 8).to(device)\n"
    "for i in range(0, train_data.size(0) - 1, 35):\n"
    "    x, y = get_batch(train_data, i)\n"
    "    out = model(x)\n"
)


def test_a_tensor_made_in_another_file_reaches_the_moved_model(tmp_path: Path) -> None:
    """``corpus.train`` (a tensor another file's class makes on the CPU), batched by helpers
    that return parts of their parameter, meets a model moved to the device."""
    (tmp_path / "data.py").write_text(CORPUS)
    opts = Options(root=tmp_path, select=("FRY014",), target_torch_version=None)
    paths = [tmp_path / "data.py", tmp_path / "main.py"]
    (tmp_path / "main.py").write_text(LANGUAGE_MODEL.format(move=""))
    outcomes = check_paths(paths, opts, jobs=1)
    assert codes(outcomes) == [("main.py", 14, "FRY014")]
    notes = [(Path(e.path or "main.py").name, e.line) for o in outcomes for d in o.diagnostics
             for e in d.evidence]
    assert ("data.py", 9) in notes  # where the tensor is made
    (tmp_path / "main.py").write_text(LANGUAGE_MODEL.format(move=".to(device)"))
    assert codes(check_paths(paths, opts, jobs=1)) == []


def test_a_file_a_call_reached_before_its_turn_is_parsed_once(tmp_path: Path, monkeypatch) -> None:
    """``a.py`` calls ``b.make``: the analysis parses ``b.py`` then, and ``b.py``'s own
    check reuses that tree; an edit between the two (another text) is parsed afresh."""
    from torchferry.check import engine
    from torchferry.check.flow import Project

    (tmp_path / "a.py").write_text(
        "import torch\nfrom b import make\n\ndef run(d):\n    return make().to(d)\n"
    )
    (tmp_path / "b.py").write_text("import torch\n\ndef make():\n    return torch.ones(2)\n")
    parsed: list[str] = []
    real = engine._parse
    monkeypatch.setattr(engine, "_parse", lambda s, p: parsed.append(Path(p).name) or real(s, p))
    opts = Options(root=tmp_path, target_torch_version=None)
    outcomes = check_paths([tmp_path / "a.py", tmp_path / "b.py"], opts, jobs=1)
    assert codes(outcomes) == []
    assert parsed == ["a.py", "b.py"]  # b.py by the analysis of a.py's call, then reused
    project = Project({"/r/b.py": b"import torch\n"}, packages=set())
    assert project.file_flow("/r/b.py") is not None
    assert project.tree_of("/r/b.py", "import torch\n") is project.file_flow("/r/b.py").tree
    assert project.tree_of("/r/b.py", "import torch  # edited\n") is None



def test_a_file_a_call_reaches_after_its_check_is_not_parsed_again(tmp_path: Path, monkeypatch) -> None:
    """``b.py`` is checked first, then ``a.py``'s call of ``b.make`` reads ``b.py``: the
    analysis reuses the tree ``b.py``'s check parsed, and finds what it finds in the other
    order (``b.py`` parsed for the call, then reused by its check)."""
    from torchferry.check import engine

    (tmp_path / "a.py").write_text(
        "import torch\nfrom b import make\n\ndef run():\n    return make().numpy()\n"
    )
    (tmp_path / "b.py").write_text("import torch\n\ndef make():\n    return torch.ones(2).cuda()\n")
    parsed: list[str] = []
    real = engine._parse
    monkeypatch.setattr(engine, "_parse", lambda s, p: parsed.append(Path(p).name) or real(s, p))
    opts = Options(root=tmp_path, target_torch_version=None)
    outcomes = check_paths([tmp_path / "b.py", tmp_path / "a.py"], opts, jobs=1)
    assert parsed.count("b.py") == 1  # not a second time for a.py's call
    monkeypatch.setattr(engine, "_parse", real)
    assert codes(outcomes) == codes(check_paths([tmp_path / "a.py", tmp_path / "b.py"], opts, jobs=1))
    assert codes(outcomes) == [("a.py", 5, "FRY003")]  # the tensor b.py moved


def test_the_run_hashes_a_file_as_the_cache_does() -> None:
    from torchferry.check.cache import content_hash
    from torchferry.check.flow import Project

    project = Project({"/r/a.py": b"import torch\n"}, packages=set())
    assert project.content_hash("/r/a.py") == content_hash(b"import torch\n")


READER = (
    "import torch\n"
    "\n"
    "\n"
    "class Reader:\n"
    "    def __init__(self, net):\n"
    "        self.net = net\n"
    "\n"
    "    @staticmethod\n"
    "    def load(path):\n"
    "        return Reader(torch.load(path, map_location='cpu'))\n"
    "\n"
    "    def predict(self, x):\n"
    "        scores = self.net(x.cuda(non_blocking=True))\n"
    "        scores = scores.cpu()\n"
    "        if scores.dim() > 1:\n"
    "            return scores.argmax(1)\n"
    "        return scores\n"
)
PREDICTOR = (
    "from .reader import Reader\n"
    "\n"
    "\n"
    "class Predictor:\n"
    "    def __init__(self, path):\n"
    "        self.model = Reader.load(path)\n"
    "\n"
    "    def predict_batch(self, batch):\n"
    "        inputs = [b for b in batch]\n"
    "        return self.model.predict(inputs[0])\n"
)
PREDICT = (
    "import time\n"
    "import torch\n"
    "from pkg import Predictor\n"
    "t0 = time.time()\n"
    "predictor = Predictor('model.pt')\n"
    "x = torch.ones(8, 4, device='cuda')\n"
    "for i in range(10):\n"
    "    preds = predictor.predict_batch([x * i])\n"
    "print('Total time: %.2f' % (time.time() - t0))\n"
)


def _fry006(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    opts = Options(root=tmp_path, select=("FRY006",), target_torch_version=None)
    return codes(check_paths([tmp_path / n for n in files], opts, jobs=1))


def test_a_method_of_another_files_class_that_waits_is_a_synchronize(tmp_path: Path) -> None:
    # ``predictor.predict_batch`` reaches ``self.model.predict`` (the class of ``self.model``
    # is built by a staticmethod of a class of another file), which copies to the host
    files = {"pkg/__init__.py": "from .predictor import Predictor\n", "pkg/reader.py": READER,
             "pkg/predictor.py": PREDICTOR, "predict.py": PREDICT}
    assert _fry006(tmp_path, files) == []
    # the copy only on one branch: the timing is reported
    waits_once = READER.replace("        scores = scores.cpu()\n        if scores.dim() > 1:\n",
                                "        if scores.dim() > 1:\n            scores = scores.cpu()\n")
    assert _fry006(tmp_path, {**files, "pkg/reader.py": waits_once}) == [("predict.py", 9, "FRY006")]


METRICS = (
    "def accuracy(out, y):\n"
    "    return (out.argmax(1) == y).float().mean().item()\n"
    "\n"
    "\n"
    "def report(out, y, verbose=False):\n"
    "    if verbose:\n"
    "        print(accuracy(out, y))\n"
    "    return out\n"
    "\n"
    "\n"
    "def top1(out):\n"
    "    return out.argmax(1)\n"
    "\n"
    "\n"
    "def to_numpy(x):\n"
    "    \"\"\"The values of ``x`` on the host.\"\"\"\n"
    "    if x is None:\n"
    "        return None\n"
    "    if isinstance(x, (list, float)):\n"
    "        return x\n"
    "    return x.detach().cpu().numpy()\n"
)
TIMED = (
    "import time\n"
    "import torch\n"
    "{imp}\n"
    "net = torch.nn.Linear(4, 2).cuda()\n"
    "x = torch.ones(8, 4, device='cuda')\n"
    "y = torch.zeros(8, device='cuda')\n"
    "t0 = time.perf_counter()\n"
    "out = net(x)\n"
    "{call}\n"
    "print(f'{{time.perf_counter() - t0:.3f}}s')\n"
)


def test_a_function_imported_from_another_file_that_waits_is_a_synchronize(tmp_path: Path) -> None:
    for imp, call in (("from metrics import accuracy", "acc = accuracy(out, y)"),
                      ("import metrics", "acc = metrics.accuracy(out, y)"),
                      ("from metrics import accuracy as acc_of", "acc = acc_of(out, y)"),
                      ("from metrics import to_numpy", "out = to_numpy(out)")):
        files = {"metrics.py": METRICS, "timed.py": TIMED.format(imp=imp, call=call)}
        assert _fry006(tmp_path, files) == [], imp


def test_an_imported_function_that_may_return_without_waiting_is_no_synchronize(tmp_path: Path) -> None:
    for call in ("out = metrics.report(out, y)", "pred = metrics.top1(out)"):
        files = {"metrics.py": METRICS, "timed.py": TIMED.format(imp="import metrics", call=call)}
        assert _fry006(tmp_path, files) == [("timed.py", 10, "FRY006")], call


FACTORS = """import torch


class Factors:
    def __init__(self, data, device):
        self.data = data.to(device)
        self.cores = []

    def grow(self, n):
        self.cores.append(torch.randn(n, n).to(self.data.device))
"""
USE_FACTORS = """import torch
from factors import Factors


def run(device, n):
    f = Factors(torch.ones(n, n), device)
    f.grow(n)
    out = f.data @ torch.eye(n)
    return f.cores[0].numpy(), f.data.numpy(), out
"""


def test_the_attributes_of_another_files_plain_object_are_where_its_constructor_put_them(
        tmp_path: Path) -> None:
    """``f.data`` of ``f = Factors(x, device)``, a plain class of another file whose
    ``__init__`` moves its argument there: a factory without ``device=`` meets it, and
    NumPy is given it (the class's list of cores too, made where the data is)."""
    (tmp_path / "factors.py").write_text(FACTORS)
    (tmp_path / "main.py").write_text(USE_FACTORS)
    opts = Options(root=tmp_path, select=("FRY003", "FRY010"), target_torch_version=None)
    outcomes = check_paths([tmp_path / "factors.py", tmp_path / "main.py"], opts, jobs=1)
    # (line 9 twice: ``f.cores[0].numpy()`` and ``f.data.numpy()``)
    assert sorted(codes(outcomes)) == [("main.py", 8, "FRY010"), ("main.py", 9, "FRY003"),
                                       ("main.py", 9, "FRY003")]
