"""`pareval-inspect`: run an Inspect task with pareval's early stopping attached, without editing it.

    pareval-inspect TASK_SPEC --model M [--model M2] --plan PLAN --tested NAME --baseline NAME
                    [--baseline-log FILE] [pareval serve options] [-- inspect eval options…]

The task is loaded from TASK_SPEC as `inspect eval` would (a file, file@name or registered name),
put in plan order, and run once per model, each model's run with its own early-stopping object on
one shared `pareval serve` process; all models run at once unless `-- --max-tasks N` says otherwise.
"""

from __future__ import annotations

import argparse
import csv
import inspect as pyinspect
import json
import os
import signal
import subprocess
import sys
from typing import Any, Sequence

from ._process import ParevalError, resolve_binary

__all__ = ["main", "parse_eval_args"]

# eval() arguments the wrapper sets itself (or that would break plan order)
_RESERVED = {
    "tasks": "the task is TASK_SPEC",
    "model": "give models with --model before --",
    "model_args": "use -M key=value",
    "model_base_url": None,  # handled: applied to each --model
    "task_args": "use -T key=value",
    "sample_shuffle": "pareval needs the samples in plan order",
}


def _value(text: str) -> Any:
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (int, float, bool, list, dict)) or value is None else text


def _as_inspect_cli(key: str, value: Any, text: str | None) -> Any:
    """An option as `inspect eval` reads it where its CLI does more than read a value, from the
    text as given (`text`; None for a flag): `--limit 10-20` is a range, `--sample-id a,b` and
    `--tags a,b` are lists of strings (eval() took "a,b" as one id, so nothing matched, and
    "10-20" ended in a traceback; read as YAML, `--sample-id 0042` became 34 and `--tags 1` the
    number 1). A YAML list (`--sample-id "[a, b]"`) is taken as written."""
    from inspect_ai._util.samples import parse_sample_id, parse_samples_limit

    if key not in ("limit", "sample_id", "tags") or text is None or isinstance(value, list):
        return value
    value = text
    if key == "limit":
        try:
            return parse_samples_limit(value)
        except ValueError as ex:
            raise UsageError(f"--limit {value!r}: {ex}") from None
    if key == "sample_id":
        return parse_sample_id(value)
    if key == "tags":
        return [tag.strip() for tag in value.split(",") if tag.strip()]
    return value


class UsageError(SystemExit):
    """A mistake on the command line: exit code 2, as argparse's own (1 says a model's log did
    not end in success); `main` prints the message."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message


def parse_eval_args(tokens: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Inspect eval options after `--` -> (eval() keyword arguments, task args, model args).

    `--name value`, `--name=value`, `--flag` (True), `--no-flag` (False), `-T k=v`, `-M k=v`;
    names are eval()'s parameters with dashes (`--max-samples 4`, `--log-dir logs`, `--epochs 2`).
    """
    from inspect_ai import eval as inspect_eval

    params = set(pyinspect.signature(inspect_eval).parameters)
    eval_kwargs: dict[str, Any] = {}
    task_args: dict[str, Any] = {}
    model_args: dict[str, Any] = {}
    i = 0
    tokens = list(tokens)
    while i < len(tokens):
        token = tokens[i]
        if token in ("-T", "-M"):
            if i + 1 >= len(tokens) or "=" not in tokens[i + 1]:
                raise UsageError(f"{token} needs key=value")
            key, _, text = tokens[i + 1].partition("=")
            (task_args if token == "-T" else model_args)[key] = _value(text)
            i += 2
            continue
        if not token.startswith("--"):
            raise UsageError(f"unexpected inspect eval argument {token!r}")
        name, eq, text = token[2:].partition("=")
        key = name.replace("-", "_")
        given: str | None = None
        if eq:
            given = text
            value: Any = _value(text)
            i += 1
        elif i + 1 < len(tokens) and not tokens[i + 1].startswith("--") and tokens[i + 1] not in ("-T", "-M"):
            given = tokens[i + 1]
            value = _value(given)
            i += 2
        elif key.startswith("no_") and key[3:] in params:
            key, value = key[3:], False
            i += 1
        else:
            value = True
            i += 1
        if key not in params:
            raise UsageError(f"inspect_ai.eval() has no option --{name}")
        if key in _RESERVED and _RESERVED[key] is not None:
            raise UsageError(f"--{name} cannot be passed through ({_RESERVED[key]})")
        eval_kwargs[key] = _as_inspect_cli(key, value, given)
    return eval_kwargs, task_args, model_args


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pareval-inspect",
        description="Run an Inspect task with pareval deciding when to stop (one `pareval serve` "
        "process for the eval; every model's run reports its outcomes to it).",
        epilog="Everything after `--` goes to inspect_ai.eval(): e.g. -- --log-dir logs "
        "--max-samples 4 --epochs 2 -T difficulty=hard -M api_key=...",
    )
    p.add_argument("task", metavar="TASK_SPEC", help="file.py, file.py@task or a registered task name")
    p.add_argument("--model", action="append", required=True, help="a model to run (repeat for several)")
    p.add_argument("--plan", required=True, help="the plan file (CSV: position, task, group)")
    p.add_argument("--tested", required=True, help="the tested system (an Inspect model name)")
    p.add_argument(
        "--baseline",
        action="append",
        required=True,
        help="the baseline system: another --model, or the eval.model of a --baseline-log "
        "(repeat or comma-separate for several)",
    )
    p.add_argument("--baseline-log", action="append", default=[], metavar="FILE",
                   help="completed records/log of a baseline (Inspect .eval/.json or any format pareval reads)")
    p.add_argument("--thresholds", metavar="PP,…")
    p.add_argument("--rule")
    p.add_argument("--tail", metavar="A")
    p.add_argument("--preset")
    p.add_argument("--reading", choices=["prefix", "finished"])
    p.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                   help="a further `pareval serve` argument, as it is (repeat)")
    p.add_argument("--scorer", help="the scorer whose value is the outcome (default: the first)")
    p.add_argument("--score-key", metavar="KEY",
                   help="a scorer whose value is a dict: the value under KEY (as pareval's --score-key)")
    p.add_argument("--score-scale", metavar="MIN:MAX",
                   help="map a scorer's range onto [0, 1] (as pareval's --score-scale)")
    p.add_argument("--system-name", action="append", default=[], metavar="MODEL=NAME",
                   help="the pareval system name of a model whose name differs")
    p.add_argument("--pareval-bin", help="the pareval executable (default: $PAREVAL_BIN, else pareval on PATH)")
    p.add_argument("--reply-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="how long to wait for any one reply of pareval (default 120)")
    return p


def _glue_serve_args(tokens: list[str]) -> list[str]:
    """`--serve-arg --budget` as `--serve-arg=--budget`, and `--thresholds -5,0` as
    `--thresholds=-5,0`: argparse takes a value that starts with a dash for an option of its own and
    refuses it, and every `pareval serve` option starts with one, as a non-inferiority margin does."""
    glued: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] in ("--serve-arg", "--thresholds") and i + 1 < len(tokens):
            glued.append(f"{tokens[i]}={tokens[i + 1]}")
            i += 2
        else:
            glued.append(tokens[i])
            i += 1
    return glued


def _unfollowed(args: argparse.Namespace, systems: dict[str, str]) -> list[str]:
    """What keeps the run from being compared: the tested system not among the models, a baseline
    neither a model nor (with --baseline-log) possibly in a log. pareval would wait for them for
    ever and the eval would run every sample."""
    from .controller import _names

    streamed = {systems.get(m, m) for m in args.model}
    problems = []
    if args.tested not in streamed:
        problems.append(f"the tested system {args.tested!r} is not a --model")
    if not args.baseline_log:
        missing = [b for b in _names(args.baseline) if b not in streamed]
        if missing:
            problems.append(
                f"baseline {', '.join(map(repr, missing))} is neither a --model nor given by --baseline-log"
            )
    if problems:
        named = ", ".join(sorted(streamed))
        problems.append(
            f"the models stream as: {named} (--system-name MODEL=NAME maps a model to another name)"
        )
    return problems


def _baselines_in_logs(args: argparse.Namespace, systems: dict[str, str]) -> tuple[list[str], list[str]]:
    """(problems, notes) of the baselines only a --baseline-log can give, read as pareval reads the
    logs (`pareval info`): one the logs do not hold would leave pareval waiting for ever; one they
    hold for fewer than the plan's tasks stops its pairs at the first planned task it lacks."""
    from .controller import _names

    streamed = {systems.get(m, m) for m in args.model}
    wanted = [b for b in _names(args.baseline) if b not in streamed]
    if not args.baseline_log or not wanted:
        return [], []
    binary = resolve_binary(args.pareval_bin)
    done = subprocess.run([binary, "info", *args.baseline_log, "--format", "json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return [], []  # `pareval serve` refuses the files with pareval's own message
    held = {s["system"]: s["tasks"] for s in json.loads(done.stdout).get("systems", [])}
    try:
        with open(args.plan, newline="", encoding="utf-8-sig") as f:
            planned = sum(1 for _ in csv.DictReader(f))
    except OSError:
        planned = 0
    problems = [
        f"baseline {b!r} is neither a --model nor in the --baseline-log files (they hold "
        f"{', '.join(map(repr, sorted(held))) or 'no system'})"
        for b in wanted
        if b not in held
    ]
    notes = [
        f"the --baseline-log files hold {held[b]} of the plan's {planned} tasks for {b!r}: its pairs "
        "wait at the first planned task it lacks, so they may not decide and the eval may run every sample"
        for b in wanted
        if b in held and held[b] < planned
    ]
    return problems, notes


# Set when SIGTERM arrived: it is handled as Ctrl-C (Inspect cancels the runs and writes their logs
# as cancelled), and the exit code is 143, a shell's for SIGTERM.
_terminated = False


def _interrupted_already() -> bool:
    """Whether the event loop's runner has taken a Ctrl-C (asyncio's `Runner` counts them in the
    SIGINT handler it installs while it runs)."""
    handler = signal.getsignal(signal.SIGINT)
    runner = getattr(getattr(handler, "func", None), "__self__", None)
    return bool(getattr(runner, "_interrupt_count", 0))


def _on_sigterm(signum: int, frame: Any) -> None:
    """`timeout`, a job scheduler or `kill` sends SIGTERM: it killed the wrapper at once (exit
    -15), Inspect's logs left `started` and no line said so. Taken as Ctrl-C instead, once: after
    a Ctrl-C or an earlier SIGTERM (`pareval run` sends SIGINT, then SIGTERM after its grace) it
    ends the process as it always did (a second interrupt could hang Inspect's cancellation)."""
    global _terminated
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _terminated or _interrupted_already():
        os.kill(os.getpid(), signal.SIGTERM)
        return
    _terminated = True
    os.kill(os.getpid(), signal.SIGINT)


def main(argv: Sequence[str] | None = None) -> int:
    """The command: exit 0, 1 (a model's log did not end in success), 2 (the run could not start),
    130 (interrupted) or 143 (terminated by SIGTERM)."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = _main(argv)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if _terminated and code == 130:
        print("pareval-inspect: ended by SIGTERM, taken as Ctrl-C", file=sys.stderr)
        return 143
    return code


def _main(argv: Sequence[str] | None) -> int:
    try:
        return _run(argv)
    except KeyboardInterrupt:
        # Ctrl-C while the task loads, or in Inspect's interactive display, reaches here (with
        # `--display none` Inspect returns instead, and `_run` says so): the same line, no traceback.
        print(
            "pareval-inspect: interrupted (Ctrl-C); the log folder holds what ran, if anything did",
            file=sys.stderr,
        )
        return 130


def _run(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ours, passthrough = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    args = _parser().parse_args(_glue_serve_args(ours))
    try:
        eval_kwargs, task_args, model_args = parse_eval_args(passthrough)
        systems: dict[str, str] = {}
        for item in args.system_name:
            model, eq, name = item.partition("=")
            if not eq:
                raise UsageError(f"--system-name needs MODEL=NAME, not {item!r}")
            systems[model] = name
    except UsageError as ex:
        print(f"pareval-inspect: {ex}", file=sys.stderr)
        return 2
    scale = None
    if args.score_scale is not None:
        low, colon, high = args.score_scale.partition(":")
        try:
            scale = (float(low), float(high))
        except ValueError:
            scale = None
        if not colon or scale is None or not scale[0] < scale[1]:
            print(f"pareval-inspect: --score-scale {args.score_scale!r} must be MIN:MAX with MIN < MAX "
                  "(e.g. 0:10)", file=sys.stderr)
            return 2
    problems = _unfollowed(args, systems)
    try:
        in_logs, notes = _baselines_in_logs(args, systems)
    except ParevalError as ex:
        print(f"pareval-inspect: {ex}", file=sys.stderr)
        return 2
    problems += in_logs
    if problems:
        print("pareval-inspect: " + "; ".join(problems), file=sys.stderr)
        return 2
    for note in notes:
        print(f"pareval-inspect: note: {note}", file=sys.stderr)

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from .controller import ParevalController
    from .early_stopping import score_reader
    from .ordering import pareval_tasks

    try:
        # The loader `inspect eval` uses (a file, file@name, registered or hf/ name); private in
        # Inspect, hence the guard. Loading first also registers model providers the file defines.
        from inspect_ai._eval.loader import load_tasks
    except ImportError as ex:  # pragma: no cover - depends on Inspect's internals
        print(f"pareval-inspect: this Inspect version has no task loader we know ({ex})", file=sys.stderr)
        return 2

    try:
        controller = ParevalController(
            args.plan,
            tested=args.tested,
            baseline=args.baseline,
            baseline_files=args.baseline_log,
            thresholds=args.thresholds,
            rule=args.rule,
            tail=args.tail,
            preset=args.preset,
            reading=args.reading,
            extra_args=args.serve_arg,
            binary=args.pareval_bin,
            systems=systems,
            scorer=args.scorer,
            timeout=args.reply_timeout,
            to_float=score_reader(args.score_key, scale)
            if args.score_key is not None or scale is not None
            else None,
        )
    except ParevalError as ex:
        print(f"pareval-inspect: {ex}", file=sys.stderr)
        return 2

    with controller:
        try:
            tasks = load_tasks([args.task], task_args)
            if len(tasks) != 1:
                print(
                    f"pareval-inspect: {args.task} holds {len(tasks)} tasks; name one (file.py@task): "
                    "one pareval process decides over one task's samples",
                    file=sys.stderr,
                )
                return 2
            base_url = eval_kwargs.pop("model_base_url", None)
            models = [get_model(m, base_url=base_url, **model_args) for m in args.model]
            run_tasks = pareval_tasks(tasks[0], models, controller)
        except ParevalError as ex:
            print(f"pareval-inspect: {ex}", file=sys.stderr)
            return 2
        except Exception as ex:  # a missing task file, an unknown provider, a task that fails to build
            print(f"pareval-inspect: cannot load {args.task} or its models: {type(ex).__name__}: {ex}",
                  file=sys.stderr)
            return 2
        eval_kwargs.setdefault("max_tasks", len(models))
        from inspect_ai._util.error import PrerequisiteError

        try:
            logs = inspect_eval(run_tasks, **eval_kwargs)
        except PrerequisiteError as ex:
            # Inspect's own refusal before any sample runs (sample ids 1 and "1" in one dataset):
            # it shows it on its display, and under --display none nothing said why (exit 1).
            print(f"pareval-inspect: inspect refused the eval: {ex}", file=sys.stderr)
            return 2

    ok = True
    for log in logs:
        line = f"{log.eval.model}: {log.status}"
        summary = log.results.early_stopping if log.results else None
        if summary is not None:
            meta = summary.metadata or {}
            line += f", {len(summary.early_stops)} sample(s) stopped early"
            errored = meta.get("samples_errored") or []
            if errored:
                line += f", {len(errored)} errored (sent as pareval reads the log: 0 without a score)"
            line += f"; pareval: {meta.get('summary')}"
        elif log.error is not None:
            line += f" ({log.error.message})"
        print(line)
        ok = ok and log.status == "success"
    if len(logs) < len(models):
        # Inspect's eval() returns no log for a run it was interrupted in (Ctrl-C with --display
        # none or plain): the logs in the log folder say how far each got.
        print(
            f"pareval-inspect: the eval was interrupted: {len(logs)} of {len(models)} model runs "
            "returned a log (the log folder holds what ran)",
            file=sys.stderr,
        )
        return 130
    return 0 if ok else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
