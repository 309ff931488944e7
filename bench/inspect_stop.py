"""A real Inspect AI evaluation stopped by pareval (`bash bench/run inspect-stop`).

Two stand-in models of known strength (integrations/inspect/tests/stand_in.py: right on a fixed share
of samples by a hash of the sample id, wrong answers slower than right ones) run one task of N
samples in G groups, 16 samples at a time each, on a stratified plan drawn by `pareval plan`; the
integration in this checkout (integrations/inspect/src) attaches pareval's early stopping. Prints one
JSON line: planned, started, scored, skipped, stopped_at (the plan tasks read when pareval first
replied decided), decided_at (the look that made the decision, which may come before: a reply can read
several tasks at once), action and the tested model's log.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "integrations/inspect/src"), str(ROOT / "integrations/inspect/tests")]

from inspect_ai import Task, eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.scorer import match  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

import stand_in  # noqa: E402,F401  (registers the pareval_test model API)
from pareval_inspect import ParevalController, pareval_tasks  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--tested", default="pareval_test/p70")
    parser.add_argument("--baseline", default="pareval_test/p50")
    parser.add_argument("--max-samples", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    binary = os.environ["PAREVAL_BIN"]
    work = Path(tempfile.mkdtemp(prefix="pareval-inspect-stop-"))

    ids = [f"q{k:03d}" for k in range(1, args.samples + 1)]
    with (work / "tasks.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["task", "group"])
        for k, sample_id in enumerate(ids):
            writer.writerow([sample_id, f"g{k % args.groups}"])
    plan = work / "plan.csv"
    subprocess.run(
        [binary, "plan", str(work / "tasks.csv"), "--seed", str(args.seed), "--out", str(plan)],
        check=True,
        capture_output=True,
    )
    samples = [
        Sample(id=i, input=f"What is the answer to question {i}?", target=f"answer-{i}") for i in ids
    ]
    task = Task(dataset=samples, solver=generate(), scorer=match(location="exact"), name="stop_demo")

    started = time.monotonic()
    with ParevalController(plan, tested=args.tested, baseline=args.baseline) as controller:
        logs = inspect_eval(
            pareval_tasks(task, [args.tested, args.baseline], controller),
            display="none",
            log_dir=str(work / "logs"),
            max_samples=args.max_samples,
        )
        reply = controller.decided_reply or controller.last_reply or {}
    seconds = time.monotonic() - started
    log = next(log for log in logs if log.eval.model == args.tested)
    summary = log.results.early_stopping if log.results else None
    meta = summary.metadata if summary else {}
    actions = reply.get("actions") or []
    print(
        json.dumps(
            {
                "planned": args.samples,
                "started": len(log.samples),
                "scored": meta.get("outcomes_sent"),
                "skipped": len(summary.early_stops) if summary else 0,
                "stopped_at": reply.get("usable") if reply.get("decided") else None,
                "decided_at": actions[0].get("decided_at") if actions else None,
                "action": actions[0]["action"] if actions else None,
                "seconds": round(seconds, 1),
                "max_samples": args.max_samples,
                "log": log.location,
            }
        )
    )


if __name__ == "__main__":
    main()
