"""FRY004 stays quiet where a ``torch.load`` without ``map_location`` cannot meet a
missing device: in the arm of a test that established an accelerator (or whose other
arm loads the same file onto the CPU), and on a file every save of the same function
or file writes from host data; it still fires where that is not established."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source


def lines(src: str) -> list[int]:
    return [f.line for f in check_source(src, "<case>", select=["FRY004"])]


QUIET = {
    "not-available-first": (
        "import torch\n"
        "def load(model, path):\n"
        "    if not torch.cuda.is_available():\n"
        "        sd = torch.load(path, map_location='cpu')\n"
        "    else:\n"
        "        sd = torch.load(path)\n"
        "    model.load_state_dict(sd)\n"
    ),
    "ternary-with-cpu-arm": (
        "import torch\n"
        "def load(path, cuda):\n"
        "    return torch.load(path) if cuda else torch.load(path, map_location='cpu')\n"
    ),
    "flag-bound-to-availability": (
        "import torch\n"
        "def main(args):\n"
        "    use_gpu = args.gpu and torch.cuda.is_available()\n"
        "    if use_gpu:\n"
        "        return torch.load(args.checkpoint)\n"
    ),
    "module-level-availability": (
        "import torch\n"
        "USE_CUDA = torch.cuda.is_available()\n"
        "def restore(path):\n"
        "    if USE_CUDA:\n"
        "        return torch.load(path)\n"
        "    return None\n"
    ),
    "device-count": (
        "import torch\n"
        "def restore(path):\n"
        "    if torch.cuda.device_count() > 0:\n"
        "        return torch.load(path)\n"
    ),
    "flag-with-lambda-cpu-arm": (
        "import torch\n"
        "def restore(args):\n"
        "    if args.cuda:\n"
        "        ckpt = torch.load(args.resume)\n"
        "    else:\n"
        "        ckpt = torch.load(args.resume, map_location=lambda storage, loc: storage)\n"
        "    return ckpt\n"
    ),
    "nested-under-availability": (
        "import torch\n"
        "def restore(args, n):\n"
        "    use_gpu = args.use_gpu and torch.cuda.is_available()\n"
        "    if use_gpu:\n"
        "        if n > 1:\n"
        "            return torch.load(args.model)\n"
        "        return torch.load(args.model, map_location=torch.device('cuda'))\n"
        "    return torch.load(args.model, map_location=torch.device('cpu'))\n"
    ),
    "saved-through-a-helper": (
        "import torch\n"
        "def _dump(obj, path):\n"
        "    torch.save(obj, path)\n"
        "def record(epoch, root):\n"
        "    _dump({'epoch': 3, 'tags': ['a']}, root + '/meta.bin')\n"
        "def resume(root):\n"
        "    return torch.load(root + '/meta.bin')['epoch']\n"
    ),
    "saved-through-an-atomic-helper": (
        "import os, tempfile, torch\n"
        "class Store:\n"
        "    def __init__(self, root):\n"
        "        self.vocab_file = os.path.join(root, 'vocab')\n"
        "    def write(self, words):\n"
        "        self._atomic(self.vocab_file, sorted(set(['<pad>', '<unk>'])))\n"
        "    def read(self):\n"
        "        return torch.load(self.vocab_file)\n"
        "    @staticmethod\n"
        "    def _atomic(path, data):\n"
        "        tmp = tempfile.NamedTemporaryFile(delete=False)\n"
        "        torch.save(data, tmp)\n"
        "        os.replace(tmp.name, path)\n"
    ),
    "cache-of-numbers-in-the-else-arm": (
        "import os, torch\n"
        "def stats(ds, cache):\n"
        "    cache = cache + '.stats'\n"
        "    if os.path.isfile(cache):\n"
        "        st = torch.load(cache)\n"
        "    else:\n"
        "        st = {'n': len(ds), 'mean': float(ds.mean().item()), 'names': ['a', 'b']}\n"
        "        torch.save(st, cache)\n"
        "    return st\n"
    ),
    "cache-of-the-command-line": (
        "import argparse, os, torch\n"
        "def main(out):\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--lr', type=float)\n"
        "    args = parser.parse_args()\n"
        "    path = f'{out}/args_{os.getpid()}.bin'\n"
        "    if os.path.exists(path):\n"
        "        args = torch.load(path)\n"
        "    else:\n"
        "        torch.save(args, path)\n"
        "    return args\n"
    ),
    "timings-kept-on-self": (
        "import os, time, torch\n"
        "class Tracker:\n"
        "    def __init__(self, root):\n"
        "        self.time_file = os.path.join(root, 'times')\n"
        "        self.times = {}\n"
        "        self.start = time.time()\n"
        "    def tick(self, step):\n"
        "        self.times[step] = time.time() - self.start\n"
        "        self._write(self.time_file, self.times)\n"
        "    def restore(self):\n"
        "        self.times = torch.load(self.time_file)\n"
        "    def _write(self, path, data):\n"
        "        torch.save(data, path)\n"
    ),
    "device-compared-equal-to-cuda": (
        "import torch\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "def restore(model, path):\n"
        "    if device == torch.device('cuda'):\n"
        "        ckpt = torch.load(path)\n"
        "    else:\n"
        "        ckpt = torch.load(path, map_location=device)\n"
        "    return ckpt\n"
    ),
    "device-type-is-cuda": (
        "import torch\n"
        "class Evaluator:\n"
        "    def restore(self, path):\n"
        "        if self.device.type == 'cuda':\n"
        "            return torch.load(path)\n"
    ),
    "else-arm-of-a-device-other-than-cuda": (
        "import torch\n"
        "def restore(path, device):\n"
        "    if str(device) != 'cuda:0':\n"
        "        return None\n"
        "    else:\n"
        "        return torch.load(path)\n"
    ),
    "flag-bound-to-a-device-type-test": (
        "import torch\n"
        "def restore(path, device):\n"
        "    on_gpu = device.type == 'cuda'\n"
        "    if on_gpu:\n"
        "        return torch.load(path)\n"
    ),
    "prediction-saved-from-the-cpu-under-a-template": (
        "import os, torch\n"
        "def save_pred(pred, run, out):\n"
        "    fname = os.path.join(out, 'best_pred_run{}.pt'.format(run))\n"
        "    torch.save(pred.detach().cpu(), fname)\n"
        "def teacher(args, run):\n"
        "    return torch.load('./{}/best_pred_run{}.pt'.format(args.out, run))\n"
    ),
    "f-string-cache-of-cpu-values": (
        "import torch\n"
        "def cache(name, emb, labels):\n"
        "    out = {'emb': emb.cpu().numpy(), 'labels': labels.to('cpu'), 'n': len(labels)}\n"
        "    torch.save(out, f'./cache/{name}_embedding.pt')\n"
        "def read(name):\n"
        "    return torch.load(f'./cache/{name}_embedding.pt')\n"
    ),
    "same-expression-saved-from-the-cpu": (
        "import os, torch\n"
        "def embed(model, x, path):\n"
        "    if os.path.exists(path):\n"
        "        return torch.load(path)\n"
        "    out = model(x).cpu()\n"
        "    torch.save(out, path)\n"
        "    return out\n"
    ),
}

FLAGGED = {
    "resume-flag-only": (
        "import torch\n"
        "def main(args, model):\n"
        "    if args.resume:\n"
        "        model.load_state_dict(torch.load(args.resume))\n"
    ),
    "other-arm-loads-another-file": (
        "import torch\n"
        "def main(args):\n"
        "    if args.resume:\n"
        "        return torch.load(args.resume)\n"
        "    else:\n"
        "        return torch.load(args.pretrained, map_location='cpu')\n"
    ),
    "the-arm-without-a-gpu": (
        "import torch\n"
        "def restore(path):\n"
        "    if not torch.cuda.is_available():\n"
        "        return torch.load(path)\n"
    ),
    "availability-or-a-flag": (
        "import torch\n"
        "def restore(path, force):\n"
        "    if torch.cuda.is_available() or force:\n"
        "        return torch.load(path)\n"
    ),
    "flag-rebound": (
        "import torch\n"
        "def restore(path, args):\n"
        "    use_cuda = torch.cuda.is_available()\n"
        "    use_cuda = args.cuda\n"
        "    if use_cuda:\n"
        "        return torch.load(path)\n"
    ),
    "other-arm-maps-to-a-gpu": (
        "import torch\n"
        "def restore(path, args):\n"
        "    if args.multi:\n"
        "        return torch.load(path)\n"
        "    else:\n"
        "        return torch.load(path, map_location='cuda:0')\n"
    ),
    "cache-also-written-from-a-model": (
        "import os, torch\n"
        "def get(model, cache):\n"
        "    if os.path.isfile(cache):\n"
        "        return torch.load(cache)\n"
        "    torch.save([1, 2], cache)\n"
        "    torch.save(model.state_dict(), cache)\n"
    ),
    "cache-path-rebound-between": (
        "import os, torch\n"
        "def get(cache, other):\n"
        "    if os.path.isfile(cache):\n"
        "        return torch.load(cache)\n"
        "    cache = other\n"
        "    torch.save([1, 2], cache)\n"
    ),
    "cache-of-an-unknown-value": (
        "import os, torch\n"
        "def get(data, cache):\n"
        "    if os.path.isfile(cache):\n"
        "        return torch.load(cache)\n"
        "    torch.save(data, cache)\n"
    ),
    "file-name-also-saved-from-a-state-dict": (
        "import torch\n"
        "def save_meta(step):\n"
        "    torch.save({'step': 1}, 'meta.pt')\n"
        "def save_model(model):\n"
        "    torch.save(model.state_dict(), 'meta.pt')\n"
        "def load():\n"
        "    return torch.load('meta.pt')\n"
    ),
    "helper-also-saves-a-state-dict": (
        "import torch\n"
        "def _dump(obj, path):\n"
        "    torch.save(obj, path)\n"
        "def record(model, root):\n"
        "    _dump({'epoch': 3}, root + '/state.bin')\n"
        "    _dump(model.state_dict(), root + '/state.bin')\n"
        "def resume(root):\n"
        "    return torch.load(root + '/state.bin')\n"
    ),
    "helper-saves-a-value-of-unknown-origin": (
        "import os, tempfile, torch\n"
        "class Store:\n"
        "    def __init__(self, root):\n"
        "        self.step_file = os.path.join(root, 'step')\n"
        "    def write(self, step):\n"
        "        self._atomic(self.step_file, {'step': step})\n"
        "    def read(self):\n"
        "        return torch.load(self.step_file)\n"
        "    @staticmethod\n"
        "    def _atomic(path, data):\n"
        "        tmp = tempfile.NamedTemporaryFile(delete=False)\n"
        "        torch.save(data, tmp)\n"
        "        os.replace(tmp.name, path)\n"
    ),
    "cache-of-an-unknown-call-result": (
        "import os, json, torch\n"
        "def get_data(tok, path, cache):\n"
        "    cache = cache + '_' + type(tok).__name__\n"
        "    if os.path.isfile(cache):\n"
        "        data = torch.load(cache)\n"
        "    else:\n"
        "        with open(path) as f:\n"
        "            data = [tok.encode(line) for line in json.load(f)]\n"
        "        torch.save(data, cache)\n"
        "    return data\n"
    ),
    "cache-of-built-objects": (
        "import os, torch\n"
        "def features(args, tokenizer):\n"
        "    cached = os.path.join(args.data_dir, 'cached_{}'.format(args.task))\n"
        "    if os.path.exists(cached):\n"
        "        return torch.load(cached)\n"
        "    pad = args.pad_id\n"
        "    feats = build_features(read_examples(args.data_dir), tokenizer, pad=pad)\n"
        "    torch.save(feats, cached)\n"
        "    return feats\n"
    ),
    "cpu-arm-of-a-test-that-admits-mps": (
        "import torch\n"
        "def restore(model, path):\n"
        "    if torch.cuda.is_available() or torch.backends.mps.is_available():\n"
        "        sd = torch.load(path)\n"
        "    else:\n"
        "        sd = torch.load(path, map_location=torch.device('cpu'))\n"
        "    model.load_state_dict(sd)\n"
    ),
    "cpu-arm-of-a-device-string-test": (
        "import torch\n"
        "def restore(path, device):\n"
        "    return torch.load(path) if device in ('cuda', 'mps:0') \\\n"
        "        else torch.load(path, map_location='cpu')\n"
    ),
    "timings-with-a-tensor-put-in": (
        "import os, time, torch\n"
        "class Tracker:\n"
        "    def __init__(self, root):\n"
        "        self.time_file = os.path.join(root, 'times')\n"
        "        self.times = {}\n"
        "    def tick(self, step, loss):\n"
        "        self.times[step] = loss\n"
        "        self._write(self.time_file, self.times)\n"
        "    def restore(self):\n"
        "        self.times = torch.load(self.time_file)\n"
        "    def _write(self, path, data):\n"
        "        torch.save(data, path)\n"
    ),
    "device-compared-equal-to-mps": (
        "import torch\n"
        "def restore(path, device):\n"
        "    if device == torch.device('mps'):\n"
        "        return torch.load(path)\n"
    ),
    "arm-of-a-device-other-than-cuda": (
        "import torch\n"
        "def restore(path, device):\n"
        "    if device.type != 'cuda':\n"
        "        return torch.load(path)\n"
    ),
    "template-also-saved-from-a-state-dict": (
        "import torch\n"
        "def save(model, pred, run):\n"
        "    torch.save(pred.cpu(), 'best_run{}.pt'.format(run))\n"
        "    torch.save(model.state_dict(), 'best_run{}.pt'.format(run + 1))\n"
        "def load(run):\n"
        "    return torch.load('best_run{}.pt'.format(run))\n"
    ),
    "template-saved-from-a-parameter": (
        "import torch\n"
        "def save(pred, run):\n"
        "    torch.save(pred, f'best_run{run}.pt')\n"
        "def load(run):\n"
        "    return torch.load(f'best_run{run}.pt')\n"
    ),
    "template-naming-any-file": (
        "import torch\n"
        "def save(pred, a, b):\n"
        "    torch.save(pred.cpu(), f'{a}_{b}.pt')\n"
        "def load(c, d):\n"
        "    return torch.load(f'{c}_{d}.pt')\n"
    ),
    "cpu-list-filled-with-a-parameter": (
        "import torch\n"
        "def save(x, extra, run):\n"
        "    preds = [x.cpu()]\n"
        "    preds.append(extra)\n"
        "    torch.save(preds, f'preds_{run}.pt')\n"
        "def load(run):\n"
        "    return torch.load(f'preds_{run}.pt')\n"
    ),
    "moved-back-after-the-cpu": (
        "import torch\n"
        "def save(x, run):\n"
        "    torch.save(x.cpu().cuda(), f'preds_{run}.pt')\n"
        "def load(run):\n"
        "    return torch.load(f'preds_{run}.pt')\n"
    ),
}


@pytest.mark.parametrize("case", sorted(QUIET))
def test_quiet_where_the_load_cannot_meet_a_missing_device(case: str) -> None:
    assert lines(QUIET[case]) == []


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_fires_where_that_is_not_established(case: str) -> None:
    assert len(lines(FLAGGED[case])) == 1
