"""benchmarks/check_mutants.py: the mutation sites, the span edits that keep every other
byte, and one oracle run on the simulated GPU."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tarfile
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "check_mutants", REPO / "benchmarks" / "check_mutants.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_mutants"] = mod
    spec.loader.exec_module(mod)
    return mod


cm = _load()
SOURCE = REPO / "tests" / "check" / "mutants" / "SOURCE.md"

SCRIPT = """\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
ckpt = torch.load("w.pt", map_location=device)
for step in range(3):
    x, y = torch.randn(8, 4).to(device), torch.zeros(8, dtype=torch.long).to(device)
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    mask = torch.ones(8, device=device)
    x = x.to(device)
    print(out.detach().cpu().numpy().shape, x.to(torch.float16).dtype)
"""


def _sites(text: str) -> dict[str, list[str]]:
    src, tree = cm._Source(text), ast.parse(text)
    out: dict[str, list[str]] = {}
    for finder in cm.SITE_FINDERS:
        for op, _node, new in finder(src, tree):
            out.setdefault(op, []).append(new)
    return out


def _changed(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), "a mutation keeps the line count"
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_every_operator_finds_its_site_and_changes_only_that_line() -> None:
    sites = _sites(SCRIPT)
    assert set(sites) == set(cm.OPERATORS)
    expect = {
        "drop-model-move": ("model = nn.Linear(4, 2).to(device)", "model = nn.Linear(4, 2)"),
        "drop-map-location": (
            'ckpt = torch.load("w.pt", map_location=device)',
            'ckpt = torch.load("w.pt")',
        ),
        "drop-device-kw": (
            "    mask = torch.ones(8, device=device)",
            "    mask = torch.ones(8)",
        ),
        "drop-cpu-numpy": (
            "    print(out.detach().cpu().numpy().shape, x.to(torch.float16).dtype)",
            "    print(out.detach().numpy().shape, x.to(torch.float16).dtype)",
        ),
        "add-numpy": ("    out = model(x)", "    out = model(x); _probe = out.detach().numpy()"),
        "add-item": (
            "    loss = nn.functional.cross_entropy(out, y)",
            "    loss = nn.functional.cross_entropy(out, y); _probe = loss.item()",
        ),
    }
    for op, (before, after) in expect.items():
        assert [_changed(SCRIPT, new) for new in sites[op]] == [[(before, after)]], op


def test_moves_of_tensors_and_their_assignments_are_dropped_one_at_a_time() -> None:
    sites = _sites(SCRIPT)
    line = "    x, y = torch.randn(8, 4).to(device), torch.zeros(8, dtype=torch.long).to(device)"
    moves = sorted(after for new in sites["drop-move"] for _, after in _changed(SCRIPT, new))
    assert moves == sorted(
        [
            "    x, y = torch.randn(8, 4), torch.zeros(8, dtype=torch.long).to(device)",
            "    x, y = torch.randn(8, 4).to(device), torch.zeros(8, dtype=torch.long)",
            "    x = x",
        ]
    ), "a dtype cast (.to(torch.float16)) is not a move"
    assigns = [after for new in sites["drop-assign"] for _, after in _changed(SCRIPT, new)]
    assert assigns == ["    x.to(device)"], "only a name moved onto itself loses its assignment"
    assert line in SCRIPT


def test_a_move_is_a_model_s_or_a_tensor_s_by_what_the_file_constructs() -> None:
    text = (
        "import torch\n"
        "import torch.nn as nn\n"
        "from torch.autograd import Variable\n"
        "from model import MLP\n"
        "y = Variable(y).cuda() if cuda else Variable(y)\n"
        "z = Variable(torch.zeros(1)).cuda()\n"
        "w = nn.Parameter(torch.ones(2)).cuda()\n"
        "t = torch.autograd.Variable(t).cuda()\n"
        "mlp = MLP(4).cuda()\n"
        "lin = nn.Linear(4, 2).cuda()\n"
        "d_net = MLP(4).train().to(device)\n"
        "mlp2 = MLP(4)\n"
        "mlp2.cuda()\n"
        "h = torch.zeros(2).float().cuda()\n"
    )
    ops = {}
    for op, node, _new in cm._move_sites(cm._Source(text), ast.parse(text)):
        ops[node.lineno] = op
    assert ops == {
        5: "drop-move",
        6: "drop-move",
        7: "drop-move",
        8: "drop-move",
        9: "drop-model-move",
        10: "drop-model-move",
        11: "drop-model-move",
        13: "drop-model-move",
        14: "drop-move",
    }


def test_a_dropped_move_to_the_cpu_is_credited_to_the_numpy_rule_too() -> None:
    program = cm.Program("t", "t", "t.py", ())
    text = "import torch\nx = torch.ones(2).cuda()\na = x.to('cpu').numpy()\nb = x.to(dev)\n"
    src, tree = cm._Source(text), ast.parse(text)
    moves = {src.seg(n): n for n in ast.walk(tree) if cm._is_move(n)}
    assert {s: cm._to_host(n) for s, n in moves.items()} == {
        "torch.ones(2).cuda()": False,
        "x.to('cpu')": True,
        "x.to(dev)": False,
    }
    found = [{"code": "FRY003", "line": 3}]
    for to_host, caught in ((True, True), (False, False)):
        m = cm.Mutant(program, "drop-move", 3, 4, text, "", to_host)
        result = cm.score(cm.Result(m, cm.Verdict(True, "TypeError", [])), found, [])
        assert (result.caught, result.caught_any) == (caught, True)


def _programs_here() -> None:
    """Skip, naming the rebuild, where the programs' files are absent or changed."""
    problems = cm.programs_problems()
    if problems:
        pytest.skip(problems[0])


def test_the_program_list_has_sites_and_licensed_sources() -> None:
    _programs_here()
    assert (cm.PROGRAMS_DIR / "LICENSE").read_text().startswith("BSD 3-Clause License")
    for program in cm.PROGRAMS:
        ms = cm.mutants(program)
        assert ms, program.name
        keys = [m.key for m in ms]
        assert len(keys) == len(set(keys))
        for m in ms:
            compile(m.source, m.key, "exec")


def _chosen(monkeypatch: pytest.MonkeyPatch, *argvs: list[str]) -> list[list[str]]:
    """The programs ``main`` hands to ``evaluate`` for each argument list."""
    chosen: list[list[str]] = []

    def fake_evaluate(programs, *args, **kwargs):
        chosen.append([p.name for p in programs])
        return []

    monkeypatch.setattr(cm, "evaluate", fake_evaluate)
    monkeypatch.setattr(cm, "programs_problems", lambda **kw: [])  # selection needs no file
    for argv in argvs:
        cm.main(argv)
    return chosen


def test_held_out_programs_run_only_when_asked_and_are_copied_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held_out = [p for p in cm.PROGRAMS if p.held_out]
    assert len(held_out) >= 3 and len(held_out) < len(cm.PROGRAMS)
    assert {p.batch for p in cm.PROGRAMS} == set(cm.BATCHES)
    source = SOURCE.read_text()
    for program in held_out:
        assert f"`{program.directory}/" in source, f"{program.name}: its origin is not recorded"
    chosen = _chosen(
        monkeypatch,
        [],
        ["--held-out"],
        ["--set", "held-out"],
        ["--set", "jetty"],
        ["--set", "berth"],
        ["--set", "cove"],
        ["--set", "reef"],
        ["--set", "shoal"],
        ["--set", "strait"],
        ["--set", "inlet"],
        ["--set", "fjord"],
        ["--set", "sound"],
        ["--set", "bay"],
        ["--set", "lagoon"],
        ["--set", "delta"],
        ["--set", "estuary"],
        ["--set", "harbor"],
        ["--set", "marsh"],
        ["--set", "cape"],
        ["--set", "moor"],
        ["--set", "creek"],
        ["--set", "bight"],
        ["--set", "brook"],
    )
    assert chosen[0] == [p.name for p in cm.PROGRAMS if not p.held_out]
    assert chosen[1] == chosen[2] == [p.name for p in cm.PROGRAMS if p.batch == "held-out"]
    assert chosen[3] == [p.name for p in cm.PROGRAMS if p.batch == "jetty"]
    assert chosen[4] == [p.name for p in cm.PROGRAMS if p.batch == "berth"]
    assert set(chosen[3]).isdisjoint(chosen[0] + chosen[1])
    assert set(chosen[4]).isdisjoint(chosen[0] + chosen[1] + chosen[3])
    assert chosen[5] == [p.name for p in cm.PROGRAMS if p.batch == "cove"]
    assert set(chosen[5]).isdisjoint(chosen[0] + chosen[1] + chosen[3] + chosen[4])
    assert chosen[6] == [p.name for p in cm.PROGRAMS if p.batch == "reef"]
    assert set(chosen[6]).isdisjoint(chosen[0] + chosen[1] + chosen[3] + chosen[4] + chosen[5])
    assert chosen[7] == [p.name for p in cm.PROGRAMS if p.batch == "shoal"]
    assert set(chosen[7]).isdisjoint(sum((chosen[i] for i in (0, 1, 3, 4, 5, 6)), []))
    assert chosen[8] == [p.name for p in cm.PROGRAMS if p.batch == "strait"]
    assert set(chosen[8]).isdisjoint(sum((chosen[i] for i in (0, 1, 3, 4, 5, 6, 7)), []))
    assert chosen[9] == [p.name for p in cm.PROGRAMS if p.batch == "inlet"]
    assert set(chosen[9]).isdisjoint(sum((chosen[i] for i in (0, 1, 3, 4, 5, 6, 7, 8)), []))
    assert chosen[10] == [p.name for p in cm.PROGRAMS if p.batch == "fjord"]
    assert set(chosen[10]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 10))), []))
    assert chosen[11] == [p.name for p in cm.PROGRAMS if p.batch == "sound"]
    assert set(chosen[11]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 11))), []))
    assert chosen[12] == [p.name for p in cm.PROGRAMS if p.batch == "bay"]
    assert set(chosen[12]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 12))), []))
    assert chosen[13] == [p.name for p in cm.PROGRAMS if p.batch == "lagoon"]
    assert set(chosen[13]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 13))), []))
    assert chosen[14] == [p.name for p in cm.PROGRAMS if p.batch == "delta"]
    assert set(chosen[14]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 14))), []))
    assert chosen[15] == [p.name for p in cm.PROGRAMS if p.batch == "estuary"]
    assert set(chosen[15]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 15))), []))
    assert chosen[16] == [p.name for p in cm.PROGRAMS if p.batch == "harbor"]
    assert set(chosen[16]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 16))), []))
    assert chosen[17] == [p.name for p in cm.PROGRAMS if p.batch == "marsh"]
    assert set(chosen[17]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 17))), []))
    assert chosen[18] == [p.name for p in cm.PROGRAMS if p.batch == "cape"]
    assert set(chosen[18]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 18))), []))
    assert chosen[19] == [p.name for p in cm.PROGRAMS if p.batch == "moor"]
    assert set(chosen[19]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 19))), []))
    assert chosen[20] == [p.name for p in cm.PROGRAMS if p.batch == "creek"]
    assert set(chosen[20]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 20))), []))
    assert chosen[21] == [p.name for p in cm.PROGRAMS if p.batch == "bight"]
    assert set(chosen[21]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 21))), []))
    assert chosen[22] == [p.name for p in cm.PROGRAMS if p.batch == "brook"]
    assert set(chosen[22]).isdisjoint(sum((chosen[i] for i in (0, 1, *range(3, 22))), []))
    with pytest.raises(SystemExit) as exc:
        cm.main(["--held-out", "--set", "jetty"])
    assert exc.value.code == 2


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@pytest.mark.parametrize(
    ("batch", "least"),
    [
        ("jetty", 4),
        ("berth", 4),
        ("cove", 1),
        ("reef", 3),
        ("shoal", 3),
        ("strait", 4),
        ("inlet", 4),
        ("fjord", 4),
        ("sound", 4),
        ("bay", 5),
        ("lagoon", 6),
        ("delta", 6),
        ("estuary", 7),
        ("harbor", 6),
        ("marsh", 10),
        ("cape", 6),
        ("moor", 6),
        ("creek", 8),
        ("bight", 4),
        ("brook", 6),
    ],
)
def test_the_later_batches_have_their_upstream_blob_ids(batch: str, least: int) -> None:
    source = SOURCE.read_text()
    recorded = dict(re.findall(r"^\| `([\w/]+\.py)` \| `([0-9a-f]{40})` \|$", source, re.M))
    programs = [p for p in cm.PROGRAMS if p.batch == batch]
    assert len(programs) >= least
    for program in programs:
        assert f"{program.directory}/{program.script}" in recorded, program.name
        assert f"{program.directory}/{program.runs}" in recorded, program.name
    pinned = {f.path: f.blob for f in cm.program_files()}
    for name, blob in recorded.items():
        assert pinned[name] == blob, f"{name}: the manifest and SOURCE.md disagree"
    if not cm.programs_problems():
        for name, blob in recorded.items():
            assert _blob_id((cm.PROGRAMS_DIR / name).read_bytes()) == blob, f"{name} was edited"


def test_the_manifest_pins_every_program_and_its_license() -> None:
    files = {f.path: f for f in cm.program_files()}
    for program in cm.PROGRAMS:
        assert f"{program.directory}/{program.script}" in files, program.name
        license = f"{program.directory}/LICENSE"
        assert (
            license in files
            or files["LICENSE"].repository
            == files[f"{program.directory}/{program.script}"].repository
        ), program.name
    for f in files.values():
        assert re.fullmatch(r"[0-9a-f]{40}", f.commit) and re.fullmatch(r"[0-9a-f]{64}", f.sha256)
        assert (
            f"`{f.path}`" in SOURCE.read_text()
            or f.path.endswith("LICENSE")
            or (f.repository == "pytorch/examples")
        ), f.path


def test_a_missing_program_stops_the_run_with_the_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cm, "PROGRAMS_DIR", tmp_path / "absent")
    assert cm.main(["--list"]) == 2
    assert "--export-programs --mirror" in capsys.readouterr().err


def test_a_run_needs_the_files_of_the_programs_it_selects_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"LICENSE": b"shared\n", "a/train.py": b"print('a')\n", "b/main.py": b"print('b')\n"}
    manifest = tmp_path / "programs.toml"
    manifest.write_text(
        "".join(
            f'[[file]]\npath = "{path}"\nrepository = "o/n"\ncommit = "{"0" * 40}"\n'
            f'source = "{path}"\nblob = "{_blob_id(data)}"\n'
            f'sha256 = "{hashlib.sha256(data).hexdigest()}"\n\n'
            for path, data in files.items()
        )
    )
    monkeypatch.setattr(cm, "PROGRAMS_MANIFEST", manifest)
    root = tmp_path / "programs"
    (root / "a").mkdir(parents=True)
    for path in ("LICENSE", "a/train.py"):
        (root / path).write_bytes(files[path])
    assert cm.programs_problems(root, directories={"a"}) == []
    assert cm.programs_problems(root) == [f"{root / 'b' / 'main.py'}: missing"]
    assert cm.programs_problems(root, directories={"b"}) == [f"{root / 'b' / 'main.py'}: missing"]
    (root / "LICENSE").write_bytes(b"edited\n")  # a shared file counts for every selection
    assert cm.programs_problems(root, directories={"a"}) == [
        f"{root / 'LICENSE'}: differs from programs.toml"
    ]


def test_the_programs_are_exported_from_a_clone_with_a_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "mirror" / "owner+name" / "repo"
    clone.mkdir(parents=True)
    (clone / "train.py").write_text("print('train')\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(clone)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "train.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "train"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    data = (clone / "train.py").read_bytes()
    manifest = tmp_path / "programs.toml"
    manifest.write_text(
        f'[[file]]\npath = "p/train.py"\nrepository = "owner/name"\ncommit = "{commit}"\n'
        f'source = "train.py"\nblob = "{_blob_id(data)}"\n'
        f'sha256 = "{hashlib.sha256(data).hexdigest()}"\n'
    )
    monkeypatch.setattr(cm, "PROGRAMS_MANIFEST", manifest)
    out = tmp_path / "programs"
    assert cm.export_programs(tmp_path / "mirror", out) == {"written": ["p/train.py"]}
    assert (out / "p" / "train.py").read_bytes() == data
    assert cm.export_programs(tmp_path / "mirror", out) == {"present": ["p/train.py"]}
    assert cm.export_programs(tmp_path / "absent", tmp_path / "other") == {
        "no mirror": ["p/train.py"]
    }


def test_programs_from_other_repositories_carry_their_license() -> None:
    """The berth, cove, reef, shoal, strait, inlet, fjord, sound, bay, lagoon, delta, estuary,
    harbor, marsh, cape, moor, creek, bight and brook programs come from other repositories than pytorch/examples (whose
    license is ``LICENSE`` of the programs' folder), or, for inlet's and fjord's, some of them:
    each folder holds its own (an MIT or BSD license, or for bay's ``cutout`` the Educational
    Community License 2.0)."""
    _programs_here()
    later = (
        "berth", "cove", "reef", "shoal", "strait", "inlet", "fjord", "sound", "bay", "lagoon",
        "delta", "estuary", "harbor", "marsh", "cape", "moor", "creek", "bight", "brook",
    )  # fmt: skip
    for program in (p for p in cm.PROGRAMS if p.batch in later):
        text = (cm.PROGRAMS_DIR / program.directory / "LICENSE").read_text()
        if text.startswith("Educational Community License, Version 2.0 (ECL-2.0)\n"):
            assert "a perpetual, worldwide, non-exclusive" in text, program.name
            continue
        licenses = (
            "BSD 3-Clause License\n", "BSD 2-Clause License\n", "MIT License\n",
            "The MIT License (MIT)\n",
        )  # fmt: skip
        assert text.startswith((*licenses, "Copyright (c)")), program.name
        assert "Copyright (c)" in text, program.name
        assert "Permission is hereby granted" in text or "Redistribution and use" in text


def _stub(name: str) -> types.ModuleType:
    path = cm.STUBS / name / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        f"stub_{name}", path, submodule_search_locations=[str(path.parent)]
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_download_stand_ins_serve_only_the_programs_data() -> None:
    requests = _stub("requests")
    with requests.get(requests.CORA_URL, stream=True) as resp:
        with tarfile.open(fileobj=resp.raw, mode="r:gz") as tar:
            files = {m.name: tar.extractfile(m).read().decode() for m in tar}  # type: ignore[union-attr]
    content = files["cora/cora.content"].splitlines()
    assert len(content) == requests.NODES
    assert len(content[0].split("\t")) == requests.FEATURES + 2
    ids = {line.split("\t")[0] for line in content}
    for cite in files["cora/cora.cites"].splitlines():
        assert set(cite.split("\t")) <= ids, "a citation names a paper that is not there"
    with pytest.raises(ConnectionError, match="serves only"):
        requests.get("https://example.com/other.tgz")
    six = _stub("six")
    with tarfile.open(fileobj=six.moves.urllib.request.urlopen(six.moves.BSDS_URL)) as tar:
        names = sorted(tar.getnames())
    assert names[0].startswith("BSDS300/images/test/") and len(names) == 6
    with pytest.raises(ConnectionError, match="serves only"):
        six.moves.urllib.request.urlopen("http://example.com/x.tgz")
    opener = six.moves.urllib.request.build_opener()
    opener.addheaders = [("User-agent", "Mozilla/5.0")]
    assert six.moves.urllib.request.install_opener(opener) is None
    with pytest.raises(ConnectionError, match="serves only"):
        opener.open("http://example.com/x.tgz")


def test_the_gym_stand_in_runs_episodes_of_a_fixed_length_with_the_older_api() -> None:
    gym = _stub("gym")
    env = gym.make("Any-v0")
    assert env.seed(3) == [3] and env.action_space.seed(3) == [3]
    assert env.observation_space.shape == (3,) and env.action_space.shape == (1,)
    assert float(env.action_space.high[0]) == 2.0 and env._max_episode_steps == gym.EPISODE_STEPS
    state, steps, done = env.reset(), 0, False
    assert state.shape == (3,)
    while not done:
        action = env.action_space.sample()
        assert -2.0 <= float(action[0]) <= 2.0
        state, reward, done, info = env.step(action)
        steps += 1
        assert reward <= 0.0 and info == {}
    assert steps == gym.EPISODE_STEPS
    again = gym.make("Any-v0")
    again.seed(3)
    first = again.reset()
    env.seed(3)
    assert (env.reset() == first).all()  # seeded episodes start alike


def test_the_gym_stand_in_wraps_an_environment_and_keeps_a_log_level() -> None:
    gym = _stub("gym")
    gym.logger.set_level(40)
    assert gym.logger.level == 40

    class Scaled(gym.Wrapper):
        def step(self, action):
            return self.env.step(action * 2.0)

    inner = gym.make("Any-v0")
    env = Scaled(inner)
    assert env.action_space is inner.action_space and env._max_episode_steps == gym.EPISODE_STEPS
    assert env.seed(1) == [1] and env.reset().shape == (3,)
    state, reward, done, info = env.step(env.action_space.sample() / 2.0)
    assert state.shape == (3,) and not done and info == {}
    with pytest.raises(AttributeError):
        env.render_nothing  # noqa: B018 (an attribute neither defines)
    pybulletgym = _stub("pybulletgym")  # imported for its registrations: there are none
    assert [n for n in vars(pybulletgym) if not n.startswith("__")] == []
    pybullet_envs = _stub("pybullet_envs")
    assert [n for n in vars(pybullet_envs) if not n.startswith("__")] == []


def test_a_program_s_folders_are_made_in_its_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that writes into folders it does not make (Cutout's ``logs`` and
    ``checkpoints``) gets them in its copy, and nothing else changes."""
    programs = tmp_path / "programs"
    (programs / "p").mkdir(parents=True)
    (programs / "p" / "train.py").write_text("print('train')\n")
    monkeypatch.setattr(cm, "PROGRAMS_DIR", programs)
    program = cm.Program("p", "p", "train.py", (), batch="bay", dirs=("logs", "checkpoints"))
    seed = cm.Workspace(tmp_path / "work").seed(program)
    assert sorted(e.name for e in seed.iterdir()) == ["checkpoints", "logs", "train.py"]
    assert not any((seed / "logs").iterdir()) and not (programs / "p" / "logs").exists()


def test_summary_writer_runs_on_the_tensorboard_stand_in_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """torch's ``SummaryWriter`` needs tensorboard and protobuf; with the stand-in it is made,
    written to and flushed, and leaves no file but its empty log directory, which tensorboard's
    writer makes too (a process of its own: the stand-in adds an import finder)."""
    code = (
        "import torch\n"
        "from torch.utils.tensorboard import SummaryWriter\n"
        "w = SummaryWriter(log_dir='logs')\n"
        "w.add_scalar('Loss/train', 1.5, 3)\n"
        "w.add_scalar('Loss/test', torch.tensor(2.0), 3)\n"
        "w.flush()\n"
        "w.close()\n"
        "import tensorboard.anything.at_all as m\n"
        "print(type(m.Name(1, k=2).attr[0]).__name__)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(cm.STUBS))
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["Anything"]
    assert list(tmp_path.iterdir()) == [tmp_path / "logs"]
    assert list((tmp_path / "logs").iterdir()) == []


def _submodule(package: types.ModuleType, name: str) -> types.ModuleType:
    return importlib.import_module(f"{package.__name__}.{name}")


def test_the_torchtext_stand_in_tokenizes_builds_a_vocabulary_and_serves_multi30k() -> None:
    torchtext = _stub("torchtext")
    datasets = _submodule(torchtext, "datasets")
    vocab = _submodule(torchtext, "vocab")
    tokenize = _submodule(torchtext, "data.utils").get_tokenizer("spacy", "de")
    assert tokenize("ein mann sitzt") == ["ein", "mann", "sitzt"]
    datasets.multi30k.URL["train"] = "https://example.com/training.tar.gz"  # set, never read
    train = datasets.Multi30k(split="train", language_pair=("de", "en"))
    valid, test = datasets.Multi30k(split=("valid", "test"), language_pair=("de", "en"))
    assert len(train) == 24 and len(valid) == len(test) == 8
    assert list(train) == list(train)  # read more than once, as the program does
    assert all(de.endswith("\n") and en.endswith("\n") for de, en in train)
    specials = ["<unk>", "<pad>", "<bos>", "<eos>"]
    v = vocab.build_vocab_from_iterator(
        (tokenize(de) for de, _ in train), min_freq=1, specials=specials, special_first=True
    )
    assert v.lookup_tokens([0, 1, 2, 3]) == specials and len(v) > len(specials)
    words = tokenize(train[0][0])
    assert v.lookup_tokens(v(words)) == words
    with pytest.raises(RuntimeError):
        v(["unknown"])
    v.set_default_index(0)
    assert v(["unknown"]) == [0]


def test_the_torchtext_stand_in_has_the_legacy_fields_datasets_and_bucket_iterator() -> None:
    import torch

    torchtext = _stub("torchtext")
    data, datasets = _submodule(torchtext, "data"), _submodule(torchtext, "datasets")
    text = data.Field(sequential=True, batch_first=True, lower=True)
    label = data.Field(sequential=False, batch_first=True)
    train, test = datasets.IMDB.splits(text, label)
    assert (len(train), len(test)) == (40, 16)
    text.build_vocab(train, min_freq=5)
    label.build_vocab(train)
    assert label.vocab.lookup_tokens([0, 1, 2]) == ["<unk>", "neg", "pos"]
    train, valid = train.split(split_ratio=0.8)
    assert (len(train), len(valid)) == (32, 8)
    iters = data.BucketIterator.splits((train, valid, test), batch_size=12, shuffle=True)
    assert [len(i) for i in iters] == [3, 1, 2] and iters[1].dataset is valid
    batches = list(iters[0])
    assert [b.batch_size for b in batches] == [12, 12, 8]
    first = batches[0]
    assert first.text.dtype == first.label.dtype == torch.long
    assert first.text.shape[0] == 12 and first.label.shape == (12,)
    assert set(first.label.tolist()) <= {1, 2}  # the labels' indices, after <unk>


def test_the_legacy_multi30k_splits_frame_and_measure_the_sentences_of_a_tokenizer() -> None:
    torchtext, spacy = _stub("torchtext"), _stub("spacy")
    data, datasets = _submodule(torchtext, "data"), _submodule(torchtext, "datasets")
    german = spacy.load("de")
    assert [t.text for t in german.tokenizer("ein mann  sitzt")] == ["ein", "mann", "sitzt"]

    def tokenize(text: str) -> list[str]:
        return [t.text for t in german.tokenizer(text)]

    src = data.Field(tokenize=tokenize, include_lengths=True, init_token="<sos>", eos_token="<eos>")
    trg = data.Field(
        tokenize=str.split, include_lengths=True, init_token="<sos>", eos_token="<eos>"
    )
    train, valid, test = datasets.Multi30k.splits(exts=(".de", ".en"), fields=(src, trg))
    assert (len(train), len(valid), len(test)) == (24, 8, 8)
    assert train.examples[0].src == tokenize(datasets.Multi30k(split="train")[0][0])
    src.build_vocab(train.src, min_freq=2)  # a column of the dataset, as the legacy API reads it
    trg.build_vocab(train.trg, max_size=3)
    assert src.vocab.itos[:4] == ["<unk>", "<pad>", "<sos>", "<eos>"]
    assert len(trg.vocab) == 4 + 3 and trg.vocab.stoi["<pad>"] == 1
    with pytest.raises(AttributeError):
        train.absent  # noqa: B018 - only the fields are columns
    (batch,) = data.BucketIterator.splits((test,), batch_size=8, repeat=False)
    first = next(iter(batch))
    tokens, lengths = first.src
    assert tokens.shape == (int(lengths.max()), 8)  # time first, as without batch_first
    assert tokens[0].tolist() == [src.vocab.stoi["<sos>"]] * 8
    lengths_seen = [len(e.src) + 2 for e in test.examples]
    assert lengths.tolist() == lengths_seen


def test_the_sklearn_stand_in_imports_its_metrics() -> None:
    sklearn = _stub("sklearn")
    assert sklearn.metrics.accuracy_score([1, 0, 1, 1], [1, 1, 1, 0]) == 0.5
    assert sklearn.metrics.accuracy_score([], []) == 0.0


def test_the_atari_stand_in_ends_its_game_and_cv2_resizes_to_width_and_height() -> None:
    atari_py, cv2 = _stub("atari_py"), _stub("cv2")
    assert "space_invaders" in atari_py.list_games()
    ale = atari_py.ALEInterface()
    ale.setInt("random_seed", 3)
    ale.setBool("color_averaging", False)
    ale.loadROM(atari_py.get_game_path("space_invaders"))
    actions = list(ale.getMinimalActionSet())
    assert actions == [0, 1, 2, 3] and ale.lives() == 3
    screen = ale.getScreenGrayscale()
    assert screen.shape == (210, 160) and str(screen.dtype) == "uint8"
    assert ale.getScreenRGB().shape == (210, 160, 3)
    rewards = []
    while not ale.game_over():
        rewards.append(ale.act(1))
    assert len(rewards) == atari_py.EPISODE_FRAMES and set(rewards) == {0, 1}
    ale.reset_game()
    assert not ale.game_over()
    small = cv2.resize(screen, (84, 42), interpolation=cv2.INTER_LINEAR)
    assert small.shape == (42, 84) and small[0, 0] == screen[0, 0]
    assert cv2.imshow("screen", screen) is None and cv2.waitKey(1) == -1


def test_the_plotly_stand_in_writes_nothing_and_trange_is_a_range(tmp_path: Path) -> None:
    plotly = _stub("plotly")
    graph_objs = plotly.graph_objs
    trace = graph_objs.Scatter(x=[1, 2], y=[3, 4], line=graph_objs.scatter.Line(color="red"))
    assert trace["x"] == [1, 2] and trace["line"] == {"color": "red"}
    target = tmp_path / "Reward.html"
    assert plotly.offline.plot({"data": [trace]}, filename=str(target), auto_open=False)
    assert not target.exists()
    assert list(_stub("tqdm").trange(1, 4)) == [1, 2, 3]


def test_the_mnist_stand_ins_say_their_split_and_tqdm_passes_the_iterable_through() -> None:
    datasets = _stub("torchvision").datasets
    train, test = datasets.MNIST("d", train=True), datasets.MNIST("d", train=False)
    assert (train.train, test.train) == (True, False)
    fashion = datasets.FashionMNIST("d", train=True)
    assert fashion.train and len(fashion) == len(train)
    assert fashion.data.shape == train.data.shape and not bool((fashion.data == train.data).all())
    assert test.test_data is test.data and test.test_labels is test.targets  # older names
    assert train.train_data is train.data and train.train_labels is train.targets
    items = [1, 2, 3]
    bar = _stub("tqdm").tqdm(items, desc="x")
    assert list(bar) == items and len(bar) == 3
    bar.set_description("Epoch 0")
    bar.set_postfix(loss="0.5", acc="0.1")
    with _stub("tqdm").tqdm(total=3) as bar:
        bar.set_description("x")
        bar.update(2)
    assert list(bar) == []
    logger = _stub("tensorboard_logger")
    logger.configure("logs")
    assert logger.log_value("loss", 1.0, 2) is None


def test_the_emnist_stand_in_takes_a_split_and_has_the_mnist_shapes() -> None:
    """``EMNIST(root, split, train=...)`` keeps the split and the train flag, with images of the
    MNIST stand-in's shapes that are not its images."""
    datasets = _stub("torchvision").datasets
    mnist = datasets.MNIST("d", train=True)
    train = datasets.EMNIST("d", "balanced", train=True, download=True)
    test = datasets.EMNIST("d", "balanced", train=False)
    assert (train.split, train.train, test.train) == ("balanced", True, False)
    assert train.data.shape == mnist.data.shape and len(test) < len(train)
    assert not bool((train.data == mnist.data).all())


def test_the_cifar10_stand_in_yields_pil_images_its_random_transforms_keep_the_size() -> None:
    torchvision = _stub("torchvision")
    datasets, transforms = torchvision.datasets, torchvision.transforms
    train, test = datasets.CIFAR10("d", train=True), datasets.CIFAR10("d", train=False)
    assert (len(train), len(test), train.data.shape[1:]) == (64, 32, (32, 32, 3))
    img, target = train[0]
    assert img.size == (32, 32) and 0 <= target < 10
    pipeline = transforms.Compose(
        [transforms.RandomHorizontalFlip(), transforms.RandomCrop(32, 4), transforms.ToTensor()]
    )
    assert tuple(pipeline(img).shape) == (3, 32, 32)
    flipped = transforms.RandomHorizontalFlip(p=1.0)(img)
    assert flipped.getpixel((0, 0)) == img.getpixel((31, 0))
    assert transforms.RandomCrop(20)(img).size == (20, 20)


def test_the_image_folder_stand_in_labels_each_image_with_its_folder(tmp_path: Path) -> None:
    from PIL import Image

    for name, colour in (("cat", (255, 0, 0)), ("ant", (0, 0, 255))):
        (tmp_path / name).mkdir()
        Image.new("L" if name == "ant" else "RGB", (6, 4), 200).save(tmp_path / name / "a.png")
        Image.new("RGB", (6, 4), colour).save(tmp_path / name / "b.png")
    folder = _stub("torchvision").datasets.ImageFolder(str(tmp_path), transform=lambda im: im.size)
    assert folder.classes == ["ant", "cat"] and folder.class_to_idx == {"ant": 0, "cat": 1}
    assert len(folder) == 4 and folder.targets == [0, 0, 1, 1]
    assert folder[0] == ((6, 4), 0) and folder[3] == ((6, 4), 1)
    plain = _stub("torchvision").datasets.ImageFolder(str(tmp_path))
    assert plain[0][0].mode == "RGB" and plain[3][0].getpixel((0, 0)) == (255, 0, 0)


def test_the_tqdm_stand_in_writes_a_line_as_tqdm_does(capsys: pytest.CaptureFixture[str]) -> None:
    _stub("tqdm").tqdm.write("test_acc: 0.094")
    assert capsys.readouterr().out == "test_acc: 0.094\n"


def test_a_bar_of_the_tqdm_stand_in_counts_its_updates_in_n() -> None:
    """A program divides by ``pbar.n``, the count of what ``update`` was given."""
    bar = _stub("tqdm").tqdm(total=10)
    assert bar.n == 0
    bar.update(4)
    bar.update()
    assert bar.n == 5


def test_a_logger_of_the_tensorboard_logger_stand_in_writes_nothing(tmp_path: Path) -> None:
    logger = _stub("tensorboard_logger").Logger(logdir=str(tmp_path / "tb"), flush_secs=2)
    assert logger.log_value("train_loss", 0.5, 1) is None
    assert not (tmp_path / "tb").exists()


def test_the_tensorboardx_stand_in_s_writer_writes_nothing(tmp_path: Path) -> None:
    writer = _stub("tensorboardX").SummaryWriter(comment="maf_MOONS")
    assert writer.add_scalar("training/loss", 1.5, 3) is None
    writer.close()
    logdir = tmp_path / "runs"
    _stub("tensorboardX").SummaryWriter(logdir=str(logdir)).add_scalar("x", 1.0)
    assert not logdir.exists()


def test_the_pandas_and_h5py_stand_ins_import_and_compute_nothing() -> None:
    """A program whose unused datasets' modules import them runs; reading a table or an HDF5
    file fails as a missing name."""
    assert not hasattr(_stub("pandas"), "read_csv")
    assert not hasattr(_stub("h5py"), "File")


def test_the_scipy_stand_in_factors_a_matrix_as_scipy_linalg_lu_does() -> None:
    """``p @ l @ u`` gives the matrix back, ``p`` a permutation, ``l`` unit lower and ``u`` upper
    triangular, the rows pivoted on the largest entry, in the matrix's floating type."""
    import numpy as np

    lu = _stub("scipy").linalg.lu
    a = np.array([[1.0, 2.0, 0.0], [4.0, 1.0, 3.0], [2.0, 5.0, 1.0]], dtype=np.float32)
    p, low, up = lu(a)
    assert p.dtype == low.dtype == up.dtype == np.float32
    assert np.allclose(p @ low @ up, a, atol=1e-6)
    assert sorted(p.sum(axis=0).tolist()) == sorted(p.sum(axis=1).tolist()) == [1.0, 1.0, 1.0]
    assert np.allclose(np.diag(low), 1.0) and np.allclose(low, np.tril(low))
    assert np.allclose(up, np.triu(up)) and up[0, 0] == 4.0  # the largest of the first column
    assert (np.abs(low) <= 1.0 + 1e-6).all()
    rng = np.random.RandomState(0)
    b = rng.normal(size=(6, 6))
    p, low, up = lu(b)
    assert p.dtype == np.float64 and np.allclose(p @ low @ up, b)


def test_the_scipy_stand_in_factors_a_matrix_as_scipy_linalg_qr_does() -> None:
    """``q @ r`` gives the matrix back, ``q`` orthogonal and square, ``r`` upper triangular of the
    matrix's shape (SciPy's full mode)."""
    import numpy as np

    qr = _stub("scipy").linalg.qr
    a = np.random.RandomState(1).normal(size=(5, 3))
    q, r = qr(a)
    assert q.shape == (5, 5) and r.shape == (5, 3)
    assert np.allclose(q @ r, a) and np.allclose(q.T @ q, np.eye(5))
    assert np.allclose(r, np.triu(r))


def test_the_tqdm_stand_in_keeps_disable_and_names_itself_tqdm_auto() -> None:
    """A bar made with ``disable=True`` says so, as tqdm's does (a program checks it before
    drawing), ``set_postfix_str`` draws nothing, and ``tqdm.auto`` gives the same bar."""
    stub = _stub("tqdm")
    bar = stub.tqdm(total=3, disable=True)
    assert bar.disable is True and stub.tqdm(range(2)).disable is False
    assert bar.set_postfix_str("loss=1.00") is None
    bar.update()
    assert bar.n == 1
    code = "import tqdm, tqdm.auto; print(tqdm.auto.tqdm is tqdm.tqdm, list(tqdm.auto.tqdm([1])))"
    env = {**os.environ, "PYTHONPATH": str(cm.STUBS)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split() == ["True", "[1]"], out.stderr


def test_the_absl_stand_in_sets_flags_from_the_command_line_and_easydict_reads_items() -> None:
    """``app.run(main)`` sets each defined flag given as ``--name=value``, ``--name value``,
    ``--flag`` or ``--noflag``, keeps the others' defaults, hands ``main`` the rest and exits
    with what it returns; an unknown flag stops the program, as absl does."""
    code = (
        "import sys; from absl import app, flags\n"
        "flags.DEFINE_integer('n', 8, 'h'); flags.DEFINE_float('eps', 0.3, 'h')\n"
        "flags.DEFINE_bool('adv', True, 'h'); flags.DEFINE_string('s', 'a', 'h')\n"
        "F = flags.FLAGS\n"
        "app.run(lambda argv: print(F.n, F.eps, F.adv, F.s, argv[1:]) or 3)"
    )
    env = {**os.environ, "PYTHONPATH": str(cm.STUBS)}
    argv = [sys.executable, "-c", code, "--n=1", "--eps", "0.5", "--noadv", "x"]
    out = subprocess.run(argv, capture_output=True, text=True, env=env)
    assert (out.returncode, out.stdout.strip()) == (3, "1 0.5 False a ['x']"), out.stderr
    out = subprocess.run([*argv[:3], "--bad=1"], capture_output=True, text=True, env=env)
    assert out.returncode != 0 and "Unknown command line flag 'bad'" in out.stderr
    easy = _stub("easydict").EasyDict(nb_test=0)
    easy.correct = 2
    assert easy.nb_test == 0 and easy["correct"] == 2
    assert _stub("tensorboardX").SummaryWriter().add_histogram("h", [1.0], 0) is None


def test_an_image_folder_is_written_for_a_program_that_reads_one(tmp_path: Path) -> None:
    """``_write_images`` lays out one class folder of seeded RGB PNG images, which the
    ``ImageFolder`` of the torchvision stand-in reads as class 0; ``Workspace.seed`` writes it
    where the program names it."""
    from PIL import Image

    cm._write_images(tmp_path / "images")
    files = sorted((tmp_path / "images" / "0").iterdir())
    assert len(files) == 8
    with Image.open(files[0]) as img:
        assert img.mode == "RGB" and img.size == (12, 12)
    again = tmp_path / "again"
    cm._write_images(again)
    assert (again / "0" / "3.png").read_bytes() == files[3].read_bytes()
    glow = next(p for p in cm.PROGRAMS if p.name == "glow")
    assert glow.images == "images" and glow.args[-1] == "images"


def test_the_sklearn_stand_in_makes_two_moons_of_noisy_points() -> None:
    """``make_moons``: half the points on the upper half circle of radius 1 about the origin, half
    on the lower one about (1, 0.5); shuffled with the labels; noise moves them off the circles."""
    import numpy as np

    make_moons = importlib.import_module(_stub("sklearn").__name__ + ".datasets").make_moons
    x, y = make_moons(n_samples=101, shuffle=False)
    assert x.shape == (101, 2) and y.tolist() == [0] * 50 + [1] * 51
    assert np.allclose(np.hypot(x[:50, 0], x[:50, 1]), 1.0) and (x[:50, 1] >= 0).all()
    assert np.allclose(np.hypot(x[50:, 0] - 1, x[50:, 1] - 0.5), 1.0) and (x[50:, 1] <= 0.5).all()
    shuffled, labels = make_moons(n_samples=101, shuffle=True, random_state=0)
    assert sorted(map(tuple, shuffled.round(9))) == sorted(map(tuple, x.round(9)))
    assert labels.tolist() != y.tolist() and (labels == 1).sum() == 51
    noisy, _ = make_moons(n_samples=101, shuffle=False, noise=0.05, random_state=0)
    assert not np.allclose(noisy, x) and np.abs(noisy - x).max() < 0.5


def test_the_contrastive_transforms_of_the_stand_in_keep_an_rgb_image_of_the_size_asked() -> None:
    import torch

    torchvision = _stub("torchvision")
    transforms = torchvision.transforms
    assert transforms.transforms is transforms  # ``from torchvision.transforms import transforms``
    img, _ = torchvision.datasets.CIFAR10("d", train=True)[0]
    assert transforms.RandomResizedCrop(size=24)(img).size == (24, 24)
    brighter = transforms.ColorJitter(0.8, 0.8, 0.8, 0.2)
    assert brighter(img).size == (32, 32) and brighter(img).mode == "RGB"
    grey = transforms.RandomGrayscale(p=1.0)(img)
    red, green, blue = grey.split()
    assert grey.mode == "RGB" and red.tobytes() == green.tobytes() == blue.tobytes()
    assert transforms.RandomApply([transforms.RandomGrayscale(p=1.0)], p=0.0)(img) is img
    tensor = transforms.ToTensor()(img)
    back = transforms.ToPILImage()(tensor)
    assert back.size == (32, 32) and torch.equal(transforms.ToTensor()(back), tensor)
    single = transforms.ToPILImage()(torch.zeros(1, 5, 7))
    assert (single.size, single.mode) == ((7, 5), "L")


def test_the_resnet_stand_ins_take_pretrained_false_and_refuse_weights() -> None:
    import torch

    models = _stub("torchvision").models
    net = models.resnet50(pretrained=False, num_classes=7)
    assert net.fc.out_features == 7 and type(net) is type(models.resnet18())
    assert tuple(net(torch.zeros(2, 3, 32, 32)).shape) == (2, 7)
    with pytest.raises(ValueError):
        models.resnet18(pretrained=True)


def test_the_models_stand_in_is_also_torchvision_models_resnet() -> None:
    """``from torchvision.models.resnet import Bottleneck, ResNet`` imports from the stand-in's
    ``models``, whose ``Bottleneck`` maps ``inplanes`` to four times ``planes`` with the stride
    of its 3x3 convolution, as torchvision's does."""
    import torch

    models = _stub("torchvision").models
    resnet = importlib.import_module(models.__name__ + ".resnet")
    assert resnet is models and models.resnet is models
    assert isinstance(models.resnet18(), resnet.ResNet)
    block = resnet.Bottleneck(32, 16, stride=2)
    assert block.expansion == 4 and block.conv1.kernel_size == (1, 1)
    assert block.conv2.stride == (2, 2)
    assert tuple(block(torch.zeros(2, 32, 8, 8)).shape) == (2, 64, 4, 4)


def test_make_grid_lays_a_batch_out_in_rows_with_padding_as_torchvision_does() -> None:
    import torch

    make_grid = _stub("torchvision").utils.make_grid
    batch = torch.arange(10 * 4 * 5, dtype=torch.float).reshape(10, 1, 4, 5)
    grid = make_grid(batch, nrow=4, padding=2)
    assert tuple(grid.shape) == (3, 2 + 3 * (4 + 2), 2 + 4 * (5 + 2))
    assert torch.equal(grid[0, 2:6, 2:7], batch[0, 0]) and torch.equal(
        grid[2, 2:6, 2:7], batch[0, 0]
    )
    assert torch.equal(grid[1, 8:12, 9:14], batch[5, 0])  # the second row's second image
    assert float(grid[:, 14:, 16:].abs().sum()) == 0.0  # the third row has two images
    assert tuple(make_grid(torch.zeros(3, 3, 4, 4)).shape) == (3, 8, 20)


def test_a_program_may_run_another_script_than_the_mutated_one() -> None:
    """``entry`` names the script that runs (a ``main.py`` driving the mutated module); the
    mutants are still the mutated script's, and every program's runs is a file of its own."""
    _programs_here()
    ram = next(p for p in cm.PROGRAMS if p.name == "ram")
    assert (ram.script, ram.runs) == ("trainer.py", "main.py")
    assert {m.program.script for m in cm.mutants(ram)} == {"trainer.py"}
    for program in cm.PROGRAMS:
        assert program.runs == (program.entry or program.script)
        assert (cm.PROGRAMS_DIR / program.directory / program.runs).is_file(), program.name


def test_oracle_only_counts_mutants_without_running_ferry_check(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _programs_here()
    program = next(p for p in cm.PROGRAMS if p.batch == "jetty")
    m = cm.mutants(program)[0]
    got: dict[str, object] = {}

    def fake_evaluate(programs, *args, check=True, **kwargs):
        got["check"] = check
        return [
            cm.Result(m, cm.Verdict(True, "e", [])),
            cm.Result(m, cm.Verdict(False, "passes", [])),
        ]

    monkeypatch.setattr(cm, "evaluate", fake_evaluate)
    assert cm.main(["--set", "jetty", "--oracle-only"]) == 0
    out = capsys.readouterr().out
    assert got["check"] is False
    assert f"| {cm.OPERATORS[m.op].what} | 2 | 1 |" in out
    assert "caught" not in out
    assert f"not confirmed: {m.key}" in out


def test_a_run_killed_after_the_time_limit_leaves_no_verdict_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verdict from a run killed after ``TIMEOUT_S`` (a loaded machine) says nothing of
    the mutant: it is reported as not confirmed and not cached, so a later run tries again."""
    _programs_here()
    program = next(p for p in cm.PROGRAMS if p.name == "ensembling")
    ms = cm.mutants(program)[:2]
    calls: list[str] = []

    def fake_run(workdir, script, args, simulate, trips=False):
        calls.append(script)
        return cm.Run(124, "timed out", timed_out=True)

    monkeypatch.setattr(cm, "_run", fake_run)
    monkeypatch.setattr(cm, "baseline_ok", lambda ws, program: None)
    cache = tmp_path / "cache.json"
    ops = {m.op for m in ms}
    results = cm.evaluate([program], ops, 2, None, cache, 1, check=False)
    assert [r.verdict.confirmed for r in results] == [False, False]
    assert all(r.verdict.timed_out for r in results) and len(calls) == 2
    kept = json.loads(cache.read_text())
    assert list(kept.values()) == ["passes"]  # the original's run, not the mutants'
    assert not cm.Verdict(False, "passes", []).timed_out
    digest = cm.sim_digest()
    keys = [cm._digest(digest, m.program.name, m.op, m.source, *m.program.args) for m in ms]
    stale = {k: {"confirmed": False, "why": "exit 124", "frames": []} for k in keys}
    cache.write_text(json.dumps({**kept, **stale}))  # older caches kept a killed run so
    calls.clear()
    monkeypatch.setattr(cm, "_run", lambda *a, **k: cm.Run(0, ""))
    monkeypatch.setattr(cm, "oracle", lambda ws, m: cm.Verdict(True, "e", []))
    again = cm.evaluate([program], ops, 2, None, cache, 1, check=False)
    assert [r.verdict.confirmed for r in again] == [True, True]
    assert all(json.loads(cache.read_text())[k]["confirmed"] for k in keys)


def test_a_cache_write_keeps_what_another_run_wrote_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "mutants-cache.json"
    mine = cm._load_cache(path)  # this run reads the cache (empty) ...
    cm._save_cache(path, {"other": "passes"})  # ... another run writes its verdicts ...
    mine["mine"] = {"confirmed": True, "why": "e", "frames": []}
    cm._save_cache(path, mine)  # ... and this run's write keeps them
    assert set(cm._load_cache(path)) == {"other", "mine"}
    assert [p.name for p in path.parent.iterdir()] == ["mutants-cache.json"]


def test_the_table_counts_only_confirmed_mutants() -> None:
    _programs_here()
    program = cm.PROGRAMS[0]
    m = cm.mutants(program)[0]
    results = [
        cm.Result(m, cm.Verdict(True, "e", []), caught=True, caught_any=True),
        cm.Result(m, cm.Verdict(True, "e", []), caught=False, caught_any=True),
        cm.Result(m, cm.Verdict(False, "passes", [])),
    ]
    op = cm.OPERATORS[m.op]
    row = next(r for r in cm.table(results).splitlines() if r.startswith(f"| {op.what} |"))
    assert row.endswith("| 3 | 2 | 1 | 50% | 100% | 0 | 0% |")


def _finding(code: str, line: int) -> dict:
    return {"code": code, "line": line, "col": 1, "message": "m", "path": "main.py"}


def _site() -> tuple[object, int, int]:
    """A dropped tensor move, its line and a traceback frame 40 lines below."""
    _programs_here()
    m = next(m for m in cm.mutants(cm.PROGRAMS[0]) if m.op == "drop-move")
    return m, m.line, m.line + 40


def _scored(m, frame: int, mutant_findings: list[dict], original: list[dict]):
    return cm.score(cm.Result(m, cm.Verdict(True, "e", [frame])), mutant_findings, original)


def test_a_mutant_caught_only_by_another_rule_counts_for_the_second_measure_alone() -> None:
    """FRY002 is not a rule of a dropped tensor move: a new FRY002 finding at a traceback
    frame catches the mutant by the second measure, not by the first."""
    m, _line, frame = _site()
    r = _scored(m, frame, [_finding("FRY002", frame)], [])
    assert (r.caught, r.caught_any, r.caught_new) == (False, True, True)
    assert r.new_codes == ("FRY002",)


def test_a_finding_the_original_already_has_is_not_new() -> None:
    m, line, frame = _site()
    both = [_finding("FRY002", frame), _finding("FRY014", line)]
    r = _scored(m, frame, both, list(both))
    assert (r.caught, r.caught_any, r.caught_new) == (True, True, False)
    assert r.new_codes == ()


def test_a_new_finding_elsewhere_or_of_another_rule_on_an_old_line() -> None:
    """A new finding away from the site and the frames does not count; one of another rule
    on a line the original reports does."""
    m, line, frame = _site()
    got = [_finding("FRY013", frame + 1), _finding("FRY011", line)]
    r = _scored(m, frame, got, [_finding("FRY002", line)])
    assert (r.caught, r.caught_new, r.new_codes) == (False, True, ("FRY011",))
    r = _scored(m, frame, [_finding("FRY013", frame + 1)], [])
    assert (r.caught_any, r.caught_new) == (False, False)


def test_the_table_shows_both_measures_side_by_side() -> None:
    _programs_here()
    m = next(m for m in cm.mutants(cm.PROGRAMS[0]) if m.op == "drop-move")
    results = [
        cm.Result(m, cm.Verdict(True, "e", []), caught=True, caught_any=True, caught_new=False),
        cm.Result(m, cm.Verdict(True, "e", []), caught=False, caught_any=True, caught_new=True),
        cm.Result(m, cm.Verdict(True, "e", []), caught=False, caught_new=True),
        cm.Result(m, cm.Verdict(True, "e", [])),
    ]
    lines = cm.table(results).splitlines()
    assert "| caught | share | caught by any rule | new finding of any rule | share |" in lines[0]
    assert lines[-1] == "| all | | 4 | 4 | 1 | 25% | 50% | 2 | 50% |"


@pytest.mark.slow
def test_the_oracle_confirms_a_dropped_move_and_passes_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prog_dir = tmp_path / "programs" / "tiny"
    prog_dir.mkdir(parents=True)
    (prog_dir / "main.py").write_text(
        "import torch\nfrom torch import nn\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "model = nn.Linear(4, 2).to(device)\n"
        "x = torch.randn(3, 4).to(device)\n"
        "print(model(x).sum().item())\n"
    )
    program = cm.Program("tiny", "tiny", "main.py", ())
    monkeypatch.setattr(cm, "PROGRAMS_DIR", tmp_path / "programs")
    ws = cm.Workspace(tmp_path / "ws")
    assert cm.baseline_ok(ws, program) is None
    drop = next(m for m in cm.mutants(program) if m.op == "drop-move")
    verdict = cm.oracle(ws, drop)
    assert verdict.confirmed and "RuntimeError" in verdict.why
    assert 6 in verdict.frames


@pytest.mark.slow
def test_the_super_resolve_program_runs_on_the_checkpoint_its_setup_writes(
    tmp_path: Path,
) -> None:
    _programs_here()
    program = next(p for p in cm.PROGRAMS if p.name == "super_resolution/super_resolve")
    ws = cm.Workspace(tmp_path)
    seed = ws.seed(program)  # runs main.py on the synthetic BSDS300 set
    assert (seed / "model_epoch_1.pth").is_file()
    assert sorted(p.name for p in (seed / "dataset" / "BSDS300" / "images" / "test").iterdir())
    assert cm.baseline_ok(ws, program) is None


def test_a_finding_counts_for_a_script_in_a_subfolder_by_its_whole_path():
    program = cm.Program("t/masks", "t", "src/data.py", ())
    assert cm.in_script("src/data.py", program)
    assert cm.in_script("./src/data.py", program)
    assert not cm.in_script("data.py", program)
    assert not cm.in_script("other/src/data.py", program)
    assert cm.in_script("main.py", cm.Program("t", "t", "main.py", ()))


def test_the_git_stand_in_names_no_commit_outside_a_repository(tmp_path: Path) -> None:
    """A program records ``Repo(search_parent_directories=True).head.object.hexsha`` in its
    checkpoint: forty hexadecimal digits, whatever the folder."""
    repo = _stub("git").Repo(search_parent_directories=True)
    sha = repo.head.object.hexsha
    assert len(sha) == 40 and set(sha) <= set("0123456789abcdef")
    assert _stub("git").Repo(str(tmp_path)).head.object.hexsha == sha


def test_the_visdom_stand_in_s_plots_return_their_window() -> None:
    """A new plot gets a window name of its own; a plot appended to a window returns that
    window's name, as visdom's client does."""
    import numpy as np

    vis = _stub("visdom").Visdom(env="MLP-lambda40")
    first = vis.line(X=np.array([1]), Y=np.array([0.5]), opts={"title": "loss"})
    second = vis.line(X=np.array([1]), Y=np.array([0.1]))
    assert isinstance(first, str) and first != second
    assert vis.line(X=np.array([2]), Y=np.array([0.4]), win=first, update="append") == first
    assert vis.image(np.zeros((1, 4, 4)), win="img") == "img"


def test_the_cv2_stand_in_s_imwrite_writes_nothing(tmp_path: Path) -> None:
    import numpy as np

    target = tmp_path / "000000.jpg"
    assert _stub("cv2").imwrite(str(target), np.zeros((4, 4, 3), dtype=np.uint8)) is True
    assert not target.exists()


def test_pad_adds_a_constant_border_to_a_pil_image_and_a_tensor() -> None:
    """``Pad(2)`` makes a 28x28 image 32x32, the old pixels in the middle, the border ``fill``."""
    import numpy as np
    import torch
    from PIL import Image

    pad = _stub("torchvision").transforms.Pad(2)
    pixels = np.arange(28 * 28, dtype=np.uint8).reshape(28, 28)
    out = np.asarray(pad(Image.fromarray(pixels)))
    assert out.shape == (32, 32) and (out[2:30, 2:30] == pixels).all()
    assert out[:2].sum() == out[:, :2].sum() == out[30:].sum() == out[:, 30:].sum() == 0
    image = torch.ones(1, 28, 28)
    padded = _stub("torchvision").transforms.Pad(2, fill=-1.0)(image)
    assert padded.shape == (1, 32, 32) and bool((padded[:, 2:30, 2:30] == 1).all())
    assert float(padded[0, 0, 0]) == float(padded[0, 31, 31]) == -1.0


def test_select_default_means_ferry_checks_own_default_set(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []

    def fake_evaluate(programs, ops, max_mutants, select, *args, **kwargs):
        seen.append(select)
        return []

    monkeypatch.setattr(cm, "evaluate", fake_evaluate)
    monkeypatch.setattr(cm, "programs_problems", lambda **kw: [])
    cm.main(["--select", "DEFAULT"])
    cm.main(["--select", "ALL"])
    cm.main([])
    assert seen == [None, "ALL", None]


def test_the_gin_stand_in_binds_configurables_and_trange_is_a_bar(tmp_path: Path) -> None:
    """A gin config binds a parameter of a ``configurable`` function and of a class's
    ``__init__`` (by ``module.name`` or by name) that the call does not pass itself; a value
    the call passes wins, and ``import`` lines and comments are skipped, as in gin. ``trange``
    of the ``tqdm`` stand-in is a bar over the range: ``set_postfix`` shows nothing."""
    (tmp_path / "config.gin").write_text(
        "import m  # the module\n\nm.f.n = 3\nm.C.attention = True\ng.name = 'short'\n"
    )
    code = (
        "import gin\n"
        "@gin.configurable(module='m')\ndef f(n=1, k=2): return n, k\n"
        "@gin.configurable(module='m')\nclass C:\n"
        "    def __init__(self, width, attention=False): self.a = (width, attention)\n"
        "@gin.configurable\ndef g(name='long'): return name\n"
        "gin.parse_config_file('config.gin')\n"
        "print(f(), f(n=5), C(4).a, g())\n"
        "from tqdm import trange\nt = trange(2); t.set_postfix(loss='1'); print(list(t))"
    )
    env = {**os.environ, "PYTHONPATH": str(cm.STUBS)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.stdout.splitlines() == ["(3, 2) (5, 2) (4, True) short", "[0, 1]"], out.stderr


def test_a_program_s_files_and_signs_are_written_in_its_copy_and_key_its_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``files`` are written in the program's copy before it runs and enter the oracle's key
    (a program without them keys on its arguments alone); ``signs`` lays out the SIGNS set:
    ``{train,val,test}_signs`` of JPEGs named after their label, 0 to 5."""
    plain = cm.Program("p", "p", "train.py", ("--a",))
    with_files = cm.Program("p", "p", "train.py", ("--a",), files=(("c/x.json", "{}\n"),))
    assert plain.keyed == ("--a",)
    assert with_files.keyed != plain.keyed
    (tmp_path / "programs" / "p").mkdir(parents=True)
    monkeypatch.setattr(cm, "PROGRAMS_DIR", tmp_path / "programs")
    program = cm.Program("p", "p", "train.py", (), files=(("c/x.json", "{}\n"),), signs="s")
    seed = cm.Workspace(tmp_path / "ws").seed(program)
    assert (seed / "c" / "x.json").read_text() == "{}\n"
    names = {split: sorted(p.name for p in (seed / "s" / split).iterdir()) for split in
             ("train_signs", "val_signs", "test_signs")}  # fmt: skip
    assert len(names["train_signs"]) == 12 and len(names["test_signs"]) == 6
    assert {n[0] for n in names["train_signs"]} == set("012345")
    assert all(n.endswith(".jpg") for ns in names.values() for n in ns)


def test_the_fire_stand_in_calls_with_the_command_line_and_optimizers_step_as_adam() -> None:
    """``fire.Fire(f)`` calls ``f`` with the command line: positional values in order,
    ``--name value`` and ``--name=value`` read as Python literals where they are (else
    strings), a bare ``--name`` True and ``--noname`` False. ``AdaBound`` and ``AdaBelief`` of
    the ``adabound`` and ``adabelief_pytorch`` stand-ins take those optimizers' arguments and
    take the step Adam takes."""
    code = (
        "import fire, sys\n"
        "def demo(data, save, depth=100, efficient=True, fast=False, seed=None):\n"
        "    print(repr((data, save, depth, efficient, fast, seed)))\n"
        "fire.Fire(demo)\n"
        "import torch\nfrom adabound import AdaBound\nfrom adabelief_pytorch import AdaBelief\n"
        "def step(make):\n"
        "    torch.manual_seed(0); w = torch.nn.Parameter(torch.randn(3))\n"
        "    opt = make([w]); (w ** 2).sum().backward(); opt.step(); return w.detach()\n"
        "adam = step(lambda p: torch.optim.Adam(p, 0.1, betas=(0.9, 0.999), weight_decay=0))\n"
        "bound = step(lambda p: AdaBound(p, 0.1, betas=(0.9, 0.999), final_lr=0.1, gamma=1e-3,\n"
        "                               weight_decay=0))\n"
        "belief = step(lambda p: AdaBelief(p, 0.1, betas=(0.9, 0.999), weight_decay=0, eps=1e-8))\n"
        "print(torch.equal(adam, bound), torch.equal(adam, belief))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(cm.STUBS)}
    out = subprocess.run(
        [sys.executable, "-c", code, "d", "--save=s", "--depth", "10", "--noefficient", "--fast",
         "--seed", "x1"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["('d', 's', 10, False, True, 'x1')", "True True"]
