"""The ``ferry check``, ``ferry rule`` and ``ferry rules`` subcommands.

Imports nothing heavy at module level (and never torch): ``ferry check`` starts
in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchferry.errors import UsageError

SYNTAX_ERROR_DOC = """\
# FRY000 (syntax-error)

Fix: no automatic fix

A file that cannot be checked because Python cannot read it: a syntax error, bytes
that are not valid in the file's encoding, or a notebook that is not valid JSON.
It is reported at the position Python gives, whatever --select says; ignore it
only by naming it exactly (`--ignore FRY000`, or in per-file-ignores).
"""


def _codes(value: str) -> list[str]:
    codes = [c.strip() for c in value.split(",") if c.strip()]
    if not codes:  # `--select ''` must not quietly mean every rule
        raise argparse.ArgumentTypeError(
            f"{value!r} names no rule: give codes (FRY002), prefixes (FRY00), names "
            "(discarded-move) or ALL"
        )
    return codes


def _size(value: str) -> int | None:
    from torchferry.check.config import parse_size

    try:
        return parse_size(int(value) if value.strip().isdigit() else value, "--max-file-size")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(
            str(exc).removeprefix("--max-file-size").lstrip(": ")
        ) from None


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid job count {value!r}: give a number") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"invalid job count {n}: 0 (one per CPU) or more")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="find (and fix) device mistakes in PyTorch scripts and notebooks",
        description=(
            "Statically check Python files and Jupyter notebooks for the device mistakes "
            "that bite everyone (hard-coded 'cuda', discarded .to(), .numpy() on the GPU, "
            "torch.load without map_location, ...).  Exit 0 when clean, 1 when findings "
            "remain, 2 on a usage or internal error.  'ferry rules' lists the rules."
        ),
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .); - reads stdin")
    p.add_argument(
        "--select", type=_codes, action="extend", metavar="CODES",
        help="only these rules: codes (FRY002), prefixes (FRY00), names (discarded-move) or "
        "ALL, comma-separated or repeated",
    )  # fmt: skip
    p.add_argument(
        "--ignore", type=_codes, action="extend", default=[], metavar="CODES",
        help="skip these rules (codes, prefixes or names), added to the configuration's ignore",
    )  # fmt: skip
    p.add_argument("--fix", action="store_true", help="apply safe fixes, in place")
    p.add_argument(
        "--unsafe-fixes", action="store_true",
        help="also consider unsafe fixes (applied with --fix or shown with --diff)",
    )  # fmt: skip
    p.add_argument(
        "--diff", action="store_true",
        help="print the fixes as a unified diff and write nothing (exit 1 if there are any)",
    )  # fmt: skip
    p.add_argument(
        "--format", choices=("text", "json", "sarif", "github"), default="text",
        help="output format (default: text)",
    )  # fmt: skip
    p.add_argument(
        "--force-exclude", action="store_true",
        help="apply exclude also to files named on the command line (for pre-commit)",
    )  # fmt: skip
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write .ferry_cache/")
    p.add_argument(
        "--jobs", "-j", type=_jobs, default=0, metavar="N",
        help="worker processes for large file sets (default 0: one per CPU; 1: none)",
    )  # fmt: skip
    p.add_argument(
        "--max-file-size", type=_size, default=False, metavar="SIZE",
        help="do not check larger files (bytes, or e.g. 20MB; 0: no limit; default "
        "max-file-size of [tool.torchferry], else 5MB): they are reported as FRY000",
    )  # fmt: skip
    p.add_argument(
        "--stdin-filename", metavar="NAME",
        help="check source read from stdin, reported as NAME (with --fix: fixed source to stdout)",
    )  # fmt: skip
    p.set_defaults(handler=run_check)

    r = sub.add_parser(
        "rule",
        help="print the documentation of a checker rule",
        description="Print what a rule of 'ferry check' flags, why, an example and its fix.",
    )
    r.add_argument("code", metavar="CODE", help="a code (FRY002) or name (discarded-move)")
    r.set_defaults(handler=run_rule)

    rs = sub.add_parser(
        "rules",
        help="list the checker's rules",
        description="List every rule of 'ferry check': code, name, fix safety, summary.",
    )
    rs.add_argument("--format", choices=("text", "json"), default="text")
    rs.set_defaults(handler=run_rules)


def run_rule(args: argparse.Namespace) -> int:
    from torchferry.check.docs import rule_doc
    from torchferry.check.engine import SYNTAX_ERROR, SYNTAX_ERROR_NAME, _all_rules

    wanted = args.code.strip()
    if wanted.upper() == SYNTAX_ERROR or wanted.lower() == SYNTAX_ERROR_NAME:
        sys.stdout.write(SYNTAX_ERROR_DOC)
        return 0
    for mod in _all_rules():
        if mod.CODE == wanted.upper() or mod.NAME == wanted.lower():
            sys.stdout.write(rule_doc(mod))
            return 0
    raise UsageError(f"unknown rule {wanted!r} (see 'ferry rules')")


def run_rules(args: argparse.Namespace) -> int:
    import json

    from torchferry.check.docs import rule_summary
    from torchferry.check.engine import _all_rules

    rules = _all_rules()
    if args.format == "json":
        items = [
            {"code": m.CODE, "name": m.NAME, "fix": m.FIX, "summary": rule_summary(m)}
            for m in rules
        ]
        print(json.dumps(items, indent=2))
        return 0
    width = max((len(m.NAME) for m in rules), default=4)
    for m in rules:
        print(f"{m.CODE}  {m.NAME:<{width}}  {m.FIX:<6}  {rule_summary(m)}")
    return 0


def _stdin(args: argparse.Namespace, opts) -> tuple[list, bytes | None]:
    """Check stdin; returns (outcomes, the bytes to print on stdout with --fix)."""
    from torchferry.check.runner import check_bytes

    name = args.stdin_filename
    limit = opts.max_file_size
    if sys.stdin is None:  # `ferry check - <&-`: python has no stdin at all
        raise UsageError("cannot read the source from stdin: it is closed")
    try:
        data = sys.stdin.buffer.read(-1 if limit is None else limit + 1)  # `< /dev/zero` ends
    except OSError as exc:  # `< /` (EISDIR), a closed descriptor (EBADF)
        raise UsageError(f"cannot read the source from stdin: {exc.strerror or exc}") from None
    out, new = check_bytes(Path(name), data, opts, name)
    if opts.fix and not opts.diff:
        return [out], (new if new is not None else data)
    return [out], None


def run_check(args: argparse.Namespace) -> int:
    from torchferry.check import report
    from torchferry.check.config import load_config
    from torchferry.check.engine import resolve_rules, validate_selectors
    from torchferry.check.runner import Options

    validate_selectors(args.select, "--select")
    validate_selectors(args.ignore, "--ignore")
    if "-" in args.paths:  # `ferry check -` reads stdin, as ruff, flake8 and black do
        if args.paths != ["-"]:
            raise UsageError("'-' (the source from stdin) cannot be combined with other paths")
        args.paths = []
        if args.stdin_filename is None:
            args.stdin_filename = "-"
    if args.stdin_filename is not None and args.paths:
        raise UsageError("--stdin-filename reads the source from stdin; give no PATH with it")
    start = Path(args.paths[0]) if args.paths else Path.cwd()
    if not start.exists():
        raise UsageError(f"{args.paths[0]}: no such file or directory")
    cfg = load_config(start)
    select = tuple(args.select) if args.select else (tuple(cfg.select) if cfg.select else None)
    ignore = (*cfg.ignore, *args.ignore)
    opts = Options(
        root=cfg.root,
        select=select,
        ignore=ignore,
        per_file_ignores=cfg.per_file_ignores,
        fix=args.fix,
        unsafe=args.unsafe_fixes,
        diff=args.diff,
        max_file_size=cfg.max_file_size if args.max_file_size is False else args.max_file_size,
    )
    enabled = [m.CODE for m in resolve_rules(select, ignore)]

    fixed_bytes = None
    if args.stdin_filename is not None:
        outcomes, fixed_bytes = _stdin(args, opts)
    else:
        from torchferry.check.cache import Cache, settings_key
        from torchferry.check.files import discover
        from torchferry.check.runner import check_paths

        files = discover(
            args.paths or ["."], cfg.root, cfg.exclude, force_exclude=args.force_exclude
        )
        if not files:
            where = ", ".join(args.paths or ["."])
            print(f"ferry check: warning: no Python files found under {where}", file=sys.stderr)
            return 0
        cache = None
        if not args.no_cache:
            key = settings_key(
                enabled=enabled, ignore=sorted(ignore), per_file=cfg.per_file_ignores,
                max_file_size=opts.max_file_size,
            )  # fmt: skip
            cache = Cache(cfg.root, key)
        import gc

        from torchferry.check.engine import manage_gc

        # Only a process that is `ferry check` tunes the collector; called as
        # main([...]) inside another program, the host's collector is left as it is.
        tune_gc = getattr(args, "whole_process", False)
        if tune_gc:
            gc.freeze()  # what startup created lives to the end: keep collections cheap
            manage_gc()
        progress = report.Progress(sys.stderr)  # a terminal and a long run only
        try:
            outcomes = check_paths(files, opts, cache=cache, jobs=args.jobs, progress=progress)
        finally:
            progress.close()
            if tune_gc:
                manage_gc(False)
        if cache is not None:
            cache.save()

    errors = [o for o in outcomes if o.error]
    for o in errors:
        print(f"ferry check: error: {o.display}: {o.error}", file=sys.stderr)
    diagnostics = sorted(
        (d for o in outcomes for d in o.diagnostics),
        key=lambda d: (d.path, d.cell or 0, d.line, d.column, d.code),
    )
    fixed = sum(o.fixed for o in outcomes)

    if args.diff:
        sys.stdout.write("".join(o.diff for o in outcomes))
        would = sum(o.fixed for o in outcomes if o.diff)
        hidden = 0 if args.unsafe_fixes else sum(
            1 for d in diagnostics if d.fix is not None and not d.fix.safe
        )
        if would:
            extra = ""
            if hidden:
                fixes = "fix" if hidden == 1 else "fixes"
                extra = f" ({hidden} additional {fixes} available with `--unsafe-fixes`)"
            print(f"Would fix {report.plural(would, 'finding')}{extra}.", file=sys.stderr)
        elif hidden:
            print(
                f"No fixes available ({report.plural(hidden, 'hidden fix')} can be enabled "
                "with the `--unsafe-fixes` option).",
                file=sys.stderr,
            )
        else:
            print("No fixes available.", file=sys.stderr)
        if errors:
            return 2
        return 1 if would else 0

    out = sys.stdout
    if fixed_bytes is not None:  # stdin --fix: the fixed source goes to stdout
        sys.stdout.flush()
        sys.stdout.buffer.write(fixed_bytes)
        sys.stdout.buffer.flush()
        out = sys.stderr
    if args.format == "json":
        out.write(report.json_report(diagnostics))
    elif args.format == "sarif":
        out.write(report.sarif_report(diagnostics, root=str(cfg.root), enabled=enabled))
    elif args.format == "github":
        out.write(report.github_report(diagnostics))
    else:
        color = report.use_color(out)
        out.write(report.text_report(diagnostics, color=color, unsafe=args.unsafe_fixes))
        if diagnostics or fixed or not errors:  # "All checks passed!" only when they did
            out.write(report.summary(diagnostics, fixed=fixed, unsafe=args.unsafe_fixes,
                                     color=color))
    if errors:
        return 2
    if diagnostics and not args.exit_zero:
        return 1
    return 0
