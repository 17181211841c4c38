"""The defects a careless user hits in ``ferry check``: huge lines and files,
odd patterns and configurations, pipes, diffs and notebook fixes (real rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchferry.cli import main


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    return tmp_path


def run(capsys, *argv):
    rc = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


# ----------------------------------------------------------- long lines
def test_a_long_line_is_shown_as_a_window_around_each_finding(proj, capsys):
    stmt = "x=torch.zeros(1).cuda();"
    (proj / "long.py").write_text("import torch;" + stmt * 400)  # 9.6 KB, one line
    rc, out, _ = run(capsys, "--select", "ALL", "long.py")
    assert rc == 1
    n = out.count("long.py:1:")
    assert n == 800
    # before: every finding printed the whole 9.6 KB line (7.7 MB here)
    assert len(out) < 500 * n
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("long.py:1:") and " FRY001 " in line:
            col = int(line.split(":")[2])
            src, caret = lines[i + 1], lines[i + 2]
            at = caret.index("^")
            width = caret.count("^")
            assert src[at : at + width] == ".cuda()", (line, src, caret)
            if col > 100:
                assert src.split("| ", 1)[1].startswith("\u2026")
    assert lines[1].endswith("\u2026")


def test_a_window_survives_the_cache(proj, capsys):
    stmt = "x=torch.zeros(1).cuda();"
    (proj / "long.py").write_text("import torch;" + stmt * 300)
    first = main(["check", "--select", "ALL", "long.py"]), capsys.readouterr().out
    second = main(["check", "--select", "ALL", "long.py"]), capsys.readouterr().out
    assert first == second and first[0] == 1
    cache = b"".join(p.read_bytes() for p in (proj / ".ferry_cache").rglob("*.json"))
    assert len(cache) < 1000 * 600  # windows, not 600 copies of the 7 KB line (4.3 MB)


def test_the_size_limit_is_a_fry000_and_configurable(proj, capsys):
    body = "import torch\n" + "x = torch.zeros(1)\n" * 300_000  # 5.7 MB
    (proj / "big.py").write_text(body)
    rc, out, _ = run(capsys, "big.py")
    assert rc == 1
    assert "big.py:1:1: FRY000 the file (5.7 MB) is larger than max-file-size (5.0 MB)" in out
    assert "not checked" in out and "--max-file-size" in out
    from torchferry.check.config import load_config
    from torchferry.check.runner import Options, check_paths

    # the configured limit, on a file small enough to check quickly (checking all of
    # big.py under a 6 MB limit took two minutes: that path is the same for any size)
    (proj / "mid.py").write_text("import torch\n" + "x = torch.zeros(1)\n" * 3000)  # 57 KB

    def again(limit_line):
        (proj / "pyproject.toml").write_text(f"[tool.torchferry]\n{limit_line}\n")
        cfg = load_config(proj)
        opts = Options(root=cfg.root, max_file_size=cfg.max_file_size)
        return check_paths([proj / "mid.py"], opts, jobs=1)[0].diagnostics

    assert again('max-file-size = "0.06MB"') == []
    (d,) = again("max-file-size = 1000")
    assert d.code == "FRY000" and "max-file-size (1,000 bytes)" in d.message
    assert again("max-file-size = 0") == []


def test_a_large_file_without_torch_is_skipped_like_any_other(proj, capsys):
    (proj / "data.py").write_text("x = 1\n" * 1_000_000)
    rc, out, _ = run(capsys, "data.py")
    assert rc == 0 and "FRY000" not in out


def test_the_size_limit_holds_for_notebook_code_and_stdin(proj):
    from torchferry.check.runner import Options, check_bytes, check_paths

    cell = {"cell_type": "code", "source": "import torch\n" + "x = 1\n" * 200,
            "metadata": {}, "outputs": [], "execution_count": None}  # fmt: skip
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (proj / "n.ipynb").write_text(json.dumps(nb))
    opts = Options(root=proj, max_file_size=1000)
    (d,) = check_paths([proj / "n.ipynb"], opts, jobs=1)[0].diagnostics
    assert d.code == "FRY000" and "the notebook's code (1,213 bytes) is larger" in d.message
    out, _ = check_bytes(Path("s.py"), b"import torch\n" * 100, opts, "s.py")
    (d,) = out.diagnostics
    assert d.code == "FRY000" and "the source (1,300 bytes) is larger" in d.message
    opts = Options(root=proj, max_file_size=1000, ignore=("FRY000",))
    assert check_paths([proj / "n.ipynb"], opts, jobs=1)[0].diagnostics == []


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("max-file-size = -1", "max-file-size must be 0 (no limit) or more"),
        ('max-file-size = "big"', "cannot read 'big' as a size"),
        ("max-file-size = true", "max-file-size must be a number of bytes"),
    ],
)
def test_a_bad_size_limit_is_a_usage_error(proj, capsys, body, needle):
    (proj / "a.py").write_text("import torch\n")
    (proj / "pyproject.toml").write_text(f"[tool.torchferry]\n{body}\n")
    rc, out, err = run(capsys, "a.py")
    assert rc == 2 and needle in err and len(err.splitlines()) == 1


def test_dev_zero_ends(proj, capsys):
    rc, out, _ = run(capsys, "/dev/zero")
    assert rc == 1 and "/dev/zero:1:1: FRY000 the input is larger than max-file-size" in out


# ----------------------------------------------------------- patterns, config, pipes
@pytest.mark.parametrize(
    ("pattern", "ignored", "kept"),
    [
        # each row as `git check-ignore --no-index` 2.39 answers it
        ("[z-a].py", ["z.py"], ["a.py", "m.py"]),
        ("[!z-a].py", ["a.py", "m.py"], []),
        ("[a-c-e].py", ["b.py", "e.py", "-.py"], ["d.py"]),
        ("[z-a-c].py", ["c.py", "-.py"], ["b.py"]),
        ("[[:alpha:]].py", ["a.py"], ["5.py"]),
        ("[[:bogus:]].py", [], ["a.py", "b.py"]),
        ("[]a].py", ["a.py", "].py"], ["b.py"]),
        ("[!]a].py", ["b.py"], ["a.py", "].py"]),
        ("ab[c.py", [], ["abc.py", "ab[c.py"]),
        ("[.-0]x.py", [".x.py", "0x.py"], []),
        ("[[:alpha].py", ["a.py", "[.py", "l.py"], ["x.py"]),
    ],
)
def test_gitignore_brackets_as_git_reads_them(proj, capsys, pattern, ignored, kept):
    (proj / ".git").mkdir()
    for name in ignored + kept:
        (proj / name).write_text("import torch\nx = torch.zeros(1).cuda()\n")
    (proj / ".gitignore").write_text(pattern + "\n")
    rc, out, err = run(capsys, "--select", "FRY001", ".")
    assert "internal error" not in err and rc in (0, 1), err
    for name in ignored:
        assert f"{name}:" not in out
    for name in kept:
        assert f"{name}:2:" in out


def test_git_agrees_with_the_bracket_table(tmp_path):
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None:
        pytest.skip("git not installed")
    subprocess.run([git, "init", "-q", str(tmp_path)], check=True)
    from torchferry.check.files import PatternSet

    for pattern, names in [
        ("[z-a]", "a m z -"), ("[a-c-e]", "b d e -"), ("[z-a-c]", "b c -"),
        ("[[:alpha:]]", "a 5"), ("[[:bogus:]]", "a b"), ("ab[c", "abc ab[c"),
        ("[!]a]", "] a b"), ("[^a]", "a b"), ("[a-\\]]", "a b ] \\"), ("foo\\", "foo"),
    ]:  # fmt: skip
        (tmp_path / ".gitignore").write_text(pattern + "\n")
        ps = PatternSet.from_lines([pattern])
        for name in names.split():
            res = subprocess.run([git, "-C", str(tmp_path), "check-ignore", "-q", "--no-index",
                                  "--", name], check=False)  # fmt: skip
            assert (res.returncode == 0) == bool(ps.match(name, False)), (pattern, name)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ('exclude = ["[z-a]"]', None),
        ('exclude = ["build["]', "exclude: pattern 'build[' can never match (unclosed '['"),
        ('per-file-ignores = {"[[:nope:]]" = ["FRY001"]}', "unknown character class"),
        ('ignore = "FRY007"', "ignore must be a list of strings, got 'FRY007' (write ['FRY007'])"),
        ('select = "FRY"', "select must be a list of strings"),
        ('per-file-ignores = {"x.py" = "FRY001"}', "per-file-ignores 'x.py' must be a list"),
        ("[tool]\ntorchferry = 5  # tool.torchferry", "[tool.torchferry] must be a table"),
    ],
)
def test_config_values_are_checked(proj, capsys, body, needle):
    (proj / "a.py").write_text("import torch\n")
    (proj / "pyproject.toml").write_text(f"[tool.torchferry]\n{body}\n" if "[tool]" not in body
                                         else body + "\n")  # fmt: skip
    rc, out, err = run(capsys, "a.py")
    if needle is None:
        assert rc == 0 and err == "", err
    else:
        assert rc == 2 and needle in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize(
    "text",
    [
        "tool = 5\n# tool.torchferry\n",
        "[tool.torchferry]\nx = " + "[" * 5000 + "]" * 5000 + "\n",
    ],
)
def test_a_strange_pyproject_is_a_usage_error(proj, capsys, text):
    (proj / "a.py").write_text("import torch\n")
    (proj / "pyproject.toml").write_text(text)
    rc, out, err = run(capsys, "a.py")
    assert rc == 2 and "internal error" not in err and len(err.splitlines()) == 1, err
    assert "pyproject.toml" in err


def test_a_notebook_nested_100000_deep_is_fry000(proj, capsys):
    deep = "[" * 100_000 + "]" * 100_000
    (proj / "deep.ipynb").write_text('{"metadata": {"x": "torch"}, "cells": ' + deep + "}")
    rc, out, err = run(capsys, "deep.ipynb")
    assert "internal error" not in err
    assert rc == 1 and "deep.ipynb:1:1: FRY000 invalid notebook: JSON nested too deeply" in out


@pytest.mark.slow  # starts processes
def test_a_named_pipe_does_not_hang(proj, capsys):
    import os
    import subprocess
    import sys

    os.mkfifo(proj / "pipe.py")
    res = subprocess.run([sys.executable, "-m", "torchferry", "check", "--no-cache", "pipe.py"],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert res.returncode == 0, res.stderr
    # and a pipe with a writer, as bash's <(cmd) gives, is read to its end
    res = subprocess.run(["bash", "-c", f"{sys.executable} -m torchferry check --no-cache "
                          "--select ALL <(printf 'import torch\\nx = torch.zeros(1).cuda()\\n')"],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert res.returncode == 1 and "/dev/fd/" in res.stdout and "FRY001" in res.stdout, res


# -----------------------------------------------------------
def test_the_json_example_in_docs_is_real_output(proj, capsys):
    import re

    doc = (Path(__file__).parents[2] / "docs" / "check.md").read_text(encoding="utf-8")
    part = doc[doc.index("* `json`: a list of objects") :]
    source = re.search(r"```python\n(.*?)```", part, re.S).group(1)
    expected = re.search(r"```json\n(.*?)```", part, re.S).group(1)
    (proj / "train.py").write_text("\n".join(line[2:] for line in source.splitlines()) + "\n")
    rc, out, _ = run(capsys, "--format", "json", "train.py")
    assert rc == 1
    assert json.loads(out) == json.loads(expected)


def test_select_empty_is_a_usage_error(proj, capsys):
    (proj / "a.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    for option in ("--select", "--ignore"):
        with pytest.raises(SystemExit) as exc:
            main(["check", option, "", "a.py"])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "'' names no rule" in err and len(err.splitlines()) == 1


def test_help_says_names_work_in_select(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "names (discarded-move)" in out and "--max-file-size SIZE" in out


def test_select_by_name_works(proj, capsys):
    (proj / "a.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    rc, out, _ = run(capsys, "--select", "hardcoded-accelerator", "a.py")
    assert rc == 1 and "FRY001" in out and "FRY009" not in out


def test_max_file_size_option(proj, capsys):
    (proj / "a.py").write_text("import torch\nx = torch.zeros(1).cuda()\n" * 100)
    rc, out, _ = run(capsys, "--max-file-size", "1KB", "a.py")
    assert rc == 1 and "FRY000 the file (3,900 bytes) is larger than max-file-size (1,000" in out
    (proj / "pyproject.toml").write_text("[tool.torchferry]\nmax-file-size = 1000\n")
    rc, out, _ = run(capsys, "--max-file-size", "0", "--select", "FRY001", "a.py")
    assert rc == 1 and "FRY000" not in out and out.count("FRY001") == 100
    rc, out, _ = run(capsys, "a.py")
    assert "FRY000" in out  # the configuration's limit


def test_diff_says_when_only_unsafe_fixes_exist(proj, capsys):
    (proj / "a.py").write_text('import torch\ndevice = torch.device("cuda")\n')  # FRY001: unsafe fix
    rc, out, err = run(capsys, "--diff", "--select", "ALL", "a.py")
    assert rc == 0 and out == ""
    assert err.strip() == (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    )
    rc, out, err = run(capsys, "--diff", "--unsafe-fixes", "--select", "ALL", "a.py")
    assert rc == 1 and err.strip() == "Would fix 1 finding."


def test_sarif_and_github_levels_by_rule_kind(proj, capsys):
    src = (
        "import torch\n"
        "model = torch.nn.Linear(2, 2)\n"
        "for batch in [torch.zeros(2)]:\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    print(loss.item())\n"
        "x = torch.zeros(1).cuda()\n"
    )
    (proj / "a.py").write_text(src)
    rc, out, _ = run(capsys, "--format", "sarif", "--select", "ALL", "a.py")
    doc = json.loads(out)
    levels = {r["ruleId"]: r["level"] for r in doc["runs"][0]["results"]}
    assert levels["FRY001"] == "error" and levels["FRY009"] == "note", levels
    rules = {r["id"]: r["defaultConfiguration"]["level"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["FRY007"] == "warning" and rules["FRY008"] == "warning"
    rc, out, _ = run(capsys, "--format", "github", "--select", "ALL", "a.py")
    kinds = {line.split(" ", 1)[0] for line in out.splitlines()}
    assert {"::error", "::notice"} <= kinds


def test_progress_line_only_on_a_terminal_and_a_long_run():
    import io

    from torchferry.check.report import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    now = [0.0]
    tty = Tty()
    p = Progress(tty, clock=lambda: now[0])
    p(1, 100)
    assert tty.getvalue() == ""  # a quick run prints nothing
    now[0] = 1.5
    p(40, 100)
    now[0] = 1.55
    p(41, 100)  # at most ten redraws a second
    now[0] = 1.7
    p(100, 100)
    now[0] = 1.9
    p(100, 100)  # nothing new: not drawn again
    p.close()
    assert tty.getvalue() == (
        "\rferry check: 40/100 files\rferry check: 100/100 files\r\x1b[2K"
    )
    pipe = io.StringIO()
    p = Progress(pipe, clock=lambda: now[0] + 10)
    p(5, 10)
    p.close()
    assert pipe.getvalue() == ""


def test_check_paths_reports_progress(proj):
    from torchferry.check.runner import Options, check_paths

    for i in range(3):
        (proj / f"m{i}.py").write_text("import torch\n")
    (proj / "plain.py").write_text("x = 1\n")
    seen = []
    check_paths(sorted(proj.glob("*.py")), Options(root=proj), jobs=1,
                progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert seen == [(1, 3), (2, 3), (3, 3)]


# ----------------------------------------------------------- --diff for patch
def _patch(cwd, diff: str) -> None:
    import shutil
    import subprocess

    tool = shutil.which("patch")
    if tool is None:
        pytest.skip("patch not installed (apt-get install patch)")
    res = subprocess.run([tool, "-p1", "--batch"], input=diff, cwd=cwd, text=True,
                         capture_output=True, check=False)  # fmt: skip
    assert res.returncode == 0, (res.stdout, res.stderr, diff)


def test_diff_of_a_file_without_final_newline_applies_with_patch(proj, capsys):
    src = 'import torch\nx = torch.zeros(2)\n\x0cy = 1\nx.to("cpu")'  # no final newline
    (proj / "a.py").write_text(src, newline="")
    rc, diff, _ = run(capsys, "--diff", "--unsafe-fixes", "a.py")
    assert rc == 1 and diff.endswith('+x = x.to("cpu")\n\\ No newline at end of file\n')
    _patch(proj, diff)
    patched = (proj / "a.py").read_bytes()
    (proj / "b.py").write_text(src, newline="")
    rc, _, _ = run(capsys, "--fix", "--unsafe-fixes", "b.py")
    assert patched == (proj / "b.py").read_bytes() != src.encode()


def test_notebook_cell_diffs_are_well_formed(proj, capsys):
    # (each cell ends with a ``;``: a cell's last expression is otherwise displayed, not discarded)
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# t"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import torch\n", "x = torch.zeros(2)\n", 'x.to("cpu");']},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["y = torch.ones(2)\n", 'y.to("cpu");']},
    ]  # fmt: skip
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (proj / "n.ipynb").write_text(json.dumps(nb, indent=1))
    rc, diff, _ = run(capsys, "--diff", "--unsafe-fixes", "n.ipynb")
    assert rc == 1
    # patch cuts file names at a space: give each cell a plain name, then apply
    for k in (2, 3):
        (proj / f"cell{k}").write_text("".join(cells[k - 1]["source"]))
        diff = diff.replace(f"n.ipynb:cell {k}", f"cell{k}")
    _patch(proj, diff)
    assert (proj / "cell2").read_text().endswith('x = x.to("cpu");')
    assert (proj / "cell3").read_text() == 'y = torch.ones(2)\ny = y.to("cpu");'


# ----------------------------------------------------------- notebook fixes keep the file
def _nb_text(layout: str) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {"scale": 0},
            "outputs": [], "source": ["import torch\n", "x = torch.zeros(2)\n", 'x.to("cpu");']}
    md = {"cell_type": "markdown", "metadata": {}, "source": ["# é title"]}
    nb = {"cells": [md, cell], "metadata": {"lr": 0, "eps": 0}, "nbformat": 4,
          "nbformat_minor": 5}  # fmt: skip
    if layout == "one-line":
        text = json.dumps(nb)
    elif layout == "compact":
        text = json.dumps(nb, separators=(",", ":"), ensure_ascii=False)
    elif layout == "tab":
        text = json.dumps(nb, indent="\t", ensure_ascii=False)
    else:
        text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    # numbers spelled as people and other tools write them
    return text.replace('"lr": 0', '"lr": 1.10').replace('"lr":0', '"lr":1.10').replace(
        '"eps": 0', '"eps": 1E-5').replace('"eps":0', '"eps":1E-5')  # fmt: skip


@pytest.mark.parametrize("layout", ["indent-1", "one-line", "compact", "tab"])
@pytest.mark.parametrize("bom", [False, True])
def test_notebook_fix_touches_only_the_edited_source(proj, capsys, layout, bom):
    text = _nb_text(layout)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    (proj / "n.ipynb").write_bytes(data)
    rc, out, err = run(capsys, "--fix", "--unsafe-fixes", "n.ipynb")
    assert "internal error" not in err
    new = (proj / "n.ipynb").read_bytes()
    expected = data.replace(b'x.to(\\"cpu\\")', b'x = x.to(\\"cpu\\")')
    assert new == expected and new != data
    assert json.loads(new.decode("utf-8-sig"))["cells"][1]["source"][-1] == 'x = x.to("cpu");'


def test_notebook_fix_of_a_one_line_source_string(proj, capsys):
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": 'import torch\nx = torch.zeros(2)\nx.to("cpu");'}],
          "metadata": {"v": 1.10}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    text = json.dumps(nb, indent=2).replace("1.1", "1.10")
    (proj / "n.ipynb").write_text(text)
    run(capsys, "--fix", "--unsafe-fixes", "n.ipynb")
    assert (proj / "n.ipynb").read_text() == text.replace('x.to(\\"cpu\\")', 'x = x.to(\\"cpu\\")')
