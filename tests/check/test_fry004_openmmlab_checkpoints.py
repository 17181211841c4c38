"""FRY004 knows OpenMMLab's checkpoint readers (mmcv's and mmengine's ``load_checkpoint``,
``_load_checkpoint``, ``CheckpointLoader.load_checkpoint``, mmengine's ``load_url``): each
hands its ``map_location``, None by default, to ``torch.load``, so without it they restore
tensors where they were saved."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.libfacts import checkpoint_load
from torchferry.check.prefilter import mentions


def findings(src: str) -> list[tuple[int, bool | None]]:
    found = check_source(src, "<case>", select=["FRY004"])
    return [(f.line, f.fix.safe if f.fix else None) for f in found]


FLAGGED = {
    "mmengine-load-checkpoint": (
        "from mmengine.runner import load_checkpoint\n"
        "def build(model, path):\n"
        "    load_checkpoint(model, path, strict=True)\n"
    ),
    "mmcv-load-checkpoint-module": (
        "import mmcv.runner.checkpoint as ckpt\n"
        "def build(model, path):\n"
        "    return ckpt.load_checkpoint(model, path)\n"
    ),
    "mmcv-private-reader": (
        "from mmcv.runner import _load_checkpoint\n"
        "def read(path):\n"
        "    return _load_checkpoint(path)\n"
    ),
    "checkpoint-loader-class-method": (
        "from mmengine.runner import CheckpointLoader\n"
        "def read(path):\n"
        "    return CheckpointLoader.load_checkpoint(path, logger='silent')\n"
    ),
    "mmengine-load-url": (
        "from mmengine.utils.dl_utils import load_url\n"
        "def read(url):\n"
        "    return load_url(url, './weights')\n"
    ),
}


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged(name: str) -> None:
    assert findings(FLAGGED[name]) == [(3, False)]


QUIET = {
    "third-positional": (
        "from mmengine.runner import load_checkpoint\n"
        "def build(model, path):\n"
        "    load_checkpoint(model, path, 'cpu')\n"
    ),
    "keyword": (
        "from mmcv.runner import load_checkpoint\n"
        "def build(model, path):\n"
        "    load_checkpoint(model, path, map_location='cpu')\n"
    ),
    "private-reader-second-positional": (
        "from mmengine.runner.checkpoint import _load_checkpoint\n"
        "def read(path):\n"
        "    return _load_checkpoint(path, 'cpu')\n"
    ),
    # ``Runner.load_checkpoint(filename, map_location="cpu")``: a method, mapped to the CPU
    "runner-method": (
        "from mmengine.runner import Runner\n"
        "def resume(cfg, path):\n"
        "    runner = Runner.from_cfg(cfg)\n"
        "    runner.load_checkpoint(path)\n"
    ),
    # a function of the same name that is not OpenMMLab's
    "own-function": (
        "def load_checkpoint(model, path):\n"
        "    return model\n"
        "def build(model, path):\n"
        "    load_checkpoint(model, path)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert findings(QUIET[name]) == []


def test_wrapper_that_leaves_the_reader_unmapped() -> None:
    src = (
        "from mmengine.runner import load_checkpoint\n"
        "def restore(model, path, map_location=None):\n"
        "    return load_checkpoint(model, path, map_location=map_location)\n"
        "def main(model, path):\n"
        "    restore(model, path)\n"
        "    restore(model, path, 'cpu')\n"
    )
    assert [line for line, _ in findings(src)] == [5]


def test_positions() -> None:
    reader = checkpoint_load("mmcv.runner.load_checkpoint")
    private = checkpoint_load("mmengine.runner.checkpoint._load_checkpoint")
    assert reader is not None and private is not None
    assert (reader.map_at, private.map_at) == (2, 1)
    # mmengine.runner does not export ``_load_checkpoint``
    assert checkpoint_load("mmengine.runner._load_checkpoint") is None


def test_prefilter_keeps_a_file_that_names_only_the_library() -> None:
    assert mentions(b"from mmcv.runner import load_checkpoint\n")
    assert mentions(b"from mmengine.runner import load_checkpoint\n")
