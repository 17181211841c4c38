"""FRY010 on a CPU factory's result indexed by a tensor computed from a parameter whose place
the function follows (it makes tensors there: ``points.new_zeros(n)``, ``device=x.device``)
and that no call of the run places: a CPU tensor indexed by an index on an accelerator fails
("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
wherever the parameter is there.  Only an index the code shows to have a dimension counts:
a 0-dimensional one reads as its number on any device."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source


def lines(source: str) -> list[int]:
    found = check_source(textwrap.dedent(source), "m.py", select=["FRY010"])
    return sorted(f.line for f in found if f.code == "FRY010")


def factory_line(source: str) -> int:
    return next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1) if "# here" in t)


FOUND = {
    "points_of_one_level": """\
        import torch

        def assign(points, gt_lvl):
            assigned = points.new_zeros((points.shape[0],), dtype=torch.long)
            points_lvl = torch.log2(points[:, 2]).int()
            lvl_idx = gt_lvl == points_lvl
            points_range = torch.arange(points.shape[0])  # here
            return assigned, points_range[lvl_idx]
        """,
    "mask_made_where_the_scores_are": """\
        import torch

        def keep(scores, n):
            mask = torch.zeros(scores.shape[0], dtype=torch.bool, device=scores.device)
            mask = mask | (scores[:, 0] > 0.5)
            ids = torch.arange(n)  # here
            return ids[~mask]
        """,
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_indexed_by_a_followed_parameter(name: str) -> None:
    source = FOUND[name]
    assert lines(source) == [factory_line(source)]


QUIET = {
    # a 0-dimensional index (``argmax`` of the whole tensor) reads as its number
    "zero_dimensional_index": """\
        import torch

        def pick(scores):
            best = scores.argmax()
            out = scores.new_zeros(3)
            table = torch.arange(10)
            return out, table[best]
        """,
    # the function never makes a tensor where the parameter is: its place is not followed
    "place_not_followed": """\
        import torch

        def assign(points, gt_lvl):
            lvl_idx = gt_lvl == points[:, 2]
            points_range = torch.arange(points.shape[0])
            return points_range[lvl_idx]
        """,
    # the one call of the run gives a CPU tensor
    "placed_by_its_calls": """\
        import torch

        def assign(points, gt_lvl):
            assigned = points.new_zeros((points.shape[0],))
            lvl_idx = gt_lvl == points[:, 2]
            return assigned, torch.arange(points.shape[0])[lvl_idx]

        def main():
            return assign(torch.rand(5, 3), 1.0)
        """,
    # moved to the factory's result's device first
    "index_moved_to_the_table": """\
        import torch

        def assign(points, gt_lvl):
            assigned = points.new_zeros((points.shape[0],))
            lvl_idx = gt_lvl == points[:, 2]
            points_range = torch.arange(points.shape[0])
            return assigned, points_range[lvl_idx.to(points_range.device)]
        """,
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert lines(QUIET[name]) == []
