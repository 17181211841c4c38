"""A finding's evidence (the steps that support it) reaches every output format intact."""

from __future__ import annotations

import json

from torchferry.check import cache, report
from torchferry.check.api import Edit, Evidence, Finding, Fix
from torchferry.check.notebook import from_cells, relocate
from torchferry.check.runner import Diagnostic

STEPS = (
    Evidence("`labels` comes from the batch here and is never moved", 3, 4),
    Evidence("`model` is moved to the device here", 1, 0, "model.py"),
)


def _diag(cell: int | None = None, evidence: tuple[Evidence, ...] = STEPS) -> Diagnostic:
    return Diagnostic(
        "train.py", "FRY013", "partial-batch-move", "labels left on the host", 5, 11, 5, 17,
        None, cell, "loss = crit(out, labels)", 0, evidence,
    )  # fmt: skip


def test_text_report_prints_each_step_as_a_note_under_the_finding() -> None:
    text = report.text_report([_diag()])
    lines = text.splitlines()
    assert lines[0] == "train.py:5:12: FRY013 labels left on the host"
    notes = [ln.strip() for ln in lines if "note:" in ln]
    assert notes == [
        "= note: train.py:3:5: `labels` comes from the batch here and is never moved",
        "= note: model.py:1:1: `model` is moved to the device here",
    ]


def test_json_report_lists_the_steps_with_paths_and_one_based_columns() -> None:
    (item,) = json.loads(report.json_report([_diag()]))
    assert item["evidence"] == [
        {"message": STEPS[0].message, "path": "train.py", "line": 3, "column": 5},
        {"message": STEPS[1].message, "path": "model.py", "line": 1, "column": 1},
    ]
    (bare,) = json.loads(report.json_report([_diag(evidence=())]))
    assert "evidence" not in bare


def test_sarif_has_related_locations_linked_from_the_message_and_one_code_flow(tmp_path) -> None:
    doc = json.loads(report.sarif_report([_diag()], root=str(tmp_path), enabled=["FRY013"]))
    (result,) = doc["runs"][0]["results"]
    assert result["message"]["text"].endswith("(evidence: [1](1), [2](2))")
    related = result["relatedLocations"]
    assert [r["id"] for r in related] == [1, 2]
    assert related[0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 5}
    assert related[1]["physicalLocation"]["artifactLocation"]["uri"].endswith("model.py")
    (flow,) = result["codeFlows"]
    steps = flow["threadFlows"][0]["locations"]
    assert [s["location"]["message"]["text"] for s in steps] == [
        STEPS[0].message, STEPS[1].message, "labels left on the host",
    ]  # fmt: skip
    assert steps[-1]["location"]["physicalLocation"] == result["locations"][0]["physicalLocation"]


def test_sarif_evidence_in_a_notebook_names_its_cell_in_the_message(tmp_path) -> None:
    d = _diag(cell=2, evidence=(Evidence("made here", 1, 0, None, 1),))
    doc = json.loads(report.sarif_report([d], root=str(tmp_path), enabled=["FRY013"]))
    (related,) = doc["runs"][0]["results"][0]["relatedLocations"]
    assert related["message"]["text"] == "cell 1, line 1, column 1: made here"
    assert related["physicalLocation"]["region"] == {"startLine": 1}


def test_github_annotation_carries_the_notes_as_escaped_lines() -> None:
    out = report.github_report([_diag()])
    assert out.count("\n") == 1  # one workflow command per finding
    assert "%0A  note: train.py:3:5: `labels` comes from the batch" in out
    assert "%0A  note: model.py:1:1: `model` is moved" in out


def test_evidence_survives_the_cache_round_trip() -> None:
    d = _diag(cell=1, evidence=(Evidence("made", 2, 3, None, 1), Evidence("moved", 4, 0, "m.py")))
    data = json.loads(json.dumps(d.to_json()))
    assert cache.valid_diagnostic(data)
    assert Diagnostic.from_json("train.py", data).evidence == d.evidence
    old = data[:10]  # a cache written before evidence existed still reads
    assert cache.valid_diagnostic(old)
    assert Diagnostic.from_json("train.py", old).evidence == ()
    data[10][0][1] = "2"
    assert not cache.valid_diagnostic(data)


def test_notebook_findings_count_their_evidence_lines_within_cells() -> None:
    nb = from_cells(["import torch\nx = torch.ones(2)", "y = x.numpy()"])
    f = Finding("FRY003", "m", 3, 4, 3, 13, None, (Evidence("`x` is made here", 2, 0),))
    cell, moved = relocate(nb, f)
    assert (cell, moved.line) == (2, 1)
    assert moved.evidence == (Evidence("`x` is made here", 2, 0, None, 1),)


def test_dropping_a_fix_that_would_not_parse_keeps_the_evidence() -> None:
    from torchferry.check.engine import _applicable

    broken = Fix((Edit(1, 0, 1, 1, "("),), True, "break it")
    f = Finding("FRY002", "m", 1, 0, 1, 1, broken, STEPS)
    (kept,) = _applicable("x = 1\n", "t.py", [f])
    assert kept.fix is None and kept.evidence == STEPS


def test_flow_findings_of_fry014_and_fry015_carry_their_chain() -> None:
    from torchferry.check.engine import check_source

    src = (
        "import torch\n"                                    # 1
        "import torch.nn as nn\n"                           # 2
        "class Net(nn.Module):\n"                           # 3
        "    def __init__(self):\n"                         # 4
        "        super().__init__()\n"                      # 5
        "        self.fc = nn.Linear(4, 2)\n"               # 6
        "    def forward(self, x):\n"                       # 7
        "        return self.head(self.fc(x))\n"            # 8
        "    def head(self, x):\n"                          # 9
        "        return nn.Linear(2, 2)(x)\n"               # 10
        "def train(model, loader):\n"                       # 11
        "    for data, target in loader:\n"                 # 12
        "        data = data.to('cuda')\n"                  # 13
        "        print(model(data), target)\n"              # 14
        "train(Net(), None)\n"                              # 15
        "class Runner:\n"                                   # 16
        "    def __init__(self):\n"                         # 17
        "        self.m = Net().cuda()\n"                   # 18
        "    def go(self):\n"                               # 19
        "        return self.m(torch.zeros(1, 4))\n"        # 20
    )  # fmt: skip
    found = {(f.code, f.line): f for f in check_source(src, "t.py", select=["FRY014", "FRY015"])}
    assert set(found) == {("FRY015", 10), ("FRY014", 14), ("FRY014", 20)}
    assert [e.line for e in found["FRY015", 10].evidence] == [8, 10]  # forward calls head
    assert [e.line for e in found["FRY014", 14].evidence] == [15, 13, 14]  # built, moved, met
    assert [e.line for e in found["FRY014", 20].evidence] == [18, 20, 20]  # moved, made, met
