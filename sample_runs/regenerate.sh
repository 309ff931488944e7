#!/usr/bin/env bash
# Rebuilds the synthetic sample runs in this folder with `pareval simulate`. The records are synthetic
# (see README.md here and `pareval simulate --help` for the model); the same seeds give the same files.
set -euo pipefail
cd "$(dirname "$0")"
pareval() { cargo run --quiet --release -- "$@"; }

# Software-repair-like: 20 systems, 150 tasks in 12 repository groups, per-task cost.
pareval simulate --out swe_repair.csv --systems 20 --tasks 150 --groups 12 --group-style repo --cost --seed 11
# App-use-like: 12 systems, 120 tasks in 3 difficulty splits, scaffold/model/submitted attributes.
pareval simulate --out app_use.csv --systems 12 --tasks 120 --groups 3 --group-style difficulty --attributes --seed 12
# Customer-service-like: 10 systems, 100 tasks in 2 domains, per-task cost, some runs not attempted.
pareval simulate --out domains_cost.csv --systems 10 --tasks 100 --groups 2 --group-style domain --cost --missing 0.02 --seed 13
# Terminal-like: 8 systems, 60 tasks, 3 repeated runs with wall-clock seconds, no groups.
pareval simulate --out timed_runs.csv --systems 8 --tasks 60 --groups 0 --runs 3 --seconds --seed 14
# Four benchmarks in one file for proxy predictions: 14 systems, 60 tasks each, attributes for the protocols.
pareval simulate --out multi_bench.csv --systems 14 --tasks 60 --groups 3 --group-style split --benchmarks 4 --attributes --seed 15
