"""A moved model's methods other than ``forward``: ``vae.inference(c=c)``,
``net.encode(x)``, ``policy.act(obs)``, ``model.sample(n, labels)``.  The method's code
decides which of its parameters meet the model's weights (handed to a submodule with
weights, to ``self`` or to another method of the module that does so); a tensor made on
the CPU and given there meets the weights as ``model(x)`` would (FRY010 at the factory,
FRY014 at the call), and a tensor given to a method that only brings results home, reads
a number or keeps a setting meets nothing."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

Lines = Callable[[dict[str, str], str], list[int]]

MODELS = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(8, 2)
            self.decoder = nn.Linear(2, 8)
            self.drop = nn.Dropout(0.1)
            self.scale = 1.0

        def forward(self, x):
            return self.decoder(self.encoder(x))

        def encode(self, x):
            h = x.view(x.size(0), -1)
            return self.encoder(h)

        def sample(self, n, labels):
            z = torch.randn(n, 1)
            return self.decoder(torch.cat([z, labels], dim=1))

        def act(self, obs):
            return self.policy_step(obs).argmax(-1)

        def policy_step(self, obs):
            return self.forward(obs)

        def reconstruct(self, x, clip=True):
            out = self(x)
            return out.clamp(0, 1) if clip else out

        def to_image(self, out):
            return out.detach().cpu().numpy()

        def set_scale(self, scale):
            self.scale = scale
            return self

        def noisy(self, x):
            return self.drop(x)

        def summarize(self, lengths):
            return lengths.tolist()

        def predict(self, x):
            x = x.to(next(self.parameters()).device)
            return self.encoder(x)

        def tiles(self, imgs):
            on_cuda = next(self.parameters()).is_cuda
            inp = imgs[:, :4]
            if on_cuda:
                inp = inp.cuda()
            return self.forward(inp)

        def embed(self, x):
            h = torch.as_tensor(x, device=self.encoder.weight.device)
            return self.encoder(h)
""")

CALLS = {
    # the fixture's spelling is a keyword given to a method that hands it to a submodule
    "encode": ("x = torch.zeros(4, 8)", "model.encode(x)", True),
    "sample_keyword": ("labels = torch.ones(4, 1)", "model.sample(4, labels=labels)", True),
    "act_through_forward": ("obs = torch.rand(4, 8)", "model.act(obs)", True),
    "reconstruct_self_call": ("x = torch.arange(32.0).view(4, 8)", "model.reconstruct(x, clip=False)", True),
    "to_image": ("out = torch.zeros(4, 8)", "model.to_image(out)", False),
    "set_scale": ("s = torch.ones(1)", "model.set_scale(s)", False),
    "weightless_submodule": ("x = torch.zeros(4, 8)", "model.noisy(x)", False),
    "converted": ("lengths = torch.ones(4)", "model.summarize(lengths)", False),
    "moved_by_the_method": ("x = torch.zeros(4, 8)", "model.predict(x)", False),
    "moved_by_the_method_on_one_path": ("x = torch.zeros(4, 8)", "model.tiles(x)", False),
    "converted_to_the_weights_device": ("x = torch.zeros(4, 8)", "model.embed(x)", False),
}


def _script(made: str, call: str, moved: bool = True) -> str:
    to = ".to(device)" if moved else ""
    return textwrap.dedent(f"""\
        import torch
        from models import AutoEncoder


        def main():
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            model = AutoEncoder(){to}
            {made}
            return {call}
        """)


def _found(finding_lines: Lines, script: str, rule: str) -> list[int]:
    return finding_lines({"main.py": script, "models.py": MODELS}, rule)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_factory_given_to_a_moved_models_method(finding_lines: Lines, name: str) -> None:
    made, call, meets = CALLS[name]
    assert _found(finding_lines, _script(made, call), "FRY010") == ([8] if meets else [])


@pytest.mark.parametrize("name", sorted(CALLS))
def test_cpu_tensor_given_to_a_moved_models_method(finding_lines: Lines, name: str) -> None:
    made, call, meets = CALLS[name]
    assert _found(finding_lines, _script(made, call), "FRY014") == ([9] if meets else [])


@pytest.mark.parametrize("name", ["encode", "sample_keyword", "act_through_forward"])
def test_model_left_on_the_cpu_meets_nothing(finding_lines: Lines, name: str) -> None:
    made, call, _ = CALLS[name]
    script = _script(made, call, moved=False)
    assert _found(finding_lines, script, "FRY010") == []
    assert _found(finding_lines, script, "FRY014") == []


def test_numbers_given_to_a_method_meet_nothing(finding_lines: Lines) -> None:
    script = _script("n = 4", "model.sample(n, labels=torch.ones(4, 1, device=device))")
    assert _found(finding_lines, script, "FRY010") == []
    assert _found(finding_lines, script, "FRY014") == []


@pytest.mark.parametrize("name", sorted(CALLS))
def test_moved_input_given_to_a_method_of_a_model_left_on_the_cpu(finding_lines: Lines, name: str) -> None:
    made, call, meets = CALLS[name]
    assert _found(finding_lines, _script(made + ".to(device)", call, moved=False), "FRY014") == ([9] if meets else [])


DIRECT = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Direct(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(8, 2))

        def forward(self, x):
            return x @ self.weight

        def score(self, x):
            return self.forward(x).sum()
""")


@pytest.mark.parametrize(("rule", "line"), [("FRY010", 8), ("FRY014", 9)])
def test_method_calling_a_forward_that_meets_the_weights_directly(finding_lines: Lines, rule: str,
                                                                  line: int) -> None:
    script = _script("x = torch.zeros(4, 8)", "model.score(x)").replace("AutoEncoder", "Direct")
    assert finding_lines({"main.py": script, "models.py": DIRECT}, rule) == [line]
