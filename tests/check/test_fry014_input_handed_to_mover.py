"""FRY014 and a model whose ``forward`` moves its own input to the device (``feats.cuda()``
of an item unpacked from the input, under a test of where the weights are), itself or
through a submodule it hands the input to whole (built in ``__init__``, or kept from a
constructor's parameter that every construction of the class gives a module of such a
class): an input left on the CPU reaches the weights' device all the same.  A model whose
``forward`` moves nothing, or moves another argument, or a submodule of unknown class, is
still reported."""

from __future__ import annotations

from torchferry.check.engine import check_source

ENCODER = """
import torch

class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, batch):
        feats, adj = batch
        if next(self.parameters()).is_cuda:
            feats, adj = feats.cuda(), adj.cuda()
        return self.lin(feats) @ adj
"""
PLAIN = ENCODER.replace("            feats, adj = feats.cuda(), adj.cuda()\n", "            pass\n")
OTHER_ARG = (
    ENCODER.replace("def forward(self, batch):", "def forward(self, other, batch=None):")
    .replace("feats, adj = batch", "feats, adj = other, other")
    .replace("feats, adj = feats.cuda(), adj.cuda()", "batch = batch.cuda()")
)

LOOP = """
from torch.utils.data import DataLoader

def train(data):
    model = {make}.cuda()
    for graph, target in DataLoader(data, batch_size=4):
        target = target.cuda()
        out = model(graph)
"""
WRAPPED = """
class Task(torch.nn.Module):
    def __init__(self, encoder):
        super(Task, self).__init__()
        self.encoder = encoder
        self.head = torch.nn.Linear(4, 2)

    def forward(self, graph):
        return self.head(self.encoder(graph))
"""


def _fry014(src: str) -> list[int]:
    return [f.line for f in check_source(src, "t.py", select=("FRY014",))]


def test_a_model_that_moves_its_input_is_given_it_on_the_cpu() -> None:
    assert _fry014(ENCODER + LOOP.format(make="Encoder()")) == []


def test_a_model_that_moves_nothing_is_still_reported() -> None:
    assert _fry014(PLAIN + LOOP.format(make="Encoder()")) == [8 + PLAIN.count("\n")]


def test_a_model_that_moves_another_argument_is_still_reported() -> None:
    assert _fry014(OTHER_ARG + LOOP.format(make="Encoder()")) == [8 + OTHER_ARG.count("\n")]


def test_the_move_of_a_submodule_it_hands_the_input_to_counts() -> None:
    src = ENCODER + WRAPPED + LOOP.format(make="Task(Encoder())")
    assert _fry014(src) == []


def test_a_submodule_that_moves_nothing_leaves_the_finding() -> None:
    src = PLAIN + WRAPPED + LOOP.format(make="Task(Encoder())")
    assert _fry014(src) == [8 + (PLAIN + WRAPPED).count("\n")]


PARAM = """
from torch.utils.data import DataLoader

def run(model, data):
    for graph, target in DataLoader(data, batch_size=4):
        target = target.cuda()
        out = model(graph)

def main(make, data):
    run(make().cuda(), data)
"""


def test_a_model_parameter_of_unknown_class_is_reported_beside_a_self_moving_module() -> None:
    assert _fry014(ENCODER + PARAM) == [7 + ENCODER.count("\n")]


KEPT_ELSEWHERE = """
def build(encoder):
    return Task(encoder)

def train(data, encoder):
    model = build(encoder).cuda()
    for graph, target in DataLoader(data, batch_size=4):
        target = target.cuda()
        out = model(graph)
"""


def test_a_submodule_kept_from_a_parameter_of_unknown_class_leaves_the_finding() -> None:
    src = ENCODER + WRAPPED + "from torch.utils.data import DataLoader\n" + KEPT_ELSEWHERE
    assert _fry014(src) == [10 + (ENCODER + WRAPPED).count("\n")]


def test_a_submodule_given_through_the_constructing_scope_parameter_counts() -> None:
    src = (
        ENCODER
        + WRAPPED
        + "from torch.utils.data import DataLoader\n"
        + KEPT_ELSEWHERE
        + "\ntrain([], Encoder())\n"
    )
    assert _fry014(src) == []


FACTORY = """
def load(kind):
    if kind:
        model = Task(Encoder())
    else:
        model = Encoder()
    return model.cuda()

def evaluate(model, data):
    for graph, target in DataLoader(data, batch_size=4):
        target = target.cuda()
        out = model(graph)

def main(data):
    evaluate(load(True), data)
"""


def test_a_model_a_factory_of_the_run_builds_of_self_moving_classes() -> None:
    src = ENCODER + WRAPPED + "from torch.utils.data import DataLoader\n" + FACTORY
    assert _fry014(src) == []


def test_a_factory_that_may_build_a_class_that_moves_nothing_leaves_the_finding() -> None:
    other = PLAIN.replace("class Encoder(", "class Plain(")
    src = ENCODER + other + WRAPPED + "from torch.utils.data import DataLoader\n"
    src += FACTORY.replace("model = Encoder()", "model = Plain()")
    assert _fry014(src) == [13 + (ENCODER + other + WRAPPED).count("\n")]


READOUT = """
class Readout(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.zero = torch.nn.Parameter(torch.zeros(4))
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, h, scope):
        out = [self.zero if size == 0 else h.narrow(0, start, size).sum(0) for start, size in scope]
        return torch.stack(out)

class Scoped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.readout = Readout()

    def forward(self, graph):
        feats, scope = graph
        return self.readout(self.encoder(graph), scope)
"""


def test_a_part_of_the_input_that_meets_no_weights_downstream() -> None:
    src = ENCODER + READOUT + LOOP.format(make="Scoped()")
    assert _fry014(src) == []


def test_a_part_of_the_input_that_meets_weights_downstream_leaves_the_finding() -> None:
    readout = READOUT.replace("return torch.stack(out)", "return self.lin(scope)")
    src = ENCODER + readout + LOOP.format(make="Scoped()")
    assert _fry014(src) == [8 + (ENCODER + readout).count("\n")]
