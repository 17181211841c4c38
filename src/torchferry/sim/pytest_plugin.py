"""pytest plugin: ``pytest --ferry-simulate cuda [--ferry-device-count 2]`` and ``simulated_gpu``.

Registered through the ``pytest11`` entry point.  Importing it imports neither
torch nor the simulation; nothing is patched unless ``--ferry-simulate`` is
given or a test uses the ``simulated_gpu`` fixture.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from torchferry.sim.kinds import kind_names  # torch-free

_SESSION_KEY = "_torchferry_simulation"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("torchferry", "torchferry simulated GPU")
    group.addoption(
        "--ferry-simulate",
        action="store",
        choices=kind_names(),
        default=None,
        metavar="KIND",
        help=f"run the whole test session on a simulated accelerator ({', '.join(kind_names())})",
    )
    group.addoption(
        "--ferry-device-count",
        action="store",
        type=int,
        default=None,
        metavar="N",
        help="number of simulated devices for --ferry-simulate (default 1)",
    )
    group.addoption(
        "--ferry-memory",
        action="store",
        default=None,
        metavar="SIZE",
        help="memory of each simulated device (e.g. 24GiB; default 80 GiB), what mem_get_info() "
        "reports",
    )


def _start(config: Any, kind: str | None, count: int | None, memory: str | None = None) -> None:
    if count is not None and kind is None:
        raise pytest.UsageError("--ferry-device-count needs --ferry-simulate KIND")
    if count is not None and count < 1:
        raise pytest.UsageError(f"--ferry-device-count must be at least 1, not {count}")
    if kind is None or getattr(config, _SESSION_KEY, None) is not None:
        return
    from torchferry._internal.sizes import parse_size
    from torchferry.errors import UsageError
    from torchferry.sim.session import simulate

    try:
        size = parse_size(memory) if memory is not None else None
    except UsageError as exc:
        raise pytest.UsageError(f"--ferry-memory: {exc}") from None
    sim = simulate(kind, count or 1, memory=size)
    try:
        sim.__enter__()
    except Exception as exc:  # a real device present, or already simulating
        raise pytest.UsageError(f"--ferry-simulate {kind}: {exc}") from None
    setattr(config, _SESSION_KEY, sim)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Iterator[None]:
    """Start the session's simulation before the first ``conftest.py`` is imported.

    Module-level code in a conftest (``DEVICE = "cuda" if torch.cuda.is_available()
    else "cpu"``) runs while conftests load, before ``pytest_configure``: started any
    later, the suite would silently test on the CPU.  A wrapper outside pytest's own
    (its warnings plugin runs this hook inside ``warnings.catch_warnings()``, whose exit
    would undo the simulation's ``warnings.showwarning`` and leave it to warn, at the
    session's end, that someone replaced it).
    """
    ns = early_config.known_args_namespace
    _start(early_config, getattr(ns, "ferry_simulate", None), getattr(ns, "ferry_device_count", None),
           getattr(ns, "ferry_memory", None))
    return (yield)


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "ferry_simulate(kind='cuda', count=1): the simulated_gpu fixture's kind and device count",
    )
    _start(
        config,
        config.getoption("--ferry-simulate", default=None),
        config.getoption("--ferry-device-count", default=None),
        config.getoption("--ferry-memory", default=None),
    )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[Any]:
    """A failure inside the simulation reads as on a GPU: without the simulation's frames
    and torch's ``handle_torch_function`` (only on the stack because of the simulation;
    pytest would print its whole docstring), as ``ferry run`` prints it."""
    excinfo = call.excinfo
    own = getattr(item, "_traceback_filter", None)  # pytest's (cuts at the test function)
    if excinfo is None or not _simulating() or own is None:
        return (yield)
    from torchferry.sim.runner import foreign_frame

    def hide_simulation(info: Any) -> Any:
        tb = own(info)
        kept = tb.filter(lambda e: not foreign_frame(str(e.path), e.name))
        return kept if len(kept) else tb

    item._traceback_filter = hide_simulation  # this report only
    try:
        return (yield)
    finally:
        del item._traceback_filter


def _simulating() -> bool:
    import sys

    sim = sys.modules.get("torchferry.sim")  # never imported: nothing simulated
    return sim is not None and bool(sim.is_active())


def pytest_report_header(config: Any) -> str | None:
    sim = getattr(config, _SESSION_KEY, None)
    if sim is None:
        return None
    return f"torchferry: simulated {sim.kind} x{sim.count} (computed on the CPU)"


def pytest_unconfigure(config: Any) -> None:
    sim = getattr(config, _SESSION_KEY, None)
    if sim is not None:
        sim.__exit__(None, None, None)
        delattr(config, _SESSION_KEY)


@pytest.fixture
def simulated_gpu(request: Any) -> Iterator[Any]:
    """A simulated accelerator for one test (``@pytest.mark.ferry_simulate("mps")`` to pick).

    Yields the active :class:`torchferry.simulate` object; under
    ``--ferry-simulate`` that is the session's simulation.
    """
    marker = request.node.get_closest_marker("ferry_simulate")
    kind, count = "cuda", 1
    if marker is not None:
        kind = marker.kwargs.get("kind", marker.args[0] if marker.args else "cuda")
        count = marker.kwargs.get("count", marker.args[1] if len(marker.args) > 1 else 1)
    session_sim = getattr(request.config, _SESSION_KEY, None)
    if session_sim is not None:
        if marker is not None and (kind, count) != (session_sim.kind, session_sim.count):
            # simulations cannot be nested, and leaving the session's would turn every
            # tensor it made (fixtures, module globals) back into a CPU tensor
            pytest.fail(
                f"@pytest.mark.ferry_simulate({kind!r}, count={count}) asks for a simulation "
                f"the session's --ferry-simulate {session_sim.kind} (count={session_sim.count}) "
                "cannot give this test; run it without --ferry-simulate, or with "
                f"--ferry-simulate {kind} --ferry-device-count {count}",
                pytrace=False,
            )
        yield session_sim
        return
    from torchferry.sim.session import simulate

    with simulate(kind, count) as sim:
        yield sim
