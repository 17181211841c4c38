"""FRY010 and branches on the same device test: a tensor moved to the GPU in one arm of
``if torch.cuda.is_available():`` (``if args.cuda:``, ``if self.use_gpu:``) never meets a
factory's CPU tensor made or used in the other arm, where nothing of the file went there."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = "import argparse\nimport torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n"

#: the noise of a VAE: the GPU's in one arm, the CPU's in the other, the model moved under
#: the same test
VAE_ELSE_ARM = HEAD + '''
class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def reparametrize(self, mu, logvar):
        std = logvar.mul(0.5).exp_()
        if torch.cuda.is_available():
            eps = torch.cuda.FloatTensor(std.size()).normal_()
        else:
            eps = torch.FloatTensor(std.size()).normal_()
        return Variable(eps).mul(std).add_(mu)

    def forward(self, x):
        h = self.fc(x)
        return self.reparametrize(h, h)


model = VAE()
if torch.cuda.is_available():
    model.cuda()
'''

#: a list of indices made on the CPU, moved in one arm before the submodule sees it
LIST_MOVED_IN_ONE_ARM = HEAD + '''
class CharLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)

    def forward(self, x):
        return self.embed(x)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.char = CharLSTM()

    def forward(self, words):
        outs = []
        for w in words:
            chars = torch.LongTensor([ord(c) % 10 for c in w])
            if torch.cuda.is_available():
                out = self.char(Variable(chars).cuda())
            else:
                out = self.char(Variable(chars))
            outs.append(out)
        return outs


model = Tagger()
if torch.cuda.is_available():
    model = model.cuda()
'''

#: a script's flag: the model and the batch moved under ``args.cuda``, a mask made in the
#: ``else`` arm
ARGS_FLAG = HEAD + '''
parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
net = nn.Linear(4, 4)
if args.cuda:
    net = net.cuda()


def step(x):
    if args.cuda:
        x = x.cuda()
        y = net(x)
    else:
        y = net(x) * torch.ones(4)
    return y
'''

#: a module that picks its device once: ``self.use_gpu`` set only in ``__init__``
SELF_FLAG = HEAD + '''
class Agent(nn.Module):
    def __init__(self, use_gpu):
        super().__init__()
        self.use_gpu = use_gpu
        self.net = nn.Linear(4, 4)
        if self.use_gpu:
            self.net = self.net.cuda()

    def act(self, obs):
        out = self.net(obs)
        if not self.use_gpu:
            out = out + torch.zeros(4)
        return out
'''

#: a conditional expression on a module-level flag, a CPU-only path under ``not``
USE_GPU_NOT = HEAD + '''
use_gpu = torch.cuda.is_available()
model = nn.Linear(4, 4).cuda() if use_gpu else nn.Linear(4, 4)


def predict(x):
    out = model(x)
    if not use_gpu:
        out = out - torch.arange(4)
    return out
'''

#: the ``else`` arm of the test the GPU's noise is made under, as a conditional expression
IFEXP_ARMS = HEAD + '''
class Noise(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        eps = torch.cuda.FloatTensor(4).normal_() if torch.cuda.is_available() else torch.randn(4)
        return h + eps


model = Noise()
if torch.cuda.is_available():
    model.cuda()
'''


@pytest.mark.parametrize("source", [VAE_ELSE_ARM, LIST_MOVED_IN_ONE_ARM, ARGS_FLAG, SELF_FLAG,
                                    USE_GPU_NOT, IFEXP_ARMS],
                         ids=["vae-else", "list-moved-in-arm", "args-flag", "self-flag",
                              "use-gpu-not", "ifexp"])
def test_the_arm_that_moves_nothing_is_not_a_meeting(source: str) -> None:
    assert [f.line for f in check_source(source, "t.py", select=["FRY010"])] == []


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY010"])]


def test_a_factory_after_an_unconditional_move_is_reported() -> None:
    source = ARGS_FLAG.replace("if args.cuda:\n    net = net.cuda()", "net = net.cuda()")
    assert _lines(source) == [source.splitlines().index("        y = net(x) * torch.ones(4)") + 1]


def test_a_move_under_another_test_is_reported() -> None:
    source = USE_GPU_NOT.replace("if use_gpu else", "if torch.cuda.is_available() else")
    assert _lines(source) == [source.splitlines().index("        out = out - torch.arange(4)") + 1]


def test_a_flag_that_a_function_rebinds_is_reported() -> None:
    source = USE_GPU_NOT + "\n\ndef toggle():\n    global use_gpu\n    use_gpu = not use_gpu\n"
    assert len(_lines(source)) == 1


def test_a_device_put_outside_the_arms_is_reported() -> None:
    source = VAE_ELSE_ARM + "\nmodel.to('cuda')\n"
    assert len(_lines(source)) == 1
