"""A class's constructions as the call sites of its ``__init__``, across the run's files.

A predictor, a trainer or an evaluator stores the model it is given (``self.model =
model``); where that model lives is decided by the code that builds the object
(``Predictor(net.to(device))``, ``p = Predictor(net)`` after ``net = Net().cuda()``), often
in another file.  The methods of the class see ``self.model`` as the join over every
construction of the run; a parameter no construction passes stays unknown."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchferry.check.runner import Options, check_paths

NET = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
"""
PREDICTOR = """\
import torch


class Predictor:
    def __init__(self, model, threshold=0.5):
        self.model = model
        self.threshold = threshold

    def predict(self, images):
        batch = torch.from_numpy(images).float()
        with torch.no_grad():
            out = self.model(batch)
        return out > self.threshold
"""
MAIN = """\
import torch
from net import Net
from predictor import Predictor

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def main(images):
{body}
    print(p.predict(images))
"""


def write(root: Path, files: dict[str, str]) -> list[Path]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return sorted(root.rglob("*.py"))


def found(root: Path, files: dict[str, str], select: str = "FRY014") -> list[tuple[str, int, str]]:
    paths = write(root, files)
    opts = Options(root=root, select=(select,), target_torch_version=None)
    return sorted((Path(o.path).name, d.line, d.code)
                  for o in check_paths(paths, opts, cache=None, jobs=1) for d in o.diagnostics)


def main(*lines: str) -> str:
    return MAIN.format(body="\n".join("    " + ln for ln in lines))


def test_model_moved_at_the_construction(tmp_path: Path) -> None:
    files = {"net.py": NET, "predictor.py": PREDICTOR,
             "main.py": main("p = Predictor(Net().to(device))")}
    assert found(tmp_path, files) == [("predictor.py", 12, "FRY014")]


def test_model_moved_before_the_construction(tmp_path: Path) -> None:
    files = {"net.py": NET, "predictor.py": PREDICTOR,
             "main.py": main("net = Net()", "net.cuda()", "p = Predictor(net, threshold=0.3)")}
    assert found(tmp_path, files) == [("predictor.py", 12, "FRY014")]


def test_model_given_by_keyword(tmp_path: Path) -> None:
    files = {"net.py": NET, "predictor.py": PREDICTOR,
             "main.py": main("net = Net().cuda()", "p = Predictor(threshold=0.3, model=net)")}
    assert found(tmp_path, files) == [("predictor.py", 12, "FRY014")]


def test_model_moved_by_a_factory_of_another_file(tmp_path: Path) -> None:
    factory = """\
    import torch
    from net import Net


    def build_model(name):
        model = Net()
        if torch.cuda.is_available():
            model = model.cuda()
        return model
    """
    body = MAIN.replace("from net import Net", "from factory import build_model")
    files = {"net.py": NET, "predictor.py": PREDICTOR, "factory.py": factory,
             "main.py": body.format(body="    print('running on', device)\n    p = Predictor(build_model('net'))")}
    assert found(tmp_path, files) == [("predictor.py", 12, "FRY014")]


def test_constructed_in_its_own_file(tmp_path: Path) -> None:
    own = PREDICTOR + """

def run(images, device):
    net = Net().to(device)
    return Predictor(net).predict(images)
"""
    own = own.replace("import torch\n", "import torch\nfrom net import Net\n", 1)
    assert found(tmp_path, {"net.py": NET, "predictor.py": own}) == [("predictor.py", 13, "FRY014")]


def test_the_base_class_stores_the_model(tmp_path: Path) -> None:
    evaluator = """\
    import torch


    class Base:
        def __init__(self, model, name='eval'):
            self.model = model
            self.name = name


    class Evaluator(Base):
        def evaluate(self, rows):
            x = torch.tensor(rows)
            return self.model(x).argmax(1)
    """
    files = {"net.py": NET, "evaluator.py": evaluator,
             "main.py": """\
    import torch
    from net import Net
    from evaluator import Evaluator


    def main(rows):
        model = Net().to('cuda')
        print(Evaluator(model).evaluate(rows))
    """}
    assert found(tmp_path, files) == [("evaluator.py", 13, "FRY014")]


def test_quiet_without_a_construction_in_the_run(tmp_path: Path) -> None:
    assert found(tmp_path, {"net.py": NET, "predictor.py": PREDICTOR}) == []


def test_quiet_when_every_construction_passes_a_cpu_model(tmp_path: Path) -> None:
    files = {"net.py": NET, "predictor.py": PREDICTOR,
             "main.py": main("p = Predictor(Net())"),
             "serve.py": main("net = Net()", "p = Predictor(net)").replace("def main", "def serve")}
    assert found(tmp_path, files) == []


def test_quiet_when_one_construction_passes_an_unknown_model(tmp_path: Path) -> None:
    files = {"net.py": NET, "predictor.py": PREDICTOR,
             "main.py": main("p = Predictor(Net().cuda())"),
             "serve.py": MAIN.format(body="    p = Predictor(load_somehow())").replace("def main", "def serve")}
    assert found(tmp_path, files) == []


def test_quiet_when_the_class_moves_its_inputs(tmp_path: Path) -> None:
    moving = PREDICTOR.replace("batch = torch.from_numpy(images).float()",
                               "batch = torch.from_numpy(images).float().to(self.device)")
    moving = moving.replace("self.threshold = threshold",
                            "self.threshold = threshold\n        self.device = next(model.parameters()).device")
    files = {"net.py": NET, "predictor.py": moving,
             "main.py": main("p = Predictor(Net().to(device))")}
    assert found(tmp_path, files) == []


def test_quiet_when_a_subclass_is_built_elsewhere(tmp_path: Path) -> None:
    files = {"net.py": NET, "predictor.py": PREDICTOR,
             "main.py": main("p = Predictor(Net().cuda())"),
             "other.py": """\
    from predictor import Predictor


    class Batched(Predictor):
        pass
    """}
    assert found(tmp_path, files) == []


TRAINER = """\
import torch


class Trainer:
    def __init__(self, model, loader, device):
        self.model = model
        self.loader = loader
        self.device = device

    def epoch(self):
        for images, labels in self.loader:
            labels = labels.to(self.device)
            out = self.model(images)
            loss = torch.nn.functional.cross_entropy(out, labels)
            loss.backward()
"""


def test_trainer_given_a_moved_model_calls_it_on_an_unmoved_item(tmp_path: Path) -> None:
    files = {"net.py": NET, "trainer.py": TRAINER,
             "main.py": """\
    import torch
    from net import Net
    from trainer import Trainer


    def main(loader):
        device = torch.device('cuda')
        model = Net().to(device)
        Trainer(model, loader, device).epoch()
    """}
    assert found(tmp_path, files) == [("trainer.py", 13, "FRY014")]


def test_trainer_given_a_cpu_model_is_quiet(tmp_path: Path) -> None:
    files = {"net.py": NET, "trainer.py": TRAINER,
             "main.py": """\
    import torch
    from net import Net
    from trainer import Trainer


    def main(loader):
        Trainer(Net(), loader, torch.device('cpu')).epoch()
    """}
    assert found(tmp_path, files) == []


RECORDER = """\
import numpy as np


class Recorder:
    def __init__(self, scores, name='run'):
        self.scores = scores
        self.name = name

    def save(self, path):
        np.save(path, self.scores.numpy())
"""
MEMORY = """\
import torch


class Memory:
    def __init__(self, states, capacity=100):
        self.states = states
        self.capacity = capacity

    def noisy(self):
        noise = torch.randn(self.states.shape)
        return self.states + noise
"""


def test_fry003_a_plain_object_holding_a_tensor_made_on_the_device(tmp_path: Path) -> None:
    files = {"recorder.py": RECORDER, "main.py": """\
    import torch
    from recorder import Recorder


    def main():
        device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
        Recorder(torch.zeros(10, device=device), name='zeros').save('out.npy')
    """}
    assert found(tmp_path, files, "FRY003") == [("recorder.py", 10, "FRY003")]


def test_fry003_quiet_when_every_construction_passes_a_cpu_tensor(tmp_path: Path) -> None:
    files = {"recorder.py": RECORDER, "main.py": """\
    import torch
    from recorder import Recorder


    def main(model, x, device):
        Recorder(torch.zeros(10)).save('zeros.npy')
        Recorder(scores=model(x.to(device)).cpu()).save('scores.npy')
    """}
    assert found(tmp_path, files, "FRY003") == []


def test_fry010_a_plain_object_given_a_moved_tensor_by_keyword(tmp_path: Path) -> None:
    files = {"memory.py": MEMORY, "main.py": """\
    import torch
    from memory import Memory


    def main(states):
        memory = Memory(capacity=10, states=states.cuda())
        print(memory.noisy())
    """}
    assert found(tmp_path, files, "FRY010") == [("memory.py", 10, "FRY010")]


def test_fry010_a_plain_object_given_a_moved_tensor_in_its_own_file(tmp_path: Path) -> None:
    own = MEMORY + """

def demo(device):
    return Memory(torch.ones(3, 4).to(device), capacity=3).noisy()
"""
    assert found(tmp_path, {"memory.py": own}, "FRY010") == [("memory.py", 10, "FRY010")]


def test_fry010_quiet_without_a_construction_in_the_run(tmp_path: Path) -> None:
    assert found(tmp_path, {"memory.py": MEMORY}, "FRY010") == []


def test_evaluator_given_a_moved_model_calls_it_on_a_torchvision_item(tmp_path: Path) -> None:
    evaluator = """\
    import torchvision
    from torch.utils.data import DataLoader


    class Evaluator:
        def __init__(self, model):
            self.model = model

        def run(self, root):
            data = torchvision.datasets.MNIST(root, transform=torchvision.transforms.ToTensor())
            loader = DataLoader(data, batch_size=8)
            for images, _ in loader:
                print(self.model(images).argmax(1))
    """
    main_py = """\
    from net import Net
    from evaluator import Evaluator


    def main(root):
        Evaluator(Net().cuda()).run(root)
    """
    files = {"net.py": NET, "evaluator.py": evaluator, "main.py": main_py}
    assert found(tmp_path, files) == [("evaluator.py", 13, "FRY014")]
    files["main.py"] = main_py.replace("Net().cuda()", "Net()")
    assert found(tmp_path / "cpu", files) == []
