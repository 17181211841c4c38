r"""The pre-filter: which files no rule can report in, so they are skipped unparsed.

A rule reports a device mistake only where the file spells some of the analysis's
vocabulary: torch itself, a move (``.to(``, ``.cpu(``, ``cuda``), a device (``device``,
an accelerator's name), a read of a tensor to the host (``.numpy(``, ``.item(``,
``.tolist(``), or a library whose values the analysis knows (``transformers`` and its
``from_pretrained`` loaders, a tokenizer's ``return_tensors``, ``torchvision``, ``timm``,
Lightning, ...).  The words are derived from the analysis's own tables
(:mod:`torchferry.check.flow.vocab`, :mod:`~torchferry.check.flow.libfacts`,
:mod:`~torchferry.check.flow.modclass`), so a fact added there widens the filter too.
A file that spells none of them may still import a checked file of the run (a model
built by another file's factory) or be imported by one: the runner checks those as well.

>>> mentions(b"from transformers import CLIPModel\n")
True
>>> mentions(b"model = build().cuda()\n"), mentions(b"probs = out.numpy()\n")
(True, True)
>>> mentions(b"import json\nprint(json.dumps({'input': 1}))\n")  # "input" is no "npu"
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from torchferry.check.flow import libfacts, modclass, vocab

#: spelled anywhere, also inside a longer name (``pytorch_lightning``, ``target_device``)
_ANYWHERE = ("torch", "device")
#: methods that move a tensor or read it to the host, spelled as a call (``.to(``)
_CALLS = vocab.MOVE_NAMES | vocab.TO_NDARRAY | {"item", "tolist"}


def _roots(quals: Iterable[str]) -> set[str]:
    return {q.split(".", 1)[0] for q in quals}


def _words() -> frozenset[str]:
    """Whole words: the accelerators' names (``"mps"``, never ``jumps``), the top-level
    packages of the libraries the analysis knows, their loaders and keywords."""
    libraries = (_roots(modclass.PACKAGE_MODULES) | _roots(vocab.MODEL_BUILDERS)
                 | _roots(vocab.MODEL_ZOOS) | _roots(libfacts.LIGHTNING_MODULES)
                 | _roots(n for fact in libfacts.CALL_FACTS for n in fact.names)
                 | set(modclass.HF_MODEL_PACKAGES) | {"torchmetrics"})
    return frozenset(vocab.ACCEL_KINDS | libraries | vocab.PRETRAINED_LOADERS
                     | {vocab.TENSORS_ON_THE_CPU[0]})


def _pattern() -> str:
    anywhere = "|".join(sorted(_ANYWHERE))
    calls = "|".join(sorted(_CALLS))
    words = "|".join(sorted(w for w in _words() if not any(a in w for a in _ANYWHERE)))
    return rf"{anywhere}|\.(?:{calls})\(|\b(?:{words})\b"


#: the pre-filter's words, as a pattern of bytes and of text
WORDS = re.compile(_pattern().encode())
WORDS_TEXT = re.compile(_pattern())
#: the longest match: a file read in chunks keeps one byte more across a boundary (the
#: byte before a word says whether it begins there)
LONGEST = max(len(w) for w in (*_ANYWHERE, *_words(), *(f".{c}(" for c in _CALLS)))


def mentions(data: bytes, start: int = 0) -> bool:
    """Does ``data`` spell a word without which no rule has anything to report (from
    ``start`` on: the bytes before it only say whether a word begins there)?"""
    return WORDS.search(data, start) is not None
