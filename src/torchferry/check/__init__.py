"""``ferry check``: a fast static checker for the device mistakes the lessons warn about.

Nothing in this package imports torch: the checker reads source with the
standard library's ``ast`` only.

The public API: :func:`check_source` (a Python source), :func:`check_cells` (notebook
or IPython cells, as a kernel ran them), :func:`fix_source`; findings are
:class:`Finding` (``CellFinding`` for cells).
"""

from torchferry.check.api import Edit, Finding, Fix
from torchferry.check.engine import CellFinding, check_cells, check_source, fix_source

__all__ = ["CellFinding", "Edit", "Finding", "Fix", "check_cells", "check_source", "fix_source"]
