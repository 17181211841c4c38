"""`ferry check` with worker processes, as a terminal and a CI runner see it: the
progress line moves as files finish, and SIGINT to the main process ends the run
at once (worker processes included), as it does without workers."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow  # starts `ferry check` with worker processes

BLOCK = '''
def step_{i}(model, x, device):
    y = torch.zeros(3).cuda()
    z = model(x.to(device)) + y
    print(z.sum().item())
    return z.cpu().numpy()
'''
FERRY = [sys.executable, "-m", "torchferry", "check", "--no-cache", "-j", "2"]


def _source(blocks: int) -> str:
    return "import torch\n" + "".join(BLOCK.format(i=i) for i in range(blocks))


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads /proc")
def test_sigint_to_the_main_process_stops_the_workers_at_once(tmp_path):
    # about a minute of checking for two workers: an interrupt must not wait for it
    (tmp_path / "big0.py").write_text(_source(20_000))  # ~3 MB
    for n in range(1, 24):
        os.link(tmp_path / "big0.py", tmp_path / f"big{n}.py")
    # (a shell starts a background job with SIGINT ignored: give the command the default)
    proc = subprocess.Popen([*FERRY, "--select", "ALL", "."], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2
        time.sleep(0.5)  # the workers are checking their first files
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            for pid in _children(proc.pid):
                os.kill(pid, signal.SIGKILL)
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "ferry check: interrupted", err
    assert "Traceback" not in err
    assert not [w for w in workers if _alive(w)]  # no worker left running


def test_progress_line_advances_as_files_finish_with_workers(tmp_path):
    # one slow file and many quick ones (seconds of them): they finish while it runs
    (tmp_path / "a_big.py").write_text(_source(5_000))
    for n in range(40):
        (tmp_path / f"small{n:02}.py").write_text(_source(40))
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([*FERRY, "--select", "ALL", "--statistics", "."], cwd=tmp_path, stdin=slave,
                            stdout=slave, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 600)  # the line is redrawn only on change
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        proc.wait(timeout=600)
    finally:
        os.close(master)
        if proc.poll() is None:
            for pid in _children(proc.pid):
                os.kill(pid, signal.SIGKILL)
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, seen
    # how often the line is redrawn depends on the machine's speed (at most ten times a
    # second, after the first second): what it shows only ever counts up
    counts = [int(m) for m in re.findall(rb"ferry check: (\d+)/41 files", seen)]
    assert counts == sorted(counts)
    # shown, and it advanced; the last redraw may come before the last file finishes (the
    # line is erased at the end without being drawn at 41/41 first)
    assert counts and counts[0] < counts[-1] <= 41, seen


def test_the_progress_line_shows_while_the_first_big_files_are_checked(tmp_path):
    # nothing finishes for seconds: the line still appears (0/N), not only at the first result
    (tmp_path / "big0.py").write_text(_source(20_000))
    for n in range(1, 4):
        os.link(tmp_path / "big0.py", tmp_path / f"big{n}.py")
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([*FERRY, "--select", "ALL", "."], cwd=tmp_path, stdin=slave,
                            stdout=slave, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while b"files" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                seen += os.read(master, 4096)
    finally:
        os.close(master)
        for pid in _children(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    assert b"ferry check: 0/4 files" in seen, seen


def test_workers_report_files_as_they_finish(tmp_path, monkeypatch):
    """The count the progress line shows comes back batch by batch from the workers, not
    all at the end (it jumped from 1/N to N/N)."""
    from torchferry.check import runner

    monkeypatch.chdir(tmp_path)
    paths = []
    for n in range(40):
        path = tmp_path / f"small{n:02}.py"
        path.write_text(_source(80))
        paths.append(path)
    assert sum(p.stat().st_size for p in paths) >= runner.PARALLEL_MIN_BYTES
    calls: list[tuple[int, int]] = []
    opts = runner.Options(root=tmp_path, select=("ALL",))
    outcomes = runner.check_paths(paths, opts, jobs=2, progress=lambda d, t: calls.append((d, t)))
    assert len(outcomes) == 40 and all(o.error is None for o in outcomes)
    done = [d for d, _ in calls]
    assert {t for _, t in calls} == {40} and done == sorted(done) and done[-1] == 40
    assert len(done) > 2 and any(1 < d < 40 for d in done), done
