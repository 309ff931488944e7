"""`ParevalEarlyStopping`: Inspect's `EarlyStopping` protocol, answered by pareval.

Inspect calls four hooks per task run (`inspect_ai/util/_early_stopping.py`): `start_task` with the
run's `EvalSpec` (which names the model), then `schedule_sample(id, epoch)` as each sample is about to
start and `complete_sample(id, epoch, scores)` as each one is scored, then `complete_task()`. Only
`start_task` names the model. One `eval()` over several models runs the *same* Task object (so the
same early-stopping object) for each model when it is given a Task instance; give each model's task
its own object (`pareval_tasks`, `ParevalController.early_stopping()`). A shared object still
works: `start_task` records its model in a context variable that Inspect's sample tasks inherit.
"""

from __future__ import annotations

import contextvars
import logging
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from inspect_ai.util import EarlyStop

from ._process import ParevalError

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample
    from inspect_ai.log import EvalSpec
    from inspect_ai.scorer import SampleScore

    from .controller import ParevalController

__all__ = ["ParevalEarlyStopping", "score_to_outcome", "MANAGER_NAME"]

logger = logging.getLogger(__name__)

MANAGER_NAME = "pareval"

# The model of the task run the current async context belongs to (set in start_task, which Inspect
# awaits in the task's own context before it spawns the sample runs, so they inherit it).
_CURRENT_MODEL: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "pareval_inspect_model", default=None
)


@dataclass
class _ModelRun:
    model: str
    system: str
    sample_ids: list[str]
    epochs: int
    sent: int = 0
    stopped: int = 0
    skipped_outcomes: list[str] = field(default_factory=list)


def score_to_outcome(
    scores: Mapping[str, "SampleScore"],
    scorer: str | None = None,
    to_float: Callable[[Any], float] | None = None,
) -> float | None:
    """The outcome in [0, 1] of one scored sample: `scorer`'s value (default: the first scorer)
    mapped by Inspect's own `value_to_float()` (C 1, P 0.5, I and N 0, numbers and booleans as they
    are). None when the sample carries no score of that scorer."""
    from inspect_ai.scorer import value_to_float

    if not scores:
        return None
    if scorer is None:
        name = next(iter(scores))
    elif scorer in scores:
        name = scorer
    else:
        return None
    value = scores[name].score.value
    if isinstance(value, (dict, list)):
        raise ParevalError(
            f"scorer {name!r} gives a {type(value).__name__} value ({value!r}), not one outcome; "
            "pass to_float= to reduce it to a number in [0, 1]"
        )
    outcome = float((to_float or value_to_float())(value))
    if not (math.isfinite(outcome) and 0.0 <= outcome <= 1.0):
        raise ParevalError(
            f"scorer {name!r} gives {value!r} -> {outcome}, outside [0, 1]; "
            "pass to_float= to map it onto [0, 1]"
        )
    return outcome


class ParevalEarlyStopping:
    """Inspect early stopping driven by a shared `ParevalController` (one pareval process)."""

    def __init__(self, controller: "ParevalController") -> None:
        self.controller = controller
        self._runs: dict[str, _ModelRun] = {}

    # -- which model a hook is for ---------------------------------------------------------------

    def _run(self) -> _ModelRun:
        model = _CURRENT_MODEL.get()
        if model is not None and model in self._runs:
            return self._runs[model]
        if len(self._runs) == 1:
            return next(iter(self._runs.values()))
        if not self._runs:
            raise ParevalError("an early-stopping hook was called before start_task")
        raise ParevalError(
            "this early-stopping object serves several models and the hook cannot tell which; "
            "give each model's task its own object (pareval_inspect.pareval_tasks)"
        )

    # -- EarlyStopping protocol ------------------------------------------------------------------

    async def start_task(self, task: "EvalSpec", samples: list["Sample"], epochs: int) -> str:
        controller = self.controller
        model = task.model
        system = controller.system_name(model)
        if system not in controller.streaming_systems:
            hint = (
                f" (Inspect calls this model {model!r}; map it with systems={{{model!r}: NAME}})"
                if system == model
                else ""
            )
            raise ParevalError(
                f"model {system!r} is neither the tested system ({controller.tested!r}) nor a "
                f"baseline ({', '.join(map(repr, controller.baselines))}){hint}"
            )
        if task.config.sample_shuffle:
            raise ParevalError(
                "the eval shuffles its samples (sample_shuffle); pareval needs them in plan order"
            )
        if task.config.log_samples is False:
            raise ParevalError(
                "samples are not logged (log_samples=False / --no-log-samples): Inspect then never "
                "asks the early-stopping hook before a sample, so nothing could be stopped"
            )

        ids = [str(sample.id) for sample in samples]
        plan = await controller.aplan()
        unplanned, missing = await controller.acheck(ids)
        if unplanned:
            raise ParevalError(
                f"{len(unplanned)} sample id(s) of task {task.task!r} are not in the plan "
                f"{controller.plan_file}: {_some(unplanned)}"
            )
        if missing:
            raise ParevalError(
                f"the plan {controller.plan_file} does not match task {task.task!r}'s dataset: "
                f"{len(missing)} planned task id(s) are not among its {len(ids)} samples: "
                f"{_some(missing)} (a --limit or --sample-id selection, or another dataset?)"
            )
        if ids != plan:
            message = (
                f"task {task.task!r} would run its samples out of plan order (first at "
                f"position {next(i for i, (a, b) in enumerate(zip(ids, plan)) if a != b) + 1}); "
                "Inspect runs samples in dataset order and early stopping can only skip, not "
                "reorder: reorder the dataset first with pareval_inspect.order_by_plan"
            )
            if controller.require_plan_order:
                raise ParevalError(message)
            logger.warning(message)

        self._runs[model] = _ModelRun(model=model, system=system, sample_ids=ids, epochs=epochs)
        _CURRENT_MODEL.set(model)
        return MANAGER_NAME

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:
        controller = self.controller
        if not controller.decided:
            return None
        run = self._run()
        run.stopped += 1
        reply = controller.decided_reply or {}
        return EarlyStop(
            id=id,
            epoch=epoch,
            reason=controller.reason,
            metadata={
                "actions": reply.get("actions"),
                "usable": reply.get("usable"),
                "finished": reply.get("finished"),
                "total": reply.get("total"),
            },
        )

    async def complete_sample(
        self, id: str | int, epoch: int, scores: dict[str, "SampleScore"]
    ) -> None:
        controller = self.controller
        run = self._run()
        outcome = score_to_outcome(scores, controller.scorer, controller.to_float)
        if outcome is None:
            # Nothing to report (no score of that scorer): pareval keeps waiting on this task.
            run.skipped_outcomes.append(f"{id}#{epoch}")
            logger.warning(
                "pareval: sample %s (epoch %s) of %s has no score%s; no outcome sent",
                id,
                epoch,
                run.model,
                f" from scorer {controller.scorer!r}" if controller.scorer else "",
            )
            return
        await controller.aoutcome(run.system, str(id), epoch - 1, outcome)
        run.sent += 1

    async def complete_task(self) -> dict[str, Any]:
        controller = self.controller
        run = self._run()
        reply = await controller.adecide()
        return {
            "system": run.system,
            "model": run.model,
            "decided": bool(reply.get("decided")),
            "summary": reply.get("summary"),
            "actions": reply.get("actions"),
            "usable": reply.get("usable"),
            "finished": reply.get("finished"),
            "total": reply.get("total"),
            "waiting_on": reply.get("waiting_on"),
            "records": reply.get("records"),
            "outcomes_sent": run.sent,
            "samples_stopped": run.stopped,
            "samples_without_outcome": run.skipped_outcomes,
            "pareval_command": controller.argv[1:],
        }


def _some(ids: list[str], most: int = 10) -> str:
    shown = ", ".join(ids[:most])
    return shown + (f", … ({len(ids) - most} more)" if len(ids) > most else "")
