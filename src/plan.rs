//! `pareval plan`: the order in which a harness should run the tasks of a live evaluation (issue 12).
//! The order is drawn by the replay's own order builder (`engine::orders`) on the task list seen as a
//! pair without outcomes, so a plan is exactly the kind of order the replay measured: `uniform`,
//! `stratified` (every prefix meets the coverage quotas of the groups), `neyman` (group shares ∝
//! n_g·σ_g, σ_g from a reference record, never below the quotas) or `cheap-first` (by cost, then
//! seconds; not a random sample, so the decisions it feeds are descriptive). Seeded: the same list,
//! settings and seed give the same plan.

use serde::Serialize;

use crate::data::task_list::TaskList;
use crate::dataset::Dataset;
use crate::engine::settings::OrderKind;
use crate::engine::walk::orders::build_order;
use crate::engine::walk::pair::PairData;

/// The orders a plan can be drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanOrder {
    Uniform,
    Stratified,
    Neyman,
    CheapFirst,
}

impl PlanOrder {
    pub const ALL: [PlanOrder; 4] = [
        PlanOrder::Uniform,
        PlanOrder::Stratified,
        PlanOrder::Neyman,
        PlanOrder::CheapFirst,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PlanOrder::Uniform => "uniform",
            PlanOrder::Stratified => "stratified",
            PlanOrder::Neyman => "neyman",
            PlanOrder::CheapFirst => "cheap-first",
        }
    }

    pub fn parse(text: &str) -> Result<Self, PlanError> {
        PlanOrder::ALL
            .into_iter()
            .find(|o| o.name() == text.trim())
            .ok_or_else(|| {
                PlanError(format!(
                    "--order: '{text}' is not one of {}",
                    PlanOrder::ALL.map(PlanOrder::name).join(", ")
                ))
            })
    }

    /// Whether the order is a random sample of the tasks (what the bootstrap and the anytime rule assume).
    pub fn is_random_sample(self) -> bool {
        !matches!(self, PlanOrder::CheapFirst)
    }
}

/// Why a plan cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(pub String);

/// One planned task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedTask {
    /// 1-based.
    pub position: usize,
    pub task: String,
    pub group: String,
    pub cost_usd: Option<f64>,
    pub seconds: Option<f64>,
}

/// A drawn plan and the settings it was drawn with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub source: String,
    pub order: PlanOrder,
    pub seed: u64,
    pub group_column: Option<String>,
    pub groups: Vec<(String, usize)>,
    /// Neyman's spread per group (label order), from the reference record.
    pub spreads: Option<Vec<f64>>,
    pub random_sample: bool,
    pub tasks: Vec<PlannedTask>,
}

/// Draws the plan. `reference` is required by `neyman` (its per-group spread of outcomes).
pub fn draw_plan(
    list: &TaskList,
    order: PlanOrder,
    seed: u64,
    reference: Option<&Dataset>,
) -> Result<Plan, PlanError> {
    if list.tasks.is_empty() {
        return Err(PlanError(format!("{}: the task list is empty", list.file)));
    }
    let spreads = match (order, reference) {
        (PlanOrder::Neyman, Some(reference)) => Some(group_spreads(list, reference)?),
        (PlanOrder::Neyman, None) => {
            return Err(PlanError(
                "--order neyman allocates by each group's spread of outcomes: give a completed record with --reference FILE".to_string(),
            ));
        }
        _ => None,
    };
    let cost_key = match order {
        PlanOrder::CheapFirst => list
            .cost
            .clone()
            .or_else(|| list.seconds.clone())
            .ok_or_else(|| {
                PlanError(format!(
                    "--order cheap-first needs a cost_usd or seconds column, and {} has neither",
                    list.file
                ))
            })?,
        _ => Vec::new(),
    };
    // The draw walks the tasks sorted by name (a stable sort), as the replay walks a pair's tasks: the
    // same tasks, seed and settings give the same plan whatever order the file lists them in.
    let mut by_name: Vec<usize> = (0..list.tasks.len()).collect();
    by_name.sort_by(|&x, &y| list.tasks[x].cmp(&list.tasks[y]));
    let label_of: Vec<u32> = by_name.iter().map(|&i| list.label_of[i]).collect();
    let cost_key = if cost_key.is_empty() {
        cost_key
    } else {
        by_name.iter().map(|&i| cost_key[i]).collect()
    };
    let pair = PairData::planned(&label_of, list.labels.len(), spreads.as_deref(), cost_key);
    let kind = match order {
        PlanOrder::Uniform => OrderKind::Uniform,
        PlanOrder::Stratified => OrderKind::Stratified,
        PlanOrder::Neyman => OrderKind::Neyman,
        PlanOrder::CheapFirst => OrderKind::Cost,
    };
    let mut drawn = Vec::with_capacity(list.tasks.len());
    build_order(kind, &pair, ("plan", ""), seed, 0, &mut drawn);
    let at =
        |values: &Option<Vec<f64>>, i: usize| values.as_ref().map(|v| v[i]).filter(|x| !x.is_nan());
    let tasks = drawn
        .iter()
        .enumerate()
        .map(|(position, &i)| {
            let i = by_name[i as usize];
            PlannedTask {
                position: position + 1,
                task: list.tasks[i].clone(),
                group: list.labels[list.label_of[i] as usize].clone(),
                cost_usd: at(&list.cost, i),
                seconds: at(&list.seconds, i),
            }
        })
        .collect();
    let mut sizes = vec![0usize; list.labels.len()];
    for &l in &list.label_of {
        sizes[l as usize] += 1;
    }
    Ok(Plan {
        source: list.file.clone(),
        order,
        seed,
        group_column: list.group_column.clone(),
        groups: list.labels.iter().cloned().zip(sizes).collect(),
        spreads,
        random_sample: order.is_random_sample(),
        tasks,
    })
}

/// Why a live plan's rows are not the draw they name, or None when they are (or name none that can
/// be drawn again: a `file` plan, neyman's, which needs its reference record, and cheap-first, which
/// is descriptive anyway). A uniform or stratified plan is drawn again from its own tasks, groups
/// and seed, as `pareval plan` drew it (the draw follows neither the file's row order nor anything
/// but those): SPEC §9a's guarantee rests on the stratified draw, §9's on the uniform one.
pub fn not_its_draw(plan: &crate::data::Plan) -> Option<String> {
    let order = match plan.order {
        OrderKind::Uniform => PlanOrder::Uniform,
        OrderKind::Stratified => PlanOrder::Stratified,
        _ => return None,
    };
    let Some(seed) = plan.seed else {
        return Some(format!(
            "the plan names the {} order but no seed to draw it from",
            order.name()
        ));
    };
    let list = TaskList {
        file: String::new(),
        sha256: String::new(),
        tasks: plan.tasks.clone(),
        group_column: plan.group_column.clone(),
        labels: plan.plan.labels.clone(),
        label_of: plan.plan.groups.clone(),
        cost: None,
        seconds: None,
        from_records: false,
    };
    let drawn = draw_plan(&list, order, seed, None).ok()?;
    let groups = match &plan.group_column {
        Some(column) => format!("groups in column '{column}'"),
        None => "one group (--group-col none)".to_string(),
    };
    let (position, (held, due)) = plan
        .tasks
        .iter()
        .zip(drawn.tasks.iter().map(|t| &t.task))
        .enumerate()
        .find(|(_, (held, due))| held != due)?;
    Some(format!(
        "the plan's rows are not the {} draw of seed {seed} from its {} tasks and {groups}: position {} holds '{held}' where the draw has '{due}'",
        order.name(),
        plan.tasks.len(),
        position + 1,
    ))
}

/// σ_g per label: the standard deviation of the reference record's outcomes (every system's
/// run-averaged outcome) on the group's tasks. A group none of whose tasks the reference has gets the
/// spread of all the reference's outcomes on the list's tasks.
fn group_spreads(list: &TaskList, reference: &Dataset) -> Result<Vec<f64>, PlanError> {
    let index: std::collections::HashMap<&str, usize> = reference
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let mut sums = vec![(0.0f64, 0.0f64, 0usize); list.labels.len()];
    let mut all = (0.0f64, 0.0f64, 0usize);
    for (task, &label) in list.tasks.iter().zip(&list.label_of) {
        let Some(&t) = index.get(task.as_str()) else {
            continue;
        };
        for s in 0..reference.n_systems() {
            if let Some(y) = reference.outcome(s, t) {
                for acc in [&mut sums[label as usize], &mut all] {
                    acc.0 += y;
                    acc.1 += y * y;
                    acc.2 += 1;
                }
            }
        }
    }
    if all.2 == 0 {
        return Err(PlanError(format!(
            "the reference record has no outcome on any task of {}",
            list.file
        )));
    }
    let sd = |(sum, sq, n): (f64, f64, usize)| {
        let n = n as f64;
        let mean = sum / n;
        (sq / n - mean * mean).max(0.0).sqrt()
    };
    Ok(sums
        .into_iter()
        .map(|acc| if acc.2 == 0 { sd(all) } else { sd(acc) })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(groups: &[&str], cost: Option<Vec<f64>>) -> TaskList {
        let mut labels: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        labels.sort();
        labels.dedup();
        TaskList {
            file: "tasks.csv".into(),
            sha256: String::new(),
            tasks: (0..groups.len()).map(|i| format!("t{i:02}")).collect(),
            group_column: Some("group".into()),
            label_of: groups
                .iter()
                .map(|g| labels.iter().position(|l| l == g).unwrap_or(0) as u32)
                .collect(),
            labels,
            cost,
            seconds: None,
            from_records: false,
        }
    }

    #[test]
    fn a_stratified_plan_meets_the_quotas_at_every_prefix_and_is_seeded() {
        // 6 tasks of group a, 3 of b, 1 of c.
        let groups = ["a", "a", "a", "a", "a", "a", "b", "b", "b", "c"];
        let tasks = list(&groups, None);
        let plan = draw_plan(&tasks, PlanOrder::Stratified, 7, None).expect("plan");
        assert_eq!(plan.tasks.len(), 10);
        let mut seen: Vec<&str> = plan.tasks.iter().map(|t| t.task.as_str()).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 10, "a permutation");
        // Every prefix meets the coverage quota of every group (the replay's own quota function).
        let sizes = [("a", 6), ("b", 3), ("c", 1)];
        for k in 1..=10u32 {
            let quotas: u32 = sizes
                .iter()
                .map(|&(_, n)| crate::engine::rules::coverage::quota(k, n, 10))
                .sum();
            if quotas > k {
                continue; // infeasible prefix: one task cannot cover three groups
            }
            for (g, n) in sizes {
                let have = plan.tasks[..k as usize]
                    .iter()
                    .filter(|t| t.group == g)
                    .count() as u32;
                let quota = crate::engine::rules::coverage::quota(k, n, 10);
                assert!(have >= quota, "group {g} at k = {k}: {have} < {quota}");
            }
        }
        assert_eq!(
            draw_plan(&tasks, PlanOrder::Stratified, 7, None),
            Ok(plan.clone())
        );
        let other = draw_plan(&tasks, PlanOrder::Uniform, 8, None).expect("plan");
        assert_ne!(other.tasks, plan.tasks);
    }

    #[test]
    fn the_plan_does_not_follow_the_order_the_file_lists_its_tasks_in() {
        let groups = ["a", "b", "a", "a", "c", "b", "a", "b", "a", "c", "a", "b"];
        let costs: Vec<f64> = (0..groups.len()).map(|i| (i % 4) as f64).collect();
        let forward = list(&groups, Some(costs));
        let mut backward = forward.clone();
        backward.tasks.reverse();
        backward.label_of.reverse();
        if let Some(cost) = backward.cost.as_mut() {
            cost.reverse();
        }
        for order in [
            PlanOrder::Uniform,
            PlanOrder::Stratified,
            PlanOrder::CheapFirst,
        ] {
            let a = draw_plan(&forward, order, 3, None).expect("plan");
            let b = draw_plan(&backward, order, 3, None).expect("plan");
            assert_eq!(a.tasks, b.tasks, "{order:?}");
        }
    }

    #[test]
    fn cheap_first_sorts_by_cost_and_neyman_needs_a_reference() {
        let tasks = list(&["a", "a", "b"], Some(vec![3.0, 1.0, 2.0]));
        let plan = draw_plan(&tasks, PlanOrder::CheapFirst, 0, None).expect("plan");
        let order: Vec<&str> = plan.tasks.iter().map(|t| t.task.as_str()).collect();
        assert_eq!(order, ["t01", "t02", "t00"]);
        assert!(!plan.random_sample);
        assert!(draw_plan(&tasks, PlanOrder::Neyman, 0, None).is_err());
        let no_cost = list(&["a"], None);
        assert!(draw_plan(&no_cost, PlanOrder::CheapFirst, 0, None).is_err());
    }
}
