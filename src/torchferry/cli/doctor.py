"""``ferry doctor``: why ``torch.cuda.is_available()`` agrees or disagrees with the hardware.

The facts and the problems come from :mod:`torchferry.doctor`; this module only
parses and prints.
"""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="explain why torch.cuda.is_available() agrees or disagrees with the hardware",
        description=(
            "Report Python, torch and its build, the accelerators torch sees, the NVIDIA "
            "driver, CUDA_VISIBLE_DEVICES and MPS; diagnose mismatches with their fixes. "
            "Exit 0 when nothing is wrong, 1 when a problem was found."
        ),
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from torchferry.doctor import examine, format_report

    report = examine()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_report(report))
    return 1 if report["problems"] else 0
