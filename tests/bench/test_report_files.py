"""`ferry bench` writes its JSON, CSV and plot files the way torch.save writes a
checkpoint: atomically (a failure leaves the old file whole), through symlinks, and
never into a read-only file."""

from __future__ import annotations

import json
import os
import stat

import pytest

from torchferry.bench import report

DOC = {"dtype": "float32", "records": [{"size": 64, "device": "cpu", "seconds": 0.5}]}


class _FailingFigure:
    """A figure whose ``savefig`` writes part of an image, then fails (a full disk)."""

    def savefig(self, fh, format):  # noqa: A002 - matplotlib's own parameter name
        fh.write(b"\x89PNG partial")
        raise OSError(28, "No space left on device")


def test_a_plot_that_fails_half_way_leaves_the_old_file_whole(tmp_path):
    target = tmp_path / "plot.png"
    target.write_bytes(b"old image")
    with pytest.raises(OSError, match="No space left"):
        report._save_figure(_FailingFigure(), target)
    assert target.read_bytes() == b"old image"
    assert os.listdir(tmp_path) == ["plot.png"]  # no temporary file left behind


def test_json_and_csv_replace_the_target_through_a_symlink(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    report.write_json(DOC, link)
    assert link.is_symlink() and json.loads(real.read_text())["dtype"] == "float32"
    csv_path = tmp_path / "m.csv"
    report.write_matmul_csv(DOC, csv_path)
    lines = csv_path.read_text().splitlines()
    assert lines[0].startswith("size,device,") and lines[0].endswith(",dtype")
    assert lines[1].startswith("64,cpu,") and lines[1].endswith(",float32")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only files")
def test_a_read_only_file_is_refused_like_open(tmp_path):
    target = tmp_path / "ro.json"
    target.write_text("keep")
    target.chmod(stat.S_IRUSR)
    with pytest.raises(PermissionError):
        report.write_json(DOC, target)
    assert target.read_text() == "keep"

