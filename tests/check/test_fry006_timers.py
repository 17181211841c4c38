"""FRY006 through timers of the run: a timer class's ``__enter__``/``__exit__``, its
``start``/``stop`` methods, a ``contextmanager`` generator or a timing decorator reads the
clock around device work of another function (or file) that nothing waits for."""

from __future__ import annotations

from collections.abc import Callable

Places = Callable[[dict[str, str], str], list[tuple[str, int]]]



CLASS_TIMER = (
    "import time\n"
    "\n"
    "\n"
    "class Timer:\n"
    "    def __init__(self, name):\n"
    "        self.name = name\n"
    "\n"
    "    def __enter__(self):\n"
    "        self._t0 = time.perf_counter()\n"
    "        return self\n"
    "\n"
    "    def __exit__(self, *exc):\n"
    "        print(self.name, time.perf_counter() - self._t0)\n"
)
# the clock reads stored on ``self`` in both methods, subtracted in a property
STOPWATCH = (
    "from time import time\n"
    "\n"
    "\n"
    "class Stopwatch(object):\n"
    "    def __init__(self):\n"
    "        self.total = 0.0\n"
    "\n"
    "    def start(self):\n"
    "        self.begin = time()\n"
    "\n"
    "    def stop(self):\n"
    "        self.end = time()\n"
    "        self.total += self.elapsed\n"
    "\n"
    "    @property\n"
    "    def elapsed(self):\n"
    "        return self.end - self.begin\n"
    "\n"
    "    def __enter__(self):\n"
    "        self.start()\n"
    "        return self\n"
    "\n"
    "    def __exit__(self, *exc):\n"
    "        self.stop()\n"
)
TICTOC = (
    "import timeit\n"
    "\n"
    "\n"
    "class TicToc:\n"
    "    def tic(self):\n"
    "        self.t = timeit.default_timer()\n"
    "\n"
    "    def toc(self):\n"
    "        now = timeit.default_timer()\n"
    "        return now - self.t\n"
)
DECORATOR = (
    "import functools\n"
    "import time\n"
    "\n"
    "\n"
    "def timed(fn):\n"
    "    @functools.wraps(fn)\n"
    "    def wrapper(*args, **kwargs):\n"
    "        t0 = time.perf_counter()\n"
    "        out = fn(*args, **kwargs)\n"
    "        print(fn.__name__, time.perf_counter() - t0)\n"
    "        return out\n"
    "    return wrapper\n"
    "\n"
    "\n"
    "def timed_as(label):\n"
    "    def deco(fn):\n"
    "        def inner(*args):\n"
    "            start = time.time()\n"
    "            result = fn(*args)\n"
    "            LOG[label] = time.time() - start\n"
    "            return result\n"
    "        return inner\n"
    "    return deco\n"
    "\n"
    "\n"
    "LOG = {}\n"
)
GENERATOR = (
    "import time\n"
    "from contextlib import contextmanager\n"
    "\n"
    "\n"
    "@contextmanager\n"
    "def timing(label):\n"
    "    t0 = time.time()\n"
    "    yield\n"
    "    print(label, time.time() - t0)\n"
)
SETUP = (
    "import torch\n"
    "model = torch.nn.Linear(4, 2).cuda()\n"
    "x = torch.randn(8, 4, device='cuda')\n"
)


def _fry006(finding_places: Places, files: dict[str, str]) -> list[tuple[str, int]]:
    return finding_places(files, "FRY006")


def test_a_timer_class_of_the_same_file_times_the_with_body(finding_places: Places) -> None:
    run = CLASS_TIMER + "\n\n" + SETUP + "with Timer('forward'):\n    y = model(x)\n"
    assert _fry006(finding_places, {"run.py": run}) == [("run.py", 19)]


def test_a_timer_class_imported_from_another_file_times_the_with_body(finding_places: Places) -> None:
    for imp, use in (("from utils import Timer", "Timer('fwd')"), ("import utils", "utils.Timer('fwd')")):
        train = (f"{imp}\n{SETUP}"
                 "def step(model, x):\n"
                 f"    with {use} as t:\n"
                 "        out = model(x)\n"
                 "        out.sum().backward()\n"
                 "    return t\n"
                 "step(model, x)\n")
        assert _fry006(finding_places, {"utils.py": CLASS_TIMER, "train.py": train}) == [("train.py", 6)], imp


def test_an_instance_of_a_timer_class_and_its_start_and_stop(finding_places: Places) -> None:
    train = ("from utils import Stopwatch\n" + SETUP
             + "watch = Stopwatch()\n"
             "with watch:\n"          # line 6
             "    y = model(x)\n"
             "watch.start()\n"
             "y = x @ x.T\n"
             "watch.stop()\n")        # line 10
    assert _fry006(finding_places, {"utils.py": STOPWATCH, "train.py": train}) == [
        ("train.py", 6), ("train.py", 10)]


def test_tic_and_toc_of_a_timer_attribute(finding_places: Places) -> None:
    bench = ("import torch\nfrom tictoc import TicToc\n\n\n"
             "class Bench:\n"
             "    def __init__(self):\n"
             "        self.model = torch.nn.Linear(4, 2).cuda()\n"
             "        self.clock = TicToc()\n"
             "\n"
             "    def run(self, x):\n"
             "        self.clock.tic()\n"
             "        y = self.model(x)\n"
             "        return y, self.clock.toc()\n")  # line 13
    assert _fry006(finding_places, {"tictoc.py": TICTOC, "bench.py": bench}) == [("bench.py", 13)]


def test_a_timing_decorator_times_the_decorated_function(finding_places: Places) -> None:
    infer = ("import torch\nfrom timing import timed, timed_as\n\n\n"
             "@timed\n"                      # line 5
             "def infer(model, x):\n"
             "    return model(x)\n"
             "\n\n"
             "@timed_as('matmul')\n"         # line 10
             "def product(n):\n"
             "    b = torch.randn(n, n).cuda()\n"
             "    return b @ b.T\n")
    assert _fry006(finding_places, {"timing.py": DECORATOR, "infer.py": infer}) == [
        ("infer.py", 5), ("infer.py", 10)]


def test_a_contextmanager_generator_timer(finding_places: Places) -> None:
    run = ("from timing import timing\n" + SETUP
           + "with timing('forward'):\n    y = model(x)\n")
    assert _fry006(finding_places, {"timing.py": GENERATOR, "run.py": run}) == [("run.py", 5)]


def test_a_body_that_waits_is_not_reported(finding_places: Places) -> None:
    for wait in ("y.sum().item()", "torch.cuda.synchronize()", "print(float(y.mean()))", "y = y.cpu()"):
        run = ("from utils import Timer\n" + SETUP
               + f"with Timer('forward'):\n    y = model(x)\n    {wait}\n")
        assert _fry006(finding_places, {"utils.py": CLASS_TIMER, "run.py": run}) == [], wait


def test_a_helper_of_the_run_that_waits_in_the_body_is_not_reported(finding_places: Places) -> None:
    run = ("from utils import Timer\n" + SETUP
           + "def accuracy(out):\n    return out.argmax(1).float().mean().item()\n"
           "with Timer('eval'):\n    acc = accuracy(model(x))\n")
    assert _fry006(finding_places, {"utils.py": CLASS_TIMER, "run.py": run}) == []


def test_a_timer_that_synchronizes_is_not_reported(finding_places: Places) -> None:
    synced = CLASS_TIMER.replace("    def __exit__(self, *exc):\n",
                                 "    def __exit__(self, *exc):\n        torch.cuda.synchronize()\n")
    synced = "import torch\n" + synced
    events = (
        "import time\nimport torch\n\n\n"
        "class Timer:\n"
        "    def __enter__(self):\n"
        "        self.t0 = time.time()\n"
        "        self.start = torch.cuda.Event(enable_timing=True)\n"
        "        self.start.record()\n"
        "\n"
        "    def __exit__(self, *exc):\n"
        "        self.wall = time.time() - self.t0\n"
    )
    run = "from utils import Timer\n" + SETUP + "with Timer('forward'):\n    y = model(x)\n"
    for timer in (synced, events):
        assert _fry006(finding_places, {"utils.py": timer, "run.py": run}) == []
    deco = DECORATOR.replace("        out = fn(*args, **kwargs)\n",
                             "        out = fn(*args, **kwargs)\n        sync_device()\n")
    deco += "\n\ndef sync_device():\n    torch.cuda.synchronize()\n"
    infer = "from timing import timed\n\n\n@timed\ndef infer(model, x):\n    return model(x)\n"
    assert _fry006(finding_places, {"timing.py": "import torch\n" + deco, "infer.py": infer}) == []


def test_timers_around_host_work_are_not_reported(finding_places: Places) -> None:
    run = ("import numpy as np\nimport torch\nfrom utils import Timer\nfrom timing import timed\n"
           "batches = iter([np.ones(3)])\n"
           "with Timer('data'):\n"
           "    batch = next(batches)\n"
           "    x = torch.from_numpy(batch).float() * 2\n"
           "\n\n"
           "@timed\n"
           "def load(path):\n"
           "    return torch.load(path, map_location='cpu')\n")
    assert _fry006(finding_places, {"utils.py": CLASS_TIMER, "timing.py": DECORATOR, "run.py": run}) == []
    # loading a batch onto the device: the copy returns when it is done
    for move in ("x = torch.from_numpy(batch).cuda()", "x = torch.as_tensor(batch).to('cuda')"):
        data = ("import numpy as np\nimport torch\nfrom utils import Timer\n"
                "batches = iter([np.ones(3)])\n"
                f"with Timer('data'):\n    batch = next(batches)\n    {move}\n")
        assert _fry006(finding_places, {"utils.py": CLASS_TIMER, "run.py": data}) == [], move


def test_a_class_that_only_stores_the_clock_is_no_timer(finding_places: Places) -> None:
    # a rate limiter: ``__exit__`` stores the clock, nothing subtracts one read from another
    limiter = ("import time\n\n\nclass Every:\n"
               "    def __enter__(self):\n        self.last = time.time()\n"
               "    def __exit__(self, *exc):\n        self.done = time.time()\n")
    run = "from utils import Every\n" + SETUP + "with Every():\n    y = model(x)\n"
    assert _fry006(finding_places, {"utils.py": limiter, "run.py": run}) == []


def test_a_timer_kept_in_a_dict_of_timers(finding_places: Places) -> None:
    # ``_t = {'im_detect': Timer()}`` then ``_t['im_detect'].tic()`` .. ``.toc()``
    run = ("from tictoc import TicToc\n" + SETUP
           + "_t = {'detect': TicToc(), 'misc': TicToc()}\n"
           "for i in range(3):\n"
           "    _t['detect'].tic()\n"
           "    out = model(x).data\n"
           "    t = _t['detect'].toc()\n"      # line 9
           "    _t['misc'].tic()\n"
           "    out = out.cpu()\n"
           "    m = _t['misc'].toc()\n")
    assert _fry006(finding_places, {"tictoc.py": TICTOC, "run.py": run}) == [("run.py", 9)]


def test_a_dict_of_timers_bound_in_a_function(finding_places: Places) -> None:
    evaluate = ("from utils import Stopwatch\n" + SETUP
                + "def evaluate(model, x):\n"
                "    timers = {'forward': Stopwatch(), 'post': Stopwatch()}\n"
                "    timers['forward'].start()\n"
                "    y = model(x)\n"
                "    timers['forward'].stop()\n"       # line 9
                "    return y\n"
                "evaluate(model, x)\n")
    assert _fry006(finding_places, {"utils.py": STOPWATCH, "evaluate.py": evaluate}) == [("evaluate.py", 9)]


def test_a_contextmanager_timer_reading_the_clock_in_a_finally(finding_places: Places) -> None:
    timing = ("import contextlib\nimport time\n\n\n"
              "@contextlib.contextmanager\n"
              "def stopwatch(log):\n"
              "    start = time.perf_counter()\n"
              "    try:\n"
              "        yield\n"
              "    finally:\n"
              "        log.append(time.perf_counter() - start)\n")
    run = ("from timing import stopwatch\n" + SETUP
           + "times = []\n"
           "with stopwatch(times):\n"                # line 6
           "    loss = model(x).sum()\n"
           "    loss.backward()\n")
    assert _fry006(finding_places, {"timing.py": timing, "run.py": run}) == [("run.py", 6)]


# a model of the run: its ``forward`` queues work and waits for none
NET = (
    "import torch\n"
    "\n"
    "\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = torch.nn.Linear(4, 5)\n"
    "\n"
    "    def forward(self, x):\n"
    "        y = self.fc(x)\n"
    "        return torch.where(y > 0, y, torch.zeros_like(y))\n"
)


def test_a_model_of_the_run_that_does_not_wait_is_reported(finding_places: Places) -> None:
    run = ("import torch\nfrom net import Net\nfrom tictoc import TicToc\nfrom timing import timing\n"
           "model = Net().cuda()\n"
           "x = torch.randn(8, 4, device='cuda')\n"
           "clock = TicToc()\n"
           "clock.tic()\n"
           "y = model(x)\n"
           "dt = clock.toc()\n"                       # line 10
           "with timing('forward'):\n"               # line 11
           "    y = model(x)\n")
    assert _fry006(finding_places, {"net.py": NET, "tictoc.py": TICTOC, "timing.py": GENERATOR,
                              "run.py": run}) == [("run.py", 10), ("run.py", 11)]


def test_timed_code_that_may_wait_on_some_path_is_not_reported(finding_places: Places) -> None:
    # a detector of the run filtering by a boolean mask: indexing waits to learn the size
    masked = NET.replace("        return torch.where(y > 0, y, torch.zeros_like(y))\n",
                         "        keep = y[:, 0] > 0.5\n        return y[keep]\n")
    # post-processing only in the test phase, by an object of the run calling ``nonzero``
    phased = (
        "import torch\n\n\n"
        "class Post:\n"
        "    def __call__(self, y):\n"
        "        idx = (y > 0.1).nonzero()\n"
        "        return y[idx[:, 0]]\n\n\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self, phase='train'):\n"
        "        super().__init__()\n"
        "        self.phase = phase\n"
        "        self.fc = torch.nn.Linear(4, 5)\n"
        "        self.post = Post()\n\n"
        "    def forward(self, x):\n"
        "        y = self.fc(x)\n"
        "        if self.phase == 'test':\n"
        "            return self.post(y)\n"
        "        return y\n"
    )
    run = ("import torch\nfrom net import Net\nfrom tictoc import TicToc\nfrom timing import timing\n"
           "def build(phase):\n    return Net(phase)\n"
           "def test_net(net, x):\n"
           "    _t = {'detect': TicToc()}\n"
           "    _t['detect'].tic()\n"
           "    out = net(x).data\n"
           "    return _t['detect'].toc()\n"
           "model = build('test').cuda()\n"
           "test_net(model, torch.randn(8, 4, device='cuda'))\n"
           "x = torch.randn(8, 4, device='cuda')\n"
           "with timing('forward'):\n"
           "    y = model(x)\n")
    for net in (masked, phased):
        assert _fry006(finding_places, {"net.py": net, "tictoc.py": TICTOC, "timing.py": GENERATOR,
                                  "run.py": run}) == [], net
    # the post-processing class brought in by ``from post import *``
    cut = phased.index("class Net")
    starred = {"post.py": "import torch\n\n\n" + phased[len("import torch\n\n\n"):cut],
               "net.py": "import torch\nfrom post import *\n\n\n" + phased[cut:]}
    assert _fry006(finding_places, {**starred, "tictoc.py": TICTOC, "timing.py": GENERATOR,
                              "run.py": run}) == []
    # a wait in a branch of a helper of the run; a mask index in the timed code itself
    for body in ("    y = step(model, x, verbose)\n", "    y = model(x)\n    y = y[y.sum(1) > 0]\n",
                 "    y = model(x)\n    rows = torch.where(y[:, 0] > 0)\n"):
        run = ("from utils import Timer\n" + SETUP + "verbose = False\n"
               "def step(model, x, log):\n"
               "    out = model(x)\n"
               "    if log:\n"
               "        print(out.mean().item())\n"
               "    return out\n"
               f"with Timer('step'):\n{body}")
        assert _fry006(finding_places, {"utils.py": CLASS_TIMER, "run.py": run}) == [], body


def test_each_use_of_a_timing_decorator_is_reported_once_its_wrapper_is_known(finding_places: Places) -> None:
    # the wrapper is found once per decorator and kept; each decorated function is still
    # judged on its own (the second waits in its body)
    infer = ("import torch\nfrom timing import timed\n\n\n"
             "@timed\n"                      # line 5
             "def first(model, x):\n"
             "    return model(x)\n"
             "\n\n"
             "@timed\n"                      # line 10
             "def second(model, x):\n"
             "    return model(x).item()\n"
             "\n\n"
             "@timed\n"                      # line 15
             "def third(n):\n"
             "    b = torch.randn(n, n).cuda()\n"
             "    return b @ b.T\n")
    assert _fry006(finding_places, {"timing.py": DECORATOR, "infer.py": infer}) == [
        ("infer.py", 5), ("infer.py", 15)]


def test_the_timing_wrapper_of_a_decorator_is_kept_per_decorator() -> None:
    import ast

    from torchferry.check.flow.program import FileFlow
    from torchferry.check.flow.timers import timing_decorator, timing_wrapper

    src = DECORATOR + "\n\ndef plain(fn):\n    return fn\n\n\n@timed\ndef a():\n    pass\n\n\n@timed\ndef b():\n    pass\n"
    ff = FileFlow(ast.parse(src), "<timing>")
    got = timing_wrapper(ff, ff.defs["timed"])
    assert got is not None and got[0].name == "wrapper" and len(got[1]) == 1
    inner = timing_wrapper(ff, ff.defs["timed_as"])
    assert inner is not None and inner[0].name == "inner"  # the function around the call
    assert timing_wrapper(ff, ff.defs["plain"]) is None
    decorators = [f.decorator_list[0] for f in ff.tree.body
                  if isinstance(f, ast.FunctionDef) and f.name in ("a", "b")]
    assert [timing_decorator(ff, d) for d in decorators] == [False, False]
    assert list(ff.wrappers_memo) == [id(ff.defs["timed"])]
    assert timing_decorator(ff, ast.parse("plain", mode="eval").body) is None
    assert ff.wrappers_memo[id(ff.defs["plain"])] is None
