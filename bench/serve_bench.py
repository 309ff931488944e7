"""`bash bench/run serve`: pareval serve's cost per request on a 2,000-task stratified plan in 12 groups
(§9a): every outcome of two systems in plan order, one request each, then one decide."""

import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

binary = os.environ["PAREVAL_BIN"]
work = Path(tempfile.mkdtemp(prefix="pareval-serve-bench-"))
n = 2000
with (work / "tasks.csv").open("w") as f:
    f.write("task,group\n")
    for i in range(n):
        f.write(f"t{i:04d},g{i % 12}\n")
plan = work / "plan.csv"
subprocess.run([binary, "plan", str(work / "tasks.csv"), "--seed", "1", "--out", str(plan)], check=True, capture_output=True)
order = [row["task"] for row in csv.DictReader(plan.open())]
rng = random.Random(1)
lines = []
for task in order:
    for system in ("A", "B"):
        lines.append(json.dumps({"op": "outcome", "system": system, "task": task, "run": 0, "outcome": int(rng.random() < 0.5)}))
lines.append('{"op":"decide"}')
started = time.monotonic()
done = subprocess.run(
    [binary, "serve", "--plan", str(plan), "--tested", "A", "--baseline", "B"],
    input=("\n".join(lines) + "\n").encode(),
    capture_output=True,
)
seconds = time.monotonic() - started
replies = done.stdout.splitlines()
if done.returncode != 0 or len(replies) != len(lines):
    sys.exit(f"serve failed: {done.stderr.decode()[:500]}")
print(f"pareval serve: {len(lines)} requests ({n} planned tasks, 2 systems, §9a) in {seconds:.2f} s, "
      f"{1000 * seconds / len(lines):.3f} ms per request (target ≤ 1 ms)")
