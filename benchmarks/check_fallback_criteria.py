"""Which labelled FRY001 / FRY004 findings does the program's own code show to be mistakes?

For each finding of a code-base set (the JSON that ``check_corpus.py --SET --extra DIR
--select FRY001,FRY004 --json FILE`` writes, labels joined), read the code around it and
tell whether the file, its program (the files it imports and the files importing it, one
level, by module name) or its whole project offers a CPU path, by several criteria:

* ``fallback``: the device pick falls back to the CPU (``"cuda" if torch.cuda.is_available()
  else "cpu"``; :func:`torchferry.check.cpu_fallback.fallback_site`);
* ``flag``: a command-line option ``--cpu``/``--no-cuda``... or one whose default or choices
  name ``"cpu"``;
* ``cpu_map``: a ``torch.load(..., map_location="cpu")`` (or a lambda) elsewhere;
* ``cpu_device``: ``torch.device("cpu")`` or ``device="cpu"`` written out;
* ``available``: any ``is_available()`` call; ``guard``: an ``if`` testing one.

and print, per rule, level and criterion, the labels of the findings it keeps per set
(real / debatable / false / unlabelled), the actionable share (real / all) and the strict
precision (real / (real + false)).

    python benchmarks/check_fallback_criteria.py delta=/tmp/delta.json:.corpus/delta-extra ...
"""

from __future__ import annotations

import argparse
import ast
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from torchferry.check.cpu_fallback import fallback_site

CPU_FLAGS = frozenset({"--cpu", "--no-cuda", "--no_cuda", "--nocuda", "--use-cpu", "--use_cpu",
                       "--no-gpu", "--no_gpu", "--cpu-only", "--cpu_only"})
CODES = ("FRY001", "FRY004")
LEVELS = ("file", "program", "project")


def _is_cpu(e: ast.AST) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str) and e.value.split(":")[0] == "cpu"
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
        e.func.attr == "device" and bool(e.args) and _is_cpu(e.args[0])


def _names_cpu(e: ast.AST) -> bool:
    return any(_is_cpu(n) for n in ast.walk(e))


def _call_features(n: ast.Call) -> set[str]:
    out: set[str] = set()
    fn = n.func
    attr = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
    if attr == "add_argument":
        opts = {a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        if opts & CPU_FLAGS or any(k.arg in ("default", "choices") and _names_cpu(k.value)
                                   for k in n.keywords):
            out.add("flag")
    for k in n.keywords:
        if k.arg == "map_location" and (_names_cpu(k.value) or isinstance(k.value, ast.Lambda)):
            out.add("cpu_map")
        if k.arg == "device" and _is_cpu(k.value):
            out.add("cpu_device")
    if attr == "device" and n.args and _is_cpu(n.args[0]):
        out.add("cpu_device")
    if attr == "is_available":
        out.add("available")
    return out


def features(tree: ast.AST) -> frozenset[str]:
    """The criteria a file meets."""
    out: set[str] = {"fallback"} if fallback_site(tree) is not None else set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                                         and c.func.attr == "is_available" for c in ast.walk(n.test)):
            out.add("guard")
        if isinstance(n, ast.Call):
            out |= _call_features(n)
    return frozenset(out)


def _source(p: Path) -> str:
    text = p.read_text(errors="replace")
    if p.suffix != ".ipynb":
        return text
    cells = [c.get("source", "") for c in json.loads(text).get("cells", []) if c.get("cell_type") == "code"]
    joined = "\n".join("".join(c) if isinstance(c, list) else c for c in cells)
    return "\n".join(ln for ln in joined.splitlines() if not ln.lstrip().startswith(("%", "!")))


def _module_names(rel: str) -> set[str]:
    parts = Path(rel).with_suffix("").parts
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return {".".join(parts[i:]) for i in range(len(parts))}


def _imports(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            out |= {base} if base else set()
            out |= {f"{base}.{a.name}" if base else a.name for a in n.names}
    return out


class Codebase:
    """One project's files, parsed, with the criteria each meets and its imports."""

    def __init__(self, root: Path) -> None:
        self.feat: dict[str, frozenset[str]] = {}
        self.imp: dict[str, set[str]] = {}
        for p in sorted([*root.rglob("*.py"), *root.rglob("*.ipynb")]):
            try:
                tree = ast.parse(_source(p))
            except (SyntaxError, ValueError, KeyError, AttributeError, json.JSONDecodeError):
                continue
            rel = str(p.relative_to(root))
            self.feat[rel], self.imp[rel] = features(tree), _imports(tree)
        self.names = {k: _module_names(k) for k in self.feat}

    def level(self, rel: str, level: str) -> frozenset[str]:
        if level == "file":
            return self.feat.get(rel, frozenset())
        if level == "project":
            return frozenset().union(*self.feat.values())
        mine, imp = self.names.get(rel, set()), self.imp.get(rel, set())
        files = [k for k in self.feat if k == rel or self.imp[k] & mine or self.names[k] & imp]
        return frozenset().union(*(self.feat[k] for k in files))


CRITERIA: dict[str, Callable[[frozenset[str]], bool]] = {
    "all": lambda f: True,
    "available": lambda f: "available" in f,
    "guard": lambda f: "guard" in f,
    "fallback": lambda f: "fallback" in f,
    "flag": lambda f: "flag" in f,
    "fallback or flag": lambda f: bool(f & {"fallback", "flag"}),
    "cpu_map": lambda f: "cpu_map" in f,
    "cpu_device": lambda f: "cpu_device" in f,
}


def rows(sets: list[tuple[str, Path, Path]]) -> list[dict]:
    out = []
    for name, found, extra in sets:
        bases: dict[str, Codebase] = {}
        for d in json.loads(found.read_text()):
            if d["code"] not in CODES:
                continue
            if d["package"] not in bases:
                bases[d["package"]] = Codebase(next(extra.glob(d["package"] + "@*")))
            cb = bases[d["package"]]
            out.append({"set": name, "code": d["code"], "verdict": d.get("verdict"),
                        **{lv: cb.level(d["path"], lv) for lv in LEVELS}})
    return out


def table(found: list[dict], names: list[str]) -> None:
    for code in CODES:
        for lv in LEVELS:
            print(f"\n{code}, {lv}: real/debatable/false/unlabelled per set")
            for crit, keep in CRITERIA.items():
                total: Counter[str | None] = Counter()
                cells = []
                for s in names:
                    c = Counter(r["verdict"] for r in found
                                if r["set"] == s and r["code"] == code and keep(r[lv]))
                    total += c
                    cells.append(f"{s} {c['real']}/{c['debatable']}/{c['false']}/{c[None]}")
                n, real, false = sum(total.values()), total["real"], total["false"]
                share = f"{real / n:.0%}" if n else "-"
                strict = f"{real / (real + false):.0%}" if real + false else "-"
                print(f"  {crit:17} {' | '.join(cells)} | all {real}/{total['debatable']}/{false}"
                      f"/{total[None]} | share {share} | strict {strict}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", metavar="SET=FINDINGS.json:EXTRA_DIR")
    args = ap.parse_args()
    sets = []
    for item in args.sets:
        name, rest = item.split("=", 1)
        found, extra = rest.split(":", 1)
        sets.append((name, Path(found), Path(extra)))
    table(rows(sets), [s[0] for s in sets])


if __name__ == "__main__":
    main()
