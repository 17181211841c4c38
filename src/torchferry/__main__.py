"""``python -m torchferry`` is the ``ferry`` command."""

from torchferry.cli import main

raise SystemExit(main(prog="python -m torchferry"))
