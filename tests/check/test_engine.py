"""The engine: parsing, rule selection, noqa, sorting, fixes (with fake rules)."""

from __future__ import annotations

import ast

import pytest

from torchferry.check import engine
from torchferry.check.api import Context, Edit, Finding, Fix
from torchferry.check.engine import (
    InternalError,
    apply_fixes,
    check_source,
    fix_source,
    resolve_rules,
    validate_selectors,
)
from torchferry.errors import UsageError

SRC = 'import torch\nx.to("cuda")\ny = 1\n'


def codes(findings):
    return [f.code for f in findings]


def test_runs_rules_and_sorts(fake_rules):
    found = check_source('d = "cuda"\nx.to(d)\n')
    assert [(f.code, f.line, f.column) for f in found] == [("FRY902", 1, 4), ("FRY901", 2, 0)]
    assert found[0].end_column == 10


def test_syntax_error_is_fry000_with_position(fake_rules):
    (f,) = check_source("import torch\nx = (\n", "bad.py")
    assert (f.code, f.line, f.column) == ("FRY000", 2, 4)
    assert "never closed" in f.message
    (f,) = check_source("a = 1\nb = '\x00'\n")
    assert f.code == "FRY000" and "null bytes" in f.message


def test_syntax_error_reported_whatever_is_selected(fake_rules):
    assert codes(check_source("x = (", select=["FRY901"])) == ["FRY000"]
    assert check_source("x = (", ignore=["FRY000"]) == []
    assert codes(check_source("x = (", ignore=["FRY0"])) == ["FRY000"]


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        (None, None, ["FRY901", "FRY902", "FRY903", "FRY904"]),
        (["FRY901"], None, ["FRY901"]),
        (["FRY90"], ["FRY902"], ["FRY901", "FRY903", "FRY904"]),
        (["ALL"], ["FRY9"], []),
        (["FRY902"], ["FRY9"], ["FRY902"]),  # the more specific selector wins
        (["FRY9"], ["FRY9"], []),  # a tie goes to ignore
        (["hard-cuda"], None, ["FRY902"]),
        (["fry901,FRY902"], None, ["FRY901", "FRY902"]),
        ("FRY903", None, ["FRY903"]),
    ],
)
def test_select_ignore(fake_rules, select, ignore, expected):
    assert [r.CODE for r in resolve_rules(select, ignore)] == expected


def test_select_filters_findings(fake_rules):
    assert codes(check_source(SRC, select=["FRY901"])) == ["FRY901"]
    assert codes(check_source(SRC, ignore=["FRY901"])) == ["FRY902"]
    assert codes(check_source(SRC, select=["FRY90"], ignore=["FRY901"])) == ["FRY902"]


@pytest.mark.parametrize("bad", ["FRY999", "XYZ", "FRY1", "E501", "not-a-rule"])
def test_unknown_selector_is_a_usage_error(fake_rules, bad):
    with pytest.raises(UsageError, match="unknown rule selector"):
        validate_selectors([bad])


@pytest.mark.parametrize("good", ["ALL", "FRY", "FRY9", "FRY901", "fry902", "FRY000", "bare-to"])
def test_known_selectors(fake_rules, good):
    validate_selectors([good])


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ('x.to("cuda")  # noqa', []),
        ('x.to("cuda")  # NOQA', []),
        ('x.to("cuda")  # noqa: FRY901', ["FRY902"]),
        ('x.to("cuda")  # noqa:FRY901,FRY902', []),
        ('x.to("cuda")  # noqa: FRY901 FRY902', []),
        ('x.to("cuda")  # noqa: FRY90', []),  # a prefix, as in flake8
        ('x.to("cuda")  # noqa: E501', ["FRY901", "FRY902"]),
        ('x.to("cuda")  # comment # noqa: FRY902', ["FRY901"]),
        ('x.to("cuda # noqa")', ["FRY901"]),  # not a comment
        ('x.to("cuda")', ["FRY901", "FRY902"]),
    ],
)
def test_noqa(fake_rules, line, kept):
    assert codes(check_source(f"import torch\n{line}\n")) == kept


def test_noqa_only_on_the_findings_line(fake_rules):
    assert codes(check_source('x.to(d)\n"cuda"  # noqa\n')) == ["FRY901"]
    assert codes(check_source('x.to(d)  # noqa\n"cuda"\n')) == ["FRY902"]


def test_noqa_can_be_disabled(fake_rules):
    assert codes(check_source("x.to(d)  # noqa\n", noqa=False)) == ["FRY901"]


def test_rule_crash_names_rule_and_file(fake_rules):
    with pytest.raises(InternalError, match="rule FRY904 crashed on a.py: ZeroDivisionError"):
        check_source("CRASH\n", "a.py")


def test_columns_are_characters_not_bytes(fake_rules):
    (f,) = check_source('s = "é€"; d = "cuda"\n')
    assert (f.column, f.end_column) == (14, 20)
    assert apply_fixes('s = "é€"; d = "cuda"\n', [f], unsafe=True) == 's = "é€"; d = device\n'


def test_lines_split_like_python(fake_rules):
    # a form feed or \u2028 inside a line does not start a new line for Python
    src = 'a = 1\n\x0cb = "\u2028"\nc = "cuda"\n'
    (f,) = check_source(src)
    assert f.line == 3
    assert apply_fixes(src, [f], unsafe=True) == 'a = 1\n\x0cb = "\u2028"\nc = device\n'


# ---------------------------------------------------------------- fixes
def test_safe_fix_applied_unsafe_only_when_asked(fake_rules):
    found = check_source(SRC)
    assert apply_fixes(SRC, found) == 'import torch\nx = x.to("cuda")\ny = 1\n'
    # the unsafe fix lies inside the safe one's span: one pass takes the first
    once = apply_fixes(SRC, found, unsafe=True)
    assert once == 'import torch\nx = x.to("cuda")\ny = 1\n'
    assert (
        apply_fixes(once, check_source(once), unsafe=True)
        == "import torch\nx = x.to(device)\ny = 1\n"
    )


def test_fix_source_iterates_to_a_fixed_point(fake_rules):
    res = fix_source(SRC, unsafe=True)
    assert res.source == "import torch\nx = x.to(device)\ny = 1\n"
    assert res.fixed == 2 and res.findings == [] and res.error is None
    assert fix_source(res.source, unsafe=True).fixed == 0


def test_fix_source_keeps_unfixable_findings(fake_rules):
    res = fix_source(SRC)
    assert res.fixed == 1
    assert codes(res.findings) == ["FRY902"]


def test_fix_that_breaks_syntax_is_not_advertised(fake_rules):
    src = "x.to(d)\nBROKEN\n"
    found = check_source(src)
    assert codes(found) == ["FRY901", "FRY903"]
    assert found[0].fix is not None and found[1].fix is None
    res = fix_source(src)
    assert res.source == "x = x.to(d)\nBROKEN\n" and res.fixed == 1 and res.error is None


def test_fix_that_breaks_syntax_is_abandoned_by_the_safety_net(fake_rules):
    import ast

    from torchferry.check.engine import check_tree, syntax_error_finding

    def unvalidated(text):  # the rules' own fixes, not filtered as check_source does
        try:
            return check_tree(ast.parse(text), text)
        except SyntaxError as exc:
            return [syntax_error_finding(text, exc)]

    src = "x.to(d)\nBROKEN\n"
    res = fix_source(src, check=unvalidated)
    assert res.source == src and res.fixed == 0
    assert "FRY903" in res.error and "invalid" in res.error
    assert codes(res.findings) == ["FRY901", "FRY903"]


def test_apply_fixes_preserves_everything_outside_edits(fake_rules):
    src = "import torch  # keep\r\n\r\nx.to(d)   # trailing\r\nz = 'é'\t# tab\r\n"
    fixed = apply_fixes(src, check_source(src))
    assert fixed == "import torch  # keep\r\n\r\nx = x.to(d)   # trailing\r\nz = 'é'\t# tab\r\n"


def edit_finding(*edits, safe=True):
    return Finding("FRY901", "m", 1, 0, 1, 0, Fix(tuple(Edit(*e) for e in edits), safe, "f"))


def test_overlapping_fixes_skipped_in_one_pass():
    src = "abcdef\n"
    a = edit_finding((1, 0, 1, 3, "X"))
    b = edit_finding((1, 2, 1, 5, "Y"))  # overlaps a
    c = edit_finding((1, 5, 1, 6, "Z"))
    assert apply_fixes(src, [b, a, c]) == "XdeZ\n"


def test_fix_edits_in_newline_style_of_the_file():
    f = edit_finding((1, 0, 1, 0, "a\nb\n"))
    assert apply_fixes("x\r\ny\r\n", [f]) == "a\r\nb\r\nx\r\ny\r\n"
    assert apply_fixes("x\ny\n", [f]) == "a\nb\nx\ny\n"


def test_fix_with_positions_outside_the_source_is_ignored():
    src = "ab\ncd\n"
    assert apply_fixes(src, [edit_finding((1, 0, 1, 9, "X"))]) == src
    assert apply_fixes(src, [edit_finding((7, 0, 7, 0, "X"))]) == src
    assert apply_fixes(src, [edit_finding((2, 1, 1, 0, "X"))]) == src
    # self-overlapping edits: the fix is malformed and skipped
    assert apply_fixes(src, [edit_finding((1, 0, 1, 2, "X"), (1, 1, 2, 0, "Y"))]) == src
    # insertion at the very end is fine
    assert apply_fixes(src, [edit_finding((3, 0, 3, 0, "e\n"))]) == "ab\ncd\ne\n"


def test_multi_edit_fix_applied_together():
    f = edit_finding((1, 0, 1, 0, "("), (2, 2, 2, 2, ")"))
    assert apply_fixes("ab\ncd\n", [f]) == "(ab\ncd)\n"


def test_unsafe_fix_needs_unsafe():
    f = edit_finding((1, 0, 1, 1, "X"), safe=False)
    assert apply_fixes("ab\n", [f]) == "ab\n"
    assert apply_fixes("ab\n", [f], unsafe=True) == "Xb\n"


def test_context_nodes_is_one_walk():
    tree = ast.parse("a = f(1)\nb = g(2)\n")
    ctx = Context("x.py", "a = f(1)\nb = g(2)\n", tree)
    assert [n.func.id for n in ctx.nodes[ast.Call]] == ["f", "g"]
    assert ctx.nodes is ctx.nodes


def test_real_rules_are_discovered():
    from torchferry.check.rules import all_rules

    engine._resolve.cache_clear()
    for mod in all_rules():
        assert mod.CODE.startswith("FRY") and mod.FIX in {"safe", "unsafe", "none"}
    assert [r.CODE for r in resolve_rules(["ALL"])] == [m.CODE for m in all_rules()]
    from torchferry.check.rules import OPT_IN

    assert set(OPT_IN) <= {m.CODE for m in all_rules()}
    assert [r.CODE for r in resolve_rules()] == [m.CODE for m in all_rules() if m.CODE not in OPT_IN]


def test_parser_warnings_about_checked_code_are_not_errors_nor_printed(fake_rules):
    import warnings

    src = 'import torch\ny = "\\d"\nx.to(d)\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert codes(check_source(src)) == ["FRY901"]


@pytest.mark.slow
def test_manage_gc_frees_trees_and_changes_no_result(fake_rules):
    import gc

    src = 'import torch\nx.to(d)\n' + "y = [f(i) for i in range(3)]\n" * 2000
    plain = check_source(src)
    engine.manage_gc()
    try:
        check_source("x = 1\n")  # the first freeze takes whatever is alive already
        base = gc.get_freeze_count()
        for _ in range(5):
            assert check_source(src) == plain
        check_source("x = 1\n")  # the last big tree is freed once the next file starts
        assert gc.get_freeze_count() - base < 1000
    finally:
        engine.manage_gc(False)
    assert gc.isenabled()


def test_the_safety_valve_thaws_and_collects_when_the_process_has_grown(monkeypatch):
    """Frozen cycles (another file's analysis, frozen while it was alive) are collected once
    the resident size has grown by the limit since the last look, and only then."""
    import gc

    sizes = iter([100, 100 + engine._GROWTH_LIMIT, 101 + engine._GROWTH_LIMIT, 50])
    monkeypatch.setattr(engine, "_resident", lambda: next(sizes))
    thawed: list[str] = []
    for name in ("unfreeze", "collect", "freeze"):
        monkeypatch.setattr(gc, name, lambda name=name: thawed.append(name))
    monkeypatch.setattr(engine, "_rss_base", None)
    engine._safety_valve()  # the first look sets the base
    engine._safety_valve()  # grown by the limit exactly: nothing yet
    assert thawed == []
    engine._safety_valve()  # grown by more: thaw, collect, freeze; the base is read again
    assert thawed == ["unfreeze", "collect", "freeze"] and engine._rss_base == 50


def test_manage_gc_off_keeps_what_the_host_froze(fake_rules):
    """Turning it off thaws only a permanent generation that was empty when it was turned
    on; a host's frozen objects stay frozen (it used to unfreeze everything)."""
    import gc

    gc.freeze()
    before = gc.get_freeze_count()
    engine.manage_gc()
    try:
        assert check_source("import torch\nx.to(d)\n")
    finally:
        engine.manage_gc(False)
    assert gc.get_freeze_count() >= before and gc.isenabled()


def test_manage_gc_collects_the_youngest_generation_less_often_and_restores_it():
    import gc

    host = gc.get_threshold()
    gc.set_threshold(500, host[1], host[2])
    try:
        engine.manage_gc()
        try:
            assert gc.get_threshold() == (engine._GEN0_THRESHOLD, host[1], host[2])
        finally:
            engine.manage_gc(False)
        assert gc.get_threshold() == (500, host[1], host[2])
    finally:
        gc.set_threshold(*host)


@pytest.mark.slow
def test_manage_gc_off_thaws_what_it_froze_in_a_fresh_process():
    import subprocess
    import sys

    code = (
        "import gc\n"
        "from torchferry.check import engine\n"
        "engine.manage_gc()\n"
        "engine.check_source('import torch\\nx = torch.ones(1).cuda()\\n')\n"
        "assert gc.get_freeze_count() > 0\n"
        "engine.manage_gc(False)\n"
        "print(gc.get_freeze_count())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"
