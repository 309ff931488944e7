//! `decide`: the live service contract of SPEC §9 for fixed-horizon policies. Given the planned task
//! list (which fixes N and the groups), the budget limit and the outcomes of two systems so far, write one
//! decision record per threshold: continue before the limit; promote, reject or abstain at it. A
//! fixed-horizon rule is valid only when read once, at its limit; the record says so.
//!
//! Which outcomes a decision reads is decided here once for every live reader ([`usable_tasks`],
//! SPEC §9c): by default the longest prefix of the plan that both systems have finished, so that the
//! sequence is the plan's order whatever the harness's concurrency and durations.

use crate::engine::rules::bootstrap::LatticeCounts;
use crate::engine::rules::coverage::{self, CoverageStatus};
use crate::engine::rules::sequence::Sequence;
use crate::engine::rules::{
    Action, Decision, Detail, LocalTails, Observed, Reason, RuleContext, Statistic,
};
use crate::engine::settings::{Fraction, Policy, Threshold};
use crate::engine::streams::StreamKey;
use crate::engine::walk::family::adjust_decisions;
use crate::engine::walk::record::{
    DecisionRecord, FamilyVerdict, Provenance, RecordCase, RecordContext, WaitingOn,
};

/// The planned tasks of a live run and their groups.
#[derive(Debug, Clone, PartialEq)]
pub struct LivePlan {
    pub tasks: Vec<String>,
    /// Group label index of each planned task.
    pub groups: Vec<u32>,
    pub labels: Vec<String>,
}

/// The fixed inputs of a live decision.
#[derive(Debug, Clone)]
pub struct LiveSettings {
    pub policy: Policy,
    pub thresholds: Vec<Threshold>,
    pub seed: u64,
    pub budget: Fraction,
    pub reading: Reading,
}

/// Which finished outcomes a live decision reads (SPEC §9c).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reading {
    /// The longest prefix of the plan whose tasks both systems have finished; tasks finished after a
    /// gap wait. The fed sequence is then the plan's order whatever the harness's concurrency, and
    /// the rules' guarantees hold.
    #[default]
    PlanPrefix,
    /// Every task both systems have finished, in plan order with the gaps skipped. When durations
    /// depend on outcomes this is an outcome-dependent reordering: descriptive only.
    Finished,
}

impl Reading {
    pub fn name(self) -> &'static str {
        match self {
            Reading::PlanPrefix => "plan-prefix",
            Reading::Finished => "finished",
        }
    }

    /// `prefix` (or `plan-prefix`) or `finished`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "prefix" | "plan-prefix" => Ok(Reading::PlanPrefix),
            "finished" => Ok(Reading::Finished),
            other => Err(format!(
                "'{other}' is not a reading: prefix (the plan's finished prefix, valid) or finished (every finished task, descriptive)"
            )),
        }
    }
}

/// What one pair may read now: the planned tasks fed to its rule, how many both systems have
/// finished, and the first planned task that holds the prefix back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usable {
    /// Plan indices, in plan order.
    pub tasks: Vec<usize>,
    /// Planned tasks both systems have finished (≥ `tasks.len()`).
    pub finished: u32,
    /// The first planned task without an outcome for one of the two systems (None once every
    /// planned task has both).
    pub blocker: Option<Blocker>,
}

/// The first planned task a pair waits on, and which of its two systems lack it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocker {
    pub task: usize,
    pub tested: bool,
    pub baseline: bool,
}

/// The one place that turns a pair's outcomes so far (`tested[i]`, `baseline[i]` of planned task i)
/// into what its rule reads (SPEC §9c). Every live reader calls it; none feeds a sequence of its own.
pub fn usable_tasks(tested: &[Option<f64>], baseline: &[Option<f64>], reading: Reading) -> Usable {
    let both = |i: usize| tested[i].is_some() && baseline[i].is_some();
    let planned = tested.len().min(baseline.len());
    let prefix = (0..planned).find(|&i| !both(i)).unwrap_or(planned);
    let blocker = (prefix < planned).then(|| Blocker {
        task: prefix,
        tested: tested[prefix].is_none(),
        baseline: baseline[prefix].is_none(),
    });
    let finished_beyond = (prefix..planned).filter(|&i| both(i));
    let tasks: Vec<usize> = match reading {
        Reading::PlanPrefix => (0..prefix).collect(),
        Reading::Finished => (0..prefix).chain(finished_beyond.clone()).collect(),
    };
    Usable {
        finished: (prefix + finished_beyond.count()) as u32,
        tasks,
        blocker,
    }
}

/// One record per threshold. `tested[i]` and `baseline[i]` are the outcomes so far of planned task i.
pub fn decide_live(
    plan: &LivePlan,
    names: (&str, &str),
    tested: &[Option<f64>],
    baseline: &[Option<f64>],
    settings: &LiveSettings,
    provenance: &Provenance,
) -> Vec<DecisionRecord> {
    let mut cache = LiveCache::default();
    decide_live_cached(
        plan, names, tested, baseline, settings, provenance, &mut cache,
    )
}

/// [`decide_live`] for a run that is looked at again and again (`watch`): the pair's anytime
/// sequence is kept in `cache` between looks, so a look that only adds tasks costs what they cost.
pub fn decide_live_cached(
    plan: &LivePlan,
    names: (&str, &str),
    tested: &[Option<f64>],
    baseline: &[Option<f64>],
    settings: &LiveSettings,
    provenance: &Provenance,
    cache: &mut LiveCache,
) -> Vec<DecisionRecord> {
    let case = live_case(plan, names, tested, baseline, settings, 1, cache);
    live_records(plan, names, &case, None, settings, provenance)
}

/// A pair's anytime sequence kept between the looks of a live run: the planned tasks it has read (in
/// plan order, with their differences), the lattice and family size it was built for, and its state.
/// A look whose jointly observed tasks extend those (same tasks, same values, same lattice) feeds
/// only the new ones; anything else (a task earlier in the plan arriving late, an outcome read again
/// with another value, a new lattice) starts again from the first task. Either way the state is the
/// one a walk from scratch gives, bit for bit (tested), so `watch` and `decide` agree.
#[derive(Debug, Clone, Default)]
pub struct LiveCache {
    fed: Vec<(usize, u64)>,
    built_for: Option<(Option<u32>, usize)>,
    sequence: Option<Sequence>,
    /// Per threshold, the first count of `fed` at which the rule's action was final (the anytime
    /// verdict final and the coverage gate open there), as a sequential monitor keeps it.
    first_final: Vec<Option<u32>>,
    /// Per threshold, the rule's decision at that first final look (its reason and statistic there).
    first_final_decision: Vec<Option<Decision>>,
    /// In a family read by plan prefix: per count of `fed`, a row of the rule's decisions per
    /// threshold as they stood at that count (its coverage gate, the full statistic), for the
    /// family's looks ([`advance_family_looks`]).
    history: Vec<Decision>,
    /// The family's looks adjusted so far, and per threshold this pair's first promote or reject of
    /// the family at one of them: the look, the adjusted decision and its part in the adjustment.
    family_looks: u32,
    family_kept: Vec<Option<FamilyKept>>,
}

/// A family's first adjusted promote or reject of one pair and threshold, at a family look.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FamilyKept {
    look: u32,
    decision: Decision,
    verdict: FamilyVerdict,
}

impl LiveCache {
    /// How many of `tasks` (with differences `values`) the kept sequence has read already, or None
    /// when it cannot be extended to them.
    fn reusable(
        &self,
        tasks: &[usize],
        values: &[f64],
        built_for: (Option<u32>, usize),
    ) -> Option<usize> {
        let fits = self.sequence.is_some()
            && self.built_for == Some(built_for)
            && self.fed.len() <= tasks.len()
            && self
                .fed
                .iter()
                .zip(tasks.iter().zip(values))
                .all(|(&(task, bits), (&i, v))| task == i && bits == v.to_bits());
        fits.then_some(self.fed.len())
    }
}

/// A tested system against several baselines at once (SPEC §9b, family `tested`): each baseline's
/// decisions, adjusted together per threshold with `settings.policy.adjust` at the tail cutoff; the
/// records carry the family's size and the evidence each adjustment read. One record per (baseline,
/// threshold), baseline by baseline.
pub fn decide_live_family(
    plan: &LivePlan,
    tested_name: &str,
    tested: &[Option<f64>],
    baselines: &[(&str, Vec<Option<f64>>)],
    settings: &LiveSettings,
    provenance: &Provenance,
) -> Vec<DecisionRecord> {
    let mut caches = vec![LiveCache::default(); baselines.len()];
    decide_live_family_cached(
        plan,
        tested_name,
        tested,
        baselines,
        settings,
        provenance,
        &mut caches,
    )
}

/// [`decide_live_family`] with one [`LiveCache`] per baseline (in `baselines`' order).
pub fn decide_live_family_cached(
    plan: &LivePlan,
    tested_name: &str,
    tested: &[Option<f64>],
    baselines: &[(&str, Vec<Option<f64>>)],
    settings: &LiveSettings,
    provenance: &Provenance,
    caches: &mut [LiveCache],
) -> Vec<DecisionRecord> {
    let mut cases: Vec<LiveCase> = baselines
        .iter()
        .zip(caches.iter_mut())
        .map(|((name, outcomes), cache)| {
            live_case(
                plan,
                (tested_name, name),
                tested,
                outcomes,
                settings,
                baselines.len(),
                cache,
            )
        })
        .collect();
    let keeps = keeps_family_looks(settings, baselines.len());
    if keeps {
        advance_family_looks(caches, settings);
    }
    // Per baseline and threshold: its part in the adjustment (None where nothing was adjusted).
    let mut verdicts: Vec<Vec<Option<FamilyVerdict>>> =
        vec![vec![None; settings.thresholds.len()]; cases.len()];
    let a = settings.policy.tail.value();
    for (t, &threshold) in settings.thresholds.iter().enumerate() {
        let decisions: Vec<Decision> = cases.iter().map(|c| c.decisions[t]).collect();
        // Before a fixed-horizon limit nothing is decided, so there is nothing to adjust.
        if decisions.iter().all(|d| d.reason == Reason::BeforeLimit) {
            continue;
        }
        let adjusted = adjust_decisions(settings.policy.adjust, a, &decisions, threshold);
        for (i, (mut decision, mut verdict)) in adjusted.into_iter().enumerate() {
            // The family's decision at the current look (each pair as far as it has read), unless
            // a family look made one first: that one stands, as the replay's sequential monitor
            // keeps the first adjusted decision, and names its look. Without family looks (a
            // fixed-horizon rule, or every finished task read) the decision is the current look's.
            let kept = keeps.then(|| caches[i].family_kept[t]).flatten();
            let mut decided_at = None;
            let mut at_decision = None;
            if let Some(kept) = kept {
                if !decision.action.is_final() {
                    decision = Decision {
                        action: kept.decision.action,
                        reason: kept.decision.reason,
                        ..decision
                    };
                    verdict = kept.verdict;
                }
                if decision.action == kept.decision.action {
                    decided_at = Some(kept.look);
                    at_decision = Some((kept.decision, Some(kept.verdict)));
                }
            }
            let case = &cases[i];
            if settings.policy.rule.is_anytime()
                && !decision.action.is_final()
                && !spent(settings, case.n, case.limit, case.total)
            {
                // Valid at any moment: without a decision yet the run goes on (to the budget).
                decision.action = Action::Continue;
            }
            cases[i].decisions[t] = decision;
            verdicts[i][t] = Some(verdict);
            cases[i].decided_at[t] = decided_at;
            cases[i].at_decision[t] = at_decision;
        }
    }
    cases
        .iter()
        .zip(baselines)
        .zip(&verdicts)
        .flat_map(|((case, (name, _)), verdicts)| {
            let family = Some(verdicts.as_slice());
            live_records(
                plan,
                (tested_name, name),
                case,
                family,
                settings,
                provenance,
            )
        })
        .collect()
}

/// Whether a live family keeps its first adjusted decisions from looks of its own: under an anytime
/// rule, with every pair reading the plan's finished prefix, so that at look j every pair has read
/// the plan's first j tasks (every finished task, read with gaps, gives the pairs no common look).
fn keeps_family_looks(settings: &LiveSettings, family_size: usize) -> bool {
    family_size > 1 && settings.policy.rule.is_anytime() && settings.reading == Reading::PlanPrefix
}

/// Adjusts the family at each look j that every pair has read since the last call (the pairs'
/// histories up to the shortest; under the plan-prefix reading each pair's j-th count is the plan's
/// first j tasks) and notes, per pair and threshold, the first look whose adjusted decision is
/// promote or reject. The notes are a function of the outcomes alone, so `watch` polling a run and
/// a single `decide` on it agree; a pair that started its sequence again (an outcome read again
/// with another value, a task earlier in the plan arriving late) has the family look again from
/// the first look.
fn advance_family_looks(caches: &mut [LiveCache], settings: &LiveSettings) {
    let thresholds = settings.thresholds.len();
    if thresholds == 0 || caches.is_empty() {
        return;
    }
    let done = caches.iter().map(|c| c.family_looks).min().unwrap_or(0);
    let restarted = caches
        .iter()
        .any(|c| c.family_looks != done || c.family_kept.len() != thresholds);
    if restarted {
        for cache in caches.iter_mut() {
            cache.family_looks = 0;
            cache.family_kept.clear();
            cache.family_kept.resize(thresholds, None);
        }
    }
    let done = if restarted { 0 } else { done };
    let common = caches
        .iter()
        .map(|c| (c.history.len() / thresholds) as u32)
        .min()
        .unwrap_or(0);
    let a = settings.policy.tail.value();
    let mut decisions = Vec::with_capacity(caches.len());
    for look in done + 1..=common {
        let row = (look as usize - 1) * thresholds;
        for (t, &threshold) in settings.thresholds.iter().enumerate() {
            decisions.clear();
            decisions.extend(caches.iter().map(|c| c.history[row + t]));
            let adjusted = adjust_decisions(settings.policy.adjust, a, &decisions, threshold);
            for (cache, (decision, verdict)) in caches.iter_mut().zip(adjusted) {
                let kept = &mut cache.family_kept[t];
                if kept.is_none() && decision.action.is_final() {
                    *kept = Some(FamilyKept {
                        look,
                        decision,
                        verdict,
                    });
                }
            }
        }
    }
    for cache in caches.iter_mut() {
        cache.family_looks = common.max(done);
    }
}

/// The decision of threshold `t` as the rule gives it at the state's look, under the coverage
/// status of that look: what [`RuleContext::decide`] gives an anytime rule with the full statistic,
/// as the current look and the replay's families read it. (The walk's kept values, upper bounds at
/// screened looks, would reject the same pairs, their p-values being exact wherever they are ≤ a,
/// but the evidence a kept decision shows would not be the one its look read.)
fn decision_at_look(state: &Sequence, t: usize, coverage: CoverageStatus, gate: bool) -> Decision {
    let (action, reason) = if gate && coverage != CoverageStatus::Ok {
        (Action::Abstain, Reason::Coverage)
    } else {
        state.verdict(t)
    };
    Decision {
        action,
        reason,
        coverage,
        estimate: state.estimate(),
        statistic: state.statistic(t),
    }
}

/// Whether an anytime pair has read its budget: a budget below the whole plan caps what the plan's
/// prefix reading reads (⌈b·N⌉ tasks), and an undecided test there abstains, as the run stops
/// spending on it. Reading every finished task (descriptive) has no such cap.
fn spent(settings: &LiveSettings, n: u32, limit: u32, total: u32) -> bool {
    settings.policy.rule.is_anytime()
        && settings.reading == Reading::PlanPrefix
        && limit < total
        && n >= limit
}

/// One pair's state in a live run: its decisions per threshold and the counts its records show.
struct LiveCase {
    decisions: Vec<Decision>,
    /// Per threshold, the observed count at which its final anytime decision was first made, and
    /// the rule's decision at that look.
    decided_at: Vec<Option<u32>>,
    at_decision: Vec<Option<(Decision, Option<FamilyVerdict>)>>,
    /// Per threshold, the completed decision when the observed outcomes settle it (an anytime
    /// rule's; the rule keeps its first decision, SPEC §9, so the two may differ).
    certain: Vec<Option<Action>>,
    n: u32,
    finished: u32,
    blocker: Option<Blocker>,
    /// The plan's first `limit` tasks were read of more that were usable (a budget below the plan).
    read_at_limit: bool,
    total: u32,
    limit: u32,
    counts: Vec<u32>,
    sizes: Vec<u32>,
    present: Vec<u32>,
}

fn live_case(
    plan: &LivePlan,
    names: (&str, &str),
    tested: &[Option<f64>],
    baseline: &[Option<f64>],
    settings: &LiveSettings,
    family_size: usize,
    cache: &mut LiveCache,
) -> LiveCase {
    let total = plan.tasks.len() as u32;
    let limit = settings.budget.tasks_of(total);
    let Usable {
        tasks: mut observed_tasks,
        finished,
        blocker,
    } = usable_tasks(tested, baseline, settings.reading);
    // A fixed-horizon rule is valid when read once, at its limit (SPEC §6). A plan-prefix reader that
    // has more than the limit's prefix reads that prefix only: the tasks a run stopped at the limit
    // would have had, so a read after the limit gives the decision made at it, and the record's
    // validity is what it says. (Every finished task, read out of plan order, is descriptive anyway.)
    // The anytime rule, valid at any look, stops there too when a budget below the whole plan is
    // given: the run's spend is capped, and at the limit an undecided pair abstains ([`spent`]).
    let read_at_limit =
        settings.reading == Reading::PlanPrefix && observed_tasks.len() > limit as usize;
    if read_at_limit {
        observed_tasks.truncate(limit as usize);
    }
    let values: Vec<f64> = observed_tasks
        .iter()
        .map(|&i| tested[i].unwrap_or(0.0) - baseline[i].unwrap_or(0.0))
        .collect();
    let outcomes: Vec<f64> = observed_tasks
        .iter()
        .flat_map(|&i| [tested[i].unwrap_or(0.0), baseline[i].unwrap_or(0.0)])
        .collect();
    let scale = crate::engine::walk::pair::lattice_of(&outcomes);

    // Local groups: every planned group, numbered by label.
    let mut present: Vec<u32> = plan.groups.clone();
    present.sort_unstable();
    present.dedup();
    let local_of = |label: u32| present.binary_search(&label).unwrap_or(0);
    let mut sizes = vec![0u32; present.len()];
    for &g in &plan.groups {
        sizes[local_of(g)] += 1;
    }
    let mut counts = vec![0u32; present.len()];
    for &i in &observed_tasks {
        counts[local_of(plan.groups[i])] += 1;
    }
    let n = observed_tasks.len() as u32;
    let mut observed = Observed {
        n,
        total,
        ..Observed::default()
    };
    match scale {
        Some(scale) => {
            let mut lattice = LatticeCounts {
                scale,
                counts: vec![0; (2 * scale + 1) as usize],
            };
            for &d in &values {
                let v = (d * f64::from(scale)).round() as i64;
                lattice.counts[(v + i64::from(scale)) as usize] += 1;
                observed.sum_units += v;
                observed.sum_sq_units += v * v;
            }
            observed.counts = Some(lattice);
        }
        None => {
            observed.sum = values.iter().sum();
            observed.sum_sq = values.iter().map(|d| d * d).sum();
        }
    }
    let quotas: Vec<u32> = sizes
        .iter()
        .map(|&size| coverage::quota_share(n, size, total, settings.policy.coverage_share.0))
        .collect();
    let status = coverage::status_from_quotas(n, &counts, &quotas);
    let rules = RuleContext::new(
        settings.policy,
        settings.thresholds.clone(),
        scale,
        settings.seed,
        n as usize,
    )
    .for_families(family_size);
    if let Some(construction) = settings.policy.construction() {
        // The anytime rule reads the outcomes in the plan's order, which is the order they were run in
        // when the harness follows the plan.
        let built_for = (scale, family_size);
        let (mut state, from) = match (
            cache.reusable(&observed_tasks, &values, built_for),
            cache.sequence.take(),
        ) {
            (Some(from), Some(state)) => (state, from),
            (_, spare) => {
                cache.fed.clear();
                cache.first_final.clear();
                cache.first_final.resize(settings.thresholds.len(), None);
                cache.first_final_decision.clear();
                cache
                    .first_final_decision
                    .resize(settings.thresholds.len(), None);
                cache.history.clear();
                cache.family_looks = 0;
                cache.family_kept.clear();
                cache.built_for = Some(built_for);
                let state =
                    Sequence::start(construction, &sizes, scale, &settings.thresholds, spare)
                        .live();
                (state, 0)
            }
        };
        let keeps_history = keeps_family_looks(settings, family_size);
        // Each group's count at the look being fed, for the coverage gate there.
        let mut counts_so_far = vec![0u32; present.len()];
        for &i in &observed_tasks[..from] {
            counts_so_far[local_of(plan.groups[i])] += 1;
        }
        for (&d, &i) in values.iter().zip(&observed_tasks).skip(from) {
            let group = local_of(plan.groups[i]);
            state.observe(d, group as u32, &rules.bets);
            cache.fed.push((i, d.to_bits()));
            counts_so_far[group] += 1;
            let count = cache.fed.len() as u32;
            note_first_finals(
                &state,
                count,
                &counts_so_far,
                &sizes,
                total,
                settings.policy,
                (&mut cache.first_final, &mut cache.first_final_decision),
            );
            if keeps_history {
                let coverage = coverage_at(count, &counts_so_far, &sizes, total, settings.policy);
                cache.history.extend(
                    (0..settings.thresholds.len()).map(|t| {
                        decision_at_look(&state, t, coverage, settings.policy.coverage_gate)
                    }),
                );
            }
        }
        observed.sequence = Some(state);
    }
    let mut decisions = Vec::new();
    if n < limit && !settings.policy.rule.is_anytime() {
        let estimate = observed.estimate(scale);
        decisions.extend(settings.thresholds.iter().map(|_| Decision {
            action: Action::Continue,
            reason: Reason::BeforeLimit,
            coverage: status,
            estimate,
            statistic: Statistic::None,
        }));
    } else {
        let key = || {
            StreamKey::new(settings.seed, "live")
                .str(names.0)
                .str(names.1)
                .u64(u64::from(n))
        };
        rules.decide(
            &observed,
            status,
            &values,
            key,
            Detail::Full,
            &mut LocalTails::default(),
            &mut decisions,
        );
        if settings.policy.rule.is_anytime() {
            // Sequential monitoring keeps a pair's first promote or reject (SPEC §9, as the replay
            // does): a gate that closes again later (under a uniform plan the counts drift below
            // the quotas and back) does not take it back. A family keeps its adjusted decisions
            // at its own looks ([`advance_family_looks`]).
            let held_back = |decisions: &[Decision]| {
                decisions
                    .iter()
                    .zip(&cache.first_final)
                    .any(|(decision, first)| first.is_some() && !decision.action.is_final())
            };
            if family_size == 1 && held_back(&decisions) {
                let mut gate_open = Vec::new();
                rules.decide(
                    &observed,
                    CoverageStatus::Ok,
                    &values,
                    key,
                    Detail::Full,
                    &mut LocalTails::default(),
                    &mut gate_open,
                );
                for ((decision, first), open) in
                    decisions.iter_mut().zip(&cache.first_final).zip(gate_open)
                {
                    if first.is_some() && !decision.action.is_final() && open.action.is_final() {
                        *decision = Decision {
                            coverage: decision.coverage,
                            ..open
                        };
                    }
                }
            }
            // Valid at any moment: without a decision yet the run goes on, until the budget is
            // spent, where the rule's own abstain stands.
            if !spent(settings, n, limit, total) {
                for decision in &mut decisions {
                    if !decision.action.is_final() {
                        decision.action = Action::Continue;
                    }
                }
            }
        }
    }
    // What the observed outcomes settle per threshold: a kept decision they settle the other way
    // (a false decision, seen because the run was read on past it) is said beside it.
    let certain = (0..decisions.len())
        .map(|t| observed.sequence.as_ref().and_then(|s| s.certain(t)))
        .collect();
    cache.sequence = observed.sequence.take();
    // Where the anytime rule's decision now standing was first made (None per-look and while open).
    let decided_at: Vec<Option<u32>> = decisions
        .iter()
        .enumerate()
        .map(|(t, decision)| {
            let sequential = settings.policy.rule.is_anytime() && decision.action.is_final();
            sequential
                .then(|| cache.first_final.get(t).copied().flatten())
                .flatten()
        })
        .collect();
    let at_decision = decided_at
        .iter()
        .enumerate()
        .map(|(t, at)| {
            at.and_then(|_| cache.first_final_decision.get(t).copied().flatten())
                .map(|decision| (decision, None))
        })
        .collect();
    LiveCase {
        decisions,
        decided_at,
        at_decision,
        certain,
        n,
        finished,
        blocker,
        read_at_limit,
        total,
        limit,
        counts,
        sizes,
        present,
    }
}

/// Records, for each threshold not yet noted, `count` as the first look at which the anytime rule's
/// action was final: its verdict final and, under the coverage gate, coverage ok at that look (the
/// quotas of that count, as [`live_case`] reads them at the current one), with the decision there.
fn note_first_finals(
    state: &Sequence,
    count: u32,
    counts: &[u32],
    sizes: &[u32],
    total: u32,
    policy: Policy,
    (first_final, decisions): (&mut [Option<u32>], &mut [Option<Decision>]),
) {
    let pending =
        |t: usize, noted: &[Option<u32>]| noted[t].is_none() && state.verdict(t).0.is_final();
    if !state.any_final() || !(0..first_final.len()).any(|t| pending(t, first_final)) {
        return;
    }
    if policy.coverage_gate
        && coverage_at(count, counts, sizes, total, policy) != CoverageStatus::Ok
    {
        return;
    }
    for t in 0..first_final.len() {
        if pending(t, first_final) {
            first_final[t] = Some(count);
            decisions[t] = Some(decision_at_look(
                state,
                t,
                CoverageStatus::Ok,
                policy.coverage_gate,
            ));
        }
    }
}

/// The coverage status at a look of `count` observed tasks with `counts` per group (the quotas of
/// that count, as [`live_case`] reads them at the current one).
fn coverage_at(
    count: u32,
    counts: &[u32],
    sizes: &[u32],
    total: u32,
    policy: Policy,
) -> CoverageStatus {
    let quotas: Vec<u32> = sizes
        .iter()
        .map(|&size| coverage::quota_share(count, size, total, policy.coverage_share.0))
        .collect();
    coverage::status_from_quotas(count, counts, &quotas)
}

/// The records of one pair's decisions (with its part in the family's adjustment, per threshold).
fn live_records(
    plan: &LivePlan,
    names: (&str, &str),
    case: &LiveCase,
    family: Option<&[Option<FamilyVerdict>]>,
    settings: &LiveSettings,
    provenance: &Provenance,
) -> Vec<DecisionRecord> {
    let LiveCase {
        n,
        finished,
        blocker,
        read_at_limit,
        total,
        limit,
        ref counts,
        ref sizes,
        ref present,
        ..
    } = *case;
    let context = RecordContext {
        policy: settings.policy,
        seed: settings.seed,
        measure: "tasks",
        provenance,
        group_labels: &plan.labels,
    };
    case.decisions
        .iter()
        .zip(&settings.thresholds)
        .enumerate()
        .map(|(t, (decision, &threshold))| {
            let mut record = context.record(&RecordCase {
                tested: names.0,
                baseline: names.1,
                threshold,
                order_index: None,
                budget: settings.budget.value(),
                observed: n,
                total,
                group_counts: counts,
                group_sizes: sizes,
                group_labels: present,
                decision: *decision,
                decided_at: case.decided_at[t],
                // A live record describes the current look; `reason_at_decision` gives the kept one's.
                decided_group_counts: None,
                family: family.and_then(|f| f.get(t).copied().flatten()),
                completed: None,
            });
            // The policy's order is the plan's own (its `order` column, else `file`), so the record's
            // order, construction and validity say what this run's guarantee rests on.
            if settings.policy.rule.is_anytime() {
                record.monitor = "sequential";
                record.looks = "every";
            } else {
                record.monitor = "per-look";
                record.validity = if settings.policy.order.is_random_sample() {
                    "valid when read once, at the budget limit"
                } else {
                    "descriptive (the plan's order is not a random sample)"
                };
            }
            if let Some(at) = case.decided_at[t]
                && decision.coverage != CoverageStatus::Ok
            {
                record.reason = format!(
                    "{}; kept from the look at {at} tasks, where coverage was ok (it is {} now)",
                    record.reason,
                    decision.coverage.name()
                );
            }
            // A decision made at an earlier look says why it was made there; the reason and
            // statistic above are the current look's (the tests go on reading after it).
            if let (Some(at), Some((then, family))) = (case.decided_at[t], case.at_decision[t])
                && at < n
            {
                use crate::engine::walk::record::{family_words, reason_text};
                let adjusted = family.map_or(String::new(), |f| family_words(&settings.policy, f));
                record.reason_at_decision =
                    Some(reason_text(&settings.policy, threshold, &then, &[]) + &adjusted);
            }
            // (Read past the limit, the reason below says so already.)
            if spent(settings, n, limit, total) && !decision.action.is_final() && !read_at_limit {
                record.reason = format!(
                    "no decision within the budget limit's {limit} of {total} planned tasks; {}",
                    record.reason
                );
            }
            if decision.reason == Reason::BeforeLimit {
                record.reason = format!(
                    "{} of {limit} tasks observed before the budget limit; {}",
                    n, record.reason
                );
            }
            if let Some(certain) = case.certain.get(t).copied().flatten()
                && record.action.is_final()
                && certain != record.action
            {
                record.reason = format!(
                    "{} (kept from the look at {}); the outcomes read now settle the completed decision as {}{}: the kept decision is a false {}",
                    record.action.name(),
                    record.made_at(),
                    certain.name(),
                    if n == total {
                        " (every planned task is read)"
                    } else {
                        " whatever the unseen tasks hold"
                    },
                    if record.action == Action::Promote {
                        "promotion"
                    } else {
                        "rejection"
                    },
                );
            }
            record.reading = Some(settings.reading.name());
            record.finished = Some(finished);
            record.waiting_on = blocker.map(|b| WaitingOn {
                task: plan.tasks[b.task].clone(),
                systems: [(b.tested, names.0), (b.baseline, names.1)]
                    .into_iter()
                    .filter(|&(lacks, _)| lacks)
                    .map(|(_, name)| name.to_string())
                    .collect(),
            });
            if settings.reading == Reading::PlanPrefix && limit < total && n >= limit {
                // The limit's prefix is read: nothing after it is waited on.
                record.waiting_on = None;
            }
            match settings.reading {
                // Nothing after the limit is read, so nothing there is waited on.
                Reading::PlanPrefix if read_at_limit => {
                    record.waiting_on = None;
                    record.reason = format!(
                        "read at the budget limit: the plan's first {n} tasks ({finished} finished; \
                         those after the limit are not read); {}",
                        record.reason
                    );
                }
                Reading::PlanPrefix if finished > n => {
                    if let Some(waiting) = &record.waiting_on {
                        record.reason = format!(
                            "{n} usable of {finished} finished ({}); {}",
                            waiting.describe(),
                            record.reason
                        );
                    }
                }
                Reading::PlanPrefix => {}
                Reading::Finished => {
                    record.validity = "descriptive (every finished task is read, not the plan's finished prefix: SPEC §9c)";
                }
            }
            record
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::{BootstrapMode, OrderKind, Rule};

    fn plan() -> LivePlan {
        LivePlan {
            tasks: (0..20).map(|i| format!("t{i}")).collect(),
            groups: (0..20).map(|i| u32::from(i >= 10)).collect(),
            labels: vec!["a".into(), "b".into()],
        }
    }

    fn settings(budget: u32) -> LiveSettings {
        LiveSettings {
            policy: Policy {
                order: OrderKind::Stratified,
                coverage_gate: true,
                rule: Rule::Bootstrap(BootstrapMode::Exact),
                tail: Fraction(500),
                degenerate: Default::default(),
                monitor: Default::default(),
                looks: Default::default(),
                family: Default::default(),
                adjust: Default::default(),
                coverage_share: Fraction::ONE,
            },
            thresholds: vec![Threshold(0)],
            seed: 0,
            budget: Fraction(budget),
            reading: Reading::PlanPrefix,
        }
    }

    /// [`decide_live`] for tested "A" against baseline "B", with no input files.
    fn decide_ab(
        plan: &LivePlan,
        tested: &[Option<f64>],
        baseline: &[Option<f64>],
        settings: &LiveSettings,
    ) -> Vec<DecisionRecord> {
        decide_live(
            plan,
            ("A", "B"),
            tested,
            baseline,
            settings,
            &Provenance::new(&[]),
        )
    }

    /// [`plan`] with its two groups alternating, so that any even prefix holds as many of each.
    fn alternating_plan() -> LivePlan {
        LivePlan {
            groups: (0..20).map(|i| i % 2).collect(),
            ..plan()
        }
    }

    #[test]
    fn continues_before_the_limit_and_decides_at_it() {
        // The groups alternate, so the plan's first 6 tasks hold 3 of each.
        let plan = alternating_plan();
        // Tested wins every observed task; the plan's first 6 tasks observed, 3 from each group.
        let mut tested = vec![None; 20];
        let mut baseline = vec![None; 20];
        for i in 0..6 {
            tested[i] = Some(1.0);
            baseline[i] = Some(0.0);
        }
        let early = decide_ab(&plan, &tested, &baseline, &settings(5000));
        assert_eq!(early[0].action, Action::Continue);
        assert_eq!(early[0].observed, 6);
        assert!(
            early[0]
                .reason
                .starts_with("6 of 10 tasks observed before the budget limit")
        );
        let at_limit = decide_ab(&plan, &tested, &baseline, &settings(3000));
        assert_eq!(
            at_limit[0].action,
            Action::Promote,
            "{}",
            at_limit[0].reason
        );
        assert_eq!(at_limit[0].order, "stratified");
        assert_eq!(at_limit[0].total, 20);
    }

    /// Outcomes on [`alternating_plan`]: the systems trade wins on its first 10 tasks (Δ̂ = 0
    /// there), and the tested system wins all 10 after them. Returns (tested, baseline).
    fn even_then_tested_ahead() -> (Vec<Option<f64>>, Vec<Option<f64>>) {
        let tested = (0..20)
            .map(|i| Some(if i >= 10 || i % 2 == 0 { 1.0 } else { 0.0 }))
            .collect();
        let baseline = (0..20)
            .map(|i| Some(if i < 10 && i % 2 == 1 { 1.0 } else { 0.0 }))
            .collect();
        (tested, baseline)
    }

    #[test]
    fn a_fixed_horizon_rule_read_after_its_limit_decides_on_the_limits_prefix() {
        let plan = alternating_plan();
        // The limit at budget 0.5 is the plan's first 10 tasks: there the two systems trade wins
        // (Δ̂ = 0); the tested system wins all 10 after it, which would promote on all 20.
        let (tested, baseline) = even_then_tested_ahead();
        let read_later = decide_ab(&plan, &tested, &baseline, &settings(5000));
        let mut stopped_at_limit = tested.clone();
        stopped_at_limit[10..].fill(None);
        let read_at_limit = decide_ab(&plan, &stopped_at_limit, &baseline, &settings(5000));
        let (later, at) = (&read_later[0], &read_at_limit[0]);
        assert_eq!(later.observed, 10);
        assert_eq!(later.finished, Some(20));
        assert_eq!(later.action, at.action, "{}", later.reason);
        assert_eq!(later.action, Action::Abstain, "{}", later.reason);
        assert_eq!(later.estimate, at.estimate);
        assert!(
            later.reason.starts_with(
                "read at the budget limit: the plan's first 10 tasks (20 finished; those after the limit are not read)"
            ),
            "{}",
            later.reason
        );
        assert_eq!(later.validity, "valid when read once, at the budget limit");
        assert!(later.waiting_on.is_none());
        // Reading every finished task is descriptive, and reads them all.
        let finished = decide_ab(
            &plan,
            &tested,
            &baseline,
            &LiveSettings {
                reading: Reading::Finished,
                ..settings(5000)
            },
        );
        assert_eq!(finished[0].observed, 20);
        assert_eq!(
            finished[0].action,
            Action::Promote,
            "{}",
            finished[0].reason
        );
    }

    #[test]
    fn a_budget_caps_what_the_anytime_rule_reads_and_it_abstains_there_undecided() {
        let plan = alternating_plan();
        // The systems trade wins on the plan's first 10 tasks (Δ̂ = 0 there); the tested system
        // wins all 10 after them, which the whole plan would promote on.
        let (tested, baseline) = even_then_tested_ahead();
        let mut anytime = settings(5000);
        anytime.policy.rule = Rule::ANYTIME;
        let first = |n: usize| -> (Vec<Option<f64>>, Vec<Option<f64>>) {
            let mut t = tested.clone();
            let mut b = baseline.clone();
            t[n..].fill(None);
            b[n..].fill(None);
            (t, b)
        };
        // Before the limit: continue, waiting on the next planned task.
        let (t, b) = first(6);
        let before = &decide_ab(&plan, &t, &b, &anytime)[0];
        assert_eq!((before.action, before.observed), (Action::Continue, 6));
        assert!(before.waiting_on.is_some());
        // At the limit (the plan's first 10 tasks): abstain, waiting on nothing.
        let (t, b) = first(10);
        let at = &decide_ab(&plan, &t, &b, &anytime)[0];
        assert_eq!(
            (at.action, at.observed),
            (Action::Abstain, 10),
            "{}",
            at.reason
        );
        assert_eq!(at.waiting_on, None);
        assert!(
            at.reason
                .starts_with("no decision within the budget limit's 10 of 20 planned tasks; "),
            "{}",
            at.reason
        );
        // Read after the limit: the limit's prefix only, so the same abstain.
        let later = &decide_ab(&plan, &tested, &baseline, &anytime)[0];
        assert_eq!((later.action, later.observed), (Action::Abstain, 10));
        assert_eq!(later.finished, Some(20));
        assert!(
            later.reason.starts_with("read at the budget limit"),
            "{}",
            later.reason
        );
        // Reading every finished task (descriptive) has no cap, so no abstain at the limit.
        anytime.reading = Reading::Finished;
        let finished = &decide_ab(&plan, &t, &b, &anytime)[0];
        assert_eq!(finished.action, Action::Continue, "{}", finished.reason);
        assert!(
            !finished.reason.contains("budget limit"),
            "{}",
            finished.reason
        );
        anytime.reading = Reading::PlanPrefix;
        // Without a budget the whole plan is read, and its wins promote.
        anytime.budget = Fraction::ONE;
        let whole = &decide_ab(&plan, &tested, &baseline, &anytime)[0];
        assert_eq!((whole.action, whole.observed), (Action::Promote, 20));
    }

    #[test]
    fn a_skipped_group_abstains_at_the_limit() {
        let plan = plan();
        let mut tested = vec![None; 20];
        let mut baseline = vec![None; 20];
        for i in 0..6 {
            tested[i] = Some(1.0);
            baseline[i] = Some(0.0);
        }
        let records = decide_ab(&plan, &tested, &baseline, &settings(3000));
        assert_eq!(records[0].action, Action::Abstain);
        assert_eq!(records[0].missing_groups, ["b"]);
        assert_eq!(
            records[0].reason,
            "coverage missing: b has 0 of 3 required (10 in all)"
        );
    }
}

#[cfg(test)]
mod prefix_tests {
    use super::*;

    #[test]
    fn the_usable_prefix_stops_at_the_first_task_either_system_lacks() {
        let some = |v: &[u8]| -> Vec<Option<f64>> {
            v.iter().map(|&x| (x < 2).then_some(f64::from(x))).collect()
        };
        // 2 = not finished. Task 2 is the tested system's gap, task 4 the baseline's.
        let tested = some(&[1, 0, 2, 1, 1, 0, 2]);
        let baseline = some(&[0, 0, 1, 1, 2, 1, 1]);
        let prefix = usable_tasks(&tested, &baseline, Reading::PlanPrefix);
        assert_eq!(prefix.tasks, [0, 1]);
        assert_eq!(prefix.finished, 4);
        assert_eq!(
            prefix.blocker,
            Some(Blocker {
                task: 2,
                tested: true,
                baseline: false
            })
        );
        let finished = usable_tasks(&tested, &baseline, Reading::Finished);
        assert_eq!(finished.tasks, [0, 1, 3, 5]);
        assert_eq!(finished.finished, 4);
        // Complete: no blocker; nothing finished: the first task blocks for both.
        let done = some(&[1, 0]);
        assert_eq!(
            usable_tasks(&done, &done, Reading::PlanPrefix).blocker,
            None
        );
        let none = some(&[2, 2]);
        let empty = usable_tasks(&none, &none, Reading::PlanPrefix);
        assert_eq!((empty.tasks.len(), empty.finished), (0, 0));
        assert_eq!(
            empty.blocker,
            Some(Blocker {
                task: 0,
                tested: true,
                baseline: true
            })
        );
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use crate::engine::settings::{BootstrapMode, OrderKind, Preset};

    /// 90 planned tasks in 3 groups, interleaved as a stratified plan runs them.
    fn plan() -> LivePlan {
        LivePlan {
            tasks: (0..90).map(|i| format!("t{i:02}")).collect(),
            groups: (0..90).map(|i| (i % 3) as u32).collect(),
            labels: vec!["a".into(), "b".into(), "c".into()],
        }
    }

    fn settings(order: OrderKind) -> LiveSettings {
        let mut policy = Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500));
        policy.order = order;
        LiveSettings {
            policy,
            thresholds: vec![Threshold(0), Threshold(500), Threshold(1000)],
            seed: 0,
            budget: Fraction::ONE,
            reading: Reading::PlanPrefix,
        }
    }

    /// Outcomes of 90 tasks for a system that succeeds 80% of the time and one that does 40%.
    fn strong_and_weak(seed: u64, label: &str) -> (Vec<f64>, Vec<f64>) {
        let mut rng = StreamKey::new(seed, label).rng();
        let strong: Vec<f64> = (0..90)
            .map(|_| f64::from(u8::from(rng.next_u64() % 10 < 8)))
            .collect();
        let weak: Vec<f64> = (0..90)
            .map(|_| f64::from(u8::from(rng.next_u64() % 10 < 4)))
            .collect();
        (strong, weak)
    }

    /// Checks that each record (per `first_seen` slot, in order) names as `decided_at` the observed
    /// count of the first look at which it was final, noting that count at its first final look.
    fn names_the_first_final_look(
        records: &[DecisionRecord],
        first_seen: &mut [Option<u32>],
        context: &str,
    ) {
        for (record, first) in records.iter().zip(first_seen.iter_mut()) {
            let expected = record
                .action
                .is_final()
                .then(|| *first.get_or_insert(record.observed));
            assert_eq!(
                record.decided_at, expected,
                "{context}: {} at {} pp: {}",
                record.baseline, record.threshold_pp, record.reason
            );
        }
    }

    #[test]
    fn records_name_the_look_that_first_made_the_standing_decision() {
        // Tasks arrive one at a time in plan order and the run is looked at after each: a final
        // decision's record names the count at which a look first showed it, at every later look,
        // and a single look at the whole run names the same counts.
        let plan = plan();
        let (strong, weak) = strong_and_weak(9, "live-decided-at");
        let provenance = Provenance::new(&[]);
        for order in [OrderKind::Stratified, OrderKind::Uniform] {
            let settings = settings(order);
            let mut cache = LiveCache::default();
            let mut tested: Vec<Option<f64>> = vec![None; 90];
            let mut baseline: Vec<Option<f64>> = vec![None; 90];
            let mut first_seen: Vec<Option<u32>> = vec![None; settings.thresholds.len()];
            for i in 0..90 {
                tested[i] = Some(strong[i]);
                baseline[i] = Some(weak[i]);
                let records = decide_live_cached(
                    &plan,
                    ("s", "w"),
                    &tested,
                    &baseline,
                    &settings,
                    &provenance,
                    &mut cache,
                );
                names_the_first_final_look(&records, &mut first_seen, &format!("{order:?} at {i}"));
            }
            assert!(
                first_seen.iter().flatten().any(|&at| at < 80),
                "{order:?}: some threshold decides well before the end: {first_seen:?}"
            );
            let whole = decide_live(
                &plan,
                ("s", "w"),
                &tested,
                &baseline,
                &settings,
                &provenance,
            );
            for (t, record) in whole.iter().enumerate() {
                let expected = record.action.is_final().then_some(first_seen[t]).flatten();
                assert_eq!(record.decided_at, expected, "{order:?}, threshold {t}");
            }
        }
    }

    /// 60 planned tasks in two groups of 30: the first 30 alternate (coverage ok), then 15 of group
    /// a in a row (group b falls below its quota under a uniform plan) and 15 of group b.
    fn drifting_plan() -> LivePlan {
        LivePlan {
            tasks: (0..60).map(|i| format!("t{i:02}")).collect(),
            groups: (0..60)
                .map(|i| match i {
                    0..30 => (i % 2) as u32,
                    30..45 => 0,
                    _ => 1,
                })
                .collect(),
            labels: vec!["a".into(), "b".into()],
        }
    }

    #[test]
    fn a_decision_stands_when_coverage_later_falls_below_the_quotas() {
        // The drifting plan: the tested system wins every task, so the §9 rule decides early; a
        // sequential monitor keeps that decision through the looks where the gate would now hold
        // it back, as the replay does.
        let plan = drifting_plan();
        let settings = settings(OrderKind::Uniform);
        let provenance = Provenance::new(&[]);
        let mut cache = LiveCache::default();
        let mut tested: Vec<Option<f64>> = vec![None; 60];
        let mut baseline: Vec<Option<f64>> = vec![None; 60];
        let mut first: Option<(Action, u32)> = None;
        let mut kept_while_missing = 0;
        for i in 0..60 {
            tested[i] = Some(1.0);
            baseline[i] = Some(0.0);
            let records = decide_live_cached(
                &plan,
                ("s", "w"),
                &tested,
                &baseline,
                &settings,
                &provenance,
                &mut cache,
            );
            let record = &records[0];
            match first {
                None if record.action.is_final() => {
                    assert_eq!(record.coverage, CoverageStatus::Ok);
                    first = Some((record.action, record.observed));
                }
                None => {}
                Some((action, at)) => {
                    assert_eq!(
                        (record.action, record.decided_at),
                        (action, Some(at)),
                        "look {}: {}",
                        record.observed,
                        record.reason
                    );
                    if record.coverage != CoverageStatus::Ok {
                        kept_while_missing += 1;
                        assert!(record.reason.contains("kept from the look at"));
                    }
                }
            }
        }
        let (action, at) = first.expect("the rule decides");
        assert_eq!(action, Action::Promote);
        assert!(at < 30, "decided at {at}");
        assert!(kept_while_missing > 0, "coverage falls below the quotas");
        // A single look at a prefix where the gate is shut keeps it too.
        let fresh = decide_live(
            &plan,
            ("s", "w"),
            &tested[..40]
                .iter()
                .copied()
                .chain(std::iter::repeat_n(None, 20))
                .collect::<Vec<_>>(),
            &baseline,
            &settings,
            &provenance,
        );
        assert_eq!(fresh[0].coverage, coverage::CoverageStatus::Missing);
        assert_eq!((fresh[0].action, fresh[0].decided_at), (action, Some(at)));
    }

    #[test]
    fn a_family_decision_stands_when_coverage_later_falls_below_the_quotas() {
        // The drifting plan, a tested system that wins every task and a family of two
        // baselines adjusted by Holm; the second baseline's outcomes arrive ten tasks behind the
        // first's. The family decides at a look every pair has read, and the decision stands
        // through the looks where a pair's coverage falls below its quotas (the current look's
        // adjustment gives that pair p = 1 there), as the replay's sequential monitor keeps it.
        let plan = drifting_plan();
        let mut settings = settings(OrderKind::Uniform);
        settings.policy.adjust = crate::engine::settings::Adjust::Holm;
        let provenance = Provenance::new(&[]);
        let mut caches = vec![LiveCache::default(); 2];
        let mut tested: Vec<Option<f64>> = vec![None; 60];
        let mut baselines: Vec<(&str, Vec<Option<f64>>)> =
            vec![("w", vec![None; 60]), ("w2", vec![None; 60])];
        // Per record (baseline × threshold): the first final action, and the look it names.
        let mut first: Vec<Option<Action>> = vec![None; 2 * settings.thresholds.len()];
        let mut named: Vec<Option<u32>> = vec![None; first.len()];
        let mut kept_while_missing = 0;
        let mut decided_ahead_of_the_family = 0;
        for i in 0..70 {
            if i < 60 {
                tested[i] = Some(1.0);
                baselines[0].1[i] = Some(0.0);
            }
            if i >= 10 {
                baselines[1].1[i - 10] = Some(0.0);
            }
            let records = decide_live_family_cached(
                &plan,
                "s",
                &tested,
                &baselines,
                &settings,
                &provenance,
                &mut caches,
            );
            let fresh = decide_live_family(&plan, "s", &tested, &baselines, &settings, &provenance);
            assert_eq!(records, fresh, "look {i}");
            for (r, record) in records.iter().enumerate() {
                let context = format!("{} at look {i}: {}", record.baseline, record.reason);
                match first[r] {
                    None if record.action.is_final() => first[r] = Some(record.action),
                    None => {}
                    Some(action) => assert_eq!(record.action, action, "{context}"),
                }
                match (named[r], record.decided_at) {
                    (None, None) if record.action.is_final() => {
                        // Decided at this pair's own look, ahead of the looks every pair has read.
                        decided_ahead_of_the_family += 1;
                    }
                    (None, at) => named[r] = at,
                    (Some(at), now) => assert_eq!(now, Some(at), "{context}"),
                }
                // A decision from an earlier look says why it was made there, with the family's
                // adjustment at that look; one made at this look needs no second reason.
                match record.decided_at {
                    Some(at) if at < record.observed => {
                        let then = record.reason_at_decision.as_deref().unwrap_or_default();
                        assert!(
                            then.starts_with("promote: ")
                                && then.contains("holm over a family of 2: rejected"),
                            "{context}: {then}"
                        );
                    }
                    _ => assert_eq!(record.reason_at_decision, None, "{context}"),
                }
                if named[r].is_some() && record.coverage != CoverageStatus::Ok {
                    kept_while_missing += 1;
                    assert!(record.reason.contains("kept from the look at"), "{context}");
                    assert!(
                        record.reason.contains("holm over a family of 2: rejected"),
                        "{context}"
                    );
                }
            }
        }
        assert_eq!(first, vec![Some(Action::Promote); first.len()]);
        assert!(
            named.iter().all(|at| at.is_some_and(|at| at < 30)),
            "{named:?}"
        );
        assert!(kept_while_missing > 0, "coverage falls below the quotas");
        assert!(
            decided_ahead_of_the_family > 0,
            "the first baseline's pair reads further than the family's looks"
        );
    }

    #[test]
    fn a_family_at_a_shared_prefix_names_the_look_its_adjustment_first_decided() {
        // §9a on a stratified plan, a strong tested system (80%) against a weak baseline (40%) and
        // a closer one (60%) under Holm, every system's outcomes arriving together and the run
        // looked at after each task: the current look is then the family's look, so a final record
        // names the first look that showed it.
        let plan = plan();
        let mut settings = settings(OrderKind::Stratified);
        settings.policy.adjust = crate::engine::settings::Adjust::Holm;
        let provenance = Provenance::new(&[]);
        let mut decided_early = 0;
        for seed in 0..8 {
            let (strong, weak) = strong_and_weak(seed, "live-family-looks");
            let mut rng = StreamKey::new(seed, "live-family-closer").rng();
            let closer: Vec<f64> = (0..90)
                .map(|_| f64::from(u8::from(rng.next_u64() % 10 < 6)))
                .collect();
            let mut caches = vec![LiveCache::default(); 2];
            let mut tested: Vec<Option<f64>> = vec![None; 90];
            let mut baselines: Vec<(&str, Vec<Option<f64>>)> =
                vec![("w", vec![None; 90]), ("c", vec![None; 90])];
            let mut first_seen: Vec<Option<u32>> = vec![None; 2 * settings.thresholds.len()];
            for i in 0..90 {
                tested[i] = Some(strong[i]);
                baselines[0].1[i] = Some(weak[i]);
                baselines[1].1[i] = Some(closer[i]);
                let records = decide_live_family_cached(
                    &plan,
                    "s",
                    &tested,
                    &baselines,
                    &settings,
                    &provenance,
                    &mut caches,
                );
                names_the_first_final_look(
                    &records,
                    &mut first_seen,
                    &format!("seed {seed}, look {i}"),
                );
            }
            decided_early += first_seen.iter().flatten().filter(|&&at| at < 80).count();
        }
        assert!(
            decided_early > 8,
            "the families decide before the end: {decided_early}"
        );
    }

    #[test]
    fn a_kept_sequence_decides_as_a_walk_from_scratch() {
        let plan = plan();
        let (strong, weak) = strong_and_weak(4, "live-cache");
        let provenance = Provenance::new(&[]);
        for order in [OrderKind::Stratified, OrderKind::Uniform] {
            let settings = settings(order);
            let mut cache = LiveCache::default();
            // Looks as tasks arrive in plan order, then task 7 read again with another outcome, then
            // a late task earlier in the plan: every look equals decide_live on the same outcomes.
            let mut tested: Vec<Option<f64>> = vec![None; 90];
            let mut baseline: Vec<Option<f64>> = vec![None; 90];
            let mut edits: Vec<(usize, f64, f64)> = (0..90)
                .filter(|&i| i != 30)
                .map(|i| (i, strong[i], weak[i]))
                .collect();
            edits.push((7, 1.0 - strong[7], weak[7]));
            edits.push((30, 1.0, 0.0));
            let mut decided = 0;
            // The family path keeps one cache per baseline; its second baseline loses every task
            // the tested system wins, so the family decides along the way.
            let mut caches = vec![LiveCache::default(); 2];
            let mut second: Vec<Option<f64>> = vec![None; 90];
            for &(i, s, w) in &edits {
                tested[i] = Some(s);
                baseline[i] = Some(w);
                second[i] = Some(1.0 - strong[i]);
                let baselines = [("w", baseline.clone()), ("w2", second.clone())];
                let kept = decide_live_family_cached(
                    &plan,
                    "s",
                    &tested,
                    &baselines,
                    &settings,
                    &provenance,
                    &mut caches,
                );
                let fresh =
                    decide_live_family(&plan, "s", &tested, &baselines, &settings, &provenance);
                assert_eq!(
                    kept, fresh,
                    "{order:?}: family at {} observed",
                    fresh[0].observed
                );
                let kept = decide_live_cached(
                    &plan,
                    ("s", "w"),
                    &tested,
                    &baseline,
                    &settings,
                    &provenance,
                    &mut cache,
                );
                let fresh = decide_live(
                    &plan,
                    ("s", "w"),
                    &tested,
                    &baseline,
                    &settings,
                    &provenance,
                );
                assert_eq!(kept, fresh, "{order:?} at {} observed", fresh[0].observed);
                decided += usize::from(fresh.iter().any(|r| r.action.is_final()));
            }
            assert!(
                decided > 0,
                "{order:?}: some look decides, so the records carry evidence"
            );
            let baselines = [("w", baseline.clone()), ("w2", second.clone())];
            let family =
                decide_live_family(&plan, "s", &tested, &baselines, &settings, &provenance);
            assert!(
                family.iter().any(|r| r.decided_at.is_some()),
                "{order:?}: the family decides at one of its looks"
            );
        }
    }
}
