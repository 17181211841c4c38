"""FRY002 and a receiver known only from its use: a name indexed with a slice among
several indices (``x[:, :t]``) that has ``.to`` is taken for a tensor, unless a class of
the run defines its own ``to`` (an episode batch that moves its tensors in place)."""

from __future__ import annotations

from pathlib import Path

from torchferry.check.runner import Options, check_paths

USE = (
    "import torch\n"
    "\n"
    "def step(buffer, device, t):\n"
    "    sample = buffer.sample(4)\n"
    "    sample = sample[:, :t]\n"
    "    if sample.device != device:\n"
    "        sample.to(device)\n"
    "    return sample\n"
)


def _lines(tmp_path: Path, files: dict[str, str]) -> list[int]:
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        paths.append(path)
    opts = Options(root=tmp_path, select=("FRY002",), target_torch_version=None)
    outcomes = check_paths(paths, opts, jobs=1)
    return sorted(d.line for o in outcomes for d in o.diagnostics if o.path.name == "run.py")


def test_a_sliced_receiver_with_to_is_taken_for_a_tensor(tmp_path: Path) -> None:
    assert _lines(tmp_path, {"run.py": USE}) == [7]


def test_a_class_of_the_run_with_its_own_to_keeps_it_quiet(tmp_path: Path) -> None:
    batch = (
        "class EpisodeBatch:\n"
        "    def __getitem__(self, item):\n"
        "        return self\n"
        "\n"
        "    def to(self, device):\n"
        "        self.device = device\n"
    )
    assert _lines(tmp_path, {"run.py": USE, "episode_buffer.py": batch}) == []
