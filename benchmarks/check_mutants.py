"""Does ``ferry check`` catch the device mistakes that bite on a GPU?  A mutation benchmark
with the simulated GPU as the oracle.

Working programs (``.corpus/mutants/programs``: pytorch/examples scripts,
BSD-3-Clause, copied unchanged from pytorch/examples@77f55b9, for the ``berth`` batch
pytorch/tutorials and aladdinpersson/Machine-Learning-Collection scripts, for the ``cove``
batch kevinzakka/recurrent-visual-attention, KaiyangZhou/pytorch-center-loss and
akamaster/pytorch_resnet_cifar10 scripts, for the ``reef`` batch other pytorch/tutorials
and aladdinpersson/Machine-Learning-Collection scripts and for the ``shoal`` batch a third
pytorch/tutorials, aladdinpersson/Machine-Learning-Collection and MorvanZhou/PyTorch-Tutorial
script (``morvan_gpu`` also reads the MNIST stand-in's older ``test_data``/``test_labels``
names) and for the ``strait`` batch karpathy/makemore, locuslab/TCN and sfujim/TD3 scripts
(TD3's on a ``gym`` stand-in, makemore's ``SummaryWriter`` on a ``tensorboard`` stand-in)
and for the ``inlet`` batch pytorch/examples' ``language_translation`` (on a ``torchtext``
stand-in), keon/3-min-pytorch's denoising autoencoder and text classifier (the latter on the
``torchtext`` stand-in's legacy API) and Kaixhin/Rainbow (on ``atari_py``, ``cv2`` and
``plotly`` stand-ins) and for the ``fjord`` batch shaoxiongji/federated-learning (on an
``sklearn`` stand-in), pytorch/examples' ``imagenet`` (on the ``FakeData`` stand-in) and
keon/seq2seq (on the ``torchtext`` stand-in's legacy ``Multi30k`` and a ``spacy``
stand-in) and for the ``sound`` batch xternalz/WideResNet-pytorch (on the CIFAR10 stand-in),
sfujim/BCQ (on the ``gym`` stand-in) and sthalles/SimCLR (on the CIFAR10 stand-in and the
``tensorboard`` stand-in) and for the ``bay`` batch uoguelph-mlrg/Cutout (on the CIFAR10
stand-in, its ``logs`` and ``checkpoints`` folders made), nadavbh12/VQ-VAE (on the MNIST
stand-in) and BY571/Soft-Actor-Critic-and-Extensions (on the ``gym`` stand-in and a
``pybulletgym`` stand-in) and for the ``lagoon`` batch clovaai/CutMix-PyTorch (on the CIFAR10
stand-in), sfujim/LAP-PAL and sfujim/TD7 (each on the ``gym`` stand-in) and for the
``delta`` batch dongminlee94/deep_rl (on the ``gym`` stand-in and the ``tensorboard``
stand-in) and BY571/Normalized-Advantage-Function-NAF- (on the ``gym`` stand-in and a
``pybullet_envs`` stand-in) and for the ``estuary`` batch Spijkervet/SimCLR (on the CIFAR10
stand-in, whose ``models`` module is also ``models.resnet``, and the ``tensorboard`` stand-in)
and yaodongyu/TRADES (on the MNIST stand-in) and for the ``harbor`` batch
ikostrikov/pytorch-flows (on the two-moons set of a ``make_moons`` in the ``sklearn``
stand-in, a ``tensorboardX`` stand-in, ``pandas`` and ``h5py`` stand-ins that import and a
``scipy`` stand-in with ``linalg.lu``), HobbitLong/SupContrast (on the CIFAR10 stand-in and
the ``tensorboard_logger`` stand-in's ``Logger``) and philipperemy/n-beats (on its own
synthetic series) and for the ``marsh`` batch gordicaleksa/pytorch-GANs (on the MNIST stand-in,
the ``tensorboard`` stand-in, a ``git`` stand-in whose ``Repo`` names no commit and the ``cv2``
stand-in's ``imwrite``, which writes nothing), davda54/sam (on the CIFAR10 stand-in; its
``example`` folder laid beside ``sam.py``) and kuc2477/pytorch-ewc (on the MNIST stand-in with
``Pad``, and a ``visdom`` stand-in that plots nothing) and for the ``cape`` batch
tk-rusch/coRNN (its adding problem, whose sequences it draws itself) and ixaxaar/pytorch-dnc
(its copy and argmax tasks, on sequences they draw themselves, with the ``visdom`` stand-in)
and for the ``moor`` batch rosinality/glow-pytorch (on a folder of synthetic images, the
``ImageFolder`` of the ``torchvision`` stand-in and the ``scipy`` stand-in's ``linalg.qr``)
and Tony-Y/pytorch_warmup (its CIFAR10 example on the CIFAR10 stand-in, with the ``resnet.py``
of akamaster/pytorch_resnet_cifar10 that it asks for beside it, and ``tqdm.auto``; its EMNIST
example on an ``EMNIST`` stand-in, the MNIST stand-in's shapes), cybertronai/pytorch-lamb
(its MNIST example, with ``add_histogram`` in the ``tensorboardX`` stand-in) and
cleverhans-lab/cleverhans (its PyTorch CIFAR10 tutorial, on ``absl`` and ``easydict``
stand-ins) and for the ``creek`` batch zhihanyang2022/min-char-seq2seq (its digit reversal
with attention, on a short reversal set and a gin config that the benchmark writes beside it,
and a ``gin`` stand-in) and cs230-stanford/cs230-code-examples (its NER tagger on the
repository's small set, its SIGNS classifier on generated SIGNS images, each with a
``params.json`` that the benchmark writes, and ``trange`` of the ``tqdm`` stand-in a bar) and
for the ``bight`` batch juntang-zhuang/Adabelief-Optimizer (its CIFAR10 experiment, fresh and
resumed, on the CIFAR10 stand-in, with ``adabound`` and ``adabelief_pytorch`` stand-ins) and
gpleiss/efficient_densenet_pytorch (its demo on the CIFAR10 stand-in, with and without a
validation split, on a ``fire`` stand-in) and for the ``brook`` batch chrischute/glow (its
Glow on the CIFAR10 stand-in, with and without clipping the gradient norm),
thomashirtz/soft-actor-critic (its Soft Actor-Critic on the ``gym`` stand-in and the
``tensorboard`` stand-in) and schneimo/ddpg-pytorch (its DDPG on the ``gym`` stand-in, the
``tensorboard`` stand-in and a ``roboschool`` stand-in), each with its license; see
``tests/check/mutants/SOURCE.md``) run on synthetic data:
``tests/check/mutants/fixtures/stubs`` holds a minimal ``torchvision`` stand-in (synthetic
MNIST, FashionMNIST and CIFAR10, no downloads), ``requests`` and ``six`` stand-ins that serve a
synthetic Cora graph and BSDS300 image set for the URLs the gcn, gat and super_resolution
examples download (and accept an opener), a ``torchvision.utils.make_grid``, a ``tqdm``
without a progress bar, a ``tensorboard_logger`` that writes
nothing, and the word language model gets a generated corpus.  Each lesson's mistake
is applied as a source mutation at every applicable site of the program's script (one
mutation per mutant; the rest of the file is byte for byte the original; a program whose
script is a module that another script drives names that script as its ``entry``, which
the oracle runs):

* ``drop-move``: drop the ``.to(device)`` / ``.cuda()`` of a tensor (a batch element, a
  factory's result);
* ``drop-model-move``: drop the ``.to(device)`` of a model;
* ``drop-assign``: keep the move but drop its assignment (``x.to(device)`` alone);
* ``drop-device-kw``: drop ``device=`` from a tensor factory;
* ``drop-cpu-numpy``: drop the ``.cpu()`` before ``.numpy()``;
* ``add-numpy``: add ``.detach().numpy()`` of a model's output;
* ``drop-map-location``: drop ``map_location=`` from ``torch.load``;
* ``add-item``: add a ``.item()`` of the loss on every step of a training loop.

The original must pass under ``ferry run --simulate cuda``.  A mutant is *confirmed* when
the mistake bites on a GPU: under the simulation it ends with a device error, an error that
``ferry run --report`` explains and gives a kind (its ``"error"`` object's ``"kind"``, a
family of ``torchferry.diagnose``: mixed devices, ``.numpy()`` on the accelerator, ...); an
error of no kind is the program's, not the device's (an added ``.detach().numpy()`` on a
dict fails with AttributeError on every device) and does not count.  Where the program has
arguments for the plain CPU (``plain_args``), a device error that the plain CPU run ends
with too (the same type at the same line of the same script) does not count either.  For
``drop-map-location``, loading the checkpoint a simulated-GPU run wrote fails on the plain
CPU with the kind ``checkpoint_map_location`` (PyTorch's "Attempting to deserialize object
on a CUDA device");
for ``add-item``, the simulation counts a host sync at the added line on every step (at
least 2, ``--trips``).  A confirmed mutant is *caught* when ``ferry check --format json``
(the default rule set; ``--select`` to change it) reports one of the operator's rules (for
a dropped move to the CPU, ``x.to("cpu").numpy()``, also FRY003's) at the mutated line or at a line of the error's traceback in the script; the table also shows
mutants caught by any rule at those lines and, beside them, the second measure: mutants
with a finding of any rule of the selection at those lines that is *new*, one that
``ferry check`` with the same rules does not report on the unmutated program (a rule on a
line; a mutation keeps the line count).  The default rule set runs FRY010 for its sure
meetings only (the factory meets a tensor the program's own code puts on the accelerator):
with it, ``drop-device-kw`` counts those; with ``--select ALL`` (or ``FRY010``), every one.

    python benchmarks/check_mutants.py                      # all programs, cached
    python benchmarks/check_mutants.py --program mnist --op drop-move --max-mutants 3
    python benchmarks/check_mutants.py --list               # the mutants, not run
    python benchmarks/check_mutants.py --set jetty          # a held-out batch
    python benchmarks/check_mutants.py --set jetty --oracle-only  # the simulation alone
    python benchmarks/check_mutants.py --set brook          # the latest held-out batch

The programs are other projects' files, so they are not kept in this repository:
``tests/check/mutants/programs.toml`` pins each (repository, commit, path, git blob id,
sha256) and the files live in ``.corpus/mutants/programs/``; a run stops (exit 2) naming a
missing or changed file of the programs it selects, and ``--export-programs --mirror
GIT_DIR`` writes them from clones.

Oracle results are cached in ``.corpus/mutants-cache-v2.json`` (keyed by the mutant's source,
its arguments, the simulation's source and the torch version; each verdict with its error's
kind), so that a re-run after a rule change only runs ``ferry check``.  The cache of the
former oracle, which counted any error and kept no kind (``.corpus/mutants-cache.json``), is
read and never written: a verdict it did not confirm holds still and is taken over (this
oracle counts fewer errors, never more), as is an ``add-item`` host-sync count; a verdict it
confirmed is run again.  Exit status 0; 2 on a usage error.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock

from torchferry._internal.atomic import write_text
from torchferry.diagnose.record import Family

REPO = Path(__file__).resolve().parents[1]
HERE = REPO / "tests" / "check" / "mutants" / "fixtures"
#: the working programs: third-party files, copied unchanged, kept outside the repository
#: (ignored by git); ``PROGRAMS_MANIFEST`` pins every byte of them
PROGRAMS_DIR = REPO / ".corpus" / "mutants" / "programs"
PROGRAMS_MANIFEST = REPO / "tests" / "check" / "mutants" / "programs.toml"
STUBS = HERE / "stubs"
#: the oracle's verdicts, each with the kind of the error it counts
DEFAULT_CACHE = REPO / ".corpus" / "mutants-cache-v2.json"
#: the verdicts of the former oracle (any error counted, no kind kept): read, never written;
#: a verdict it did not confirm still holds (``carried``)
LEGACY_CACHE = REPO / ".corpus" / "mutants-cache.json"
#: seconds a run may take; the whole 20-epoch spatial_transformer run takes over 300 on a
#: loaded 2-core machine (a run killed at the limit leaves no verdict in the cache)
TIMEOUT_S = 600


@dataclass(frozen=True)
class Operator:
    name: str
    what: str
    rules: frozenset[str]  #: the rules that report this mistake


OPERATORS = {
    op.name: op
    for op in (
        Operator(
            "drop-move",
            "drop the .to(device) of a tensor",
            frozenset({"FRY013", "FRY014", "FRY010"}),
        ),
        Operator("drop-model-move", "drop the .to(device) of a model", frozenset({"FRY014"})),
        Operator("drop-assign", "drop the assignment of a move", frozenset({"FRY002"})),
        Operator("drop-device-kw", "drop device= from a factory", frozenset({"FRY010"})),
        Operator("drop-cpu-numpy", "drop .cpu() before .numpy()", frozenset({"FRY003"})),
        Operator("add-numpy", "add .numpy() of a model output", frozenset({"FRY003"})),
        Operator("drop-map-location", "drop map_location from torch.load", frozenset({"FRY004"})),
        Operator("add-item", "add a per-step .item()", frozenset({"FRY007"})),
    )
}

#: the rules credited, besides the operator's, for a dropped move to the CPU (``to_host``)
HOST_RULES = frozenset({"FRY003"})


@dataclass(frozen=True)
class Program:
    name: str
    directory: str  #: under programs/
    script: str
    args: tuple[str, ...]
    #: arguments for a run on the plain CPU (the drop-map-location oracle); None: not run
    plain_args: tuple[str, ...] | None = None
    #: (script, args) run once under the simulation before the program, e.g. to write the
    #: checkpoint it loads
    setup: tuple[tuple[str, tuple[str, ...]], ...] = ()
    corpus: bool = False  #: write a synthetic text corpus to ./corpus
    #: the batch it belongs to (``BATCHES``): the original programs, or a held-out batch
    #: added after the rules were measured on the earlier ones and run only when asked
    #: (``--set``; the default run keeps the original programs, so its figures stay
    #: comparable)
    batch: str = "original"
    #: the script that runs, where it is not the mutated one (a ``main.py`` that drives the
    #: mutated module); None: the mutated script runs itself
    entry: str | None = None
    #: folders made in the program's copy before it runs: those it writes into without
    #: making them (its repository ignores them)
    dirs: tuple[str, ...] = ()
    #: a folder made in the program's copy and laid out as an ``ImageFolder`` root: one class
    #: folder of synthetic RGB images (``_write_images``); None: none
    images: str | None = None
    #: a folder made in the program's copy and laid out as the SIGNS set of hand signs
    #: (``_write_signs``): ``train_signs``, ``val_signs`` and ``test_signs`` of synthetic JPEG
    #: images whose file names begin with their label; None: none
    signs: str | None = None
    #: (path, text) files written in the program's copy before it runs: a configuration the
    #: program reads in place of its repository's, smaller, to keep the run short (part of
    #: the oracle's key, as the arguments are)
    files: tuple[tuple[str, str], ...] = ()

    @property
    def runs(self) -> str:
        """The script the oracle runs."""
        return self.entry or self.script

    @property
    def keyed(self) -> tuple[str, ...]:
        """What the oracle's key takes of the run besides the source: the arguments, and
        the files written before it (none: the arguments alone, as before there were any)."""
        return self.args + tuple(f"{path}\0{text}" for path, text in self.files)

    @property
    def held_out(self) -> bool:
        return self.batch != "original"


#: the batches of programs, in the order they were added: ``held-out`` (2026-12-02),
#: ``jetty``, ``berth``, ``cove``, ``reef`` (2026-12-05), ``shoal``, ``strait``, ``inlet``,
#: ``fjord``, ``sound``, ``bay``, ``lagoon``, ``delta`` (2026-12-06), ``estuary``, ``harbor``,
#: ``marsh``, ``cape``, ``moor``, ``creek``, ``bight`` and ``brook`` (2026-12-07) were each
#: gathered apart from the rules and measured once, blind
BATCHES = (
    "original", "held-out", "jetty", "berth", "cove", "reef", "shoal", "strait", "inlet", "fjord",
    "sound", "bay", "lagoon", "delta", "estuary", "harbor", "marsh", "cape", "moor", "creek",
    "bight", "brook",
)  # fmt: skip


_WLM_TRAIN = (
    "--accel", "--epochs", "1", "--data", "corpus", "--emsize", "16", "--nhid",
    "16", "--nlayers", "1", "--bptt", "8", "--batch_size", "4", "--save", "model.pt",
)  # fmt: skip
_WLM_GENERATE = (
    "--data",
    "corpus",
    "--checkpoint",
    "model.pt",
    "--words",
    "6",
    "--outf",
    "gen.txt",
)
_SR_TRAIN = (
    "--upscale_factor", "4", "--batchSize", "2", "--testBatchSize", "2", "--nEpochs", "1",
    "--accel", "--threads", "0",
)  # fmt: skip
_CENTER_LOSS = (
    "--max-epoch", "1", "--eval-freq", "1", "--batch-size", "48", "--workers", "0", "--plot",
)  # fmt: skip

_MAKEMORE = (
    "--device", "cuda", "--num-workers", "0", "--max-steps", "1", "--n-layer", "1",
    "--n-head", "2", "--n-embd", "8", "--n-embd2", "8", "--batch-size", "4",
)  # fmt: skip
_TCN_COPY_MEMORY = (
    "--batch_size", "2500", "--epochs", "1", "--blank_len", "10", "--levels", "2", "--nhid",
    "4", "--ksize", "2", "--log-interval", "2",
)  # fmt: skip
_TCN_PIXEL_MNIST = (
    "--batch_size", "32", "--epochs", "1", "--levels", "2", "--nhid", "4", "--ksize", "3",
    "--permute", "--log-interval", "1",
)  # fmt: skip
_TD3 = (
    "--env", "Point-v0", "--start_timesteps", "8", "--max_timesteps", "20", "--eval_freq", "20",
    "--batch_size", "4", "--save_model",
)  # fmt: skip
_TRANSLATION = (
    "-e", "1", "--batch", "8", "--backend", "gpu", "--enc_layers", "1", "--dec_layers", "1",
    "--embed_size", "16", "--attn_heads", "2", "--dim_feedforward", "16", "--logging_dir", "out/",
)  # fmt: skip
_RAINBOW = (
    "--T-max", "40", "--learn-start", "16", "--memory-capacity", "200", "--evaluation-size",
    "20", "--evaluation-interval", "40", "--evaluation-episodes", "1", "--max-episode-length",
    "200", "--architecture", "data-efficient", "--hidden-size", "16", "--batch-size", "4",
    "--target-update", "20",
)  # fmt: skip
_FEDAVG = (
    "--epochs", "2", "--num_users", "4", "--frac", "0.5", "--local_ep", "1", "--local_bs", "8",
    "--bs", "16", "--model", "cnn", "--num_channels", "1", "--iid", "--gpu", "0",
)  # fmt: skip
_IMAGENET = (
    "--dummy", "-a", "resnet18", "-b", "8", "-j", "0", "--print-freq", "2", "--gpu", "0",
)  # fmt: skip
_WIDERESNET = (
    "-b", "16", "--layers", "10", "--widen-factor", "1", "--print-freq", "2", "--tensorboard",
)  # fmt: skip
_BCQ = (
    "--env", "Pendulum-v0", "--max_timesteps", "10", "--start_timesteps", "5", "--eval_freq",
    "10", "--batch_size", "8",
)  # fmt: skip
_CUTOUT = (
    "--dataset", "cifar10", "--model", "resnet18", "--batch_size", "16", "--epochs", "1",
    "--data_augmentation", "--cutout", "--length", "16",
)  # fmt: skip
_VQVAE = (
    "--dataset", "mnist", "--model", "vqvae", "--batch-size", "16", "--epochs", "1",
    "--hidden", "16", "-k", "8", "--data-dir", "data", "--results-dir", "results",
    "--save-name", "run",
)  # fmt: skip
_SAC_EXTENSIONS = (
    "-env", "Pendulum-v0", "-frames", "40", "-eval_every", "20", "-eval_runs", "1", "-bs", "8",
    "-layer_size", "16", "-info", "sac",
)  # fmt: skip
#: the distributional critic (IQN) learns slower: fewer frames
_SAC_IQN = (
    "-env", "Pendulum-v0", "-frames", "20", "-eval_every", "20", "-eval_runs", "1", "-bs", "8",
    "-layer_size", "16", "-info", "sac", "-dist", "1",
)  # fmt: skip
#: ``-b 1``: its ``accuracy`` views a slice of a transposed tensor, which only a batch of one
#: image allows in the torch of today; ``--beta`` left at 0 (its CutMix box uses ``np.int``,
#: which numpy no longer has)
_CUTMIX = (
    "--net_type", "resnet", "--dataset", "cifar10", "--depth", "8", "--no-bottleneck",
    "--epochs", "1", "-b", "1", "-j", "0", "--expname", "lagoon", "--no-verbose",
)  # fmt: skip
_LAP_PAL = (
    "--env", "Pendulum-v0", "--start_timesteps", "10", "--eval_freq", "20", "--max_timesteps",
    "40", "--batch_size", "8",
)  # fmt: skip
#: one episode of updates (ten, with the checkpoints TD7 keeps by default) after one of
#: random actions, one evaluation before and one after
_TD7 = (
    "--env", "Pendulum-v0", "--timesteps_before_training", "0", "--eval_freq", "10",
    "--eval_eps", "1", "--max_timesteps", "19",
)  # fmt: skip
#: 102 episodes of the ``gym`` stand-in (1020 steps, random actions throughout: the agents act
#: after 2000 steps), updates after the 1000th step, then one evaluation of 100 episodes
_DEEP_RL = ("--iterations", "102", "--eval_per_train", "102")
#: 40 steps, four episodes, updates from the ninth step on; two evaluations
_NAF = (
    "-env", "Pendulum-v0", "--frames", "40", "--eval_every", "20", "--eval_runs", "1", "-b", "8",
    "-l", "16", "-info", "naf",
)  # fmt: skip
#: one epoch of the CIFAR10 stand-in's 64 images at 32x32 in eight batches, no loader workers
_SIMCLR_SP = ("--epochs", "1", "--batch_size", "8", "--image_size", "32", "--workers", "0")
#: the linear probe on the checkpoint of that epoch, four batches of features, two epochs
_SIMCLR_SP_LINEAR = (
    "--epoch_num", "1", "--logistic_batch_size", "16", "--logistic_epochs", "2", "--image_size",
    "32", "--workers", "0",
)  # fmt: skip
#: one epoch of the MNIST stand-in's 96 images in three batches (40 attack steps each), the
#: model saved after it
_TRADES = (
    "--epochs", "1", "--batch-size", "32", "--test-batch-size", "48", "--save-freq", "1",
)  # fmt: skip
#: one epoch in two batches (10 attack steps each), one test batch
_TRADES_EXAMPLE = ("--epochs", "1", "--test-batch-size", "48")
#: one epoch of the two-moons set's 24,000 points in batches of 1000, a RealNVP of 5 blocks
_FLOWS_REALNVP = (
    "--dataset", "MOONS", "--flow", "realnvp", "--epochs", "1", "--batch-size", "1000",
    "--test-batch-size", "3000",
)  # fmt: skip
#: the same with Glow (batch normalization, an LU-factored invertible matrix and a coupling
#: layer per block)
_FLOWS_GLOW = (
    "--dataset", "MOONS", "--flow", "glow", "--epochs", "1", "--batch-size", "1000",
    "--test-batch-size", "3000",
)  # fmt: skip
#: one epoch of the CIFAR10 stand-in in batches of 16, crops of 16x16, a ResNet-18
_SUPCON = (
    "--batch_size", "16", "--num_workers", "0", "--epochs", "1", "--model", "resnet18",
    "--size", "16",
)  # fmt: skip
#: N-BEATS on its synthetic seasonal series, seven steps (--test), a plot of the first
_NBEATS = ("--task", "dummy", "--test")
#: one epoch of the MNIST stand-in's 96 images in three batches of 32
_GANS = ("--num_epochs", "1", "--batch_size", "32")
#: two permuted-MNIST tasks of one epoch each in three batches of 32, consolidated after the
#: first (the Fisher information from two batches), one test batch per task validated and the
#: losses plotted on every step, a hidden size of 64
_EWC = (
    "--task-number", "2", "--epochs-per-task", "1", "--batch-size", "32", "--test-size", "32",
    "--fisher-estimation-sample-size", "64", "--eval-log-interval", "1", "--loss-log-interval",
    "1", "--consolidate", "--hidden-size", "64",
)  # fmt: skip
#: one epoch of the CIFAR10 stand-in in four batches of 16, no loader workers, a WideResNet of
#: depth 10 and width 1
_SAM = (
    "--epochs", "1", "--batch_size", "16", "--threads", "0", "--depth", "10", "--width_factor",
    "1",
)  # fmt: skip
#: the adding problem on sequences of ten steps, 101 steps of 50 (the test set of 50 scored once,
#: at step 100), 32 hidden units
_CORNN = ("--T", "10", "--max_steps", "101", "--batch_test", "50", "--n_hid", "32")
#: Glow of two blocks of two flows on 8x8 crops of the synthetic image folder, batches of 4, three
#: iterations (the first initialises the activation norms without a step, then two steps)
_GLOW = (
    "--batch", "4", "--iter", "3", "--n_flow", "2", "--n_block", "2", "--img_size", "8",
    "--n_sample", "2", "images",
)  # fmt: skip
#: a ResNet-20 one epoch on the CIFAR10 stand-in in two batches of 32 under a linear warmup of two
#: steps, the test set in one batch, no progress bar
_WARMUP = (
    "-b", "32", "-c", "32", "-e", "1", "-w", "linear", "-t", "2", "--no-progress",
)  # fmt: skip
#: its EMNIST example one epoch on the EMNIST stand-in in three batches of 32 under its default
#: linear warmup, the test set in one batch
_WARMUP_EMNIST = ("--batch-size", "32", "--test-batch-size", "48", "--epochs", "1")
#: its MNIST example one epoch on the MNIST stand-in in three batches of 32, the optimizer's
#: trust ratios logged on every step, the test set in one batch
_LAMB = ("--batch-size", "32", "--test-batch-size", "48", "--epochs", "1", "--log-interval", "1")
#: the CIFAR10 tutorial one epoch on the CIFAR10 stand-in (one batch of its 64 images), then the
#: FGM and 40-step PGD attacks on the test set's 32 in one batch
_CLEVERHANS = ("--nb_epochs=1",)


def _reversal_set(count: int, seed: int) -> str:
    """``count`` strings of 12 digits (seeded), pickled in protocol 0 (ASCII text), as the
    seq2seq example's dataset generators write theirs."""
    import pickle
    import random

    rng = random.Random(seed)
    return pickle.dumps(
        ["".join(rng.choice("0123456789") for _ in range(12)) for _ in range(count)], protocol=0
    ).decode("ascii")


def _reversal_files() -> tuple[tuple[str, str], ...]:
    """A reversal set of 64 training and 4 test strings (two of the example's fixed batches
    of 32), and the gin config of a short run on it: one epoch, attention, a 16-wide embedding
    and a 32-wide RNN (the example's are 300 and 1024)."""
    data = {"src_train": _reversal_set(64, 0), "src_test": _reversal_set(4, 1)}
    data |= {"tgt" + k[3:]: _pickle_reversed(v) for k, v in data.items()}
    config = "\n".join((
        "import train_utils", "import seq2seq", "import networks", "",
        'train_utils.load_dataset.name = "short"',
        "train_utils.get_training_hyperparams.num_epochs = 1",
        "seq2seq.Seq2Seq.use_attention = True",
        "networks.Encoder.embedding_size = 16", "networks.Encoder.hidden_size = 32",
        "networks.DecoderWithAttention.embedding_size = 16",
        "networks.DecoderWithAttention.hidden_size = 32", "",
    ))  # fmt: skip
    files = tuple((f"datasets/short/{k}.ob", v) for k, v in sorted(data.items()))
    return (*files, ("experiments/short/config.gin", config))


def _pickle_reversed(text: str) -> str:
    """The pickled strings of ``text`` (protocol 0) reversed, pickled the same way."""
    import pickle

    return pickle.dumps([s[::-1] for s in pickle.loads(text.encode("ascii"))], protocol=0).decode(
        "ascii"
    )


#: min-char-seq2seq: one epoch of the short reversal set (``_reversal_files``)
_SEQ2SEQ = ("--expdir", "experiments/short")
_SEQ2SEQ_FILES = _reversal_files()
#: the same without attention (the repository's other experiment), in its own folder
_SEQ2SEQ_PLAIN = ("--expdir", "experiments/short_plain")
_SEQ2SEQ_PLAIN_FILES = (
    *_SEQ2SEQ_FILES[:-1],
    (
        "experiments/short_plain/config.gin",
        _SEQ2SEQ_FILES[-1][1]
        .replace("use_attention = True", "use_attention = False")
        .replace("networks.DecoderWithAttention.", "networks.Decoder."),
    ),
)
#: cs230's examples read their hyperparameters from ``--model_dir``'s params.json: the
#: NER tagger two epochs of the repository's small set in batches of 5, 16-wide; the SIGNS
#: classifier one epoch of twelve images in batches of 6, eight channels, no loader workers,
#: each step summarised
_CS230_NLP = ("--model_dir", "experiments/short")
_CS230_NLP_FILES = (
    (
        "experiments/short/params.json",
        '{"learning_rate": 1e-3, "batch_size": 5, "num_epochs": 2, "lstm_hidden_dim": 16,'
        ' "embedding_dim": 16, "save_summary_steps": 1}\n',
    ),
)
_CS230_VISION = ("--model_dir", "experiments/short")
_CS230_VISION_FILES = (
    (
        "experiments/short/params.json",
        '{"learning_rate": 1e-3, "batch_size": 6, "num_epochs": 1, "dropout_rate": 0.8,'
        ' "num_channels": 8, "save_summary_steps": 1, "num_workers": 0}\n',
    ),
)

#: AdaBelief's CIFAR10 experiment: one epoch of the CIFAR10 stand-in (two batches of 32) with
#: its VGG-11 and SGD; resumed: a second epoch from the checkpoint and curve a simulated first
#: epoch wrote (``checkpoint/`` and ``curve/``, named after the options)
_ADABELIEF = ("--model", "vgg", "--total_epoch", "1", "--batchsize", "32")
_ADABELIEF_RESUME = ("--model", "vgg", "--total_epoch", "2", "--batchsize", "32", "--resume")

#: the efficient DenseNet demo (``fire``'s command line): one epoch of a DenseNet-BC of depth 10
#: and growth 4 on the CIFAR10 stand-in in batches of 16, 16 of its 64 training images held out
#: to validate; without them (``--valid_size 0``) it validates on the test set and saves after
#: every epoch
_DENSENET = (
    "--data", "data", "--save", "save", "--depth", "10", "--growth_rate", "4", "--valid_size",
    "16", "--n_epochs", "1", "--batch_size", "16", "--seed", "0",
)  # fmt: skip
_DENSENET_NO_VALID = (*_DENSENET[:8], "--valid_size", "0", *_DENSENET[10:])

#: Glow on CIFAR10 (chrischute/glow): one epoch of the CIFAR10 stand-in in batches of 16, a
#: Glow of two levels of two steps with 16 hidden channels, four samples drawn after the test;
#: clipped: the gradient norm clipped at 1 (``util.clip_grad_norm``)
_GLOW_CIFAR = (
    "--batch_size", "16", "--num_channels", "16", "--num_levels", "2", "--num_steps", "2",
    "--num_epochs", "1", "--num_samples", "4", "--num_workers", "0", "--warm_up", "10",
)  # fmt: skip
_GLOW_CIFAR_CLIP = (*_GLOW_CIFAR, "--max_grad_norm", "1")

#: Soft Actor-Critic (thomashirtz/soft-actor-critic), its ``train`` mode: 40 steps (four
#: episodes of the gym stand-in), updates from the eighth, in batches of 8, two hidden layers
#: of 32 units, the run written to ``runs/r``
_SAC_HIRTZ = (
    "train", "--env-name", "Pendulum-v0", "--num-steps", "30", "--start-step", "8",
    "--batch-size", "8", "--memory-size", "1000", "--hidden-units", "32", "32",
    "--directory", "runs", "--run-name", "r",
)  # fmt: skip
#: its ``eval`` mode: the models that run wrote to ``runs/r`` loaded, two episodes acted on
#: deterministically
_SAC_HIRTZ_EVAL = (
    "eval", "--env-name", "Pendulum-v0", "--hidden-units", "32", "32", "--directory", "runs",
    "--run-name", "r", "--num-episodes", "2", "--deterministic",
)  # fmt: skip

#: DDPG (schneimo/ddpg-pytorch): 20 steps (two episodes of the gym stand-in), updates once the
#: replay memory holds more than 4 transitions, in batches of 4, one test episode after the
#: first, a checkpoint written at the end (its hidden sizes stay the default 400 and 300: its
#: ``--hidden_size`` makes a tuple of each argument's characters)
_DDPG_SCHNEIMO = (
    "--env", "Pendulum-v0", "--timesteps", "20", "--batch_size", "4", "--replay_size", "100",
    "--n_test_cycles", "1",
)  # fmt: skip

#: four iterations in batches of 8 on the first GPU (``-cuda 0``; -1, the default, is the CPU),
#: each summarised, a checkpoint written after the second
_DNC = (
    "-cuda", "0", "-iterations", "3", "-batch_size", "8", "-summarize_freq", "1", "-check_freq",
    "2",
)  # fmt: skip
_SIMCLR = (
    "-data", "./datasets", "-dataset-name", "cifar10", "--epochs", "1", "-b", "16", "-j", "0",
    "--log-every-n-steps", "1",
)  # fmt: skip

PROGRAMS: tuple[Program, ...] = (
    Program("mnist", "mnist", "main.py", ("--epochs", "1", "--batch-size", "16", "--test-batch-size", "16")),
    Program("mnist_rnn", "mnist_rnn", "main.py", ("--accel", "--epochs", "1", "--batch-size", "16", "--test-batch-size", "16")),
    Program("vae", "vae", "main.py", ("--epochs", "1", "--batch-size", "16", "--log-interval", "2")),
    Program("mnist_forward_forward", "mnist_forward_forward", "main.py", ("--epochs", "2", "--train_size", "32", "--test_size", "16")),
    Program("word_language_model", "word_language_model", "main.py", _WLM_TRAIN, corpus=True),
    Program(
        "word_language_model/generate", "word_language_model", "generate.py",
        ("--accel", *_WLM_GENERATE), plain_args=_WLM_GENERATE,
        setup=(("main.py", _WLM_TRAIN),), corpus=True,
    ),
    Program("siamese_network", "siamese_network", "main.py", ("--epochs", "1", "--batch-size", "16", "--test-batch-size", "16"), batch="held-out"),
    Program("dcgan", "dcgan", "main.py", ("--accel", "--dataset", "fake", "--workers", "0", "--batchSize", "8", "--nz", "8", "--ngf", "8", "--ndf", "8", "--niter", "1", "--outf", "out", "--manualSeed", "1"), batch="held-out"),
    Program("ddp_single_gpu", "ddp_single_gpu", "single_gpu.py", ("2", "1", "--batch_size", "256"), batch="held-out"),
    Program("gcn", "gcn", "main.py", ("--epochs", "2", "--val-every", "1"), batch="jetty"),
    Program("gat", "gat", "main.py", ("--epochs", "2", "--val-every", "1", "--hidden-dim", "8", "--num-heads", "2"), batch="jetty"),
    Program("super_resolution", "super_resolution", "main.py", _SR_TRAIN, batch="jetty"),
    Program(
        "super_resolution/super_resolve", "super_resolution", "super_resolve.py",
        ("--input_image", "dataset/BSDS300/images/test/1004.jpg", "--model", "model_epoch_1.pth",
         "--output_filename", "out.png", "--accel"),
        setup=(("main.py", _SR_TRAIN),), batch="jetty",
    ),
    Program("quickstart", "quickstart", "quickstart_tutorial.py", (), batch="berth"),
    Program("buildmodel", "buildmodel", "buildmodel_tutorial.py", (), batch="berth"),
    Program("rnn_gru_lstm", "rnn_gru_lstm", "pytorch_rnn_gru_lstm.py", (), batch="berth"),
    Program("simple_fullynet", "simple_fullynet", "pytorch_simple_fullynet.py", (), batch="berth"),
    Program("ram", "ram", "trainer.py", ("--epochs", "1", "--batch_size", "16", "--num_glimpses", "3"), batch="cove", entry="main.py"),
    Program("center_loss", "center_loss", "main.py", _CENTER_LOSS, batch="cove"),
    Program("center_loss/loss", "center_loss", "center_loss.py", _CENTER_LOSS, batch="cove", entry="main.py"),
    Program("resnet_cifar10", "resnet_cifar10", "trainer.py", ("--arch", "resnet20", "--epochs", "1", "-b", "32", "--workers", "0"), batch="cove"),
    Program("transformer_scratch", "transformer_scratch", "transformer_from_scratch.py", (), batch="reef"),
    Program("spatial_transformer", "spatial_transformer", "spatial_transformer_tutorial.py", (), batch="reef"),
    Program("ensembling", "ensembling", "ensembling.py", (), batch="reef"),
    Program("data_parallel", "data_parallel", "data_parallel_tutorial.py", (), batch="shoal"),
    Program("morvan_gpu", "morvan_gpu", "502_GPU.py", (), batch="shoal"),
    Program("simple_cnn", "simple_cnn", "pytorch_simple_CNN.py", (), batch="shoal"),
    Program("makemore", "makemore", "makemore.py", _MAKEMORE, batch="strait"),
    Program("tcn_copy_memory", "tcn", "copymem_test.py", _TCN_COPY_MEMORY, batch="strait"),
    Program("tcn_pixel_mnist", "tcn", "pmnist_test.py", _TCN_PIXEL_MNIST, batch="strait"),
    Program("td3", "td3", "TD3.py", (*_TD3, "--load_model", "default"), setup=(("main.py", _TD3),), batch="strait", entry="main.py"),
    Program("td3/replay", "td3", "utils.py", _TD3, batch="strait", entry="main.py"),
    Program("translation", "translation", "main.py", _TRANSLATION, batch="inlet"),
    Program("translation/masks", "translation", "src/data.py", _TRANSLATION, batch="inlet", entry="main.py"),
    Program("denoising_autoencoder", "denoising_autoencoder", "denoising_autoencoder.py", (), batch="inlet"),
    Program("text_classification", "text_classification", "text_classification.py", (), batch="inlet"),
    Program("rainbow", "rainbow", "agent.py", _RAINBOW, batch="inlet", entry="main.py"),
    Program("rainbow/memory", "rainbow", "memory.py", _RAINBOW, batch="inlet", entry="main.py"),
    Program("fedavg", "fedavg", "main_fed.py", _FEDAVG, batch="fjord"),
    Program("fedavg/update", "fedavg", "models/Update.py", _FEDAVG, batch="fjord", entry="main_fed.py"),
    Program("fedavg/test", "fedavg", "models/test.py", _FEDAVG, batch="fjord", entry="main_fed.py"),
    Program(
        "imagenet", "imagenet", "main.py", (*_IMAGENET, "--epochs", "2", "--resume", "checkpoint.pth.tar"),
        setup=(("main.py", (*_IMAGENET, "--epochs", "1")),), batch="fjord",
    ),
    Program("seq2seq", "seq2seq", "train.py", ("-epochs", "1", "-batch_size", "12"), batch="fjord"),
    Program("seq2seq/model", "seq2seq", "model.py", ("-epochs", "1", "-batch_size", "12"), batch="fjord", entry="train.py"),
    Program(
        "wideresnet", "wideresnet", "train.py",
        (*_WIDERESNET, "--epochs", "2", "--resume", "runs/WideResNet-28-10/checkpoint.pth.tar"),
        setup=(("train.py", (*_WIDERESNET, "--epochs", "1")),), batch="sound",
    ),
    Program(
        "bcq", "bcq", "BCQ.py", _BCQ, batch="sound", entry="main.py",
        setup=(("main.py", (*_BCQ, "--train_behavioral")), ("main.py", (*_BCQ, "--generate_buffer"))),
    ),
    Program(
        "bcq/replay", "bcq", "utils.py", _BCQ, batch="sound", entry="main.py",
        setup=(("main.py", (*_BCQ, "--train_behavioral")), ("main.py", (*_BCQ, "--generate_buffer"))),
    ),
    Program(
        "bcq/behavioral", "bcq", "DDPG.py", (*_BCQ, "--generate_buffer"), batch="sound", entry="main.py",
        setup=(("main.py", (*_BCQ, "--train_behavioral")),),
    ),
    Program("simclr", "simclr", "simclr.py", _SIMCLR, batch="sound", entry="run.py"),
    Program("cutout", "cutout", "train.py", _CUTOUT, batch="bay", dirs=("logs", "checkpoints")),
    Program("vqvae", "vqvae", "main.py", _VQVAE, batch="bay"),
    Program("vqvae/model", "vqvae", "vq_vae/auto_encoder.py", _VQVAE, batch="bay", entry="main.py"),
    Program("sac_extensions", "sac_extensions", "files/Agent.py", _SAC_EXTENSIONS, batch="bay", entry="run.py"),
    Program(
        "sac_extensions/replay", "sac_extensions", "files/ReplayBuffers.py", (*_SAC_EXTENSIONS, "-per", "1"),
        batch="bay", entry="run.py",
    ),
    Program(
        "sac_extensions/iqn", "sac_extensions", "files/networks.py", _SAC_IQN,
        batch="bay", entry="run.py",
    ),
    Program("cutmix", "cutmix", "train.py", _CUTMIX, batch="lagoon"),
    Program("lap_pal", "lap_pal", "LAP_TD3.py", (*_LAP_PAL, "--algorithm", "LAP_TD3"), batch="lagoon", entry="main.py"),
    Program(
        "lap_pal/pal", "lap_pal", "PAL_TD3.py", (*_LAP_PAL, "--algorithm", "PAL_TD3"),
        batch="lagoon", entry="main.py",
    ),
    Program(
        "lap_pal/per", "lap_pal", "PER_TD3.py", (*_LAP_PAL, "--algorithm", "PER_TD3"),
        batch="lagoon", entry="main.py",
    ),
    Program(
        "lap_pal/replay", "lap_pal", "utils.py", (*_LAP_PAL, "--algorithm", "LAP_TD3"),
        batch="lagoon", entry="main.py",
    ),
    Program("td7", "td7", "TD7.py", _TD7, batch="lagoon", entry="main.py"),
    Program("td7/buffer", "td7", "buffer.py", _TD7, batch="lagoon", entry="main.py"),
    Program("deep_rl/sac", "deep_rl", "agents/sac.py", (*_DEEP_RL, "--algo", "asac"), batch="delta", entry="run_pendulum.py"),
    Program("deep_rl/td3", "deep_rl", "agents/td3.py", (*_DEEP_RL, "--algo", "td3"), batch="delta", entry="run_pendulum.py"),
    Program("deep_rl/ddpg", "deep_rl", "agents/ddpg.py", (*_DEEP_RL, "--algo", "ddpg"), batch="delta", entry="run_pendulum.py"),
    Program(
        "deep_rl/buffers", "deep_rl", "agents/common/buffers.py", (*_DEEP_RL, "--algo", "asac"),
        batch="delta", entry="run_pendulum.py",
    ),
    Program("naf", "naf", "agent.py", _NAF, batch="delta", entry="naf.py"),
    Program("naf/replay", "naf", "replay_buffer.py", _NAF, batch="delta", entry="naf.py"),
    Program("naf/networks", "naf", "networks.py", _NAF, batch="delta", entry="naf.py"),
    Program("simclr_sp", "simclr_spijkervet", "main.py", _SIMCLR_SP, batch="estuary"),
    Program(
        "simclr_sp/nt_xent", "simclr_spijkervet", "simclr/modules/nt_xent.py", _SIMCLR_SP,
        batch="estuary", entry="main.py",
    ),
    #: the probe loads the checkpoint that a pretraining epoch under the simulation wrote
    Program(
        "simclr_sp/linear", "simclr_spijkervet", "linear_evaluation.py", _SIMCLR_SP_LINEAR,
        plain_args=_SIMCLR_SP_LINEAR, setup=(("main.py", _SIMCLR_SP),), batch="estuary",
    ),
    Program("trades", "trades", "train_trades_mnist.py", _TRADES, batch="estuary"),
    Program("trades/example", "trades", "mnist_example_trades.py", _TRADES_EXAMPLE, batch="estuary"),
    Program(
        "trades/loss", "trades", "trades.py", _TRADES_EXAMPLE, batch="estuary",
        entry="mnist_example_trades.py",
    ),
    #: a white-box PGD attack on the model that an epoch of TRADES under the simulation wrote
    Program(
        "trades/pgd", "trades", "pgd_attack_mnist.py",
        ("--model-path", "model-mnist-smallCNN/model-nn-epoch1.pt", "--test-batch-size", "48"),
        setup=(("train_trades_mnist.py", _TRADES),), batch="estuary",
    ),
    Program("flows", "pytorch_flows", "main.py", _FLOWS_REALNVP, batch="harbor"),
    Program("flows/flows", "pytorch_flows", "flows.py", _FLOWS_GLOW, batch="harbor", entry="main.py"),
    Program("flows/utils", "pytorch_flows", "utils.py", _FLOWS_GLOW, batch="harbor", entry="main.py"),
    Program("supcon", "supcontrast", "main_supcon.py", _SUPCON, batch="harbor"),
    Program(
        "supcon/losses", "supcontrast", "losses.py", _SUPCON, batch="harbor",
        entry="main_supcon.py",
    ),
    Program("nbeats", "nbeats", "examples/trainer_pytorch.py", _NBEATS, batch="harbor"),
    Program(
        "nbeats/model", "nbeats", "nbeats_pytorch/model.py", _NBEATS, batch="harbor",
        entry="examples/trainer_pytorch.py",
    ),
    Program("gans", "gans_gordicaleksa", "train_vanilla_gan.py", _GANS, batch="marsh"),
    Program("gans/cgan", "gans_gordicaleksa", "train_cgan.py", _GANS, batch="marsh"),
    Program(
        "gans/utils", "gans_gordicaleksa", "utils/utils.py", _GANS, batch="marsh",
        entry="train_cgan.py",
    ),
    #: one image of the digit 3 from the conditional generator an epoch of train_cgan.py under
    #: the simulation saved
    Program(
        "gans/generate", "gans_gordicaleksa", "generate_imagery.py",
        ("--model_name", "CGAN_000000.pth"), setup=(("train_cgan.py", _GANS),), batch="marsh",
    ),
    Program("sam", "sam_davda54", "train.py", _SAM, batch="marsh"),
    Program("sam/sam", "sam_davda54", "sam.py", _SAM, batch="marsh", entry="train.py"),
    Program("ewc", "ewc", "main.py", _EWC, batch="marsh"),
    Program("ewc/train", "ewc", "train.py", _EWC, batch="marsh", entry="main.py"),
    Program("ewc/model", "ewc", "model.py", _EWC, batch="marsh", entry="main.py"),
    Program("ewc/utils", "ewc", "utils.py", _EWC, batch="marsh", entry="main.py"),
    Program("cornn", "cornn", "adding_task.py", _CORNN, batch="cape"),
    Program("cornn/model", "cornn", "model.py", _CORNN, batch="cape", entry="adding_task.py"),
    Program("dnc", "dnc_ixaxaar", "tasks/copy_task.py", _DNC, batch="cape"),
    Program("dnc/argmax", "dnc_ixaxaar", "tasks/argmax_task.py", _DNC, batch="cape"),
    Program(
        "dnc/dnc", "dnc_ixaxaar", "dnc/dnc.py", _DNC, batch="cape", entry="tasks/copy_task.py"
    ),
    Program(
        "dnc/util", "dnc_ixaxaar", "dnc/util.py", _DNC, batch="cape", entry="tasks/copy_task.py"
    ),
    Program(
        "glow", "glow_rosinality", "train.py", _GLOW, batch="moor", dirs=("checkpoint", "sample"),
        images="images",
    ),
    Program(
        "glow/model", "glow_rosinality", "model.py", _GLOW, batch="moor", entry="train.py",
        dirs=("checkpoint", "sample"), images="images",
    ),
    Program("warmup", "warmup_tonyy", "main.py", _WARMUP, batch="moor"),
    Program("warmup/emnist", "warmup_tonyy", "emnist_main.py", _WARMUP_EMNIST, batch="moor"),
    Program("lamb", "lamb_cybertronai", "test_lamb.py", _LAMB, batch="moor"),
    Program("cleverhans", "cleverhans_lab", "cifar10_tutorial.py", _CLEVERHANS, batch="moor"),
    Program(
        "seq2seq_min", "seq2seq_zhihanyang", "train.py", _SEQ2SEQ, batch="creek", files=_SEQ2SEQ_FILES,
    ),
    Program(
        "seq2seq_min/model", "seq2seq_zhihanyang", "seq2seq.py", _SEQ2SEQ, batch="creek",
        entry="train.py", files=_SEQ2SEQ_FILES,
    ),
    Program(
        "seq2seq_min/model/infer", "seq2seq_zhihanyang", "seq2seq.py", (*_SEQ2SEQ, "--infer"),
        plain_args=(*_SEQ2SEQ, "--infer"), setup=(("train.py", _SEQ2SEQ),), batch="creek",
        entry="train.py", files=_SEQ2SEQ_FILES,
    ),
    Program(
        "seq2seq_min/infer", "seq2seq_zhihanyang", "train.py", (*_SEQ2SEQ, "--infer"),
        setup=(("train.py", _SEQ2SEQ),), batch="creek", files=_SEQ2SEQ_FILES,
    ),
    Program(
        "seq2seq_min/model/plain", "seq2seq_zhihanyang", "seq2seq.py", _SEQ2SEQ_PLAIN,
        batch="creek", entry="train.py", files=_SEQ2SEQ_PLAIN_FILES,
    ),
    Program(
        "cs230/nlp", "cs230_nlp", "train.py", _CS230_NLP, setup=(("build_vocab.py", ()),),
        batch="creek", files=_CS230_NLP_FILES,
    ),
    Program(
        "cs230/nlp/data_loader", "cs230_nlp", "model/data_loader.py", _CS230_NLP,
        setup=(("build_vocab.py", ()),), batch="creek", entry="train.py", files=_CS230_NLP_FILES,
    ),
    Program(
        "cs230/nlp/evaluate", "cs230_nlp", "evaluate.py", _CS230_NLP,
        setup=(("build_vocab.py", ()), ("train.py", _CS230_NLP)), batch="creek",
        files=_CS230_NLP_FILES,
    ),
    Program(
        "cs230/vision", "cs230_vision", "train.py", _CS230_VISION, batch="creek",
        signs="data/64x64_SIGNS", files=_CS230_VISION_FILES,
    ),
    Program(
        "cs230/vision/evaluate", "cs230_vision", "evaluate.py", _CS230_VISION,
        setup=(("train.py", _CS230_VISION),), batch="creek", signs="data/64x64_SIGNS",
        files=_CS230_VISION_FILES,
    ),
    Program("adabelief/cifar", "adabelief_cifar", "main.py", _ADABELIEF, batch="bight"),
    Program(
        "adabelief/cifar/resume", "adabelief_cifar", "main.py", _ADABELIEF_RESUME,
        setup=(("main.py", _ADABELIEF),), batch="bight",
    ),
    Program("densenet_efficient", "efficient_densenet", "demo.py", _DENSENET, batch="bight"),
    Program(
        "densenet_efficient/no_valid", "efficient_densenet", "demo.py", _DENSENET_NO_VALID,
        batch="bight",
    ),
    Program("glow_cifar", "glow_cifar", "train.py", _GLOW_CIFAR, batch="brook"),
    Program("glow_cifar/clip", "glow_cifar", "train.py", _GLOW_CIFAR_CLIP, batch="brook"),
    Program(
        "sac_hirtz", "sac_hirtz", "soft_actor_critic/agent.py", _SAC_HIRTZ, batch="brook",
        entry="soft_actor_critic/__main__.py",
    ),
    Program(
        "sac_hirtz/policy", "sac_hirtz", "soft_actor_critic/policy.py", _SAC_HIRTZ,
        batch="brook", entry="soft_actor_critic/__main__.py",
    ),
    Program(
        "sac_hirtz/eval", "sac_hirtz", "soft_actor_critic/agent.py", _SAC_HIRTZ_EVAL,
        setup=(("soft_actor_critic/__main__.py", _SAC_HIRTZ),), batch="brook",
        entry="soft_actor_critic/__main__.py",
    ),
    Program("ddpg_schneimo", "ddpg_schneimo", "train.py", _DDPG_SCHNEIMO, batch="brook"),
    Program(
        "ddpg_schneimo/agent", "ddpg_schneimo", "ddpg.py", _DDPG_SCHNEIMO, batch="brook",
        entry="train.py",
    ),
)  # fmt: skip


# -- the programs' files: a committed manifest, the files outside the repository ------


@dataclass(frozen=True)
class ProgramFile:
    """One file of the programs: its path under ``PROGRAMS_DIR`` and where it comes from."""

    path: str
    repository: str
    commit: str
    source: str  #: its path in the repository at ``commit``
    blob: str  #: its git blob id, the same there and here
    sha256: str


def program_files(manifest: Path | None = None) -> list[ProgramFile]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]

    data = tomllib.loads((manifest or PROGRAMS_MANIFEST).read_text(encoding="utf-8"))
    return [ProgramFile(**f) for f in data["file"]]


def programs_hint() -> str:
    return (
        "rebuild them with: python benchmarks/check_mutants.py --export-programs --mirror "
        "GIT_DIR (GIT_DIR/OWNER+NAME: a clone or mirror of each repository)"
    )


def programs_problems(
    root: Path | None = None, directories: Collection[str] | None = None
) -> list[str]:
    """One line per file of the manifest that is missing under ``root`` (default
    ``PROGRAMS_DIR``) or differs from it; [] when every file is as pinned.  With
    ``directories``, only the files under those program folders (and the shared ones at the
    top) count."""
    root = root or PROGRAMS_DIR
    if not root.is_dir():
        return [f"{root}: the mutation benchmark's programs are absent; {programs_hint()}"]
    problems = []
    for f in program_files():
        top, _, rest = f.path.partition("/")
        if directories is not None and rest and top not in directories:
            continue
        path = root / f.path
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != f.sha256:
            problems.append(f"{path}: differs from {PROGRAMS_MANIFEST.name}")
    return problems


def export_programs(mirror: Path, out: Path) -> dict[str, list[str]]:
    """Write each file of the manifest from ``mirror/OWNER+NAME`` (a clone or mirror, bare
    or not, or either under ``repo``) under ``out`` when its digest matches; the paths by
    outcome."""
    outcome: dict[str, list[str]] = defaultdict(list)
    for f in program_files():
        target = out / f.path
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == f.sha256:
            outcome["present"].append(f.path)
            continue
        git_dir = next(
            (
                d
                for d in (
                    mirror / f.repository.replace("/", "+") / s
                    for s in ("repo", "repo/.git", ".git", ".")
                )
                if (d / "objects").is_dir()
            ),
            None,
        )
        shown = (
            subprocess.run(
                ["git", "--git-dir", str(git_dir), "show", f"{f.commit}:{f.source}"],
                capture_output=True,
            )
            if git_dir
            else None
        )
        if shown is None or shown.returncode:
            outcome["no mirror" if git_dir is None else "no commit"].append(f.path)
        elif hashlib.sha256(shown.stdout).hexdigest() != f.sha256:
            outcome["differs"].append(f.path)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(shown.stdout)
            outcome["written"].append(f.path)
    return dict(outcome)


# -- mutation sites -------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    program: Program
    op: str
    line: int  #: the mutated line of the original script (1-based)
    col: int  #: the mutated node's column (tells two sites of one line apart)
    source: str  #: the whole mutated script
    before: str  #: the original line, for the report
    #: the dropped move went to the CPU (``x.to("cpu").numpy()``): the mutant leaves a tensor
    #: on the device where the host needs it, the mistake FRY003 reports as well
    to_host: bool = False

    @property
    def key(self) -> str:
        return f"{self.program.name}:{self.line}:{self.col}:{self.op}"


class _Source:
    """The script's text with line/column <-> offset conversion for span edits."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets; the programs are ASCII where they are mutated
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def seg(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.text[a:b]

    def replace(self, a: int, b: int, new: str) -> str:
        return self.text[:a] + new + self.text[b:]


_MODELISH = re.compile(r"(model|net|encoder|decoder|classifier|rnn|vae)$", re.IGNORECASE)
_DTYPES = {"float", "float16", "float32", "float64", "half", "double", "bfloat16", "long",
           "int", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64"}  # fmt: skip
_FACTORIES = {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
              "linspace", "logspace", "eye", "tensor", "as_tensor"}  # fmt: skip


def _is_move(node: ast.AST) -> bool:
    """``E.cuda(...)`` or ``E.to(<not a dtype>)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr == "cuda":
        return True
    if node.func.attr != "to" or not (node.args or node.keywords):
        return False
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Attribute) and first.attr in _DTYPES:
        return False
    return first is not None or any(k.arg == "device" for k in node.keywords)


def _cpu_device(node: ast.AST | None) -> bool:
    """``"cpu"`` or ``torch.device("cpu")`` written out."""
    if isinstance(node, ast.Call) and _terminal_name(node.func) == "device" and node.args:
        node = node.args[0]
    return isinstance(node, ast.Constant) and node.value == "cpu"


def _to_host(node: ast.AST) -> bool:
    """A move to the CPU written out: ``E.to("cpu")``, ``E.to(device=torch.device("cpu"))``.

    >>> [_to_host(ast.parse(s).body[0].value) for s in
    ...  ('x.to("cpu")', 'x.to(device=torch.device("cpu"))', "x.to(device)", "x.cuda()")]
    [True, True, False, False]
    """
    if not (_is_move(node) and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr != "to":
        return False
    first = node.args[0] if node.args else None
    return _cpu_device(first) or any(
        k.arg == "device" and _cpu_device(k.value) for k in node.keywords
    )


def _terminal_name(node: ast.AST) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


#: torch classes outside ``torch.nn``'s modules whose construction is a tensor
_TENSOR_CLASSES = {"torch.autograd.Variable", "torch.autograd.variable.Variable", "torch.Tensor",
                   "torch.nn.Parameter", "torch.nn.parameter.Parameter"}  # fmt: skip


def _imported_names(tree: ast.AST) -> dict[str, str]:
    """The file's imported names and the dotted names they stand for
    (``from torch.autograd import Variable`` gives ``Variable: torch.autograd.Variable``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                root = a.name.split(".")[0]
                names[a.asname or root] = a.name if a.asname else root
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _dotted(node: ast.AST, imported: dict[str, str]) -> str | None:
    """The dotted name of ``node`` (``nn.Linear`` -> ``torch.nn.Linear``) through the file's
    imports; None where its root is not imported."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imported:
        return None
    return ".".join([imported[node.id], *reversed(parts)])


def _constructs_tensor(func: ast.AST, imported: dict[str, str]) -> bool:
    """``func`` is a torch class whose instance is a tensor (``Variable``, ``torch.Tensor``,
    ``nn.Parameter``, ``torch.FloatTensor``)."""
    name = _dotted(func, imported) or ""
    return name in _TENSOR_CLASSES or (name.startswith("torch.") and name.endswith("Tensor"))


#: module methods that return the module itself (of a tensor: a tensor)
_RETURNS_SELF = {"train", "eval", "float", "double", "half", "bfloat16", "cpu", "cuda", "to",
                 "requires_grad_", "share_memory"}  # fmt: skip


def _is_model(
    node: ast.AST, tree: ast.AST | None = None, seen: frozenset[str] = frozenset()
) -> bool:
    """A module by construction (``Net(...)``, ``Net().train()``) or by name (``model``,
    ``net``), or a name the file binds to such a construction (``mlp = MLP(4)``).  A
    construction that the file's imports resolve to a torch tensor class
    (``Variable(y)``, ``torch.FloatTensor(...)``) is a tensor whatever its capital."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in _RETURNS_SELF:
            return _is_model(node.func.value, tree, seen)
        if tree is not None and _constructs_tensor(node.func, _imported_names(tree)):
            return False
        name = _terminal_name(node.func)
        return name[:1].isupper() and not name.endswith("Tensor")  # torch.LongTensor(...)
    if _MODELISH.search(_terminal_name(node)):
        return True
    if tree is None or not isinstance(node, ast.Name) or node.id in seen:
        return False
    return any(_is_model(v, tree, seen | {node.id}) for v in _bound_values(tree, node.id))


def _bound_values(tree: ast.AST, name: str) -> Iterator[ast.expr]:
    """The values the file assigns to the plain name ``name`` (``name = value``)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in n.targets
        ):
            yield n.value


def _drop_keyword(src: _Source, call: ast.Call, name: str) -> str | None:
    """The source with keyword ``name`` removed from ``call`` (with its comma)."""
    items: list[ast.AST] = [*call.args, *call.keywords]
    items.sort(key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
    for i, kw in enumerate(items):
        if isinstance(kw, ast.keyword) and kw.arg == name:
            a, b = src.span(kw)
            if i > 0:
                a = src.span(items[i - 1])[1]
            elif i + 1 < len(items):
                b = src.span(items[i + 1])[0]
            return src.replace(a, b, "")
    return None


def _loops_with_backward(tree: ast.AST) -> Iterator[ast.For | ast.While]:
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.While):
            if any(
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "backward"
                for n in ast.walk(node)
            ):
                yield node


def _one_line(node: ast.stmt) -> bool:
    return node.lineno == node.end_lineno


def _append_to_line(src: _Source, stmt: ast.stmt, code: str) -> str:
    end = src.offset(stmt.end_lineno, stmt.end_col_offset)  # type: ignore[arg-type]
    return src.text[:end] + f"; {code}" + src.text[end:]


def _move_sites(src: _Source, tree: ast.AST) -> Iterator[tuple[str, ast.AST, str]]:
    for node in ast.walk(tree):
        if _is_move(node):
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            receiver = node.func.value
            op = "drop-model-move" if _is_model(receiver, tree) else "drop-move"
            a, b = src.span(node)
            yield op, node, src.replace(a, b, src.seg(receiver))


def _assign_sites(src: _Source, tree: ast.AST) -> Iterator[tuple[str, ast.AST, str]]:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and _one_line(node)):
            continue
        target, value = node.targets[0], node.value
        pairs = (
            list(zip(target.elts, value.elts, strict=True))
            if isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
            else [(target, value)]
        )
        for i, (t, v) in enumerate(pairs):
            if not (isinstance(t, ast.Name) and _is_move(v)):
                continue
            recv = v.func.value  # type: ignore[attr-defined]
            if not (isinstance(recv, ast.Name) and recv.id == t.id):
                continue
            rest = [p for j, p in enumerate(pairs) if j != i]
            new = src.seg(v)
            if rest:
                lhs = ", ".join(src.seg(p[0]) for p in rest)
                rhs = ", ".join(src.seg(p[1]) for p in rest)
                new += f"; {lhs} = {rhs}"
            a, b = src.span(node)
            yield "drop-assign", v, src.replace(a, b, new)


def _keyword_sites(src: _Source, tree: ast.AST) -> Iterator[tuple[str, ast.AST, str]]:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        base = node.func.value
        if not (isinstance(base, ast.Name) and base.id == "torch"):
            continue
        if node.func.attr in _FACTORIES:
            new = _drop_keyword(src, node, "device")
            if new is not None:
                yield "drop-device-kw", node, new
        if node.func.attr == "load":
            new = _drop_keyword(src, node, "map_location")
            if new is not None:
                yield "drop-map-location", node, new


def _numpy_sites(src: _Source, tree: ast.AST) -> Iterator[tuple[str, ast.AST, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _terminal_name(node.func) == "numpy":
            for inner in ast.walk(node.func):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "cpu"
                ):
                    a, b = src.span(inner)
                    yield "drop-cpu-numpy", inner, src.replace(a, b, src.seg(inner.func.value))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and _one_line(node)):
            continue
        call = node.value
        constructor = isinstance(call, ast.Call) and _terminal_name(call.func)[:1].isupper()
        if isinstance(call, ast.Call) and not constructor and _is_model(call.func):
            target = node.targets[0]
            first = target.elts[0] if isinstance(target, ast.Tuple) else target
            if isinstance(first, ast.Name):
                code = f"_probe = {first.id}.detach().numpy()"
                yield "add-numpy", node, _append_to_line(src, node, code)


def _item_sites(src: _Source, tree: ast.AST) -> Iterator[tuple[str, ast.AST, str]]:
    seen: set[int] = set()
    for loop in _loops_with_backward(tree):
        for node in ast.walk(loop):
            if (
                isinstance(node, ast.Assign)
                and _one_line(node)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and "loss" in node.targets[0].id
                and isinstance(node.value, ast.Call)
                and node.lineno not in seen
            ):
                seen.add(node.lineno)
                code = f"_probe = {node.targets[0].id}.item()"
                yield "add-item", node, _append_to_line(src, node, code)


SITE_FINDERS: tuple[Callable[[_Source, ast.AST], Iterator[tuple[str, ast.AST, str]]], ...] = (
    _move_sites,
    _assign_sites,
    _keyword_sites,
    _numpy_sites,
    _item_sites,
)


def mutants(program: Program) -> list[Mutant]:
    """Every mutant of ``program``'s script, in the order of its lines."""
    path = PROGRAMS_DIR / program.directory / program.script
    text = path.read_text(encoding="utf-8")
    src, tree = _Source(text), ast.parse(text)
    lines = text.splitlines()
    out: dict[str, Mutant] = {}
    for finder in SITE_FINDERS:
        for op, node, new in finder(src, tree):
            if op == "drop-map-location" and program.plain_args is None:
                continue
            line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
            if new != text and new not in out:
                out[new] = Mutant(program, op, line, col, new, lines[line - 1], _to_host(node))
    return sorted(out.values(), key=lambda m: (m.line, m.col, m.op))


# -- running ---------------------------------------------------------------------------


@dataclass
class Run:
    rc: int
    stderr: str
    report: dict = field(default_factory=dict)
    timed_out: bool = False  #: killed after ``TIMEOUT_S``: says nothing of the mutant


#: the ``src`` directory whose ``ferry check`` is measured (``--check-src``); the oracle
#: always runs this checkout's library
CHECK_SRC = REPO / "src"


def _env(src: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    parts = [str(src or REPO / "src"), str(STUBS)]
    if env.get("PYTHONPATH"):
        parts.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env.pop("TORCHFERRY_DEVICE", None)
    return env


def _run(
    workdir: Path, script: str, args: Sequence[str], simulate: bool, trips: bool = False
) -> Run:
    report = workdir / ".ferry-report.json"
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "torchferry", "run", "--report", str(report)]
    if simulate:
        cmd += ["--simulate", "cuda"] + (["--trips"] if trips else [])
    cmd += [script, *args]
    try:
        proc = subprocess.run(
            cmd, cwd=workdir, capture_output=True, text=True, env=_env(), timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return Run(124, f"timed out after {TIMEOUT_S} s", timed_out=True)
    data = json.loads(report.read_text()) if report.exists() else {}
    return Run(proc.returncode, proc.stderr, data)


def _write_corpus(root: Path) -> None:
    words = [f"w{i}" for i in range(40)]
    for name, n in (("train.txt", 60), ("valid.txt", 12), ("test.txt", 12)):
        lines = [" ".join(words[(i * 7 + j * 3) % 40] for j in range(8)) for i in range(n)]
        (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_images(root: Path, count: int = 8, size: int = 12) -> None:
    """``count`` RGB images of ``size`` x ``size`` random pixels (seeded) as PNG files in
    ``root/0/``, the one class of an ``ImageFolder`` rooted at ``root``."""
    import numpy as np
    from PIL import Image

    folder = root / "0"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for i in range(count):
        pixels = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / f"{i}.png")


def _write_signs(root: Path, size: int = 64) -> None:
    """The SIGNS layout: in each of ``train_signs`` (12), ``val_signs`` and ``test_signs`` (6)
    under ``root``, ``size`` x ``size`` RGB JPEGs of random pixels (seeded) named
    ``LABEL_IMG_I.jpg``, the labels 0 to 5 in turn (the set's six signs)."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    for split, count in (("train_signs", 12), ("val_signs", 6), ("test_signs", 6)):
        folder = root / split
        folder.mkdir(parents=True)
        for i in range(count):
            pixels = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(folder / f"{i % 6}_IMG_{i}.jpg")


class Workspace:
    """A prepared copy of each program's directory (data and setup run once), copied
    again for every run so that no run sees another's files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seeds: dict[str, Path] = {}

    def seed(self, program: Program) -> Path:
        if program.name not in self.seeds:
            seed = self.root / "seed" / program.name.replace("/", "_")
            shutil.copytree(PROGRAMS_DIR / program.directory, seed)
            for folder in program.dirs:
                (seed / folder).mkdir(parents=True, exist_ok=True)
            if program.corpus:
                (seed / "corpus").mkdir()
                _write_corpus(seed / "corpus")
            if program.images is not None:
                _write_images(seed / program.images)
            if program.signs is not None:
                _write_signs(seed / program.signs)
            for path, text in program.files:
                (seed / path).parent.mkdir(parents=True, exist_ok=True)
                (seed / path).write_text(text, encoding="utf-8")
            for script, args in program.setup:
                run = _run(seed, script, args, simulate=True)
                if run.rc != 0:
                    raise SystemExit(
                        f"check_mutants: setup {script} of {program.name} failed:\n{run.stderr[-2000:]}"
                    )
            self.seeds[program.name] = seed
        return self.seeds[program.name]

    def copy(self, program: Program, tag: str, source: str | None = None) -> Path:
        dest = self.root / "runs" / tag
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(self.seed(program), dest)
        if source is not None:
            (dest / program.script).write_text(source, encoding="utf-8")
        return dest


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def sim_digest() -> str:
    """What the oracle depends on besides the mutant: the library outside ``check`` and
    the torch version."""
    h = hashlib.sha256()
    for p in sorted((REPO / "src" / "torchferry").rglob("*.py")):
        if "check" not in p.relative_to(REPO / "src" / "torchferry").parts[:1]:
            h.update(p.read_bytes())
    try:
        import torch

        h.update(torch.__version__.encode())
    except ImportError:  # pragma: no cover - the benchmark needs torch anyway
        pass
    return h.hexdigest()[:16]


@dataclass
class Verdict:
    confirmed: bool
    why: str  #: the error, the sync count, or why it is not confirmed
    frames: list[int]  #: lines of the script in the failing traceback
    #: the family the diagnosis gives the error the run ends with (the report's ``"kind"``);
    #: None where the run ends with no device error
    kind: Family | None = None

    def to_json(self) -> dict:
        """The cache's form of the verdict (every key, ``kind`` as the report writes it)."""
        kind = self.kind.value if self.kind is not None else None
        return {"confirmed": self.confirmed, "why": self.why, "frames": self.frames, "kind": kind}

    @classmethod
    def from_json(cls, data: dict) -> Verdict:
        kind = data["kind"]
        return cls(data["confirmed"], data["why"], list(data["frames"]), _family(kind))

    @property
    def timed_out(self) -> bool:
        """The run was killed after ``TIMEOUT_S`` (a loaded machine): no verdict to keep.
        Older caches recorded such a run as ``exit 124`` (the status ``_run`` gives it)."""
        return self.why.startswith((TIMED_OUT, "exit 124"))


#: how a verdict from a run killed after ``TIMEOUT_S`` begins; such a verdict is not cached
TIMED_OUT = "timed out"


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _frames(stderr: str, script: Path) -> list[int]:
    return [int(n) for p, n in _FRAME.findall(stderr) if Path(p).name == script.name]


def _timed_out() -> Verdict:
    return Verdict(False, f"{TIMED_OUT} after {TIMEOUT_S} s", [])


def _family(kind: object) -> Family | None:
    """The family a report's ``"kind"`` names; None for null or a kind this library lacks."""
    return next((f for f in Family if f.value == kind), None)


def _error(run: Run) -> dict:
    """The error the run's report holds ({} where it holds none)."""
    return run.report.get("error") or {}


def device_error(run: Run, script: Path) -> Verdict:
    """The verdict on a run under the simulation: confirmed when it ends with an error the
    diagnosis explains as a device error (its report gives the error a kind); an error of
    no kind (an AttributeError of ``.numpy()`` on a dict, which fails on every device) is
    the program's, not the device's."""
    err = _error(run)
    if run.rc == 0 or not err:
        return Verdict(False, "passes" if run.rc == 0 else f"exit {run.rc}, no error reported", [])
    what = f"{err.get('type')}: {str(err.get('message'))[:90]}"
    kind = _family(err.get("kind"))
    if kind is None:
        return Verdict(False, f"{what} (no device error)", _frames(run.stderr, script))
    return Verdict(True, what, _frames(run.stderr, script), kind)


def same_error(a: dict, b: dict) -> bool:
    """Two reports' errors are one: the same type at the same line of the same script."""
    where = ("type", "line")
    return all(a.get(k) == b.get(k) for k in where) and (
        Path(str(a.get("path"))).name == Path(str(b.get("path"))).name
    )


def on_the_cpu_too(verdict: Verdict, sim: Run, cpu: Run) -> Verdict:
    """A confirmed verdict stands unless the plain CPU run ends with the same error: an
    error that happens without the simulation is not the device's, whatever it is called."""
    if not verdict.confirmed or cpu.rc == 0 or not same_error(_error(sim), _error(cpu)):
        return verdict
    return Verdict(False, f"{verdict.why} (also on the plain CPU)", verdict.frames, verdict.kind)


def _deserialize_verdict(run: Run, script: Path) -> Verdict:
    """``drop-map-location``: loading on the plain CPU fails as a checkpoint saved on the
    GPU does (the diagnosis's ``checkpoint_map_location``)."""
    kind = _family(_error(run).get("kind"))
    bites = run.rc != 0 and kind is Family.CHECKPOINT_MAP_LOCATION
    why = "deserialize error on the CPU" if bites else f"exit {run.rc}"
    return Verdict(bites, why, _frames(run.stderr, script), kind)


def _sync_verdict(run: Run, m: Mutant, script: Path) -> Verdict:
    """``add-item``: the simulation counts a host sync at the added line on every step."""
    syncs = sum(
        t.get("count", 0)
        for t in run.report.get("trips", [])
        if Path(t.get("path", "")).name == script.name
        and t.get("line") == m.line
        and "sync" in str(t.get("kind", ""))
    )
    ok = run.rc == 0 and syncs >= 2
    return Verdict(ok, f"{syncs} host syncs at the line" if run.rc == 0 else f"exit {run.rc}", [])


def oracle(ws: Workspace, m: Mutant) -> Verdict:
    """Does the mistake bite on a GPU?"""
    tag = _digest(m.key, m.source)
    work = ws.copy(m.program, tag, m.source)
    script = work / m.program.script
    try:
        if m.op == "drop-map-location":
            assert m.program.plain_args is not None
            run = _run(work, m.program.runs, m.program.plain_args, simulate=False)
            return _timed_out() if run.timed_out else _deserialize_verdict(run, script)
        trips = m.op == "add-item"
        run = _run(work, m.program.runs, m.program.args, simulate=True, trips=trips)
        if run.timed_out:
            return _timed_out()
        if trips:
            return _sync_verdict(run, m, script)
        verdict = device_error(run, script)
        if not verdict.confirmed or m.program.plain_args is None:
            return verdict
        cpu = _run(ws.copy(m.program, tag, m.source), m.program.runs, m.program.plain_args,
                   simulate=False)  # fmt: skip
        return _timed_out() if cpu.timed_out else on_the_cpu_too(verdict, run, cpu)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def baseline_ok(ws: Workspace, program: Program) -> str | None:
    """None when the original passes under the simulation (and on the CPU with
    ``plain_args``), else why not."""
    work = ws.copy(program, "original-" + program.name.replace("/", "_"))
    try:
        run = _run(work, program.runs, program.args, simulate=True)
        if run.rc != 0:
            return f"fails under the simulation (exit {run.rc}):\n{run.stderr[-1500:]}"
        if program.plain_args is not None:
            run = _run(work, program.runs, program.plain_args, simulate=False)
            if run.rc != 0:
                return f"fails on the CPU (exit {run.rc}):\n{run.stderr[-1500:]}"
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def findings(ws: Workspace, m: Mutant, select: str | None) -> list[dict]:
    """``ferry check --format json`` on the program's directory with the mutant in place."""
    return _check(ws, m.program, m.key, m.source, select)


def original_findings(ws: Workspace, program: Program, select: str | None) -> list[dict]:
    """``ferry check --format json`` on the unmutated program (the same rules)."""
    return _check(ws, program, program.name + ":original", None, select)


def in_script(path: str, program: Program) -> bool:
    """Is a finding's ``path`` (relative to the program's directory) the mutated script,
    which may sit in a subfolder (``src/data.py``)?

    >>> p = Program("t", "t", "src/data.py", ())
    >>> in_script("src/data.py", p), in_script("./src/data.py", p), in_script("data.py", p)
    (True, True, False)
    """
    return os.path.normpath(path) == os.path.normpath(program.script)


def _check(
    ws: Workspace, program: Program, key: str, source: str | None, select: str | None
) -> list[dict]:
    work = ws.copy(program, "check-" + _digest(key, source or ""), source)
    try:
        cmd = [sys.executable, "-m", "torchferry", "check", ".", "--format", "json"]
        cmd += ["--exit-zero", "--no-cache"] + (["--select", select] if select else [])
        proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=_env(CHECK_SRC))
        if not proc.stdout.strip().startswith("["):
            raise SystemExit(f"check_mutants: ferry check failed for {key}:\n{proc.stderr[-1500:]}")
        return [f for f in json.loads(proc.stdout) if in_script(f["path"], program)]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the reverse direction: findings on lines the simulation ran without an error -------

#: rules whose findings claim a device error on some machine (not performance advice)
ERROR_RULES = frozenset({"FRY002", "FRY003", "FRY010", "FRY011", "FRY013", "FRY014"})

_TRACE = """
import json, os, sys, threading
script, out, entry = sys.argv[1], sys.argv[2], sys.argv[3]
target = os.path.realpath(script)
hits = set()
def tracer(frame, event, arg):
    if os.path.realpath(frame.f_code.co_filename) == target:
        if event == "line":
            hits.add(frame.f_lineno)
        return tracer
    return None
sys.settrace(tracer)
threading.settrace(tracer)
from torchferry.cli import main
try:
    rc = main(["run", "--simulate", "cuda", entry, *sys.argv[4:]])
except SystemExit as e:
    rc = e.code
finally:
    sys.settrace(None)
    json.dump(sorted(hits), open(out, "w"))
sys.exit(rc or 0)
"""


@dataclass
class Reverse:
    program: Program
    executed: set[int]
    findings: list[dict]  #: the error-rule findings of the original script

    @property
    def refuted(self) -> list[dict]:
        """Findings on lines the simulation executed without a device error: false for
        the path this run took (another path, other arguments, may still bite)."""
        return [f for f in self.findings if f["line"] in self.executed]


def reverse(ws: Workspace, program: Program, select: str | None) -> Reverse:
    work = ws.copy(program, "reverse-" + program.name.replace("/", "_"))
    try:
        out = work / ".ferry-lines.json"
        cmd = [sys.executable, "-c", _TRACE, program.script, str(out), program.runs, *program.args]
        proc = subprocess.run(
            cmd, cwd=work, capture_output=True, text=True, env=_env(), timeout=TIMEOUT_S
        )
        if proc.returncode != 0:
            raise SystemExit(
                f"check_mutants: {program.name} fails when traced:\n{proc.stderr[-1500:]}"
            )
        executed = set(json.loads(out.read_text()))
        cmd = [sys.executable, "-m", "torchferry", "check", ".", "--format", "json", "--exit-zero"]
        cmd += ["--no-cache"] + (["--select", select] if select else [])
        proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=_env(CHECK_SRC))
        found = [
            f
            for f in json.loads(proc.stdout)
            if in_script(f["path"], program) and f["code"] in ERROR_RULES
        ]
        return Reverse(program, executed, found)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- report ------------------------------------------------------------------------------


@dataclass
class Result:
    mutant: Mutant
    verdict: Verdict
    caught: bool = False  #: a finding of the operator's rules at the site or a frame
    caught_any: bool = False  #: any finding there
    codes: tuple[str, ...] = ()
    #: a finding of any rule there that the unmutated program (same rules) does not have
    caught_new: bool = False
    new_codes: tuple[str, ...] = ()


def score(result: Result, mutant_findings: Sequence[dict], original: Sequence[dict]) -> Result:
    """Score a confirmed mutant on ``ferry check``'s findings of the mutated program and of
    the original one, at the mutated line and the traceback's frames in the script.

    ``caught``: one of the operator's own rules reports there (or, for a dropped move to the
    CPU, FRY003: the mutant leaves a tensor on the device where the host reads it, the
    mistake of ``drop-cpu-numpy``, whose ``.cpu()`` is no move).  ``caught_new``: any rule
    reports there a finding the original does not have: a mutation keeps the line count, so
    a finding is new when the original has no finding of its rule on its line.
    """
    lines = {result.mutant.line, *result.verdict.frames}
    at = [f for f in mutant_findings if f["line"] in lines]
    before = {(f["code"], f["line"]) for f in original}
    new = [f for f in at if (f["code"], f["line"]) not in before]
    result.codes = tuple(sorted({f["code"] for f in at}))
    result.new_codes = tuple(sorted({f["code"] for f in new}))
    rules = OPERATORS[result.mutant.op].rules | (
        HOST_RULES if result.mutant.to_host else frozenset()
    )
    result.caught = bool(rules & set(result.codes))
    result.caught_any = bool(at)
    result.caught_new = bool(new)
    return result


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def table(results: Sequence[Result], caught: bool = True) -> str:
    """The per-mutation table; without ``caught``, only the mutants and the confirmed ones
    (for a run of the oracle alone)."""
    if not caught:
        return _oracle_table(results)
    per: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        c = per[r.mutant.op]
        c["mutants"] += 1
        if r.verdict.confirmed:
            c["confirmed"] += 1
            c["caught"] += r.caught
            c["any"] += r.caught_any
            c["new"] += r.caught_new
    rows = [
        "| mistake (mutation) | rules | mutants | bite on a GPU | caught | share "
        "| caught by any rule | new finding of any rule | share |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total: Counter = Counter()
    for name, op in OPERATORS.items():
        if name not in per:
            continue
        c = per[name]
        total.update(c)
        rules = ", ".join(sorted(op.rules))
        rows.append(
            f"| {op.what} | {rules} | {c['mutants']} | {c['confirmed']} | {c['caught']} | "
            f"{_pct(c['caught'], c['confirmed'])} | {_pct(c['any'], c['confirmed'])} | "
            f"{c['new']} | {_pct(c['new'], c['confirmed'])} |"
        )
    rows.append(
        f"| all | | {total['mutants']} | {total['confirmed']} | {total['caught']} | "
        f"{_pct(total['caught'], total['confirmed'])} | {_pct(total['any'], total['confirmed'])} | "
        f"{total['new']} | {_pct(total['new'], total['confirmed'])} |"
    )
    return "\n".join(rows)


def _oracle_table(results: Sequence[Result]) -> str:
    per: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        per[r.mutant.op]["mutants"] += 1
        per[r.mutant.op]["confirmed"] += r.verdict.confirmed
    rows = ["| mistake (mutation) | mutants | bite on a GPU |", "|---|---|---|"]
    total: Counter = Counter()
    for name, op in OPERATORS.items():
        if name in per:
            total.update(per[name])
            rows.append(f"| {op.what} | {per[name]['mutants']} | {per[name]['confirmed']} |")
    rows.append(f"| all | {total['mutants']} | {total['confirmed']} |")
    return "\n".join(rows)


def _load_cache(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


_SAVING = Lock()


def _save_cache(path: Path, entries: dict) -> None:
    """Add ``entries`` to the cache at ``path``: what another run wrote there since this one
    read it stays (the cache is shared), and the file is replaced whole, never half written."""
    with _SAVING:
        merged = _load_cache(path)
        merged.update(entries)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(merged, indent=0, sort_keys=True))


#: the operators whose oracle reads no error of the simulated run (the host syncs it counts):
#: the former oracle's verdicts on them hold as they are
_NO_ERROR_READ = frozenset({"add-item"})
#: operators whose oracle runs are the same (the simulated run of the mutated source): a
#: verdict cached under one holds for the same source under the other
_SAME_ORACLE = {"drop-move": "drop-model-move", "drop-model-move": "drop-move"}


def carried(legacy: object, op: str) -> Verdict | None:
    """The former oracle's verdict where it still holds, else None (run the oracle again).

    The former oracle confirmed any error the simulated run ended with; this one confirms
    only those of a device error's kind, so a mutant the former did not confirm stays
    unconfirmed (a run it saw killed after the time limit excepted).  A confirmed one is run
    again: the kind of its error was not kept.  ``drop-map-location`` now reads the error's
    kind too: run again."""
    if not isinstance(legacy, dict) or op == "drop-map-location":
        return None
    old = Verdict(
        bool(legacy.get("confirmed")), str(legacy.get("why")), list(legacy.get("frames", []))
    )
    if old.timed_out or (old.confirmed and op not in _NO_ERROR_READ):
        return None
    return old


def _cached(entry: object) -> Verdict | None:
    """A verdict of this oracle's cache; None for none or one without a kind (kept by an
    earlier format: not trusted, run again)."""
    if isinstance(entry, dict) and "kind" in entry:
        return Verdict.from_json(entry)
    return None


@dataclass
class _Verdicts:
    """The cache of verdicts a run reads and adds to, and the former oracle's it reads."""

    path: Path | None
    entries: dict
    legacy: dict
    carried: int = 0  #: verdicts taken over from ``legacy``

    @classmethod
    def load(cls, path: Path | None, legacy: Path | None) -> _Verdicts:
        return cls(path, _load_cache(path) if path else {}, _load_cache(legacy) if legacy else {})

    def passes(self, key: str) -> bool:
        return "passes" in (self.entries.get(key), self.legacy.get(key))

    def verdict(self, key: str, op: str) -> Verdict | None:
        found = _cached(self.entries.get(key))
        if found is None and (found := carried(self.legacy.get(key), op)) is not None:
            self.carried += 1
            self.keep(key, found)
        return found

    def keep(self, key: str, verdict: Verdict | str) -> None:
        """Record a verdict (or an original's ``"passes"``), written at once: a run stopped
        half way keeps what it found."""
        entry = verdict if isinstance(verdict, str) else verdict.to_json()
        self.entries[key] = entry
        if self.path is not None:
            _save_cache(self.path, {key: entry})


def evaluate(
    programs: Sequence[Program],
    ops: set[str],
    max_mutants: int | None,
    select: str | None,
    cache_path: Path | None,
    jobs: int,
    check: bool = True,
    legacy_path: Path | None = None,
) -> list[Result]:
    """The oracle's verdict on every mutant of ``programs`` and, with ``check``, whether
    ``ferry check`` reports a confirmed one.  ``legacy_path``: the former oracle's cache,
    whose verdicts that still hold (``carried``) are taken over."""
    cache = _Verdicts.load(cache_path, legacy_path)
    digest = sim_digest()
    with tempfile.TemporaryDirectory(prefix="ferry-mutants-") as tmp:
        ws = Workspace(Path(tmp))
        todo: list[Mutant] = []
        for program in programs:
            original = (PROGRAMS_DIR / program.directory / program.script).read_text()
            key = _digest(digest, program.name, "original", original, *program.keyed)
            if not cache.passes(key):
                why = baseline_ok(ws, program)
                if why is not None:
                    raise SystemExit(f"check_mutants: the original {program.name} {why}")
                cache.keep(key, "passes")
            ms = [m for m in mutants(program) if m.op in ops]
            todo += ms[:max_mutants] if max_mutants is not None else ms

        def judge(m: Mutant) -> Result:
            key = _digest(digest, m.program.name, m.op, m.source, *m.program.keyed)
            verdict = cache.verdict(key, m.op)
            if verdict is None and m.op in _SAME_ORACLE:  # kept under the other move's name
                other = _SAME_ORACLE[m.op]
                verdict = cache.verdict(_digest(digest, m.program.name, other, m.source,
                                                *m.program.keyed), other)  # fmt: skip
            if verdict is None or verdict.timed_out:  # a killed run is tried again
                verdict = oracle(ws, m)
                if not verdict.timed_out:
                    cache.keep(key, verdict)
            result = Result(m, verdict)
            if verdict.confirmed and check:
                score(result, findings(ws, m, select), originals[m.program.name])
            return result

        originals: dict[str, list[dict]] = {}
        for program in programs:  # seeds (setup runs) once, before the threads
            ws.seed(program)
            if check:
                originals[program.name] = original_findings(ws, program, select)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = list(pool.map(judge, todo))
    if cache.carried:
        print(
            f"check_mutants: {cache.carried} verdicts taken over from {legacy_path}: those it "
            "did not confirm (it counted any error, this oracle fewer) and the host-sync counts",
            file=sys.stderr,
        )
    return results


def reverse_mode(programs: Sequence[Program], select: str | None) -> int:
    rows = ["| program | lines executed | error-rule findings | on executed lines (refuted) |"]
    rows.append("|---|---|---|---|")
    refuted: list[tuple[Program, dict]] = []
    with tempfile.TemporaryDirectory(prefix="ferry-mutants-") as tmp:
        ws = Workspace(Path(tmp))
        for program in programs:
            r = reverse(ws, program, select)
            rows.append(
                f"| {program.name} | {len(r.executed)} | {len(r.findings)} | {len(r.refuted)} |"
            )
            refuted += [(program, f) for f in r.refuted]
    print("\n".join(rows))
    for program, f in refuted:
        print(f"  refuted: {program.name}:{f['line']}: {f['code']} {f['message'][:90]}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    names = [p.name for p in PROGRAMS]
    ap.add_argument(
        "--program", action="append", choices=names, help="only this program (repeatable)"
    )
    ap.add_argument(
        "--op", action="append", choices=list(OPERATORS), help="only this mutation (repeatable)"
    )
    ap.add_argument("--max-mutants", type=int, metavar="N", help="at most N mutants per program")
    ap.add_argument(
        "--select",
        help="rules for ferry check (default, or DEFAULT as check_corpus.py takes it: its default rule set)",
    )
    ap.add_argument("--jobs", "-j", type=int, default=2, help="runs in parallel (default 2)")
    ap.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help=f"oracle cache (default {DEFAULT_CACHE})"
    )
    ap.add_argument("--no-cache", action="store_true", help="run every oracle afresh, keep nothing")
    ap.add_argument(
        "--check-src",
        type=Path,
        metavar="DIR",
        help="measure the ferry check of another checkout's src directory (e.g. a worktree of "
        "a branch); the oracle runs this checkout's library",
    )
    which = ap.add_mutually_exclusive_group()
    which.add_argument(
        "--set",
        choices=BATCHES,
        default="original",
        help="this batch of programs (default: the original ones; --program names any)",
    )
    which.add_argument(
        "--held-out",
        dest="set",
        action="store_const",
        const="held-out",
        help="the first held-out batch (--set held-out)",
    )
    ap.add_argument(
        "--oracle-only",
        action="store_true",
        help="run only the simulation: count the mutants and the confirmed ones, no ferry check "
        "(prepares a batch's oracle cache without seeing what the rules catch)",
    )
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument(
        "--reverse",
        action="store_true",
        help="instead: run each original program under the simulation with a line tracer and "
        "list the error-claiming findings on lines it executed without a device error",
    )
    ap.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    ap.add_argument(
        "--export-programs",
        action="store_true",
        help="write the programs' files from --mirror into .corpus/mutants/programs, each "
        f"checked against {PROGRAMS_MANIFEST.name}, and exit",
    )
    ap.add_argument(
        "--mirror",
        type=Path,
        metavar="GIT_DIR",
        help="with --export-programs: GIT_DIR/OWNER+NAME is a clone or mirror of each repository",
    )
    args = ap.parse_args(argv)
    if args.select == "DEFAULT":
        args.select = None  # ferry check's own default set, as check_corpus.py reads it
    if args.export_programs:
        if args.mirror is None:
            ap.error("--export-programs needs --mirror GIT_DIR")
        for kind, paths in sorted(export_programs(args.mirror, PROGRAMS_DIR).items()):
            print(f"{kind}: {len(paths)}" + "".join(f"\n  {p}" for p in paths))
        return 0
    if args.max_mutants is not None and args.max_mutants < 1:
        ap.error("--max-mutants must be at least 1")
    if args.check_src is not None:
        if not (args.check_src / "torchferry" / "check").is_dir():
            ap.error(f"--check-src {args.check_src}: no torchferry/check package there")
        global CHECK_SRC
        CHECK_SRC = args.check_src.resolve()
    programs = [
        p for p in PROGRAMS if (p.name in args.program if args.program else p.batch == args.set)
    ]
    problems = programs_problems(directories={p.directory for p in programs})
    if problems:
        print("\n".join(f"check_mutants: {p}" for p in problems), file=sys.stderr)
        return 2
    ops = set(args.op or OPERATORS)
    if args.list:
        for p in programs:
            for m in mutants(p):
                if m.op in ops:
                    print(f"{m.key}: {m.before.strip()}")
        return 0
    if args.reverse:
        return reverse_mode(programs, args.select)
    results = evaluate(
        programs,
        ops,
        args.max_mutants,
        args.select,
        None if args.no_cache else args.cache,
        args.jobs,
        check=not args.oracle_only,
        legacy_path=None if args.no_cache else LEGACY_CACHE,
    )
    if args.oracle_only:
        print(f"mutation benchmark: {len(programs)} programs, the simulation only\n")
        print(table(results, caught=False))
        for r in results:
            if not r.verdict.confirmed:
                print(
                    f"  not confirmed: {r.mutant.key}: {r.mutant.before.strip()[:70]}  [{r.verdict.why}]"
                )
        return 0
    select = args.select or "the default rule set"
    where = f" of {CHECK_SRC}" if CHECK_SRC != REPO / "src" else ""
    print(f"mutation benchmark: {len(programs)} programs, ferry check{where} with {select}\n")
    print(table(results))
    missed = [r for r in results if r.verdict.confirmed and not r.caught]
    if missed:
        print("\nconfirmed and missed by the operator's rules:")
        for r in missed:
            got = f" (reported there: {', '.join(r.codes)})" if r.codes else ""
            if r.new_codes:
                got += f" (new there: {', '.join(r.new_codes)})"
            print(f"  {r.mutant.key}: {r.mutant.before.strip()[:80]}  [{r.verdict.why}]{got}")
    unconfirmed = Counter(r.mutant.op for r in results if not r.verdict.confirmed)
    if unconfirmed:
        print("\nnot confirmed by the simulation (the mistake does not bite there): "
              + ", ".join(f"{op} {n}" for op, n in sorted(unconfirmed.items())))  # fmt: skip
    if args.json:
        out = [
            {
                "mutant": r.mutant.key,
                "op": r.mutant.op,
                "line": r.mutant.line,
                "before": r.mutant.before,
                "confirmed": r.verdict.confirmed,
                "why": r.verdict.why,
                "kind": r.verdict.kind.value if r.verdict.kind is not None else None,
                "caught": r.caught,
                "caught_any": r.caught_any,
                "caught_new": r.caught_new,
                "new_codes": list(r.new_codes),
                "codes": list(r.codes),
            }
            for r in results
        ]
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
