"""When ``ferry server`` checks a document: at once after a pause, a burst once at its
end, and a recheck (another file's classes, the configuration) never later than a check
already due.  In-process, on an event loop whose timers are read, not waited for."""

from __future__ import annotations

import asyncio

import pytest

URI = "file:///project/a.py"


def _server(**settings):
    from torchferry.server.analysis import Settings
    from torchferry.server.main import build

    ls = build()
    ls.settings = Settings(**settings)
    return ls


def test_a_change_after_a_pause_is_checked_at_once_and_a_burst_waits() -> None:
    from torchferry.server.protocol import Tracked

    ls = _server(debounce_ms=25)
    t = Tracked(URI, False)
    assert ls.change_delay(t, 100.0) == 0.0  # the first change
    assert ls.change_delay(t, 100.010) == pytest.approx(0.025)  # 10 ms later: a burst
    assert ls.change_delay(t, 100.030) == pytest.approx(0.025)  # still the burst
    assert ls.change_delay(t, 100.100) == 0.0  # 70 ms of quiet: a pause
    old = _server(debounce_ms=25, check_at_once=False)
    assert old.change_delay(Tracked(URI, False), 100.0) == pytest.approx(0.025)


def test_a_recheck_never_postpones_a_check_that_is_due() -> None:
    async def main() -> tuple[float, float, float]:
        ls = _server(debounce_ms=25)
        ls.schedule(URI, False)  # a change after a pause: due now
        t = ls.tracked[URI]
        assert t.timer is not None
        due = t.timer.when()
        for _ in range(3):  # the classes of three workspace files, one after the other
            ls.recheck_open(None, 0.25)
        kept = t.timer.when()
        t.timer.cancel()
        ls.tracked[URI].timer = None
        ls.recheck_open(None, 0.25)  # with nothing due, the recheck is scheduled
        later = ls.tracked[URI].timer.when()
        ls.tracked[URI].timer.cancel()
        return due, kept, later - asyncio.get_running_loop().time()

    due, kept, rest = asyncio.run(main())
    assert kept == due and 0 < rest <= 0.25
