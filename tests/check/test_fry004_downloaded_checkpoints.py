"""FRY004 knows the calls that download a checkpoint and read it with ``torch.load``
(``torch.hub.load_state_dict_from_url`` and its other names): without ``map_location``
they restore tensors where they were saved, as ``torch.load`` does."""

from __future__ import annotations

import inspect

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.libfacts import CHECKPOINT_LOADS, checkpoint_load


def findings(src: str) -> list[tuple[int, bool | None]]:
    found = check_source(src, "<case>", select=["FRY004"])
    return [(f.line, f.fix.safe if f.fix else None) for f in found]


FLAGGED = {
    "hub-imported-name": (
        "from torch.hub import load_state_dict_from_url\n"
        "def load(url):\n"
        "    return load_state_dict_from_url(url, progress=True)\n"
    ),
    "hub-attribute": (
        "import torch\n"
        "def load(url):\n"
        "    return torch.hub.load_state_dict_from_url(url, './weights')\n"
    ),
    "model-zoo": (
        "import torch.utils.model_zoo as model_zoo\n"
        "def load(url):\n"
        "    return model_zoo.load_url(url)\n"
    ),
    "torchvision-re-export": (
        "from torchvision.models.utils import load_state_dict_from_url\n"
        "def load(url):\n"
        "    return load_state_dict_from_url(url)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged(name: str) -> None:
    assert [line for line, _ in findings(FLAGGED[name])] == [3]


QUIET = {
    "keyword": (
        "import torch\n"
        "def load(url):\n"
        "    return torch.hub.load_state_dict_from_url(url, map_location='cpu')\n"
    ),
    "third-positional": (
        "import torch\n"
        "def load(url):\n"
        "    return torch.hub.load_state_dict_from_url(url, None, 'cpu')\n"
    ),
    "star-kwargs": (
        "import torch\n"
        "def load(url, **kw):\n"
        "    return torch.hub.load_state_dict_from_url(url, **kw)\n"
    ),
    # a hub model is built by the repository's own code, not unpickled here
    "hub-model": (
        "import torch\n"
        "def load():\n"
        "    return torch.hub.load('owner/repo', 'model')\n"
    ),
    # a function of the same name that is not torch's
    "own-function": (
        "def load_state_dict_from_url(url):\n"
        "    return url\n"
        "def load(url):\n"
        "    return load_state_dict_from_url(url)\n"
    ),
    "under-availability": (
        "import torch\n"
        "def load(url):\n"
        "    if torch.cuda.is_available():\n"
        "        return torch.hub.load_state_dict_from_url(url)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert findings(QUIET[name]) == []


def test_fix_safe_only_into_a_module_built_here() -> None:
    src = (
        "import torch\n"
        "from torch.hub import load_state_dict_from_url\n"
        "def build(url, model):\n"
        "    net = torch.nn.Linear(2, 2)\n"
        "    net.load_state_dict(load_state_dict_from_url(url))\n"
        "    model.load_state_dict(load_state_dict_from_url(url))\n"
    )
    assert findings(src) == [(5, True), (6, False)]


def test_map_location_positions_match_torch() -> None:
    pytest.importorskip("torch")

    for fact in CHECKPOINT_LOADS:
        for name in fact.names:
            if not name.startswith("torch."):
                continue  # torchvision is not installed here
            module, _, attr = name.rpartition(".")
            fn = getattr(__import__(module, fromlist=[attr]), attr)
            params = list(inspect.signature(fn).parameters)
            assert params[fact.map_at] == "map_location", name
            assert inspect.signature(fn).parameters["map_location"].default is None
    assert checkpoint_load("torch.hub.load") is None
