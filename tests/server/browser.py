"""Headless Chromium driven by Playwright, for the editors that run in a browser
(VS Code as ``code-server``, JupyterLab).

Chromium is Debian's package (``apt-get install chromium``; ``FERRY_CHROMIUM`` names
another binary); Playwright is the PyPI package, used only as a driver (no browser
download: it launches that Chromium).  Each test skips, saying what is missing, where one
of them is absent.  ``FERRY_SCREENSHOT_DIR``, when set, receives the tests' screenshots.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

#: Nothing but the page under test reaches the network; no profile, no GPU.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def chromium_or_skip() -> str:
    path = os.environ.get("FERRY_CHROMIUM") or shutil.which("chromium")
    if path is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed "
                        "(pip install playwright; the browser is Debian's chromium)")
    return path


def notebook(cells: list[str]) -> str:
    """A Python notebook (nbformat 4.5) of code cells, as JSON."""
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                   "outputs": [], "source": src} for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                    "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, alive: Any, log: Path, patience: float = 120.0) -> None:
    """Wait until something listens on ``port``; ``alive()`` false (the process exited)
    or the patience spent fails with the tail of ``log``."""
    deadline = time.monotonic() + patience
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if not alive() or time.monotonic() > deadline:
            raise AssertionError(log.read_text(errors="replace")[-3000:])
        time.sleep(0.3)


@contextmanager
def page(chromium: str, profile: Path) -> Iterator[Any]:
    """A page of a fresh headless Chromium whose profile is the empty ``profile``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=chromium, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900})
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def screenshot(pg: Any, name: str) -> None:
    folder = os.environ.get("FERRY_SCREENSHOT_DIR")
    if folder:
        pg.screenshot(path=str(Path(folder) / name))


def text(locator: Any) -> str:
    """A locator's text with the non-breaking spaces editors render turned into spaces."""
    return str(locator.inner_text()).replace("\u00a0", " ")
