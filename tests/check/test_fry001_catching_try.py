"""FRY001 and a ``try`` that catches the failed move: a move to the accelerator in a
``try`` body whose handler catches what the move raises on every machine (a bare
``except:``, ``except Exception``, ``except BaseException``, or, for a move to CUDA, a tuple
with both ``AssertionError``, what the CPU wheel raises, and ``RuntimeError``, what a CUDA
build without a driver raises) and goes on is a guard.  ``except RuntimeError:`` alone is
not; nor is a handler that raises again, one that reads the value the failed statement
would have bound, or one that leaves it unbound for the code after the ``try``."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = "import torch\n\n\n"

SORT = (
    "def rank(scores):\n"
    "    try:\n"
    "        _, idx = torch.sort(scores.cuda(), descending=True)\n"
    "    except:\n"
    "        _, idx = torch.sort(scores, descending=True)\n"
    "    return idx.cpu()\n"
)

QUIET = {
    "bare-except": SORT,
    "except-exception": SORT.replace("except:", "except Exception:"),
    "except-base-exception-as": SORT.replace("except:", "except BaseException as e:"),
    "both-failures-in-a-tuple": SORT.replace("except:", "except (AssertionError, RuntimeError):"),
    "tuple-with-exception": SORT.replace("except:", "except (ValueError, Exception):"),
    "model-kept-on-the-cpu": (
        "def place(model):\n"
        "    try:\n"
        "        model = model.cuda()\n"
        "    except Exception:\n"
        "        pass\n"
        "    return model\n"
    ),
    "handler-leaves": (
        "def place(x):\n"
        "    try:\n"
        "        y = x.to('cuda')\n"
        "        z = y * 2\n"
        "    except Exception:\n"
        "        return None\n"
        "    return z\n"
    ),
    "factory-device-literal": (
        "def make():\n"
        "    try:\n"
        "        buf = torch.zeros(3, device=torch.device('cuda'))\n"
        "    except Exception:\n"
        "        buf = torch.zeros(3)\n"
        "    return buf\n"
    ),
    "module-level": (
        "x = torch.ones(2)\n"
        "try:\n"
        "    x = x.cuda()\n"
        "except:\n"
        "    print('no GPU, staying on the CPU')\n"
    ),
}

FLAGGED = {
    "except-runtime-error-alone": SORT.replace("except:", "except RuntimeError:"),
    "except-assertion-error-alone": SORT.replace("except:", "except AssertionError:"),
    "tuple-of-both-for-xpu": SORT.replace("scores.cuda()", "scores.to('xpu')").replace(
        "except:", "except (AssertionError, RuntimeError):"),
    "handler-re-raises": SORT.replace(
        "        _, idx = torch.sort(scores, descending=True)\n",
        "        print('failed')\n        raise\n"),
    "handler-raises-another": SORT.replace(
        "        _, idx = torch.sort(scores, descending=True)\n",
        "        raise SystemExit('needs a GPU') from None\n"),
    "handler-reads-the-failed-value": SORT.replace(
        "        _, idx = torch.sort(scores, descending=True)\n",
        "        _, idx = torch.sort(idx, descending=True)\n"),
    "value-left-unbound": SORT.replace(
        "        _, idx = torch.sort(scores, descending=True)\n", "        pass\n"),
    "later-value-left-unbound": (
        "def place(x):\n"
        "    try:\n"
        "        x = x.cuda()\n"
        "        y = x * 2\n"
        "    except Exception:\n"
        "        pass\n"
        "    return y\n"
    ),
    "earlier-handler-re-raises": SORT.replace(
        "    except:\n", "    except RuntimeError:\n        raise\n    except:\n"),
    "move-in-the-handler": (
        "def place(x):\n"
        "    try:\n"
        "        y = x.double()\n"
        "    except Exception:\n"
        "        y = x.cuda()\n"
        "    return y\n"
    ),
    "device-bound-in-the-try-used-after": (
        "def make():\n"
        "    try:\n"
        "        device = torch.device('cuda')\n"
        "    except Exception:\n"
        "        device = torch.device('cpu')\n"
        "    return torch.zeros(3, device=device)\n"
    ),
    "try-around-a-definition": (
        "try:\n"
        "    def place(x):\n"
        "        return x.cuda()\n"
        "except Exception:\n"
        "    place = None\n"
    ),
}


def _found(source: str) -> list[int]:
    return [f.line for f in check_source(HEAD + source, "t.py", select=["FRY001"]) if f.code == "FRY001"]


@pytest.mark.parametrize("case", sorted(QUIET))
def test_a_try_that_catches_the_failed_move_guards_it(case: str) -> None:
    assert _found(QUIET[case]) == []


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_a_try_that_may_let_the_failure_through_is_no_guard(case: str) -> None:
    assert _found(FLAGGED[case]) != []


def test_the_guarded_line_alone_is_quiet() -> None:
    """A second, unguarded move in the same function is still flagged."""
    source = QUIET["model-kept-on-the-cpu"].replace(
        "    return model\n", "    return model, torch.ones(2).cuda()\n")
    assert _found(source) == [9]
