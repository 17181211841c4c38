"""`ferry check` end to end (in process, with the fake rules of conftest.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from torchferry.cli import main

BAD = 'import torch\nx.to(d)\ndev = "cuda"\n'


@pytest.fixture
def proj(tmp_path, monkeypatch, fake_rules):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    return tmp_path


def run(capsys, *argv):
    rc = main(["check", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_text_output_with_source_caret_and_summary(proj, capsys):
    (proj / "a.py").write_text(BAD)
    rc, out, err = run(capsys)
    assert rc == 1, err
    lines = out.splitlines()
    assert lines[0] == "a.py:2:1: FRY901 [*] result of `.to()` is discarded"
    assert lines[1] == "  2 | x.to(d)"
    assert lines[2] == "    | ^^^^^^^"
    assert lines[3] == "    = safe fix: assign to `x`"
    assert 'a.py:3:7: FRY902 hard-coded "cuda"' in lines
    assert "    |       ^^^^^^" in lines
    assert lines[-2] == "Found 2 findings."
    assert lines[-1] == (
        "[*] 1 fixable with the `--fix` option "
        "(1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    )
    assert "\x1b[" not in out  # not a terminal: no colour


def test_clean_exit_zero_and_all_checks_passed(proj, capsys):
    (proj / "a.py").write_text("import torch\nx = x.to(d)\n")
    rc, out, _ = run(capsys)
    assert (rc, out) == (0, "All checks passed!\n")


def test_exit_zero(proj, capsys):
    (proj / "a.py").write_text(BAD)
    rc, out, _ = run(capsys, "--exit-zero")
    assert rc == 0 and "FRY901" in out


def test_colour_forced_and_no_color_wins(proj, capsys, monkeypatch):
    (proj / "a.py").write_text(BAD)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run(capsys)[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(capsys)[1]


def test_select_and_ignore_options(proj, capsys):
    (proj / "a.py").write_text(BAD)
    assert "FRY902" not in run(capsys, "--select", "FRY901")[1]
    out = run(capsys, "--ignore", "FRY901")[1]
    assert "FRY901" not in out and "FRY902" in out
    rc, out, _ = run(capsys, "--select", "FRY90", "--ignore=FRY90")
    assert rc == 0 and out == "All checks passed!\n"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--select", "FRY999"], "unknown rule selector 'FRY999' in --select"),
        (["--ignore", "NOPE1"], "unknown rule selector 'NOPE1' in --ignore"),
        (["missing.py"], "missing.py: no such file or directory"),
        (["--format", "xml"], "invalid choice: 'xml'"),
        (["--jobs", "many"], "invalid job count 'many'"),
        (["--jobs", "-3"], "invalid job count -3"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--stdin-filename", "x.py", "a.py"], "give no PATH with it"),
        (["-", "a.py"], "'-' (the source from stdin) cannot be combined with other paths"),
    ],
)
def test_usage_errors_are_one_line_exit_2(proj, capsys, argv, needle):
    (proj / "a.py").write_text(BAD)
    try:
        rc = main(["check", *argv])
    except SystemExit as exc:  # argparse errors
        rc = exc.code
    out, err = capsys.readouterr()
    assert rc == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_missing_path_among_good_ones(proj, capsys):
    (proj / "a.py").write_text(BAD)
    rc, _, err = run(capsys, "a.py", "nope/")
    assert rc == 2 and "nope/: no such file or directory" in err


def test_directory_without_python_files(proj, capsys):
    (proj / "empty").mkdir()
    (proj / "empty" / "notes.txt").write_text("torch")
    rc, out, err = run(capsys, "empty")
    assert rc == 0 and out == ""
    assert "no Python files found under empty" in err


def test_syntax_error_is_fry000_exit_1(proj, capsys):
    (proj / "a.py").write_text("import torch\ndef f(:\n")
    rc, out, _ = run(capsys)
    assert rc == 1
    assert out.startswith("a.py:2:7: FRY000 SyntaxError: invalid syntax")


def test_invalid_utf8_is_fry000_with_position(proj, capsys):
    (proj / "a.py").write_bytes(b"import torch\nx = '\xff'\n")
    rc, out, _ = run(capsys, "--format", "json")
    assert rc == 1
    (item,) = json.loads(out)
    assert item["code"] == "FRY000" and (item["line"], item["column"]) == (2, 6)
    assert "Non-UTF-8 code starting with '\\xff'" in item["message"]


def test_declared_encoding_is_honoured(proj, capsys):
    src = "# -*- coding: latin-1 -*-\nimport torch\ns = 'é'\nx.to(d)\n"
    (proj / "a.py").write_bytes(src.encode("latin-1"))
    rc, out, _ = run(capsys, "--fix")
    assert rc == 0, out
    assert (proj / "a.py").read_bytes() == src.replace("x.to(d)", "x = x.to(d)").encode("latin-1")


def test_unreadable_file_is_an_error_exit_2_any_user(proj, capsys, monkeypatch):
    (proj / "a.py").write_text(BAD)
    (proj / "b.py").write_text(BAD)
    from torchferry.check import runner

    real_read = runner.read_bytes

    def fake_read(path, *args, **kwargs):
        if str(path).endswith("a.py"):
            raise PermissionError(13, "Permission denied")
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(runner, "read_bytes", fake_read)
    rc, out, err = run(capsys, "--no-cache")
    assert rc == 2
    assert err.strip() == "ferry check: error: a.py: cannot read: Permission denied"
    assert "b.py:2:1: FRY901" in out  # the other file is still checked


def test_rule_crash_is_internal_error_exit_2(proj, capsys):
    (proj / "a.py").write_text("import torch\nCRASH\n")
    (proj / "b.py").write_text(BAD)
    rc, out, err = run(capsys)
    assert rc == 2
    assert "a.py: rule FRY904 crashed on a.py: ZeroDivisionError: boom" in err
    assert "b.py:2:1" in out


def test_prefilter_skips_files_without_the_rules_words(proj, capsys, monkeypatch):
    (proj / "a.py").write_text("x.to(d)\ny = (\n")  # no torch nor a library it knows: not parsed
    from torchferry.check import engine

    def boom(*a, **k):
        raise AssertionError("parsed")

    monkeypatch.setattr(engine, "check_source", boom)
    rc, out, _ = run(capsys)
    assert (rc, out) == (0, "All checks passed!\n")


# ---------------------------------------------------------------- formats
def test_json_format(proj, capsys):
    (proj / "a.py").write_text(BAD)
    rc, out, _ = run(capsys, "--format", "json")
    assert rc == 1
    items = json.loads(out)
    assert items[0] == {
        "code": "FRY901",
        "name": "bare-to",
        "message": "result of `.to()` is discarded",
        "path": "a.py",
        "line": 2,
        "column": 1,
        "end_line": 2,
        "end_column": 8,
        "fix": {
            "message": "assign to `x`",
            "safe": True,
            "edits": [
                {"line": 2, "column": 1, "end_line": 2, "end_column": 8, "content": "x = x.to(d)"}
            ],
        },
    }
    assert items[1]["code"] == "FRY902" and items[1]["fix"]["safe"] is False


def test_json_empty_list_when_clean(proj, capsys):
    (proj / "a.py").write_text("import torch\n")
    assert run(capsys, "--format", "json")[:2] == (0, "[]\n")


def test_github_format(proj, capsys):
    (proj / "a.py").write_text(BAD)
    rc, out, _ = run(capsys, "--format", "github")
    assert rc == 1
    assert out.splitlines()[0] == (
        "::error title=ferry (FRY901),file=a.py,line=2,col=1,endLine=2,endColumn=8"
        "::a.py:2:1: FRY901 result of `.to()` is discarded"
    )


def test_sarif_format(proj, capsys):
    (proj / "sub").mkdir()
    (proj / "sub" / "a.py").write_text(BAD)
    rc, out, _ = run(capsys, "--format", "sarif")
    assert rc == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    run_ = doc["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["FRY901", "FRY902", "FRY903", "FRY904"]
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules)
    res = run_["results"][0]
    assert res["ruleId"] == "FRY901" and rules[res["ruleIndex"]]["id"] == "FRY901"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "sub/a.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 8}
    # the limits GitHub code scanning documents for uploaded SARIF
    assert run_["tool"]["driver"]["name"]
    for r in rules:
        assert len(r["shortDescription"]["text"]) <= 1024
        assert len(r["fullDescription"]["text"]) <= 1024
        assert len(r["properties"]["tags"]) <= 20
    for res in run_["results"]:
        assert res["message"]["text"] and len(res["locations"]) == 1
        assert res["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_sarif_with_real_rules_has_their_docs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text('import torch\nstate = torch.load("m.pt")\n')
    rc, out, _ = run(capsys, "--format", "sarif", "--select", "ALL")
    rules = {r["id"]: r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    from torchferry.check.rules import rule_by_code

    fry004 = rule_by_code("FRY004")
    assert rules["FRY004"]["name"] == fry004.NAME
    assert "## What it does" in rules["FRY004"]["help"]["markdown"]
    assert all(len(r["fullDescription"]["text"]) <= 1024 for r in rules.values())


# ---------------------------------------------------------------- config
def write_config(proj, body):
    (proj / "pyproject.toml").write_text(f'[project]\nname = "p"\n\n[tool.torchferry]\n{body}\n')


def test_config_select_ignore(proj, capsys):
    (proj / "a.py").write_text(BAD)
    write_config(proj, 'ignore = ["FRY902"]')
    out = run(capsys)[1]
    assert "FRY901" in out and "FRY902" not in out
    write_config(proj, 'select = ["FRY902"]')
    out = run(capsys)[1]
    assert "FRY901" not in out and "FRY902" in out
    # the command line's --select replaces the config's select
    out = run(capsys, "--select", "FRY901")[1]
    assert "FRY901" in out and "FRY902" not in out


def test_config_per_file_ignores_and_exclude(proj, capsys):
    for d in ("tests", "legacy", "src"):
        (proj / d).mkdir()
        (proj / d / "a.py").write_text(BAD)
    write_config(proj, 'exclude = ["legacy/"]\nper-file-ignores = {"tests/**" = ["FRY901"]}')
    out = run(capsys, "--format", "json")[1]
    got = sorted((i["path"], i["code"]) for i in json.loads(out))
    assert got == [("src/a.py", "FRY901"), ("src/a.py", "FRY902"), ("tests/a.py", "FRY902")]
    # an explicitly named file is checked even when excluded
    out = run(capsys, "legacy/a.py", "--format", "json")[1]
    assert {i["path"] for i in json.loads(out)} == {"legacy/a.py"}


def test_config_found_from_a_subdirectory(proj, capsys, monkeypatch):
    (proj / "pkg").mkdir()
    (proj / "pkg" / "a.py").write_text(BAD)
    write_config(proj, 'ignore = ["FRY901"]')
    monkeypatch.chdir(proj / "pkg")
    out = run(capsys)[1]
    assert "FRY901" not in out and "FRY902" in out


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ('select = "FRY9"x', "invalid TOML"),
        ("select = [1, 2]", "[tool.torchferry] select must be a list of strings, got [1, 2]"),
        ('select = ["FRY999"]', "unknown rule selector 'FRY999' in"),
        ('ignore = ["BAD"]', "unknown rule selector 'BAD'"),
        ("exclude = 3", "exclude must be a list of strings"),
        ('per-file-ignores = ["x"]', "per-file-ignores must be a table"),
        ('per-file-ignores = {"a.py" = ["ZZZ9"]}', "unknown rule selector 'ZZZ9'"),
        ("colour = true", "unknown key 'colour'"),
    ],
)
def test_bad_config_is_one_line_exit_2(proj, capsys, body, needle):
    (proj / "a.py").write_text(BAD)
    write_config(proj, body)
    rc, out, err = run(capsys)
    assert rc == 2, (out, err)
    assert needle in err and "pyproject.toml" in err
    assert len(err.strip().splitlines()) == 1 and out == ""


def test_config_subtables_of_other_commands_are_allowed(proj, capsys):
    (proj / "a.py").write_text(BAD)
    write_config(proj, 'ignore = ["FRY902"]\n\n[tool.torchferry.bench]\nrepeat = 3')
    rc, out, _ = run(capsys)
    assert rc == 1 and "FRY902" not in out


# ---------------------------------------------------------------- discovery
def test_gitignore_is_honoured(proj, capsys):
    (proj / ".git").mkdir()
    (proj / ".gitignore").write_text("gen_*.py\n/build/\n# comment\ndata/**\n!data/keep.py\n")
    for rel in ("gen_x.py", "ok.py", "build/a.py", "sub/build/b.py", "data/keep.py", "data/x.py"):
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(BAD)
    (proj / "sub" / ".gitignore").write_text("b.py\n")
    (proj / "venv").mkdir()
    (proj / "venv" / "v.py").write_text(BAD)
    out = run(capsys, "--format", "json", "--select", "FRY901")[1]
    assert sorted(i["path"] for i in json.loads(out)) == ["data/keep.py", "ok.py"]


def test_gitignore_of_parent_applies_to_a_checked_subdirectory(proj, capsys):
    (proj / ".git").mkdir()
    (proj / ".gitignore").write_text("*_pb2.py\n")
    (proj / "pkg").mkdir()
    (proj / "pkg" / "m_pb2.py").write_text(BAD)
    (proj / "pkg" / "m.py").write_text(BAD)
    out = run(capsys, "pkg", "--format", "json", "--select", "FRY901")[1]
    assert [i["path"] for i in json.loads(out)] == ["pkg/m.py"]


def test_checks_ipynb_and_py_only(proj, capsys):
    (proj / "a.txt").write_text(BAD)
    (proj / "a.pyi").write_text(BAD)
    (proj / "a.py").write_text(BAD)
    out = run(capsys, "--format", "json", "--select", "FRY901")[1]
    assert [i["path"] for i in json.loads(out)] == ["a.py"]


# ---------------------------------------------------------------- fixes
def test_fix_applies_safe_fixes_only(proj, capsys):
    f = proj / "a.py"
    f.write_text(BAD)
    rc, out, _ = run(capsys, "--fix")
    assert rc == 1
    assert f.read_text() == 'import torch\nx = x.to(d)\ndev = "cuda"\n'
    assert "Found 2 findings (1 fixed, 1 remaining)." in out


def test_unsafe_fixes(proj, capsys):
    f = proj / "a.py"
    f.write_text(BAD)
    rc, out, _ = run(capsys, "--fix", "--unsafe-fixes")
    assert rc == 0
    assert f.read_text() == "import torch\nx = x.to(d)\ndev = device\n"
    assert "Found 2 findings (2 fixed, 0 remaining)." in out


def test_unsafe_fixes_alone_only_marks_them(proj, capsys):
    f = proj / "a.py"
    f.write_text(BAD)
    rc, out, _ = run(capsys, "--unsafe-fixes")
    assert rc == 1 and f.read_text() == BAD
    assert 'FRY902 [*] hard-coded "cuda"' in out
    assert "[*] 2 fixable with `--fix --unsafe-fixes`." in out


def test_second_fix_changes_nothing_and_clean_files_are_not_rewritten(proj, capsys):
    f = proj / "a.py"
    clean = proj / "clean.py"
    f.write_text(BAD)
    clean.write_text("import torch\n")
    os.utime(clean, ns=(1_000_000_000, 1_000_000_000))
    run(capsys, "--fix")
    first = f.read_bytes()
    os.utime(f, ns=(2_000_000_000, 2_000_000_000))
    rc, out, _ = run(capsys, "--fix")
    assert f.read_bytes() == first
    assert f.stat().st_mtime_ns == 2_000_000_000  # not rewritten
    assert clean.stat().st_mtime_ns == 1_000_000_000
    assert "fixed" not in out


def test_fix_preserves_bytes_outside_edits(proj, capsys):
    src = (
        "\ufeff# -*- coding: utf-8 -*-\r\nimport torch  # the  spacing\r\n\r\n"
        "if True:\r\n\tx.to(d)  # keep\r\n\ty = 'é'\r\n"
    ).encode("utf-8")
    f = proj / "a.py"
    f.write_bytes(src)
    run(capsys, "--fix")
    assert f.read_bytes() == src.replace(b"\tx.to(d)", b"\tx = x.to(d)")


def test_fix_preserves_permissions_and_symlinks(proj, capsys):
    f = proj / "a.py"
    f.write_text(BAD)
    f.chmod(0o751)
    link = proj / "link.py"
    link.symlink_to(f)
    run(capsys, "--fix", "link.py")
    assert link.is_symlink()
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert "x = x.to(d)" in f.read_text()
    assert not [p for p in os.listdir(proj) if p.endswith(".tmp")]


def test_fix_that_would_break_the_file_is_not_offered(proj, capsys):
    f = proj / "a.py"
    src = "import torch\nx.to(d)\nBROKEN\n"
    f.write_text(src)
    rc, out, err = run(capsys, "--fix")
    assert rc == 1 and err == ""
    assert f.read_text() == "import torch\nx = x.to(d)\nBROKEN\n"
    assert "FRY903" in out


def test_fix_write_failure_is_reported_and_file_intact(proj, capsys, monkeypatch):
    f = proj / "a.py"
    f.write_text(BAD)
    import torchferry.check.runner as runner

    def fail(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner.os, "replace", fail)
    rc, _, err = run(capsys, "--fix")
    assert rc == 2 and "could not write the fixes" in err and "No space left" in err
    assert f.read_text() == BAD
    assert [p.name for p in proj.iterdir() if p.suffix == ".tmp"] == []


def test_diff_writes_nothing_exit_1(proj, capsys):
    f = proj / "a.py"
    f.write_text(BAD)
    rc, out, err = run(capsys, "--diff")
    assert rc == 1
    assert f.read_text() == BAD
    assert out == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n import torch\n-x.to(d)\n+x = x.to(d)\n"
        ' dev = "cuda"\n'
    )
    assert "Would fix 1 finding (1 additional fix available with `--unsafe-fixes`)." in err
    rc, out, err = run(capsys, "--diff", "--unsafe-fixes")
    assert "+dev = device" in out and "Would fix 2 findings." in err


def test_diff_names_an_absolute_path_as_git_does(proj, capsys, tmp_path_factory):
    f = tmp_path_factory.mktemp("elsewhere") / "a.py"  # outside the working directory
    f.write_text(BAD)
    rc, out, _ = run(capsys, "--diff", str(f))
    name = str(f).lstrip("/")
    assert rc == 1 and out.startswith(f"--- a/{name}\n+++ b/{name}\n@@ "), out


def test_diff_without_changes_exit_0(proj, capsys):
    (proj / "a.py").write_text('import torch\ndev = "cuda"\n')
    rc, out, err = run(capsys, "--diff")
    assert (rc, out) == (0, "")
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in err


# ---------------------------------------------------------------- stdin
def test_stdin(proj, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    rc, out, _ = run(capsys, "--stdin-filename", "pkg/x.py")
    assert rc == 1 and out.startswith("pkg/x.py:2:1: FRY901")


def test_stdin_fix_prints_fixed_source(proj, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    rc, out, err = run(capsys, "--stdin-filename", "x.py", "--fix")
    assert out == 'import torch\nx = x.to(d)\ndev = "cuda"\n'
    assert "x.py:3:7: FRY902" in err and rc == 1


def test_a_dash_path_reads_stdin(proj, capsys, monkeypatch):
    """`ferry check -` reads the source from stdin and reports it as "-", as ruff and flake8
    do; with --stdin-filename the name is that one (it used to be "-: no such file")."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    rc, out, _ = run(capsys, "-")
    assert rc == 1 and out.startswith("-:2:1: FRY901")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    rc, out, _ = run(capsys, "--stdin-filename", "pkg/x.py", "-")
    assert rc == 1 and out.startswith("pkg/x.py:2:1: FRY901")


def test_stdin_uses_per_file_ignores(proj, capsys, monkeypatch):
    import io

    write_config(proj, 'per-file-ignores = {"tests/*" = ["FRY901"]}')
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    out = run(capsys, "--stdin-filename", "tests/x.py")[1]
    assert "FRY901" not in out and "FRY902" in out


# ---------------------------------------------------------------- cache
def test_warm_cache_parses_nothing(proj, capsys, monkeypatch):
    (proj / "a.py").write_text(BAD)
    cold = run(capsys)
    assert list((proj / ".ferry_cache").glob("*.json"))
    from torchferry.check import engine

    def boom(*a, **k):
        raise AssertionError("parsed on a warm run")

    monkeypatch.setattr(engine, "check_source", boom)
    assert run(capsys) == cold
    # --no-cache bypasses it
    rc, _, err = run(capsys, "--no-cache")
    assert rc == 2 and "parsed on a warm run" in err


def test_cache_follows_content_and_selection(proj, capsys):
    f = proj / "a.py"
    f.write_text(BAD)
    run(capsys)
    f.write_text("import torch\nx = x.to(d)\n")
    assert run(capsys)[:2] == (0, "All checks passed!\n")
    f.write_text(BAD)
    assert "FRY902" not in run(capsys, "--select", "FRY901")[1]
    assert "FRY902" in run(capsys)[1]


def test_corrupt_cache_is_ignored(proj, capsys):
    (proj / "a.py").write_text(BAD)
    first = run(capsys)
    for p in (proj / ".ferry_cache").glob("*.json"):
        p.write_text("{not json")
    assert run(capsys) == first
    for p in (proj / ".ferry_cache").glob("*.json"):
        p.write_text('{"' + str(proj / "a.py") + '": ["0", []]}')
    assert run(capsys) == first


def test_no_cache_writes_no_cache(proj, capsys):
    (proj / "a.py").write_text(BAD)
    run(capsys, "--no-cache")
    assert not (proj / ".ferry_cache").exists()


# ---------------------------------------------------------------- jobs
@pytest.mark.slow
def test_jobs_gives_the_same_result(proj, capsys, monkeypatch):
    import torchferry.check.runner as runner

    for i in range(12):
        (proj / f"m{i}.py").write_text(BAD + f"y{i}.to(d)\n")
    serial = run(capsys, "--no-cache", "--jobs", "1")
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    called = []
    real = runner._parallel
    monkeypatch.setattr(runner, "_parallel", lambda *a: called.append(1) or real(*a))
    assert run(capsys, "--no-cache", "--jobs", "2") == serial
    assert called


def test_force_exclude_applies_to_named_files(proj, capsys):
    write_config(proj, 'exclude = ["legacy/"]')
    (proj / "legacy").mkdir()
    (proj / "legacy" / "a.py").write_text(BAD)
    (proj / "b.py").write_text(BAD)
    out = run(capsys, "--force-exclude", "legacy/a.py", "b.py", "--format", "json")[1]
    assert {i["path"] for i in json.loads(out)} == {"b.py"}
    rc, out, err = run(capsys, "--force-exclude", "legacy/a.py")
    assert rc == 0 and "no Python files found" in err


def test_summary_plurals(proj, capsys):
    (proj / "a.py").write_text('import torch\nx.to(d)\ny.to(d)\na = "cuda"\nb = "cuda"\n')
    out = run(capsys)[1]
    assert out.splitlines()[-2:] == [
        "Found 4 findings.",
        "[*] 2 fixable with the `--fix` option "
        "(2 hidden fixes can be enabled with the `--unsafe-fixes` option).",
    ]


def test_unwritable_cache_is_skipped(proj, capsys):
    (proj / "a.py").write_text(BAD)
    (proj / ".ferry_cache").write_text("a file where the cache directory would go")
    rc, out, err = run(capsys)
    assert rc == 1 and "FRY901" in out and err == ""


def test_cache_forgets_deleted_files_and_old_configurations(proj, capsys):
    import torchferry.check.cache as cache_mod

    (proj / "a.py").write_text(BAD)
    (proj / "b.py").write_text(BAD)
    run(capsys)
    (proj / "b.py").unlink()
    (proj / "a.py").write_text(BAD + "z.to(d)\n")
    run(capsys)
    (entries,) = [
        json.loads(p.read_bytes().partition(b"\n")[2])  # after the ferry-cache header line
        for p in (proj / ".ferry_cache").glob("*.json")
    ]
    assert list(entries) == [str(proj / "a.py")]
    for k in range(cache_mod.KEEP + 3):  # other configurations' cache files, written by us
        old = cache_mod.Cache(proj, f"{k:024x}")
        old.put(str(proj / "a.py"), "0", [])
        old.save()
    (proj / ".ferry_cache" / "notes.json").write_text("{}")  # not ours: never pruned
    (proj / "a.py").write_text(BAD)
    run(capsys)
    assert len(list((proj / ".ferry_cache").glob("[0-9a-f]*.json"))) == cache_mod.KEEP
    assert (proj / ".ferry_cache" / "notes.json").read_text() == "{}"


def test_stdin_undecodable_is_fry000(proj, capsys, monkeypatch):
    import io

    for name in ("x.py", "x.ipynb"):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"import torch\n\xff\xfe\n")))
        rc, out, _ = run(capsys, "--stdin-filename", name, "--format", "json")
        (item,) = json.loads(out)
        assert rc == 1 and item["code"] == "FRY000"


def test_summary_when_only_unsafe_fixes(proj, capsys):
    (proj / "a.py").write_text('import torch\na = "cuda"\n')
    out = run(capsys)[1]
    assert out.splitlines()[-1] == (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    )


def test_coding_cookie_on_line_two_after_a_long_first_line(proj, capsys):
    src = "#" + "x" * 600 + "\n# -*- coding: latin-1 -*-\nimport torch\ns = 'é'\nx.to(d)\n"
    (proj / "a.py").write_bytes(src.encode("latin-1"))
    rc, out, _ = run(capsys, "--fix")
    assert rc == 0, out
    assert (proj / "a.py").read_bytes() == src.replace("x.to(d)", "x = x.to(d)").encode("latin-1")


def test_real_multiline_fix_keeps_crlf_and_tabs(tmp_path, monkeypatch, capsys):
    """FRY006's fix inserts lines: in a CRLF file they get CRLF too, nothing else moves."""
    monkeypatch.chdir(tmp_path)
    fixture = Path(__file__).parent / "rules" / "fixtures" / "fixes" / "FRY006_unsafe.in.py"
    expected = fixture.with_name("FRY006_unsafe.out.py").read_text()
    src = fixture.read_text()
    f = tmp_path / "t.py"
    f.write_bytes(src.replace("\n", "\r\n").encode())
    rc, out, err = run(capsys, "--fix", "--unsafe-fixes", "--select", "FRY006")
    assert rc == 0, (out, err)
    data = f.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.decode() == expected.replace("\n", "\r\n")


def test_an_unexpected_bug_on_one_file_does_not_stop_the_others(proj, capsys, monkeypatch):
    import torchferry.check.runner as runner

    (proj / "a.py").write_text(BAD)
    (proj / "b.py").write_text(BAD)
    real = runner._python

    def buggy(out, text, opts, ignore):
        if out.display == "a.py":
            raise KeyError("oops")
        return real(out, text, opts, ignore)

    monkeypatch.setattr(runner, "_python", buggy)
    rc, out, err = run(capsys, "--no-cache")
    assert rc == 2
    assert (
        err.strip()
        == "ferry check: error: a.py: internal error: KeyError: 'oops' (please report it)"
    )
    assert "b.py:2:1: FRY901" in out


def test_in_process_main_leaves_the_hosts_collector_as_it_was(proj, capsys):
    """main([...]) inside another program (a test runner, a service that froze its objects
    with gc.freeze() before forking) must not thaw them: only a `ferry` process tunes the
    collector.  It used to freeze everything alive and then unfreeze everything."""
    import gc

    gc.freeze()  # the host's own frozen objects
    before = gc.get_freeze_count()
    (proj / "a.py").write_text(BAD)
    assert run(capsys, "a.py")[0] == 1
    assert gc.get_freeze_count() == before and gc.isenabled()
