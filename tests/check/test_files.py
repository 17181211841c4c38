"""Discovery: the gitignore pattern language, excludes, and walking."""

from __future__ import annotations

import pytest

from torchferry.check.files import DEFAULT_EXCLUDE, PatternSet, discover
from torchferry.errors import UsageError


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.py", "a.py", False, True),
        ("*.py", "deep/er/a.py", False, True),
        ("*.py", "a.pyc", False, None),
        ("build/", "build", True, True),
        ("build/", "build", False, None),  # a file named build: dir-only pattern
        ("build/", "x/build", True, True),  # no inner slash: any level
        ("/build", "build", True, True),
        ("/build", "x/build", True, None),  # leading slash: anchored
        ("doc/frotz", "doc/frotz", True, True),
        ("doc/frotz", "a/doc/frotz", True, None),  # inner slash: anchored
        ("**/foo", "foo", True, True),
        ("**/foo", "a/b/foo", False, True),
        ("**/foo/bar", "x/foo/bar", False, True),
        ("abc/**", "abc/x/y.py", False, True),
        ("abc/**", "abc", True, None),
        ("a/**/b", "a/b", True, True),
        ("a/**/b", "a/x/y/b", True, True),
        ("a/**/b", "a/xb", True, None),
        ("f?o.py", "foo.py", False, True),
        ("f?o.py", "f/o.py", False, None),
        ("[abc].py", "b.py", False, True),
        ("[!abc].py", "b.py", False, None),
        ("[!abc].py", "d.py", False, True),
        ("*_pb2.py", "pkg/m_pb2.py", False, True),
        ("\\#x.py", "#x.py", False, True),
        ("# comment", "# comment", False, None),
        ("\\!imp.py", "!imp.py", False, True),
        ("trailing.py   ", "trailing.py", False, True),
        ("a*b", "a/b", False, None),  # * never matches a slash
    ],
)
def test_gitignore_patterns(pattern, path, is_dir, expected):
    assert PatternSet.from_lines([pattern]).match(path, is_dir) is expected


def test_negation_and_last_match_wins():
    ps = PatternSet.from_lines(["*.py", "!keep.py", "keep.py"])
    assert ps.match("keep.py", False) is True
    ps = PatternSet.from_lines(["*.py", "!keep.py"])
    assert ps.match("keep.py", False) is False
    assert ps.match("other.py", False) is True


def test_match_path_or_parent():
    ps = PatternSet.from_lines(["legacy/"])
    assert ps.match_path_or_parent("legacy/a/b.py")
    assert not ps.match_path_or_parent("src/legacy.py")


def test_nothing_inside_an_ignored_directory_is_reincluded(tmp_path):
    (tmp_path / ".gitignore").write_text("out/\n!out/keep.py\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.py").write_text("")
    (tmp_path / "a.py").write_text("")
    assert [p.name for p in discover([str(tmp_path)], tmp_path)] == ["a.py"]


def test_git_info_exclude_and_nested_gitignore(tmp_path):
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.py\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.py\n!ok.py\n")
    for rel in ("secret.py", "a.py", "sub/x.py", "sub/ok.py"):
        (tmp_path / rel).write_text("")
    found = [p.relative_to(tmp_path).as_posix() for p in discover([str(tmp_path)], tmp_path)]
    assert found == ["a.py", "sub/ok.py"]


def test_default_excludes_and_config_exclude(tmp_path):
    for rel in (
        ".venv/a.py",
        "node_modules/b.py",
        ".ipynb_checkpoints/c.ipynb",
        "build/lib/f.py",  # ruff's defaults skip build/ and dist/ too
        "gen/d.py",
        "e.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    found = discover([str(tmp_path)], tmp_path, [*DEFAULT_EXCLUDE, "gen/"])
    assert [p.name for p in found] == ["e.py"]


def test_missing_path_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="nope.py: no such file or directory"):
        discover([str(tmp_path / "nope.py")], tmp_path)


def test_duplicates_are_checked_once(tmp_path):
    (tmp_path / "a.py").write_text("")
    found = discover([str(tmp_path), str(tmp_path / "a.py")], tmp_path)
    assert len(found) == 1


def test_directory_symlink_loops_are_not_followed(tmp_path):
    (tmp_path / "a.py").write_text("")
    (tmp_path / "loop").symlink_to(tmp_path)
    assert [p.name for p in discover([str(tmp_path)], tmp_path)] == ["a.py"]
