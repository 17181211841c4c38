"""FRY014 and a network a plain class (an agent) builds on the CPU in its ``__init__`` and
the code moves from outside the class (``agent.q.to(device)``, ``agent.q = agent.q.to(device)``
as a statement of a function's body): a CPU tensor handed to a method that runs ``self.q``
on it meets the moved network, in the scope that moved it or in a function every call of
which hands it the instance (reported at the call that hands the tensor on).  Quiet when
the caller moves the tensor, the method moves its input, the instance is another (never
moved) one, the move is under a branch, or the callers disagree."""

from __future__ import annotations

from collections.abc import Callable

HEAD = """\
import torch
import torch.nn as nn


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Agent:
    def __init__(self):
        self.q = QNet()

    def act(self, state):
        return self.q(state)

    def act_moved(self, state):
        return self.q(state.cuda())

    def step(self, state):
        return self.act(state)


"""

MAIN = HEAD + """\
def train(agent, s):
    return agent.act(torch.from_numpy(s))


def main(s):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    agent = Agent()
    {move}
    out = agent.q(torch.from_numpy(s))
    act = agent.act(torch.from_numpy(s))
    return out, act, train(agent, s)
"""


def test_a_network_moved_from_outside_meets_a_cpu_input(
    finding_lines: Callable[..., list[int]],
) -> None:
    """In the scope of the move (``agent.q(x)``, ``agent.act(x)``) and through ``train``'s
    parameter: reported at the call that hands the CPU tensor on (:29, :37), and at the
    network's own call in the scope that moved it (:36)."""
    for move in ("agent.q.to(device)", "agent.q = agent.q.to(device)", "agent.q.cuda()"):
        assert finding_lines({"m.py": MAIN.format(move=move)}, "FRY014") == [29, 36, 37], move


def test_a_method_reached_through_the_instances_own_methods(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = MAIN.format(move="agent.q.to(device)").replace("agent.act(torch", "agent.step(torch")
    assert finding_lines({"m.py": src}, "FRY014") == [29, 36, 37]


def test_an_instance_left_where_it_was_built_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    """No move, a move under a branch, or a move followed by a new instance."""
    assert finding_lines({"m.py": MAIN.format(move="pass")}, "FRY014") == []
    branch = "if torch.cuda.is_available():\n        agent.q.to(device)"
    assert finding_lines({"m.py": MAIN.format(move=branch)}, "FRY014") == []
    again = "agent.q.to(device)\n    agent = Agent()"
    assert finding_lines({"m.py": MAIN.format(move=again)}, "FRY014") == []


def test_moved_inputs_are_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    """The caller moves the tensor, or the method moves its input itself."""
    moved = MAIN.format(move="agent.q.to(device)").replace("torch.from_numpy(s))", "torch.from_numpy(s).cuda())")
    assert finding_lines({"m.py": moved}, "FRY014") == []
    itself = MAIN.format(move="agent.q.to(device)").replace("agent.act(", "agent.act_moved(")
    assert finding_lines({"m.py": itself}, "FRY014") == [36]  # (only ``agent.q(x)`` itself)


def test_callers_that_disagree_keep_the_function_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    """``train`` is given a moved instance by one call and a new one by another."""
    src = HEAD + """\
def train(agent, s):
    return agent.act(torch.from_numpy(s))


def main(s, device):
    agent = Agent()
    agent.q.to(device)
    return train(agent, s), train(Agent(), s)
"""
    assert finding_lines({"m.py": src}, "FRY014") == []
