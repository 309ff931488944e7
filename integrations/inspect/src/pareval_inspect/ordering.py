"""Plan order and per-model tasks.

Inspect starts a task's samples in dataset order (epoch by epoch: every sample of epoch 1, then of
epoch 2, …), as many at once as `max_samples` allows; `EarlyStopping.schedule_sample` can skip a
sample but cannot change the order. So the supported way to run in plan order is to put the dataset
in plan order before the eval: `order_by_plan`.
"""

from __future__ import annotations

from copy import copy
from typing import TYPE_CHECKING, Sequence, overload

from inspect_ai import Task, task_with
from inspect_ai.dataset import Dataset, MemoryDataset, Sample

if TYPE_CHECKING:
    from inspect_ai.model import Model

    from .controller import ParevalController

__all__ = ["order_by_plan", "pareval_tasks"]

@overload
def order_by_plan(task_or_dataset: Task, plan_ids: Sequence[str]) -> Task: ...
@overload
def order_by_plan(task_or_dataset: Dataset, plan_ids: Sequence[str]) -> Dataset: ...
@overload
def order_by_plan(task_or_dataset: Sequence[Sample], plan_ids: Sequence[str]) -> list[Sample]: ...


def order_by_plan(task_or_dataset, plan_ids):  # type: ignore[no-untyped-def]
    """The task (a shallow copy with a new dataset), dataset or sample list in plan order.

    Samples are matched to plan ids by `str(sample.id)`. Samples without an id get the id Inspect
    would give them (their 1-based position in the dataset as it was) before they move. Samples not
    in the plan go last, in their own order (`ParevalEarlyStopping.start_task` then refuses the run,
    naming them); plan ids with no sample are left for it to report too. The input is not changed.
    """
    if isinstance(task_or_dataset, Task):
        if task_or_dataset.sample_source is not None:
            raise ValueError(
                "the task's dataset is a SampleSource: Inspect does not support early stopping there"
            )
        ordered = copy(task_or_dataset)
        ordered.dataset = order_by_plan(task_or_dataset.dataset, plan_ids)
        return ordered

    position = {str(task): i for i, task in enumerate(plan_ids)}
    samples: list[Sample] = []
    for index, sample in enumerate(task_or_dataset):
        if sample.id is None:
            sample = sample.model_copy(update={"id": index + 1})
        samples.append(sample)
    keyed = sorted(
        enumerate(samples),
        key=lambda item: (position.get(str(item[1].id), len(position)), item[0]),
    )
    result = [sample for _, sample in keyed]
    if isinstance(task_or_dataset, Dataset):
        return MemoryDataset(
            samples=result,
            name=task_or_dataset.name,
            location=task_or_dataset.location,
            shuffled=task_or_dataset.shuffled,
        )
    return result


def pareval_tasks(
    task: Task,
    models: Sequence["str | Model"],
    controller: "ParevalController",
    *,
    order: bool = True,
) -> list[Task]:
    """One task per model, each bound to its model and with its own early-stopping object on the
    shared controller; in plan order unless `order=False`. Pass the list to `inspect_ai.eval`
    (without `model=`): each task runs on its own model, all at once by default."""
    base = order_by_plan(task, controller.plan()) if order else task
    return [
        task_with(copy(base), model=model, early_stopping=controller.early_stopping())
        for model in models
    ]
