r"""The pre-filter: which files no rule can report in, so they are skipped unparsed.

A device mistake is made with torch's values, which a file reaches by spelling torch, or
through a library whose values the analysis knows: ``transformers`` (its models'
``from_pretrained`` loaders, a tokenizer's ``return_tensors``), ``timm``, ``torchvision``,
Lightning, ``diffusers``...  So a file is checked when it spells ``torch`` or one of those
libraries' names as a word; the names are derived from the analysis's own tables
(:mod:`torchferry.check.flow.vocab`, :mod:`~torchferry.check.flow.libfacts`,
:mod:`~torchferry.check.flow.modclass`), so a library fact added there widens the filter
too.  A file that spells none of them may still import a checked file of the run (a model
built by another file's factory) or be imported by one: the runner checks those as well.

The words of torch's methods alone (``.numpy(``, ``.item(``, ``.to(``, ``cuda``,
``device``) do not make a file checked: in a file that names no such library nor imports
a checked file of the run, the analysis cannot know where such a value lives (a
``.numpy()`` of an object a framework outside the run hands over, already on the CPU).

>>> mentions(b"from transformers import CLIPModel\n")
True
>>> mentions(b"import timm\n"), mentions(b"m = M.from_pretrained(name)\n")
(True, True)
>>> mentions(b"from mmcv.runner import load_checkpoint\n")  # a checkpoint reader's library
True
>>> mentions(b"boxes = instances.pred_boxes.tensor.numpy()\n")  # only a method's name
False
>>> mentions(b"import json\nprint(json.dumps({'timmy': 1}))\n")  # "timm" inside a word
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from torchferry.check.flow import libfacts, modclass, vocab

#: spelled anywhere, also inside a longer name (``pytorch_lightning``, ``torchvision``)
_ANYWHERE = "torch"


def _roots(quals: Iterable[str]) -> set[str]:
    return {q.split(".", 1)[0] for q in quals}


def _words() -> frozenset[str]:
    """Whole words: the top-level packages of the libraries the analysis knows, their
    loaders and keywords (those that spell torch are found as torch)."""
    libraries = (_roots(modclass.PACKAGE_MODULES) | _roots(vocab.MODEL_BUILDERS)
                 | _roots(vocab.MODEL_ZOOS) | _roots(libfacts.LIGHTNING_MODULES)
                 | _roots(n for fact in libfacts.CALL_FACTS for n in fact.names)
                 | _roots(n for fact in libfacts.CHECKPOINT_LOADS for n in fact.names)
                 | _roots(libfacts.NUMPY_CONSUMER_CLASSES)
                 | set(modclass.HF_MODEL_PACKAGES) | {"torchmetrics"})
    words = libraries | vocab.PRETRAINED_LOADERS | {vocab.TENSORS_ON_THE_CPU[0]}
    return frozenset(w for w in words if _ANYWHERE not in w)


def _pattern() -> str:
    return rf"{_ANYWHERE}|\b(?:{'|'.join(sorted(_words()))})\b"


#: the pre-filter's words, as a pattern of bytes and of text
WORDS = re.compile(_pattern().encode())
WORDS_TEXT = re.compile(_pattern())
#: the longest match: a file read in chunks keeps one byte more across a boundary (the
#: byte before a word says whether it begins there)
LONGEST = max(len(w) for w in (_ANYWHERE, *_words()))


def mentions(data: bytes, start: int = 0) -> bool:
    """Does ``data`` spell a word without which no rule has anything to report (from
    ``start`` on: the bytes before it only say whether a word begins there)?"""
    return WORDS.search(data, start) is not None
