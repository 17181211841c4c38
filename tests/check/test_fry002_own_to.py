"""FRY002 and a receiver known only from its use: a name indexed with a slice among
several indices (``x[:, :t]``) that has ``.to`` is taken for a tensor, unless a class of
the run defines its own ``to`` (an episode batch that moves its tensors in place)."""

from __future__ import annotations

from collections.abc import Callable

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


def test_a_sliced_receiver_with_to_is_taken_for_a_tensor(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"run.py": USE}, "FRY002") == [7]


def test_a_class_of_the_run_with_its_own_to_keeps_it_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    batch = (
        "class EpisodeBatch:\n"
        "    def __getitem__(self, item):\n"
        "        return self\n"
        "\n"
        "    def to(self, device):\n"
        "        self.device = device\n"
    )
    assert finding_lines({"run.py": USE, "episode_buffer.py": batch}, "FRY002") == []
