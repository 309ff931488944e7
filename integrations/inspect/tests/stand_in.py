"""Stand-in models and a stand-in task for the tests (also a task file for `pareval-inspect`).

Model `pareval_test/NAME` answers sample k correctly when a hash of the sample id falls below its
rate: `strong` 0.8, `weak` 0.4, `pNN` NN/100 (the same hash for every model, so a stronger model is
right wherever a weaker one is). A wrong answer takes longer (`slow`, default 0.03 s) than a right
one (`fast`, 0.005 s), as failing runs often do.
"""

from __future__ import annotations

import hashlib
import re

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.scorer import Score, Target, mean, match, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver

RATES = {"strong": 0.8, "weak": 0.4}


def rate(name: str) -> float:
    name = name.split("/")[-1]
    if name in RATES:
        return RATES[name]
    found = re.fullmatch(r"p(\d+)", name)
    if not found:
        raise ValueError(f"stand-in model {name!r}: use strong, weak or pNN")
    return int(found.group(1)) / 100


def draw(sample_id: str) -> float:
    """A fixed number in [0, 1) per sample id."""
    return int(hashlib.sha256(sample_id.encode()).hexdigest()[:8], 16) / 2**32


def correct(model: str, sample_id: str) -> bool:
    return draw(sample_id) < rate(model)


@modelapi(name="pareval_test")
def _pareval_test() -> type[ModelAPI]:
    return StandInModel


class StandInModel(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        fast: float = 0.005,
        slow: float = 0.03,
        **model_args: object,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.fast, self.slow = float(fast), float(slow)

    async def generate(self, input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:  # type: ignore[override]
        sample_id = re.search(r"question (\S+)\?", input[-1].text).group(1)  # type: ignore[union-attr]
        right = correct(self.model_name, sample_id)
        await anyio.sleep(self.fast if right else self.slow)
        return ModelOutput.from_content(
            model=self.model_name, content=f"answer-{sample_id}" if right else "no idea"
        )


def samples(n: int) -> list[Sample]:
    return [
        Sample(id=f"q{k:03d}", input=f"What is the answer to question q{k:03d}?", target=f"answer-q{k:03d}")
        for k in range(1, n + 1)
    ]


@task
def stand_in(n: int = 60) -> Task:
    return Task(dataset=samples(int(n)), solver=generate(), scorer=match(location="exact"), name="stand_in")


@solver
def fail_every(every: int):
    """Raises on the samples whose number is a multiple of `every` (an agent's harness failing)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if int(str(state.sample_id).lstrip("q")) % every == 0:
            raise RuntimeError(f"stand-in failure on {state.sample_id}")
        return state

    return solve


@task
def stand_in_erroring(n: int = 60, every: int = 7) -> Task:
    """The stand-in task whose samples numbered a multiple of `every` error instead of being scored."""
    return Task(
        dataset=samples(int(n)),
        solver=[fail_every(int(every)), generate()],
        scorer=match(location="exact"),
        name="stand_in_erroring",
    )


@scorer(metrics=[mean()])
def points():
    """10 points for the right answer, 0 otherwise: a scorer whose range is not [0, 1]."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=10 if state.output.completion == target.text else 0)

    return score


@task
def stand_in_points(n: int = 60) -> Task:
    """The stand-in task scored in points (0 or 10)."""
    return Task(dataset=samples(int(n)), solver=generate(), scorer=points(), name="stand_in_points")


@task
def stand_in_pareval(plan: str, tested: str, baseline: str, n: int = 60, rule: str = "anytime") -> Task:
    """The stand-in task with pareval attached inside the task file, as a user would write it."""
    from pareval_inspect import ParevalController, order_by_plan

    controller = ParevalController.shared(plan, tested=tested, baseline=baseline, rule=rule)
    return Task(
        dataset=order_by_plan(samples(int(n)), controller.plan()),
        solver=generate(),
        scorer=match(location="exact"),
        early_stopping=controller.early_stopping(),
        name="stand_in_pareval",
    )


@task
def stand_in_clashing_ids(n: int = 10) -> Task:
    """Sample ids 1 and "1" in one dataset, which Inspect refuses before any sample runs."""
    dataset = [Sample(id=k, input=f"What is the answer to question {k}?", target=f"answer-{k}") for k in range(1, n + 1)]
    dataset.append(Sample(id="1", input="What is the answer to question 1?", target="answer-1"))
    return Task(dataset=dataset, solver=generate(), scorer=match(location="exact"), name="stand_in_clashing_ids")
