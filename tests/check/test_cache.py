"""The ``ferry check`` cache trusts only what it wrote and touches only its own files."""

from __future__ import annotations

import json
import os

import pytest

from torchferry.check import cache as cache_mod
from torchferry.cli import main

BAD = 'import torch\nx.to(d)\ny.to(d)\ndev = "cuda"\n'


@pytest.fixture
def proj(tmp_path, monkeypatch, fake_rules):
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv(getattr(cache_mod, "KEY_ENV", "XDG_CACHE_HOME"), str(tmp_path / "user-cache"))
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (root / "a.py").write_text(BAD)
    return root


def run(capsys, *argv):
    rc = main(["check", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def cache_files(proj):
    return sorted((proj / ".ferry_cache").glob("[0-9a-f]*.json"))


# ------------------------------------------------------------- only our own files
@pytest.mark.slow
def test_symlinked_cache_dir_is_never_pruned_or_written(proj, tmp_path, capsys):
    """A committed .ferry_cache -> elsewhere: pruning deleted 13 of 20 unrelated *.json files."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for i in range(20):
        (elsewhere / f"{i:024x}.json").write_text(f'{{"n": {i}}}')
        (elsewhere / f"data{i}.json").write_text("{}")
    (proj / ".ferry_cache").symlink_to(elsewhere)
    first = run(capsys)
    for sel in ("FRY901", "FRY902", "FRY901,FRY902", "FRY903", "FRY904"):
        run(capsys, "--select", sel)
    assert run(capsys) == first and first[0] == 1
    assert len(list(elsewhere.iterdir())) == 40  # nothing deleted, nothing added
    assert (elsewhere / f"{3:024x}.json").read_text() == '{"n": 3}'


@pytest.mark.parametrize("exists", [True, False])
def test_symlinked_gitignore_is_not_written_through(proj, tmp_path, capsys, exists):
    victim = tmp_path / "victim.txt"
    if exists:
        victim.write_text("precious\n")
    (proj / ".ferry_cache").mkdir()
    (proj / ".ferry_cache" / ".gitignore").symlink_to(victim)
    run(capsys)
    assert victim.read_text() == "precious\n" if exists else not victim.exists()
    assert (proj / ".ferry_cache" / ".gitignore").is_symlink()
    assert cache_files(proj)  # the cache itself still works


def test_gitignore_created_once_and_left_alone(proj, capsys):
    run(capsys)
    ignore = proj / ".ferry_cache" / ".gitignore"
    assert ignore.read_text().endswith("*\n")
    ignore.write_text("# mine\n")
    (proj / "a.py").write_text(BAD + "z.to(d)\n")
    run(capsys)
    assert ignore.read_text() == "# mine\n"


def test_symlinked_cache_file_is_neither_read_nor_written(proj, tmp_path, capsys):
    first = run(capsys)
    (cache,) = cache_files(proj)
    victim = tmp_path / "victim.json"
    victim.write_bytes(cache.read_bytes())
    cache.unlink()
    cache.symlink_to(victim)
    before = victim.read_bytes()
    (proj / "a.py").write_text(BAD + "z.to(d)\n")
    run(capsys)
    assert cache.is_symlink() and victim.read_bytes() == before
    (proj / "a.py").write_text(BAD)
    assert run(capsys) == first


def test_prune_deletes_only_our_cache_files(proj, capsys):
    keep_foreign = proj / ".ferry_cache"
    keep_foreign.mkdir()
    foreign = [keep_foreign / f"{i:024x}.json" for i in range(cache_mod.KEEP + 4)]
    for f in foreign:
        f.write_text("{}")
    for k in range(cache_mod.KEEP + 4):
        c = cache_mod.Cache(proj, f"{k + 100:024x}")
        c.put(str(proj / "a.py"), "0", [])
        c.save()
    run(capsys)
    ours = [f for f in cache_files(proj) if f not in foreign]
    assert len(ours) == cache_mod.KEEP
    assert all(f.read_text() == "{}" for f in foreign)


# ------------------------------------------------------------- validated, keyed entries
@pytest.mark.parametrize(
    "body",
    [
        "5",
        "[1, 2]",
        '{"A": 5}',
        '{"A": ["D", 7]}',
        '{"A": ["D", [["FRY901", 5]]]}',
        '{"A": ["D", [["FRY901", "m", "1", 0, 1, 4, null, null, "x"]]]}',
        '{"A": ["D", [["FRY901", "m", 1, 0, 1, 4, ["fix", true, [[1]]], null, "x"]]]}',
    ],
)
def test_badly_shaped_cache_is_a_miss_not_an_internal_error(proj, capsys, body):
    first = run(capsys)
    (cache,) = cache_files(proj)
    digest = cache_mod.content_hash((proj / "a.py").read_bytes())
    body = body.replace('"A"', json.dumps(str(proj / "a.py"))).replace('"D"', json.dumps(digest))
    c = cache_mod.Cache(proj, cache.stem)  # even correctly signed, a bad shape is a miss
    cache.write_bytes(c._header(cache.name, body.encode()) + body.encode())
    assert run(capsys) == first
    cache.write_bytes(c._header(cache.name, body.encode()) + body.encode())
    assert cache_mod.Cache(proj, cache.stem).get(str(proj / "a.py"), digest) is None


def test_edited_entry_with_matching_hash_does_not_hide_findings(proj, capsys):
    """Poisoned entry (right content hash, no findings): 131 findings became 115."""
    first = run(capsys)
    assert first[0] == 1 and "FRY901" in first[1]
    (cache,) = cache_files(proj)
    header, _, body = cache.read_bytes().partition(b"\n")
    entries = json.loads(body)
    for entry in entries.values():
        entry[1] = []  # same digest, findings removed
    cache.write_bytes(header + b"\n" + json.dumps(entries).encode())
    assert run(capsys) == first
    # the plain-JSON cache of torchferry before this change is a miss too
    cache.write_text(json.dumps(entries))
    assert run(capsys) == first


def test_foreign_cache_signed_with_another_secret_is_a_miss(proj, tmp_path, capsys, monkeypatch):
    """A cache committed to a repository or copied from another machine."""
    first = run(capsys)
    (cache,) = cache_files(proj)
    digest = cache_mod.content_hash((proj / "a.py").read_bytes())
    monkeypatch.setenv(cache_mod.KEY_ENV, str(tmp_path / "attacker"))
    forged = cache_mod.Cache(proj, cache.stem)
    forged.entries = {}
    forged.put(str(proj / "a.py"), digest, [])
    forged.save()
    monkeypatch.setenv(cache_mod.KEY_ENV, str(tmp_path / "user-cache"))
    assert run(capsys) == first


def test_warm_run_still_hits(proj, capsys, monkeypatch):
    first = run(capsys)
    from torchferry.check import engine

    monkeypatch.setattr(engine, "check_source", lambda *a, **k: 1 / 0)
    assert run(capsys) == first


def test_an_edit_rechecks_the_files_that_import_it_transitively(proj, capsys, monkeypatch):
    """a imports b, b imports c; d imports none of them: an edit of c misses for a, b and c
    (their findings may follow calls into c) and hits for d."""
    from torchferry.check import engine

    (proj / "a.py").write_text("import torch\nimport b\n")
    (proj / "b.py").write_text("import torch\nfrom c import f\n")
    (proj / "c.py").write_text("import torch\ndef f():\n    return 1\n")
    (proj / "d.py").write_text(BAD)
    first = run(capsys)
    checked = []
    real = engine.check_source
    monkeypatch.setattr(engine, "check_source",
                        lambda src, path, **k: checked.append(path) or real(src, path, **k))
    assert run(capsys) == first and checked == []
    (proj / "c.py").write_text("import torch\ndef f():\n    return 2\n")
    assert run(capsys) == first and sorted(checked) == ["a.py", "b.py", "c.py"]


def test_secret_is_private_and_reused(proj, tmp_path, capsys):
    run(capsys)
    key = cache_mod._key_file()
    assert key.is_file() and (key.stat().st_mode & 0o777) == 0o600
    before = key.read_bytes()
    (proj / "a.py").write_text(BAD + "z.to(d)\n")
    run(capsys)
    assert key.read_bytes() == before


def test_no_secret_means_no_cache(proj, tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv(cache_mod.KEY_ENV, str(blocker))  # the key cannot be created under a file
    rc, out, err = run(capsys)
    assert rc == 1 and "FRY901" in out and err == ""
    assert not cache_files(proj)


def test_cache_write_uses_the_atomic_helper(proj, capsys, monkeypatch):
    import torchferry._internal.atomic as atomic

    seen = []
    real = atomic.write_bytes
    monkeypatch.setattr(atomic, "write_bytes", lambda p, d: seen.append(p) or real(p, d))
    run(capsys)
    assert [os.path.basename(p) for p in seen] == [cache_files(proj)[0].name]
