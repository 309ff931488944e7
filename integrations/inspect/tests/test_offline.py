"""What needs no pareval process: plan ordering, score mapping, argument handling."""

from __future__ import annotations

import pytest
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import SampleScore, Score

import stand_in
from pareval_inspect import ParevalController, ParevalError, order_by_plan, score_reader, score_to_outcome
from pareval_inspect.cli import parse_eval_args


def scores(value, name="match"):
    return {name: SampleScore(score=Score(value=value), sample_id="x")}


def test_order_by_plan_dataset_and_task():
    task = stand_in.stand_in(n=5)
    plan = ["q003", "q001", "q005", "q004", "q002"]
    ordered = order_by_plan(task, plan)
    assert [s.id for s in ordered.dataset] == plan
    assert [s.id for s in task.dataset] == ["q001", "q002", "q003", "q004", "q005"]  # unchanged
    assert ordered is not task and ordered.name == task.name


def test_order_by_plan_gives_missing_ids_inspects_numbering_and_puts_unplanned_last():
    dataset = MemoryDataset([Sample(input="a"), Sample(input="b"), Sample(input="c", id="extra")])
    ordered = order_by_plan(dataset, ["2", "1", "not-in-dataset"])
    assert [s.id for s in ordered] == [2, 1, "extra"]
    assert [s.input for s in ordered] == ["b", "a", "c"]
    assert [s.id for s in dataset] == [None, None, "extra"]


def test_score_to_outcome_follows_inspect_value_to_float():
    assert score_to_outcome(scores("C")) == 1.0
    assert score_to_outcome(scores("I")) == 0.0
    assert score_to_outcome(scores("P")) == 0.5
    assert score_to_outcome(scores("N")) == 0.0
    assert score_to_outcome(scores(True)) == 1.0
    assert score_to_outcome(scores(0.25)) == 0.25
    assert score_to_outcome({}) is None
    assert score_to_outcome(scores("C"), scorer="other") is None
    two = {**scores("I", "first"), **scores("C", "second")}
    assert score_to_outcome(two) == 0.0
    assert score_to_outcome(two, scorer="second") == 1.0
    # The way out is named as a command-line user gives it, and as Python gives it.
    with pytest.raises(ParevalError, match="outside .*--score-scale MIN:MAX maps its range"):
        score_to_outcome(scores(7))
    with pytest.raises(ParevalError, match="dict .*--score-key KEY reads one of its values"):
        score_to_outcome(scores({"a": 1}))
    assert score_to_outcome(scores(7), to_float=lambda v: v / 10) == 0.7
    # Unscored (NaN): no outcome, as pareval's reader reads it (not attempted), not "outside [0, 1]".
    assert score_to_outcome(scores(float("nan"))) is None


def test_score_reader_reads_as_pareval_s_score_key_and_scale():
    """`--score-key` / `--score-scale` of pareval-inspect, read as pareval's Inspect reader reads
    them (a dict used to be refused even with a to_float that reads it)."""
    assert score_to_outcome(scores({"a": "C", "b": 0.2}), to_float=score_reader(key="b")) == 0.2
    assert score_to_outcome(scores({"a": "C", "b": 0.2}), to_float=score_reader(key="a")) == 1.0
    assert score_to_outcome(scores(7), to_float=score_reader(scale=(0, 10))) == 0.7
    assert score_to_outcome(scores({"x": 4}), to_float=score_reader("x", (2, 6))) == 0.5
    with pytest.raises(ParevalError, match="without 'c' \\(its keys: a, b\\)"):
        score_to_outcome(scores({"a": 1, "b": 0}), to_float=score_reader(key="c"))
    with pytest.raises(ParevalError, match="--score-key KEY picks one"):
        score_to_outcome(scores({"a": 1}), to_float=score_reader(scale=(0, 1)))
    with pytest.raises(ParevalError, match="outside \\[0, 1\\]"):
        score_to_outcome(scores(12), to_float=score_reader(scale=(0, 10)))
    with pytest.raises(ValueError):
        score_reader(scale=(1, 1))


def test_missing_binary_is_a_clear_error(tmp_path):
    with pytest.raises(ParevalError, match="not found"):
        ParevalController(tmp_path / "plan.csv", "a", "b", binary=str(tmp_path / "no-such-pareval"))


def test_eval_passthrough_arguments():
    kwargs, task_args, model_args = parse_eval_args(
        ["--log-dir", "logs", "--max-samples", "4", "--epochs=2", "--no-log-samples", "-T", "n=30", "-M", "fast=0.1"]
    )
    assert kwargs == {"log_dir": "logs", "max_samples": 4, "epochs": 2, "log_samples": False}
    assert task_args == {"n": 30} and model_args == {"fast": 0.1}
    with pytest.raises(SystemExit, match="sample_shuffle|plan order"):
        parse_eval_args(["--sample-shuffle"])
    with pytest.raises(SystemExit, match="no option"):
        parse_eval_args(["--frobnicate", "1"])


def test_eval_passthrough_values_are_read_as_inspect_eval_reads_them():
    # `inspect eval --sample-id a,b --limit 10-20` gives lists and ranges; eval() took the text as one
    # id (nothing matched) and "10-20" ended in a traceback.
    kwargs, _, _ = parse_eval_args(["--sample-id", "q1,q2, q3", "--limit", "11-30", "--tags=a,b"])
    assert kwargs == {"sample_id": ["q1", "q2", "q3"], "limit": (10, 30), "tags": ["a", "b"]}
    kwargs, _, _ = parse_eval_args(["--sample-id", "[q1, q2]", "--limit", "5"])
    assert kwargs == {"sample_id": ["q1", "q2"], "limit": 5}
    with pytest.raises(SystemExit, match="--limit '1-2-3'"):
        parse_eval_args(["--limit", "1-2-3"])
    # As text, not YAML: 0042 is no octal 34, 1.5 no float, a tag "1" no number.
    kwargs, _, _ = parse_eval_args(["--sample-id", "0042", "--tags", "1"])
    assert kwargs == {"sample_id": ["0042"], "tags": ["1"]}
    kwargs, _, _ = parse_eval_args(["--sample-id=1.5,7"])
    assert kwargs == {"sample_id": ["1.5", "7"]}


def test_a_usage_mistake_exits_2_with_its_message(capsys):
    # 1 says a model's log did not end in success; a mistake on the command line is 2, as
    # argparse's own, whether it is in the options after `--` or in --system-name.
    from pareval_inspect.cli import main

    ours = ["task.py", "--model", "m", "--plan", "plan.csv", "--tested", "m", "--baseline", "b"]
    assert main([*ours, "--", "--bogus-option", "3"]) == 2
    assert "pareval-inspect: inspect_ai.eval() has no option --bogus-option" in capsys.readouterr().err
    assert main([*ours, "--", "-T", "n"]) == 2
    assert "-T needs key=value" in capsys.readouterr().err
    assert main([*ours, "--system-name", "nameless", "--", "--max-samples", "2"]) == 2
    assert "--system-name needs MODEL=NAME, not 'nameless'" in capsys.readouterr().err


def test_a_binary_that_may_not_be_run_is_told_from_a_missing_one(tmp_path):
    from pareval_inspect._process import ParevalError, resolve_binary

    stub = tmp_path / "pareval"
    stub.write_text("#!/bin/sh\n")
    stub.chmod(0o644)
    with pytest.raises(ParevalError, match="is a file that may not be run: make it executable"):
        resolve_binary(str(stub))
    with pytest.raises(ParevalError, match="not found"):
        resolve_binary(str(tmp_path / "missing"))
