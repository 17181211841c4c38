"""The ``ferry check``, ``ferry rule`` and ``ferry rules`` subcommands.

Imports nothing heavy at module level (and never torch): ``ferry check`` starts
in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

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
    if not codes:  # as in ruff: `--select ''` is an error, not quietly every rule or none
        raise argparse.ArgumentTypeError(
            f"{value!r} names no rule: give codes (FRY002), prefixes (FRY00), names "
            "(discarded-move) or ALL (to run none, write select = [] in [tool.torchferry])"
        )
    return codes


def _target(value: str) -> tuple[int, int]:
    from torchferry.check.config import parse_target_version

    try:
        return parse_target_version(value, "--target-version")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--target-version ")) from None


#: ``--output-format`` values; ``text`` is the name ``--format`` always had for ``full``.
FORMATS = ("full", "concise", "json", "sarif", "github", "text")


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
    """Add ``ferry check``, ``ferry rule`` and ``ferry rules`` to the subcommands ``sub``."""
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
    _selection_arguments(p)
    _report_arguments(p)
    _configuration_arguments(p)
    _run_arguments(p)
    p.set_defaults(handler=run_check)
    _rule_commands(sub)


def _selection_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ferry check`` that choose the rules and what to do with fixes."""
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


def _report_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ferry check`` that shape the report."""
    p.add_argument(
        "--output-format", "--format", dest="output_format", choices=FORMATS, default=None,
        metavar="FORMAT",
        help="full (the default: each finding with its source line), concise (one line "
        "each), json, sarif or github",
    )  # fmt: skip
    p.add_argument("--statistics", action="store_true",
                   help="print the number of findings per rule, not the findings")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print the findings, but no summary or notes")
    p.add_argument("-s", "--silent", action="store_true",
                   help="print nothing; only the exit status tells")
    p.add_argument("-o", "--output-file", metavar="FILE",
                   help="write the report to FILE instead of stdout")
    p.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="colour the text report: auto (on a terminal, unless NO_COLOR; FORCE_COLOR "
        "forces it), always or never",
    )  # fmt: skip


def _configuration_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ferry check`` that read or override the configuration: rules added,
    files excluded, the target Python."""
    p.add_argument(
        "--config", metavar="FILE|KEY=VALUE", action="append", default=[],
        help="read the configuration from FILE (a pyproject.toml, or a TOML file with the "
        "[tool.torchferry] keys at the top level) instead of the nearest pyproject.toml; "
        "or override one key with a TOML pair, e.g. \"select = ['FRY003']\" (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--extend-select", type=_codes, action="extend", metavar="CODES",
        help="add these rules to the selection (the configuration's, or --select)",
    )  # fmt: skip
    p.add_argument(
        "--exclude", action="append", default=None, metavar="PATTERN",
        help="skip files matching this gitignore-style pattern (repeatable); replaces the "
        "configuration's exclude and the default excludes, as in ruff",
    )  # fmt: skip
    p.add_argument(
        "--extend-exclude", action="append", default=[], metavar="PATTERN",
        help="like --exclude, but added to the excludes in force (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--target-version", type=_target, metavar="pyXY",
        help="the Python the code is written for (py310, py312, ...; default target-version "
        "of [tool.torchferry], else requires-python): syntax errors under an older running "
        "Python say so",
    )  # fmt: skip
    p.add_argument(
        "--force-exclude", action="store_true",
        help="apply exclude also to files named on the command line (for pre-commit)",
    )  # fmt: skip


def _run_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``ferry check`` for the run: exit status, cache, workers, size limit,
    source from stdin."""
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


def _rule_commands(sub: argparse._SubParsersAction) -> None:
    """Add ``ferry rule`` (one rule's documentation) and ``ferry rules`` (the list)."""
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
    rs.add_argument("--output-format", "--format", dest="output_format",
                    choices=("text", "json"), default="text")
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
    from torchferry.check.engine import SYNTAX_ERROR, SYNTAX_ERROR_NAME, _all_rules
    from torchferry.check.rules import default_part, is_default

    rows = [(SYNTAX_ERROR, SYNTAX_ERROR_NAME, True, "none",
             "A file Python cannot read: a syntax error, undecodable bytes, a broken notebook")]
    rows += [(m.CODE, m.NAME, is_default(m.CODE), m.FIX, rule_summary(m)) for m in _all_rules()]
    if args.output_format == "json":
        items = [{"code": c, "name": n, "fix": f, "default": d, "default_part": default_part(c),
                  "summary": t} for c, n, d, f, t in rows]  # fmt: skip
        print(json.dumps(items, indent=2))
        return 0
    width = max(len(n) for _, n, _, _, _ in rows)
    for code, name, default, fix, summary in rows:
        on = "default" if default else "opt-in"
        part = default_part(code)
        note = f"(default: {part}) " if part is not None else ""
        print(f"{code}  {name:<{width}}  {on:<7}  {fix:<6}  {note}{summary}")
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


def _config_args(values: list[str]) -> tuple[Path | None, tuple[str, ...]]:
    """(the configuration file, the ``KEY = VALUE`` overrides) of the ``--config`` options,
    told apart as ruff does: a value naming a file is that file, else a TOML pair."""
    files = [v for v in values if "=" not in v or Path(v).is_file()]
    for value in files:
        if not Path(value).is_file():
            raise UsageError(f"--config {value}: no such file (or give a 'KEY = VALUE' pair)")
    if len(files) > 1:
        raise UsageError(f"--config: one configuration file at most, got {', '.join(files)}")
    overrides = tuple(v for v in values if v not in files)
    return (Path(files[0]) if files else None), overrides


def _configure(args: argparse.Namespace):
    """(config, Options, the enabled codes) from the command line and the configuration."""
    from torchferry.check.config import load_config
    from torchferry.check.engine import resolve_rules, validate_selectors
    from torchferry.check.files import check_pattern
    from torchferry.check.runner import Options

    validate_selectors(args.select, "--select")
    validate_selectors(args.extend_select, "--extend-select")
    validate_selectors(args.ignore, "--ignore")
    for option, patterns in (("--exclude", args.exclude or ()),
                             ("--extend-exclude", args.extend_exclude)):
        for pattern in patterns:
            check_pattern(pattern, option)
    if args.statistics and args.output_format in ("sarif", "github"):
        raise UsageError(f"--statistics prints counts per rule: as text or json, not "
                         f"--output-format {args.output_format}")
    if args.diff and args.output_format not in (None, "full", "text"):
        raise UsageError(f"--diff prints a unified diff; it cannot be combined with "
                         f"--output-format {args.output_format}")
    start = Path(args.paths[0]) if args.paths else Path.cwd()
    if not start.exists():
        from torchferry.check.files import missing_reason

        raise UsageError(f"{args.paths[0]}: {missing_reason(start)}")
    explicit, overrides = _config_args(args.config)
    cfg = load_config(start, explicit, overrides)
    if args.exclude is not None:
        cfg.exclude = list(args.exclude)
    cfg.extend_exclude = [*cfg.extend_exclude, *args.extend_exclude]
    if args.target_version is not None:
        cfg.target_version = args.target_version
    select = cfg.selection(args.select, args.extend_select)
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
    return cfg, opts, [m.CODE for m in resolve_rules(select, ignore)]


def _check_files(args: argparse.Namespace, cfg, opts, enabled: list[str]):
    """The outcomes of checking the files the paths name (None: no file found)."""
    import gc

    from torchferry.check import report
    from torchferry.check.cache import Cache, settings_key
    from torchferry.check.engine import manage_gc
    from torchferry.check.files import discover
    from torchferry.check.runner import check_paths

    files = discover(args.paths or ["."], cfg.root, cfg.excludes, force_exclude=args.force_exclude)
    if not files:
        return None
    cache = None
    if not args.no_cache:
        key = settings_key(
            enabled=enabled, ignore=sorted(opts.ignore), per_file=cfg.per_file_ignores,
            max_file_size=opts.max_file_size,
            select=opts.select,  # (how each rule is selected: the default set's part, or all)
        )  # fmt: skip
        cache = Cache(cfg.root, key)
    # Only a process that is `ferry check` tunes the collector; called as
    # main([...]) inside another program, the host's collector is left as it is.
    tune_gc = getattr(args, "whole_process", False)
    if tune_gc:
        gc.freeze()  # what startup created lives to the end: keep collections cheap
        manage_gc()
    progress = report.Progress(sys.stderr, enabled=False if args.quiet or args.silent else None)
    try:
        outcomes = check_paths(files, opts, cache=cache, jobs=args.jobs, progress=progress)
    finally:
        progress.close()
        if tune_gc:
            manage_gc(False)
    if cache is not None:
        cache.save()
    return outcomes


def run_check(args: argparse.Namespace) -> int:
    if "-" in args.paths:  # `ferry check -` reads stdin, as ruff, flake8 and black do
        if args.paths != ["-"]:
            raise UsageError("'-' (the source from stdin) cannot be combined with other paths")
        args.paths = []
        if args.stdin_filename is None:
            args.stdin_filename = "-"
    if args.stdin_filename is not None and args.paths:
        raise UsageError("--stdin-filename reads the source from stdin; give no PATH with it")
    args.quiet = args.quiet or args.silent
    cfg, opts, enabled = _configure(args)
    fixed_bytes = None
    if args.stdin_filename is not None:
        outcomes, fixed_bytes = _stdin(args, opts)
    else:
        found = _check_files(args, cfg, opts, enabled)
        if found is None:
            if not args.silent:
                where = ", ".join(args.paths or ["."])
                print(f"ferry check: warning: no Python files found under {where}",
                      file=sys.stderr)
            return 0
        outcomes = found
    errors = [o for o in outcomes if o.error]
    for o in errors:
        if not args.silent:
            print(f"ferry check: error: {o.display}: {o.error}", file=sys.stderr)
    if not args.quiet:
        _notes(outcomes, cfg)
    diagnostics = sorted(
        (d for o in outcomes for d in o.diagnostics),
        key=lambda d: (d.path, d.cell or 0, d.line, d.column, d.code),
    )
    if args.diff:
        return _diff(args, outcomes, diagnostics, errors)
    if fixed_bytes is not None:  # stdin --fix: the fixed source goes to stdout
        sys.stdout.flush()
        sys.stdout.buffer.write(fixed_bytes)
        sys.stdout.buffer.flush()
    _write_report(args, diagnostics, sum(o.fixed for o in outcomes), cfg, enabled,
                  to_stderr=fixed_bytes is not None, errors=bool(errors))
    if errors:
        return 2
    if diagnostics and not args.exit_zero:
        return 1
    return 0


def _notes(outcomes, cfg) -> None:
    """What the run skipped and why, and a parser older than the code's target."""
    for o in outcomes:
        note = getattr(o, "note", None)
        if note:
            print(f"ferry check: note: {o.display}: {note}", file=sys.stderr)
    target = cfg.target_version
    if target is not None and sys.version_info[:2] < target and any(
        d.code == "FRY000" and d.message.startswith("SyntaxError")
        for o in outcomes for d in o.diagnostics
    ):
        running = f"{sys.version_info[0]}.{sys.version_info[1]}"
        print(
            f"ferry check: note: syntax errors are found by the running Python {running}'s "
            f"parser, older than the target Python {target[0]}.{target[1]}: syntax newer than "
            f"{running} reads as FRY000; run ferry check under Python {target[0]}.{target[1]}",
            file=sys.stderr,
        )


def _diff(args: argparse.Namespace, outcomes, diagnostics, errors) -> int:
    from torchferry.check import report

    sys.stdout.write("".join(o.diff for o in outcomes))
    would = sum(o.fixed for o in outcomes if o.diff)
    hidden = 0 if args.unsafe_fixes else sum(
        1 for d in diagnostics if d.fix is not None and not d.fix.safe
    )
    if args.quiet:
        pass
    elif would:
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


def _write_report(args: argparse.Namespace, diagnostics, fixed: int, cfg, enabled,
                  *, to_stderr: bool, errors: bool = False) -> None:
    """The report in the asked format, on stdout (stderr after stdin --fix) or --output-file."""
    from torchferry.check import report

    if args.silent:
        return
    fmt = args.output_format or "full"
    if args.output_file is not None:
        import io

        out: Any = io.StringIO()
    else:
        out = sys.stderr if to_stderr else sys.stdout
    color = (args.color == "always" or (args.color == "auto" and report.use_color(out))) \
        and args.output_file is None and fmt in ("full", "text", "concise")
    if args.statistics:
        out.write(report.statistics(diagnostics, unsafe=args.unsafe_fixes, color=color,
                                    as_json=fmt == "json"))
    elif fmt == "json":
        out.write(report.json_report(diagnostics))
    elif fmt == "sarif":
        out.write(report.sarif_report(diagnostics, root=str(cfg.root), enabled=enabled))
    elif fmt == "github":
        out.write(report.github_report(diagnostics))
    else:
        out.write(report.text_report(diagnostics, color=color, unsafe=args.unsafe_fixes,
                                     show_source=fmt != "concise"))
    # "All checks passed!" only when they did: not next to a file that could not be checked
    passed = not diagnostics and not fixed
    if not args.quiet and fmt in ("full", "text", "concise") \
            and not (passed and errors):
        out.write(report.summary(diagnostics, fixed=fixed, unsafe=args.unsafe_fixes, color=color))
    if args.output_file is not None:
        from torchferry._internal.atomic import write_text

        try:
            write_text(args.output_file, out.getvalue())
        except OSError as exc:
            raise UsageError(f"--output-file {args.output_file}: {exc.strerror or exc}") from None
