"""Inspect AI early stopping decided by pareval (`pareval serve`, JSON Lines over stdin/stdout).

    from pareval_inspect import ParevalController, pareval_tasks
    from inspect_ai import eval

    with ParevalController("plan.csv", tested="openai/gpt-4o", baseline="openai/gpt-4o-mini") as ctl:
        logs = eval(pareval_tasks(my_task(), ["openai/gpt-4o", "openai/gpt-4o-mini"], ctl),
                    max_tasks=2, max_samples=8)

Or without editing the task: `pareval-inspect TASK --model A --model B --plan plan.csv --tested A --baseline B`.
"""

from ._process import ParevalError, resolve_binary
from .controller import ParevalController
from .early_stopping import MANAGER_NAME, ParevalEarlyStopping, score_reader, score_to_outcome
from .ordering import order_by_plan, pareval_tasks

__all__ = [
    "MANAGER_NAME",
    "ParevalController",
    "ParevalEarlyStopping",
    "ParevalError",
    "order_by_plan",
    "pareval_tasks",
    "resolve_binary",
    "score_reader",
    "score_to_outcome",
]
