"""What a ``torch.load`` call reads (check/loads.py): FRY004 and FRY005 stay quiet only
on evidence that the bytes cannot come from a device this machine lacks / from someone
else, and fire otherwise."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source


def codes(src: str, select: str = "FRY004") -> list[int]:
    return [f.line for f in check_source(src, "<case>", select=[select])]


QUIET = {
    "saved-a-line-above": (
        "import torch\n"
        "def f(sd):\n"
        "    torch.save(sd, '/tmp/x.pt')\n"
        "    return torch.load('/tmp/x.pt', mmap=True)\n"
    ),
    "with-open-round-trip": (
        "import torch\n"
        "def f(obj, p):\n"
        "    with open(p, 'wb') as fh:\n"
        "        torch.save(obj, fh)\n"
        "    with open(p, 'rb') as fh:\n"
        "        return torch.load(fh)\n"
    ),
    "broadcast-buffer": (
        "import io, torch\n"
        "def bcast(obj, comm):\n"
        "    buffer = io.BytesIO()\n"
        "    torch.save(obj, buffer)\n"
        "    buffer = io.BytesIO(comm(buffer.getvalue()))\n"
        "    return torch.load(buffer)\n"
    ),
    "worker-bytes": (
        "import io, torch\n"
        "def pack(metrics):\n"
        "    buf = io.BytesIO()\n"
        "    torch.save(metrics, buf)\n"
        "    return {'m': buf.getvalue()}\n"
        "def unpack(extra):\n"
        "    return torch.load(io.BytesIO(extra['m']))\n"
    ),
    "dataset-cache-attr": (
        "import torch\n"
        "class Patches:\n"
        "    def __init__(self, root):\n"
        "        self.data_file = root + '/patches.pt'\n"
        "        self.data = torch.load(self.data_file)\n"
        "    def cache(self):\n"
        "        data = (read_images(self.root), read_labels(self.root))\n"
        "        with open(self.data_file, 'wb') as f:\n"
        "            torch.save(data, f)\n"
    ),
    "meta-constant": (
        "import os, torch\n"
        "META = 'meta.bin'\n"
        "def load_meta(root, file=None):\n"
        "    if file is None:\n"
        "        file = META\n"
        "    file = os.path.join(root, file)\n"
        "    return torch.load(file)\n"
        "def parse(root):\n"
        "    classes = sorted(os.listdir(root))\n"
        "    torch.save(classes, os.path.join(root, META))\n"
    ),
    "dataset-method": (
        "import torch\n"
        "from torchvision.datasets import VisionDataset\n"
        "class Digits(VisionDataset):\n"
        "    def _load(self, path):\n"
        "        return torch.load(path)\n"
    ),
    "dataset-through-own-base": (
        "import torch\n"
        "from torch.utils.data import Dataset\n"
        "class Base(Dataset):\n"
        "    pass\n"
        "class Digits(Base):\n"
        "    def _load(self, path):\n"
        "        return torch.load(path)\n"
    ),
    "xla-only": (
        "import torch\n"
        "def load_shard(path):\n"
        "    from torch_xla.core import xla_model as xm\n"
        "    return torch.load(path)\n"
    ),
    "ndarray": (
        "import torch\n"
        "data = torch.load('waves.pt')\n"
        "x = torch.from_numpy(data[1:])\n"
    ),
}

FLAGGED = {
    "user-path": "import torch\ndef f(args):\n    return torch.load(args.checkpoint)\n",
    "saved-in-another-function": (
        "import torch\n"
        "def save(model, p):\n"
        "    torch.save(model.state_dict(), p)\n"
        "def load(p):\n"
        "    return torch.load(p)\n"
    ),
    "train-or-evaluate": (
        "import torch\n"
        "def main(args, model):\n"
        "    if args.train:\n"
        "        torch.save(model.state_dict(), 'm.pt')\n"
        "    else:\n"
        "        model.load_state_dict(torch.load('m.pt'))\n"
    ),
    "remote-bytes": (
        "import io, requests, torch\n"
        "def fetch(url):\n"
        "    return torch.load(io.BytesIO(requests.get(url).content))\n"
    ),
    "same-file-name-but-a-state-dict": (
        "import torch\n"
        "CKPT = 'best.pt'\n"
        "def save(model):\n"
        "    torch.save(model.state_dict(), CKPT)\n"
        "def load():\n"
        "    return torch.load(CKPT)\n"
    ),
    "same-file-name-but-a-device-tensor": (
        "import torch\n"
        "def embed(model, x):\n"
        "    feats = model(x.cuda())\n"
        "    torch.save(feats, 'feats.pt')\n"
        "def load():\n"
        "    return torch.load('feats.pt')\n"
    ),
    "same-file-name-but-a-parameter": (
        "import torch\n"
        "def save(state):\n"
        "    torch.save(state, 'state.pt')\n"
        "def load():\n"
        "    return torch.load('state.pt')\n"
    ),
    "bare-suffix-is-no-file-name": (
        "import torch\n"
        "def save(root):\n"
        "    torch.save(sorted(root), root + '.pt')\n"
        "def load(path):\n"
        "    return torch.load(path + '.pt')\n"
    ),
    "xla-import-only-in-a-branch": (
        "import torch\n"
        "def load(path, tpu):\n"
        "    if tpu:\n"
        "        import torch_xla\n"
        "    return torch.load(path)\n"
    ),
    "ndarray-and-more": (
        "import torch\n"
        "data = torch.load('feats.pt')\n"
        "x = torch.from_numpy(data['x'])\n"
        "y = data['y']\n"
    ),
}


@pytest.mark.parametrize("case", sorted(QUIET))
def test_fry004_quiet_where_the_bytes_cannot_come_from_a_missing_device(case) -> None:
    assert codes(QUIET[case]) == []


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_fry004_fires_on_a_checkpoint_from_elsewhere(case) -> None:
    assert len(codes(FLAGGED[case])) == 1


@pytest.mark.parametrize("case", ["saved-a-line-above", "with-open-round-trip", "broadcast-buffer"])
def test_fry005_quiet_on_bytes_the_function_just_serialized(case) -> None:
    assert codes(QUIET[case], "FRY005") == []


@pytest.mark.parametrize("case", ["worker-bytes", "dataset-method", "xla-only", "remote-bytes",
                                  "train-or-evaluate"])
def test_fry005_still_fires_where_only_fry004_is_quiet(case) -> None:
    src = QUIET.get(case) or FLAGGED[case]
    assert len(codes(src, "FRY005")) == 1
