"""Shared fixtures: skip (with the reason) without inspect-ai or without a pareval that has `serve`."""

from __future__ import annotations

import csv
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Under CI=true nothing the tests need may be missing: a missing requirement fails instead of skipping.
IN_CI = os.environ.get("CI", "").lower() in ("true", "1")

if IN_CI:
    import inspect_ai  # noqa: F401  (fails the run when inspect-ai is missing)
else:
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install inspect-ai)")


def _missing(what: str) -> None:
    if IN_CI:
        pytest.fail(f"{what}, and under CI=true a missing requirement fails instead of skipping")
    pytest.skip(what)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the stand-in models and task (stand_in.py)


@pytest.fixture(scope="session")
def pareval_bin() -> str:
    """The real pareval binary ($PAREVAL_BIN, else `pareval` on PATH), with a `serve` subcommand."""
    candidate = os.environ.get("PAREVAL_BIN") or shutil.which("pareval")
    if not candidate:
        _missing("no pareval binary: set PAREVAL_BIN or put `pareval` on PATH (cargo build --release)")
    found = shutil.which(candidate)
    if found is None:
        _missing(f"PAREVAL_BIN={candidate} is not an executable")
    probe = subprocess.run([found, "serve", "--help"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0 or "--plan" not in probe.stdout:
        said = (probe.stderr or probe.stdout).strip()[:200]
        _missing(f"{found} has no `pareval serve`: {said or 'its serve --help names no --plan'}")
    os.environ["PAREVAL_BIN"] = found
    return found


def write_plan(path: Path, ids: list[str], seed: int | None = 1, group: str = "all") -> list[str]:
    """A plan CSV (position, task, group) of `ids`, shuffled with `seed` (None: as given)."""
    order = list(ids)
    if seed is not None:
        random.Random(seed).shuffle(order)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["position", "task", "group"])
        for position, task in enumerate(order, start=1):
            writer.writerow([position, task, group])
    return order


@pytest.fixture
def plan_factory(tmp_path: Path):
    def make(ids: list[str], seed: int | None = 1, name: str = "plan.csv") -> tuple[Path, list[str]]:
        path = tmp_path / name
        return path, write_plan(path, ids, seed)

    return make
