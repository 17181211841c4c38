"""IPython's automagic in notebooks: a cell of one line run as a magic without its ``%``.

IPython (``InteractiveShell.transform_cell``) runs its prefilter only on a cell that is a
single line after the input transformers (leading blank lines dropped, the cell
dedented).  There ``AutoMagicChecker`` runs ``pip install x`` as ``%pip install x`` and
``ls lightning_logs/`` as the shell alias ``%ls``, where the first word (``[\\w.*]*``, as
``split_user_input`` reads it) is the name of a line magic or alias, automagic is on (the
default; ``%automagic`` toggles it), the rest of the line does not start with ``=`` or
``,`` (``AssignmentChecker``: ``ls = 3`` stays Python) and the name is not shadowed
(``is_shadowed``: a name of the user's namespace, a builtin, a keyword).  The same line
in a cell of several lines is Python, a SyntaxError in Jupyter too.

The names are those of IPython 9.19's ``InteractiveShell`` on a POSIX system (its line
magics and default aliases), written here so the checker does not import IPython; a test
compares them with the installed IPython.  A line is taken for a magic only where it is
not Python as written: IPython runs ``pwd`` or ``ls(x)`` as magics too, but read as
Python they change no finding (and a name bound where the analysis does not see it, by
``from m import *``, stays Python)::

    >>> magic = Automagic()
    >>> magic.blanks("pip install torch --quiet"), magic.blanks("ls = [1, 2]"), magic.blanks("pwd")
    (True, False, False)
    >>> magic.seen(["ls = [1, 2]"], ["ls = [1, 2]"], set())
    >>> magic.blanks("ls -la")
    False
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re

__all__ = ["LINE_MAGICS", "ALIASES", "Automagic"]

#: ``InteractiveShell().magics_manager.magics["line"]``, less the aliases (IPython 9.19)
LINE_MAGICS = frozenset(
    """
    alias alias_magic autoawait autocall automagic bookmark cd code_wrap colors conda
    config debug dhist dirs doctest_mode ed edit env gui hist history killbgscripts load
    load_ext loadpy logoff logon logstart logstate logstop lsmagic macro magic mamba
    matplotlib micromamba notebook page pastebin pdb pdef pdoc pfile pinfo pinfo2 pip
    popd pprint precision prun psearch psource pushd pwd pycat pylab quickref recall
    rehashx reload_ext rep rerun reset reset_selective run save sc set_env sx system tb
    time timeit unalias unload_ext uv who who_ls whos xdel xmode
    """.split()
)
#: ``IPython.core.alias.default_aliases()`` on a POSIX system (IPython 9.19)
ALIASES = frozenset("cat cp ldir lf lk ll ls lx mkdir mv rm rmdir".split())

_NAMES = LINE_MAGICS | ALIASES
_BUILTINS = frozenset(dir(builtins))
# ``split_user_input``: leading space, the function part, the rest (no escape here: a
# line starting with ``%``, ``!`` or ``?`` is blanked before)
_SPLIT = re.compile(r"\s*([\w.*]*)(.*)", re.DOTALL)
_WORD = re.compile(r"(?<![\w.])[^\W\d]\w*")
_ESCAPED = re.compile(r"\s*%automagic\b(.*)", re.DOTALL)
_CONFIG = re.compile(r"\s*%config\b.*\bautomagic\b", re.DOTALL)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _bound(text: str) -> set[str]:
    """The names a cell binds (every word of it where it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set(_WORD.findall(text))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


class Automagic:
    """Whether IPython runs a one-line cell as a magic, given the cells run before it."""

    def __init__(self) -> None:
        self.on = True  #: ``%automagic``'s state
        self._earlier: list[str] = []  # cells not yet read for the names they bind
        self._names: set[str] = set()

    def blanks(self, line: str) -> bool:
        """Whether a cell whose only line is ``line`` (dedented, not IPython-escaped) runs
        as a magic and is not Python as written."""
        m = _SPLIT.match(line)
        if not self.on or m is None or m.group(1) not in _NAMES:
            return False
        name, rest = m.group(1), m.group(2).lstrip()
        if rest[:1] in ("=", ",") or name in _BUILTINS or keyword.iskeyword(name):
            return False
        if name in self._shadowing():
            return False
        if name == "automagic":
            self._switch(rest)
        return not _parses(line)

    def seen(self, lines: list[str], checked: list[str], blanked: set[int]) -> None:
        """Record a cell run: ``lines`` as written, ``checked`` as checked (IPython syntax
        blanked), ``blanked`` the indices of the lines that were IPython."""
        for i in sorted(blanked):
            m = _ESCAPED.match(lines[i])
            if _CONFIG.match(lines[i]):
                self.on = False  # set from a configurable: taken as off
            elif m:
                self._switch(m.group(1))
        self._earlier.append("\n".join(checked))

    def _switch(self, argument: str) -> None:
        """``%automagic`` with ``argument``: on, off, or toggled."""
        arg = argument.strip().lower()
        self.on = True if arg in ("on", "1", "true") else False if arg in (
            "off", "0", "false") else not self.on

    def _shadowing(self) -> set[str]:
        for text in self._earlier:
            self._names |= _bound(text)
        self._earlier.clear()
        return self._names
