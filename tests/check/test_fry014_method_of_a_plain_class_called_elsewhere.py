"""FRY014 with a model handed to a method of a plain class by another file's calls
(``local.train(net=model.to(device))``), where that file also calls a method of the same
name on a module (``model.train()``): the module's method is another class's, so the
calls of the plain class's method are still all known."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]


UPDATE = """\
import torch
from torch import nn
from torch.utils.data import DataLoader


class LocalUpdate(object):
    def __init__(self, args, dataset):
        self.args = args
        self.loss_func = nn.CrossEntropyLoss()
        self.ldr_train = DataLoader(dataset, batch_size=4)

    def train(self, net):
        net.train()
        for images, labels in self.ldr_train:
            images, labels = {images}, labels.to(self.args.device)
            log_probs = net(images)
            loss = self.loss_func(log_probs, labels)
            loss.backward()
        return net.state_dict()
"""

MAIN = """\
import argparse
import torch
from torch import nn
from update import LocalUpdate

args = argparse.Namespace(device=torch.device("cuda" if torch.cuda.is_available() else "cpu"))
net_glob = nn.Linear(4, 2).to(args.device)
{other}
data = [(torch.zeros(4), 0)] * 8
for rnd in range(3):
    local = LocalUpdate(args=args, dataset=data)
    w = local.train(net={given})
    net_glob.load_state_dict(w)
"""


def _found(
    finding_places: Places, images: str, given: str, other: str = "net_glob.train()"
) -> list[tuple[str, int]]:
    files = {"main.py": MAIN.format(given=given, other=other), "update.py": UPDATE.format(images=images)}
    return finding_places(files, "FRY014")


@pytest.mark.parametrize("other", ["net_glob.train()", "net_glob.eval()"])
def test_a_model_handed_moved_to_the_method_meets_an_unmoved_item(
    finding_places: Places, other: str
) -> None:
    assert _found(finding_places, "images", "net_glob.to(args.device)", other) == [("update.py", 16)]


@pytest.mark.parametrize(
    ("images", "given", "other"),
    [
        ("images.to(self.args.device)", "net_glob.to(args.device)", "net_glob.train()"),  # moved
        ("images", "nn.Linear(4, 2)", "net_glob.train()"),  # a model on the CPU: the other form's
        ("images", "net_glob.to(args.device)", "unknown.train()"),  # may be another plain instance
    ],
)
def test_a_moved_item_or_unknown_calls_stay_quiet(
    finding_places: Places, images: str, given: str, other: str
) -> None:
    assert ("update.py", 16) not in _found(finding_places, images, given, other)
