"""`ferry check`'s command line and configuration as ruff users know them: output
formats, statistics, quiet and silent, output file, colour, --config, extend-select,
exclude, ``select = []`` and the target Python version."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from torchferry.cli import main

# FRY001 (line 2) and FRY004 + FRY005 (line 3): opt-in rules, selected by the project
SOURCE = 'import torch\ndev = "cuda"\nm = torch.load("m.pt")\n'
EVERY_RULE = '[project]\nname = "p"\n[tool.torchferry]\nselect = ["ALL"]\n'


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "pyproject.toml").write_text(EVERY_RULE)
    (tmp_path / "a.py").write_text(SOURCE)
    return tmp_path


def run(capsys, *argv):
    rc = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def codes(out):
    return [line.split()[1] for line in out.splitlines() if line.startswith("a.py:")]


def test_concise_is_one_line_per_finding_and_format_is_an_alias(proj, capsys):
    rc, out, _ = run(capsys, "--output-format", "concise")
    assert rc == 1
    lines = out.splitlines()
    assert lines[:3] == [ln for ln in lines if ln.startswith("a.py:")]  # no source, no caret
    assert [ln.split(":")[1] for ln in lines[:3]] == ["2", "3", "3"]
    assert lines[3] == "Found 3 findings."
    assert run(capsys, "--format", "concise")[1] == out
    full = run(capsys, "--output-format", "full")[1]
    assert full == run(capsys, "--format", "text")[1] == run(capsys)[1] != out


def test_statistics_counts_per_rule(proj, capsys):
    (proj / "b.py").write_text('import torch\nm = torch.load("m.pt")\n')
    rc, out, _ = run(capsys, "--statistics")
    assert rc == 1
    rows = [line.split("\t") for line in out.splitlines()[:3]]
    assert rows == [["2", "FRY004", "[ ] load-without-map-location"],
                    ["2", "FRY005", "[ ] unsafe-load"],
                    ["1", "FRY001", "[ ] hardcoded-accelerator"]]
    assert out.splitlines()[3] == "Found 5 findings."
    rc, out, _ = run(capsys, "--statistics", "--output-format", "json")
    import json

    assert rc == 1 and json.loads(out)[0] == {
        "code": "FRY004", "name": "load-without-map-location", "count": 2, "fixable": False}
    rc, _, err = run(capsys, "--statistics", "--output-format", "sarif")
    assert rc == 2 and "--statistics" in err


def test_quiet_prints_findings_only_and_silent_nothing(proj, capsys):
    rc, out, err = run(capsys, "-q", "--output-format", "concise")
    assert rc == 1 and len(out.splitlines()) == 3 and err == ""
    rc, out, err = run(capsys, "--silent")
    assert (rc, out, err) == (1, "", "")


def test_output_file_gets_the_report_and_stdout_nothing(proj, capsys):
    rc, out, _ = run(capsys, "--output-format", "json", "--output-file", "r.json")
    assert rc == 1 and out == ""
    import json

    assert [f["code"] for f in json.loads((proj / "r.json").read_text())] == [
        "FRY001", "FRY004", "FRY005"]
    rc, _, err = run(capsys, "-o", str(proj / "nowhere" / "r.txt"))
    assert rc == 2 and "--output-file" in err and "Traceback" not in err


@pytest.mark.parametrize(("flag", "env", "colored"), [
    ("always", {}, True), ("never", {"FORCE_COLOR": "1"}, False),
    ("auto", {"FORCE_COLOR": "1"}, True), ("auto", {}, False),  # captured: not a terminal
    ("always", {"NO_COLOR": "1"}, True),
])
def test_color(proj, capsys, monkeypatch, flag, env, colored):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    out = run(capsys, "--color", flag)[1]
    assert ("\x1b[" in out) is colored


def test_select_empty_list_runs_no_rule_and_extend_select_adds(proj, capsys):
    (proj / "pyproject.toml").write_text('[tool.torchferry]\nselect = []\n')
    assert run(capsys) == (0, "All checks passed!\n", "")
    rc, out, _ = run(capsys, "--extend-select", "FRY004", "--output-format", "concise")
    assert rc == 1 and codes(out) == ["FRY004"]
    (proj / "pyproject.toml").write_text(
        '[tool.torchferry]\nselect = ["FRY001"]\nextend-select = ["FRY005"]\n')
    assert codes(run(capsys, "--output-format", "concise")[1]) == ["FRY001", "FRY005"]
    out = run(capsys, "--extend-select", "FRY004", "--output-format", "concise")[1]
    assert codes(out) == ["FRY001", "FRY004", "FRY005"]
    # the command line's --select replaces the configuration's selection, extensions too
    out = run(capsys, "--select", "FRY004", "--output-format", "concise")[1]
    assert codes(out) == ["FRY004"]


def test_select_empty_string_is_a_usage_error_as_in_ruff(proj, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(capsys, "--select", "")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "names no rule" in err and "select = []" in err


def test_config_names_the_file_to_read(proj, capsys):
    (proj / "lint.toml").write_text('select = ["FRY001"]\n')
    rc, out, _ = run(capsys, "--config", "lint.toml", "--output-format", "concise")
    assert rc == 1 and codes(out) == ["FRY001"]
    (proj / "other.toml").write_text('[tool.torchferry]\nignore = ["FRY00"]\n')
    assert run(capsys, "--config", "other.toml")[0] == 0
    rc, _, err = run(capsys, "--config", "missing.toml")
    assert rc == 2 and "--config missing.toml: no such file" in err
    (proj / "bad.toml").write_text('selekt = ["FRY001"]\n')
    rc, _, err = run(capsys, "--config", "bad.toml")
    assert rc == 2 and "unknown key 'selekt'" in err
    (proj / "typo.toml").write_text('[tool.ferry]\nselect = ["FRY001"]\n')  # configures nothing
    rc, _, err = run(capsys, "--config", "typo.toml")
    assert rc == 2 and "typo.toml: no [tool.torchferry] table" in err and "[tool.ferry]" in err


def test_exclude_on_the_command_line_and_extend_exclude_in_the_configuration(proj, capsys):
    (proj / "legacy").mkdir()
    (proj / "legacy" / "old.py").write_text(SOURCE)
    (proj / "gen_pb2.py").write_text(SOURCE)
    out = run(capsys, "--output-format", "concise")[1]
    assert "legacy/old.py" in out and "gen_pb2.py" in out
    out = run(capsys, "--exclude", "legacy/", "--extend-exclude", "*_pb2.py")[1]
    assert "legacy" not in out and "pb2" not in out and "a.py:" in out
    (proj / "pyproject.toml").write_text(EVERY_RULE + 'extend-exclude = ["legacy/"]\n')
    out = run(capsys, "--output-format", "concise")[1]
    assert "legacy" not in out and "gen_pb2.py" in out


def test_exclude_replaces_the_defaults_and_extend_exclude_adds_to_them(proj, capsys):
    # ruff: `exclude` replaces the default list (.git, .venv, dist, ...), `extend-exclude` adds
    (proj / "dist").mkdir()
    (proj / "dist" / "gen.py").write_text(SOURCE)
    (proj / "legacy").mkdir()
    (proj / "legacy" / "old.py").write_text(SOURCE)
    out = run(capsys, "--output-format", "concise")[1]
    assert "dist/" not in out and "legacy/old.py" in out
    out = run(capsys, "--output-format", "concise", "--exclude", "legacy/")[1]
    assert "dist/gen.py" in out and "legacy" not in out
    (proj / "pyproject.toml").write_text(EVERY_RULE + 'exclude = ["legacy/"]\n')
    out = run(capsys, "--output-format", "concise")[1]
    assert "dist/gen.py" in out and "legacy" not in out
    out = run(capsys, "--output-format", "concise", "--extend-exclude", "dist/")[1]
    assert "dist" not in out and "legacy" not in out and "a.py:" in out


def test_config_takes_key_value_overrides_as_ruff_does(proj, capsys):
    rc, out, _ = run(capsys, "--config", "select = ['FRY004']", "--output-format", "concise")
    assert rc == 1 and codes(out) == ["FRY004"]
    (proj / "lint.toml").write_text('select = ["FRY001", "FRY004"]\n')
    out = run(capsys, "--config", "lint.toml", "--config", 'ignore = ["FRY001"]',
              "--output-format", "concise")[1]
    assert codes(out) == ["FRY004"]
    rc, _, err = run(capsys, "--config", "selekt = ['FRY001']")
    assert rc == 2 and "one of the [tool.torchferry] keys" in err
    rc, _, err = run(capsys, "--config", "select = [")
    assert rc == 2 and "not a TOML 'KEY = VALUE' pair" in err
    rc, _, err = run(capsys, "--config", "select = 'FRY001'")
    assert rc == 2 and "must be a list of strings" in err
    rc, _, err = run(capsys, "--config", "lint.toml", "--config", "pyproject.toml")
    assert rc == 2 and "one configuration file at most" in err


def test_rule_selection_reads_ruffs_lint_table_and_lint_dotted_overrides(proj, capsys):
    rc, out, _ = run(capsys, "--config", "lint.select = ['FRY004']", "--output-format", "concise")
    assert rc == 1 and codes(out) == ["FRY004"]
    rc, _, err = run(capsys, "--config", "lint.selekt = ['FRY004']")
    assert rc == 2 and "unknown key 'lint.selekt'" in err
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "p"\n[tool.torchferry.lint]\nselect = ["FRY001"]\n')
    rc, out, _ = run(capsys, "--output-format", "concise")
    assert rc == 1 and codes(out) == ["FRY001"]  # read, not skipped as an unknown table
    (proj / "pyproject.toml").write_text(
        '[tool.torchferry]\nselect = ["FRY004"]\n[tool.torchferry.lint]\nselect = ["FRY001"]\n')
    rc, _, err = run(capsys)
    assert rc == 2 and "'select' is given both at the top level and in 'lint'" in err


def test_diff_with_another_format_is_a_usage_error(proj, capsys):
    rc, out, err = run(capsys, "--diff", "--output-format", "json")
    assert rc == 2 and out == ""
    assert "--diff" in err and "json" in err


def test_target_version_newer_than_the_parser_says_so(proj, capsys):
    (proj / "new.py").write_text("import torch\n\n\ndef f[T](x: T) -> T:\n    return x\n")
    if sys.version_info >= (3, 12):
        pytest.skip("the running parser reads 3.12 syntax")
    rc, out, err = run(capsys, "--target-version", "py312", "new.py")
    assert rc == 1 and "FRY000" in out
    assert "older than the target Python 3.12" in err
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "p"\nrequires-python = ">=3.12"\n[tool.torchferry]\n')
    assert "older than the target Python 3.12" in run(capsys, "new.py")[2]
    with pytest.raises(SystemExit) as exit_:
        run(capsys, "--target-version", "3.12", "new.py")
    assert exit_.value.code == 2 and "py311" in capsys.readouterr().err
    assert "target Python" not in run(capsys, "--target-version", "py311", "new.py")[2]


def test_a_symlink_loop_is_reported_as_such(proj, capsys):
    os.symlink("loop", proj / "loop")
    for argv in (["loop"], ["a.py", "loop"]):
        rc, _, err = run(capsys, *argv)
        assert rc == 2 and "loop: too many levels of symbolic links" in err, err
        assert "no such file" not in err


def _notebook(language):
    import json

    cell = {"cell_type": "code", "source": 'x = torch.zeros(3).cuda()\n', "metadata": {},
            "outputs": [], "execution_count": None}
    meta = {"kernelspec": {"name": "k", "language": language, "display_name": language},
            "language_info": {"name": language}}
    return json.dumps({"cells": [cell], "metadata": meta, "nbformat": 4, "nbformat_minor": 5})


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_a_notebook_of_another_language_is_skipped_and_said_so(proj, capsys, cache):
    (proj / "a.py").unlink()
    (proj / "r.ipynb").write_text(_notebook("R"))
    (proj / "py.ipynb").write_text(_notebook("python"))
    for _ in range(2):  # a second run (from the cache, if any) says it again
        rc = main(["check", *cache, "--output-format", "concise"])
        out, err = capsys.readouterr()
        assert rc == 1 and "py.ipynb:cell 1:1:" in out and "r.ipynb" not in out
        assert "ferry check: note: r.ipynb: skipped: not a Python notebook (its language is R)" \
            in err
    rc = main(["check", *cache, "-q", "r.ipynb"])
    assert rc == 0 and capsys.readouterr().err == ""
    # one whose cells never mention torch (the pre-filter's skip) is said so too
    (proj / "r.ipynb").write_text(_notebook("R").replace("x = torch.zeros(3).cuda()", "x <- 1"))
    rc = main(["check", *cache, "r.ipynb"])
    assert rc == 0
    assert "r.ipynb: skipped: not a Python notebook (its language is R)" in capsys.readouterr().err


def test_python_m_torchferry_names_itself_in_usage():
    proc = subprocess.run([sys.executable, "-m", "torchferry", "--help"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: python -m torchferry ")
