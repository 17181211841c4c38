"""How fast does ``ferry server`` answer an editor?  Two measurements, one run, a real
server process driven over stdio by pytest-lsp's client:

1. **A change in a 2,000-line file**: the file is open; each edit flips one line between
   a discarded ``x.to(device)`` (FRY002) and its fixed form, and the time is taken from
   sending ``didChange`` to receiving the ``publishDiagnostics`` that reflects it (what
   the user waits for).  Median and 90th percentile of ``--edits`` single edits
   (``--pause`` apart, as typing pauses) and of ``--bursts`` bursts of ``--burst``
   changes 5 ms apart (timed from the burst's last change), for three schedulings side
   by side (the default: a change after a pause checked at once; ``checkAtOnce`` off:
   every change waits ``debounceMs``; ``debounceMs`` 0), each its own server process,
   edited in turn so that the machine's load weighs on them alike.  Beside them: the
   check alone timed in-process (``check_python`` on the same text), in wall time and
   in the CPU time of its thread (on a loaded machine the wall time is mostly waiting
   for a core), and the server process's own CPU time per change (``/proc/PID/stat``).
2. **Opening a 1,000-file workspace** with ``checkWorkspace`` on: the time to the
   ``initialize`` answer, to the first findings of a file opened right after it, the
   median answer time of hover requests sent while the workspace is read in the
   background (the editor is not blocked), and the time until every file's findings have
   arrived (they come as each file is done).

    python benchmarks/server_latency.py            # two minutes on a loaded machine
    python benchmarks/server_latency.py --edits 50

The files are generated (realistic training-script code: models, loops, moves), in a
temporary directory; nothing was tuned on them.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "torchferry", "server"])

BLOCK = '''\
class Block{i}(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.fc(x))


def step{i}(model, batch, device, optimizer):
    inputs, labels = batch
    inputs = inputs.to(device)
    labels = labels.to(device)
    out = model(inputs)
    loss = F.cross_entropy(out, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.detach()

'''
HEADER = (
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "x = torch.ones(2, device=device)\n"
)


def big_file(lines: int) -> str:
    blocks = []
    i = 0
    text = HEADER
    while text.count("\n") < lines - 1:
        blocks.append(BLOCK.format(i=i))
        i += 1
        text = HEADER + "".join(blocks)
    return text + "x.to(device)\n"  # line `lines`: FRY002


class Published(dict):
    """The client's diagnostics by URI, counting the publications (``sets``) of each."""

    def __init__(self) -> None:
        super().__init__()
        self.sets: collections.Counter[str] = collections.Counter()

    def __setitem__(self, uri, diagnostics) -> None:
        self.sets[uri] += 1
        super().__setitem__(uri, diagnostics)


async def session(root: Path, options: dict):
    client = SERVER.client_factory()
    client.diagnostics = Published()
    await client.start_io(*SERVER.server_command)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):  # accept the file watchers
        return None

    t0 = time.perf_counter()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        initialization_options={"ferry": options}))
    return client, time.perf_counter() - t0


async def until(client, ok, timeout: float = 300.0) -> None:
    async def wait():
        while not ok():
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    await asyncio.wait_for(wait(), timeout)


def count(client, uri: str, code: str) -> int:
    return sum(1 for d in client.diagnostics.get(uri, ()) if d.code == code)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def flip(uri: str, last: int, version: int) -> types.DidChangeTextDocumentParams:
    """Insert (even versions) or remove (odd) ``x = `` at the start of the last line."""
    fixed = version % 2 == 0
    change = types.TextDocumentContentChangePartial(
        types.Range(types.Position(last, 0), types.Position(last, 0 if fixed else 4)),
        "x = " if fixed else "")
    return types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version, uri), [change])


@dataclass
class Editing:
    """One server process with the big file open, and what was measured on it."""

    client: Any
    uri: str
    last: int  #: the 0-based line that the edits flip
    version: int = 1
    out: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))

    async def edit(self) -> None:
        """One change; the time to its diagnostics and the server's CPU time meanwhile."""
        pid = self.client._server.pid
        self.version += 1
        t0, c0 = time.perf_counter(), cpu_seconds(pid)
        self.client.text_document_did_change(flip(self.uri, self.last, self.version))
        await self.reflected()
        self.out["edit"].append(time.perf_counter() - t0)
        self.out["cpu"].append(cpu_seconds(pid) - c0)

    async def burst(self, changes: int, pause: float) -> None:
        """``changes`` changes 5 ms apart: the time from the last to its diagnostics, and
        how many publications the burst caused."""
        n0 = self.client.diagnostics.sets[self.uri]
        for k in range(changes):
            self.version += 1
            self.client.text_document_did_change(flip(self.uri, self.last, self.version))
            if k < changes - 1:
                await asyncio.sleep(0.005)
        t0 = time.perf_counter()
        await self.reflected()
        self.out["burst"].append(time.perf_counter() - t0)
        await asyncio.sleep(pause)  # anything still coming for this burst
        self.out["published"].append(self.client.diagnostics.sets[self.uri] - n0)

    async def reflected(self) -> None:
        want = 0 if self.version % 2 == 0 else 1
        await until(self.client, lambda: count(self.client, self.uri, "FRY002") == want)


async def editing(root: Path, text: str, options: dict) -> Editing:
    client, _ = await session(root, options)
    uri = (root / "big.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "python", 1, text)))
    await until(client, lambda: count(client, uri, "FRY002") == 1)
    return Editing(client, uri, text.count("\n") - 1)  # the final `x.to(device)`


async def edits(root: Path, text: str, args) -> dict[str, dict[str, list[float]]]:
    """Each variant's server, edited in turn (edit k of every variant, then edit k + 1),
    so that a change of the machine's load affects them alike: single edits
    ``args.pause`` apart (typing pauses), then bursts of ``args.burst`` changes."""
    servers = [await editing(root, text, options) for _, options in VARIANTS]
    for _ in range(args.edits):
        for server in servers:
            await asyncio.sleep(args.pause)
            await server.edit()
    for _ in range(args.bursts):
        for server in servers:
            await asyncio.sleep(args.pause)
            await server.burst(args.burst, args.pause)
    for server in servers:
        await server.client.shutdown_session()
        await server.client.stop()
    return {label: server.out for (label, _), server in zip(VARIANTS, servers, strict=True)}


def check_alone(root: Path, text: str, n: int) -> tuple[list[float], list[float]]:
    from torchferry.server.analysis import Projects, Settings, check_python

    project = Projects(Settings()).get(root / "big.py")
    wall, cpu = [], []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.thread_time()
        check_python(text, root / "big.py", project, frozenset())
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return wall, cpu


async def workspace(root: Path, files: int, hovers: int) -> dict[str, float]:
    uris = []
    for i in range(files):
        body = HEADER + BLOCK.format(i=i) + ("x.to(device)\n" if i % 3 == 0 else "")
        path = root / f"pkg{i // 100}" / f"mod{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(body)
        uris.append(path.as_uri())
    t_start = time.perf_counter()
    client, t_init = await session(root, {"checkWorkspace": True})
    opened = (root / "pkg0" / "mod0.py")
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(opened.as_uri(), "python", 1, opened.read_text())))
    t0 = time.perf_counter()
    await until(client, lambda: opened.as_uri() in client.diagnostics)
    t_first = time.perf_counter() - t0
    waits = []
    for _ in range(hovers):
        h0 = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(opened.as_uri()), types.Position(0, 0)))
        waits.append(time.perf_counter() - h0)
        published = sum(1 for u in uris if u in client.diagnostics)
        if published == len(uris):
            break
    during = sum(1 for u in uris if u in client.diagnostics)
    await until(client, lambda: all(u in client.diagnostics for u in uris))
    t_all = time.perf_counter() - t_start
    await client.shutdown_session()
    await client.stop()
    return {"init": t_init, "first": t_first, "hover": statistics.median(waits),
            "hovers": len(waits), "during": during, "all": t_all}


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms"


def p90(xs: list[float]) -> float:
    """The 90th percentile, nearest rank (of 30 values: the 27th)."""
    return sorted(xs)[max(math.ceil(len(xs) * 0.9) - 1, 0)]


#: the scheduling variants compared: (label, client settings)
VARIANTS = (
    ("at once after a pause, bursts coalesced (default: debounceMs 25)", {}),
    ("every change waits debounceMs 25 (checkAtOnce false)", {"checkAtOnce": False}),
    ("debounceMs 0", {"debounceMs": 0}),
)


async def main_async(args) -> None:
    text = big_file(2000)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[tool.torchferry]\n")
        (root / "big.py").write_text(text)
        alone, alone_cpu = check_alone(root, text, args.edits)
        runs = await edits(root, text, args)
    end = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"machine: {os.cpu_count()} CPUs; load average (1, 5, 15 min) "
          f"{' '.join(f'{x:.2f}' for x in load)} at the start, "
          f"{' '.join(f'{x:.2f}' for x in end)} after the edits\n")
    print(f"## a change in a {text.count(chr(10))}-line file ({args.edits} edits "
          f"{args.pause * 1000:.0f} ms apart; {args.bursts} bursts of {args.burst} changes "
          "5 ms apart)\n")
    print("| what | median | p90 |\n|---|---|---|")
    print(f"| the check alone (in-process), wall | {ms(statistics.median(alone))} | {ms(p90(alone))} |")
    print(f"| the check alone (in-process), CPU time of its thread | "
          f"{ms(statistics.median(alone_cpu))} | {ms(p90(alone_cpu))} |")
    for label, run in runs.items():
        print(f"| change -> diagnostics, {label} | {ms(statistics.median(run['edit']))} "
              f"| {ms(p90(run['edit']))} |")
    for label, run in runs.items():
        print(f"| a burst's last change -> its diagnostics, {label} | "
              f"{ms(statistics.median(run['burst']))} | {ms(p90(run['burst']))} |")
    for label, run in runs.items():
        print(f"| publications per burst, {label} | {statistics.median(run['published']):.0f} "
              f"| {p90(run['published']):.0f} |")
    cpu = runs[VARIANTS[0][0]]["cpu"]
    print(f"| the server process's CPU time per change (default; 1/{os.sysconf('SC_CLK_TCK')} "
          f"s ticks) | {ms(statistics.median(cpu))} | {ms(p90(cpu))} |")
    with tempfile.TemporaryDirectory() as tmp:
        ws = await workspace(Path(tmp), args.files, args.hovers)
    print(f"\n## opening a {args.files}-file workspace (checkWorkspace on)\n")
    print("| what | time |\n|---|---|")
    print(f"| initialize answered | {ms(ws['init'])} |")
    print(f"| first findings of a file opened right after | {ms(ws['first'])} |")
    print(f"| hover answered while the workspace is read (median of {ws['hovers']:.0f}; "
          f"{ws['during']:.0f} files published by then) | {ms(ws['hover'])} |")
    print(f"| every file's findings published | {ws['all']:.1f} s |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--pause", type=float, default=0.2, help="seconds between edits")
    ap.add_argument("--bursts", type=int, default=10)
    ap.add_argument("--burst", type=int, default=9, help="changes per burst (odd: the last "
                    "text differs from the first)")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--hovers", type=int, default=20)
    args = ap.parse_args()
    if args.burst % 2 == 0:
        ap.error("--burst must be odd (each change flips the line: an even burst ends where "
                 "it started)")
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
