"""How fast does ``ferry server`` answer an editor?  Two measurements, one run, a real
server process driven over stdio by pytest-lsp's client:

1. **A change in a 2,000-line file**: the file is open; each edit flips one line between
   a discarded ``x.to(device)`` (FRY002) and its fixed form, and the time is taken from
   sending ``didChange`` to receiving the ``publishDiagnostics`` that reflects it (what
   the user waits for).  Median and 90th percentile of ``--edits`` edits, with the
   default debounce (25 ms) and with ``debounceMs = 0``, beside the check alone timed
   in-process (``check_python`` on the same text), in wall time and in the CPU time of
   its thread (on a loaded machine the wall time is mostly waiting for a core), and the
   server process's own CPU time per change (``/proc/PID/stat``).
2. **Opening a 1,000-file workspace** with ``checkWorkspace`` on: the time to the
   ``initialize`` answer, to the first findings of a file opened right after it, the
   median answer time of hover requests sent while the workspace is read in the
   background (the editor is not blocked), and the time until every file's findings have
   arrived (they come as each file is done).

    python benchmarks/server_latency.py            # about a minute
    python benchmarks/server_latency.py --edits 50

The files are generated (realistic training-script code: models, loops, moves), in a
temporary directory; nothing was tuned on them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


async def session(root: Path, options: dict):
    client = SERVER.client_factory()
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


async def edits(
    root: Path, text: str, n: int, debounce: int | None
) -> tuple[list[float], list[float]]:
    options = {} if debounce is None else {"debounceMs": debounce}
    client, _ = await session(root, options)
    uri = (root / "big.py").as_uri()
    last = text.count("\n") - 1  # 0-based line of the final `x.to(device)`
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "python", 1, text)))
    await until(client, lambda: count(client, uri, "FRY002") == 1)
    times, cpu = [], []
    pid = client._server.pid
    for k in range(n):
        fixed = k % 2 == 0  # insert or remove "x = " at the start of the last line
        change = types.TextDocumentContentChangePartial(
            types.Range(types.Position(last, 0), types.Position(last, 0 if fixed else 4)),
            "x = " if fixed else "")
        t0, c0 = time.perf_counter(), cpu_seconds(pid)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(k + 2, uri), [change]))
        want = 0 if fixed else 1
        await until(client, lambda want=want: count(client, uri, "FRY002") == want)
        times.append(time.perf_counter() - t0)
        cpu.append(cpu_seconds(pid) - c0)
    await client.shutdown_session()
    await client.stop()
    return times, cpu


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
    return sorted(xs)[max(int(len(xs) * 0.9) - 1, 0)]


async def main_async(args) -> None:
    text = big_file(2000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[tool.torchferry]\n")
        (root / "big.py").write_text(text)
        alone, alone_cpu = check_alone(root, text, args.edits)
        default, _ = await edits(root, text, args.edits, None)
        zero, zero_cpu = await edits(root, text, args.edits, 0)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.1f} at the start\n")
    print(f"## a change in a {text.count(chr(10))}-line file ({args.edits} edits)\n")
    print("| what | median | p90 |\n|---|---|---|")
    print(f"| the check alone (in-process), wall | {ms(statistics.median(alone))} | {ms(p90(alone))} |")
    print(f"| the check alone (in-process), CPU time of its thread | "
          f"{ms(statistics.median(alone_cpu))} | {ms(p90(alone_cpu))} |")
    print(f"| change -> diagnostics, debounceMs 25 (default) | {ms(statistics.median(default))} "
          f"| {ms(p90(default))} |")
    print(f"| change -> diagnostics, debounceMs 0 | {ms(statistics.median(zero))} "
          f"| {ms(p90(zero))} |")
    print(f"| the server process's CPU time per change (debounceMs 0; 1/{os.sysconf('SC_CLK_TCK')} "
          f"s ticks) | {ms(statistics.median(zero_cpu))} | {ms(p90(zero_cpu))} |")
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
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--hovers", type=int, default=20)
    asyncio.run(main_async(ap.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
