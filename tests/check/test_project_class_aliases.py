"""A class of the run reached through a name other than its own: bound to a local or a
module-level name and called through it (``agent = Agent; agent = agent(device)``,
``Builder = Agent``), or imported with ``from agents import *``: the call builds an
instance of that class, and its methods are followed as for ``Agent(device)``."""

from __future__ import annotations

from pathlib import Path

from .test_project_callers import found, write

AGENTS = """\
import torch


class Agent:
    def __init__(self, device):
        self.device = device

    def act(self, state):
        state = torch.as_tensor(state).to(self.device)
        return state * 2
"""

TRAIN = """\
import numpy as np
import torch
{imports}


def main(states):
    device = torch.device("cuda")
{body}
    history = []
    for s in states:
        history.append(agent.act(s))
    return np.vstack(history)
"""


def train(imports: str, *body: str) -> str:
    return TRAIN.format(imports=imports, body="\n".join("    " + ln for ln in body))


def codes(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    paths = write(tmp_path, files)
    return found(tmp_path, paths, "FRY003")[0]


def sink(files: dict[str, str]) -> list[tuple[str, int, str]]:
    source = files["train.py"]
    line = next(i for i, ln in enumerate(source.splitlines(), 1) if "np.vstack" in ln)
    return [("train.py", line, "FRY003")]


def test_a_star_imported_class_called_through_a_local(tmp_path: Path) -> None:
    files = {"agents.py": AGENTS,
             "train.py": train("from agents import *", "agent = Agent", "agent = agent(device)")}
    assert codes(tmp_path, files) == sink(files)


def test_a_star_imported_class_called_by_its_name(tmp_path: Path) -> None:
    files = {"agents.py": AGENTS, "train.py": train("from agents import *", "agent = Agent(device)")}
    assert codes(tmp_path, files) == sink(files)


def test_an_imported_class_bound_to_another_local(tmp_path: Path) -> None:
    files = {"agents.py": AGENTS,
             "train.py": train("from agents import Agent", "cls = Agent", "agent = cls(device)")}
    assert codes(tmp_path, files) == sink(files)


def test_a_class_of_the_same_file_aliased_at_module_level(tmp_path: Path) -> None:
    source = AGENTS + "\n\nBuilder = Agent\n\n" + train("", "agent = Builder(device)").replace(
        "import numpy as np\nimport torch\n", "import numpy as np\n")
    files = {"train.py": source}
    assert codes(tmp_path, files) == sink(files)


def test_quiet_when_the_alias_may_name_another_class(tmp_path: Path) -> None:
    other = AGENTS.replace("class Agent", "class CpuAgent").replace(".to(self.device)", ".cpu()")
    files = {"agents.py": AGENTS + "\n\n" + other.split("\n\n\n", 1)[1],
             "train.py": train("from agents import *", "agent = Agent if states else CpuAgent",
                               "agent = agent(device)")}
    assert codes(tmp_path, files) == []


def test_quiet_when_the_method_moves_to_the_cpu(tmp_path: Path) -> None:
    files = {"agents.py": AGENTS.replace(".to(self.device)", ".cpu()"),
             "train.py": train("from agents import *", "agent = Agent", "agent = agent(device)")}
    assert codes(tmp_path, files) == []
