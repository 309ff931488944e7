//! Completed-record replay (SPEC §2–§7): for every directed pair and order, one walk along the order
//! serves every budget and threshold (budgets are nested prefixes; running sums and group counts are
//! updated once per task). Each budget is a separate stopping point fixed in advance, decided by
//! `rules`. Pairs run in parallel; results are integer counts merged in pair order, so the bits do not
//! depend on the thread count. A cancel flag is checked before every order of every pair.
//!
//! One entry point, [`replay`]; its [`ReplayOptions`] say whether it extends an earlier result, is a
//! preview without the unresolved interval, or hands out decision records, and carry the caches
//! ([`Caches`]: bootstrap tails with their lock-free fronts, kept task orders), which the caller owns
//! and may pass from one replay to the next.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::dataset::Dataset;
use crate::engine::rules::coverage::CoverageStatus;
use crate::engine::rules::{Action, Decision, Detail};
use crate::engine::settings::{BudgetMeasure, Monitor, ReplaySettings};
use crate::engine::walk::kept_orders::{OrderCache, PairOrders};
use crate::engine::walk::metrics::{Metrics, summarise};
use crate::engine::walk::monitor::MonitorScratch;
use crate::engine::walk::orders::{OrderKey, OrderScratch, build_order_with};
use crate::engine::walk::pair::PairData;
pub use crate::engine::walk::prepared::{
    Caches, Control, LeftOut, Look, Prepared, RecordSink, ReplayError, Snapshot, WalkScratch,
};
use crate::engine::walk::record::{DecisionRecord, Provenance, RecordCase, RecordContext};
use crate::engine::walk::tally::{CaseCounts, FamilyCounts, PairTally, StepSums};

/// A finished replay.
pub struct Replay {
    pub prepared: Prepared,
    /// Completed-record decision per pair and threshold: `completed[pair][threshold]` (true = promote).
    pub completed: Vec<Vec<bool>>,
    pub tallies: Vec<PairTally>,
    pub metrics: Metrics,
    /// Orders whose prefix misses each group's quota, by dataset group label and budget.
    pub group_missing: Vec<Vec<u32>>,
    /// Cases in which each group label is present (pairs sharing a task of it × orders), by label.
    pub group_cases: Vec<u32>,
}

impl Replay {
    pub fn budgets(&self) -> usize {
        self.prepared.settings.grid.len()
    }

    /// Counts of one pair at one threshold and budget.
    pub fn pair_counts(&self, pair: usize, threshold: usize, budget: usize) -> CaseCounts {
        self.tallies[pair].counts[threshold * self.budgets() + budget]
    }
}

/// Tallies one pair over all its orders; `None` when cancelled.
pub(crate) fn tally_pair(prep: &Prepared, pair: &PairData, control: &Control) -> Option<PairTally> {
    tally_pair_records(prep, pair, control, 0..prep.settings.orders, None, None)
        .map(|(tally, _)| tally)
}

/// [`tally_pair`] over the order indices `orders` only, also building every decision record when
/// `records` gives their context. Order r is the same whatever range it is tallied in. With `kept`
/// (this pair's orders from the replay's order cache), kept orders are read rather than drawn, and
/// newly drawn ones are kept.
fn tally_pair_records(
    prep: &Prepared,
    pair: &PairData,
    control: &Control,
    orders: std::ops::Range<u32>,
    records: Option<&RecordContext<'_>>,
    mut kept: Option<(&OrderCache, &mut PairOrders)>,
) -> Option<(PairTally, Vec<DecisionRecord>)> {
    let mut built = Vec::new();
    let budgets = prep.settings.grid.len();
    let thresholds = prep.settings.thresholds.len();
    let completed: Vec<bool> = prep
        .settings
        .thresholds
        .iter()
        .map(|&t| pair.completed_promotes(t, prep.scale))
        .collect();
    let mut tally = PairTally::new(pair, thresholds, budgets);
    let mut step_sums = StepSums::default();
    let mut order = Vec::with_capacity(pair.tasks.len());
    let mut order_scratch = OrderScratch::default();
    // Under the tasks measure no budget looks past the last grid prefix, so orders stop there; the prefix
    // is the same as the full order's (orders draw their tasks one at a time). Kept orders are whole, so
    // that a replay under another measure can read them.
    let limit = match prep.settings.measure {
        BudgetMeasure::Tasks if kept.is_none() => prep
            .settings
            .grid
            .last()
            .map_or(pair.tasks.len(), |b| b.tasks_of(pair.n()) as usize),
        _ => pair.tasks.len(),
    };
    let mut scratch = MonitorScratch::default();
    // Tallies read only actions, which an order read to its end gives faster (records need Λ).
    scratch.walk.read_ahead(records.is_none());
    // Whether each threshold has shown a wrong decision at a budget so far in this order.
    let mut shown_wrong: Vec<bool> = Vec::with_capacity(thresholds);
    // A kept decision's group counts at the look that made it (records only).
    let mut decided_counts: Vec<u32> = Vec::new();
    // Records carry each decision's statistic; tallies read only the action.
    let detail = if records.is_some() {
        Detail::Full
    } else {
        Detail::Actions
    };
    let mut local = prep.rules.tails.take_front();
    let mut actions = ActionMemo::for_pair(prep, records.is_none());
    for r in orders {
        if control.cancelled() {
            prep.rules.tails.put_front(local);
            return None;
        }
        let read = kept
            .as_ref()
            .is_some_and(|(_, kept)| kept.read(r, &mut order));
        if !read {
            order.clear();
            let key = OrderKey {
                kind: prep.settings.policy.order,
                names: prep.names(pair),
                seed: prep.settings.seed,
                index: r,
            };
            build_order_with(&key, pair, &mut order_scratch, limit, &mut order);
            if let Some((cache, kept)) = kept.as_mut() {
                cache.keep(kept, r, &order);
            }
        }
        shown_wrong.clear();
        shown_wrong.resize(thresholds, false);
        step_sums.fill(pair, &order);
        let decide = |look: Look, snapshot: &Snapshot, out: &mut Vec<Decision>| {
            let remembered = actions.recall(snapshot);
            match remembered {
                Some(bits) => ActionMemo::unpack(bits, thresholds, out, snapshot.coverage),
                None => {
                    prep.decide(pair, r, look, snapshot, detail, &mut local, out);
                    actions.keep(snapshot, out);
                }
            }
        };
        prep.decide_along(
            pair,
            &order,
            &mut scratch,
            decide,
            |b, snapshot, standing| {
                tally.see_prefix(pair, b, snapshot.k, step_sums.at(snapshot.k));
                for (g, (&c, &required)) in snapshot
                    .group_counts
                    .iter()
                    .zip(&snapshot.quotas)
                    .enumerate()
                {
                    if c < required {
                        tally.missing[g * budgets + b] += 1;
                    }
                }
                if let Some(context) = records {
                    let (tested, baseline) = prep.names(pair);
                    for (t, decision) in standing.decisions.iter().enumerate() {
                        let decided_at = standing.decided_at[t];
                        let decided_group_counts =
                            pair.group_counts_at(&order, decided_at, &mut decided_counts);
                        built.push(context.record(&RecordCase {
                            tested,
                            baseline,
                            threshold: prep.settings.thresholds[t],
                            order_index: Some(r),
                            budget: prep.settings.grid[b].value(),
                            observed: snapshot.k,
                            total: pair.n(),
                            group_counts: &snapshot.group_counts,
                            group_sizes: &pair.group_sizes,
                            group_labels: &pair.group_labels,
                            decision: *decision,
                            decided_at,
                            decided_group_counts,
                            family: None,
                            completed: Some((completed[t], pair.delta_full())),
                        }));
                    }
                }
                for (t, decision) in standing.decisions.iter().enumerate() {
                    tally.counts[t * budgets + b].count(
                        decision,
                        completed[t],
                        &mut shown_wrong[t],
                    );
                }
            },
        );
    }
    control.pairs_done.fetch_add(1, Ordering::Relaxed);
    prep.rules.tails.put_front(local);
    Some((tally, built))
}

/// The actions of a pair's decisions per observed count pattern, direct-mapped, when they are a function
/// of the pattern alone: an action-only tally under a bootstrap rule on 0/±1 differences (its tails
/// depend only on the counts and the cut, its `mc` stream is keyed by the counts) at a snapshot whose
/// coverage lets the rule decide. Orders of one pair meet the same patterns again and again; a hit
/// skips the whole decision. Records need each decision's statistic, so they never use it.
struct ActionMemo {
    /// (packed counts, two bits of action per threshold); empty when the memo is off. 4,096 entries
    /// (64 KiB): on SWE-bench bash-only, 1,024 leave half the speed-up on the table, 8,192 add nothing.
    entries: Vec<(u64, u64)>,
    gate: bool,
}

impl ActionMemo {
    const SIZE: usize = 4096;
    const EMPTY: u64 = u64::MAX;

    fn for_pair(prep: &Prepared, actions_only: bool) -> Self {
        let on = actions_only
            && matches!(
                prep.settings.policy.rule,
                crate::engine::settings::Rule::Bootstrap(_)
            )
            && prep.scale == Some(1)
            && prep.settings.thresholds.len() <= 32;
        ActionMemo {
            entries: if on {
                vec![(Self::EMPTY, 0); Self::SIZE]
            } else {
                Vec::new()
            },
            gate: prep.settings.policy.coverage_gate,
        }
    }

    /// The pattern's key and slot, when the memo applies to this snapshot.
    fn key(&self, snapshot: &Snapshot) -> Option<(u64, usize)> {
        if self.entries.is_empty() || (self.gate && snapshot.coverage != CoverageStatus::Ok) {
            return None;
        }
        let key = crate::engine::rules::pack(snapshot.observed.counts.as_ref()?)?;
        // The high bits of a multiplicative hash: SIZE is a power of two.
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SIZE.trailing_zeros()))
            as usize;
        Some((key, slot))
    }

    fn recall(&self, snapshot: &Snapshot) -> Option<u64> {
        let (key, slot) = self.key(snapshot)?;
        let (known, bits) = self.entries[slot];
        (known == key).then_some(bits)
    }

    fn keep(&mut self, snapshot: &Snapshot, decisions: &[Decision]) {
        if let Some((key, slot)) = self.key(snapshot) {
            let bits = decisions.iter().enumerate().fold(0u64, |bits, (t, d)| {
                let code = match d.action {
                    Action::Promote => 1,
                    Action::Reject => 2,
                    Action::Abstain | Action::Continue => 0,
                };
                bits | code << (2 * t)
            });
            self.entries[slot] = (key, bits);
        }
    }

    /// Decisions with the remembered actions (the reason and statistic, which an action-only tally
    /// does not read, are left plain).
    fn unpack(bits: u64, thresholds: usize, out: &mut Vec<Decision>, coverage: CoverageStatus) {
        out.clear();
        out.extend((0..thresholds).map(|t| {
            let action = match (bits >> (2 * t)) & 3 {
                1 => Action::Promote,
                2 => Action::Reject,
                _ => Action::Abstain,
            };
            Decision::bare(action, coverage)
        }));
    }
}

/// What a replay does besides tallying every order: the caller's caches, an earlier result to extend,
/// a preview without the unresolved interval, or decision records. The default is a plain replay.
#[derive(Default)]
pub struct ReplayOptions<'a> {
    /// Caches carried over from earlier replays (see [`Caches`]); the default starts empty ones.
    pub caches: Caches,
    /// A replay of the same settings with fewer orders ([`extends`]): only the orders beyond it are
    /// walked and its tallies added, which gives the bits of a full replay. Ignored when the settings
    /// differ in anything but a larger number of orders, and when records are asked for (records cover
    /// every order).
    pub extend: Option<&'a Replay>,
    /// Skip the unresolved interval (NaN), whose 2,000 resamples per budget and threshold would delay a
    /// quick preview; extending the preview computes it.
    pub preview: bool,
    /// Hand every decision record to this sink, pair by pair in pair order; its error stops the replay.
    pub records: Option<&'a mut RecordSink<'a>>,
}

/// Whether `settings` only adds orders to `earlier` (so a replay of `earlier` can be extended to it).
pub fn extends(earlier: &ReplaySettings, settings: &ReplaySettings) -> bool {
    earlier.orders < settings.orders
        && *earlier
            == ReplaySettings {
                orders: earlier.orders,
                ..settings.clone()
            }
}

/// Replays the dataset under the settings: every directed pair, order and budget, tallied and
/// summarised. Deterministic for given settings on any thread count; stops with
/// [`ReplayError::Cancelled`] when `control` is cancelled.
pub fn replay(
    dataset: &Dataset,
    settings: &ReplaySettings,
    control: &Control,
    options: ReplayOptions<'_>,
) -> Result<Replay, ReplayError> {
    let ReplayOptions {
        caches,
        extend,
        preview,
        records,
    } = options;
    let prepared = Prepared::with_cache(dataset, settings, caches.clone())?;
    control
        .pairs_total
        .store(prepared.pairs.len(), Ordering::Relaxed);
    if settings.policy.decides_families() {
        // The adjustment reads every budget's evidence of every pair: walk them per-look.
        let mut per_look = settings.clone();
        per_look.policy.monitor = Monitor::PerLook;
        let walker = Prepared::with_cache(dataset, &per_look, caches)?;
        let provenance = Provenance::new(&dataset.inputs);
        let context = RecordContext::for_replay(settings, &provenance, &prepared.grouping.labels);
        let records = records.map(|sink| (&context, sink));
        let (tallies, families) =
            crate::engine::walk::family::tally_families(&prepared, &walker, control, records)?;
        return finish(prepared, tallies, Some(families), !preview);
    }
    let tallies = match records {
        Some(sink) => tally_with_records(dataset, &prepared, control, sink)?,
        None => {
            let earlier = extend.filter(|e| extends(&e.prepared.settings, settings));
            tally_orders(&prepared, control, earlier)?
        }
    };
    finish(prepared, tallies, None, !preview)
}

/// Walks the orders that `earlier` (same settings, fewer orders) has not, adding its tallies; every
/// order without it. Orders are read from and kept in the order cache when there is one.
fn tally_orders(
    prepared: &Prepared,
    control: &Control,
    earlier: Option<&Replay>,
) -> Result<Vec<PairTally>, ReplayError> {
    let settings = &prepared.settings;
    let done = earlier.map_or(0, |replay| replay.prepared.settings.orders);
    let tallies: Vec<Option<PairTally>> = prepared
        .pairs
        .par_iter()
        // One pair a job: left to itself rayon cuts the pairs into four runs of 138 walked whole, and
        // a pair's cost varies tenfold (one near its threshold walks every order to the end), so one
        // core walked the end of its run alone for up to a tenth of an anytime replay.
        .with_max_len(1)
        .enumerate()
        .map(|(index, pair)| {
            let cache = prepared.orders.as_deref();
            let mut kept = cache.map(|cache| {
                let (kind, seed) = (settings.policy.order, settings.seed);
                cache.take(index, kind, seed, prepared.names(pair), pair)
            });
            let tallied = tally_pair_records(
                prepared,
                pair,
                control,
                done..settings.orders,
                None,
                cache.zip(kept.as_mut()),
            );
            // Orders kept before a cancel are still the right orders.
            if let (Some(cache), Some(kept)) = (cache, kept) {
                cache.put(index, kept);
            }
            let (mut tally, _) = tallied?;
            if let Some(earlier) = earlier {
                tally.add(&earlier.tallies[index]);
            }
            Some(tally)
        })
        .collect();
    tallies
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(ReplayError::Cancelled)
}

/// Tallies every order and hands each pair's decision records to `sink`, in pair order. Pairs run in
/// parallel in chunks, so only a few pairs' records are held at once. The aggregates are counted from
/// the same decisions the records describe.
fn tally_with_records(
    dataset: &Dataset,
    prepared: &Prepared,
    control: &Control,
    sink: &mut RecordSink<'_>,
) -> Result<Vec<PairTally>, ReplayError> {
    let settings = &prepared.settings;
    let provenance = Provenance::new(&dataset.inputs);
    let context = RecordContext::for_replay(settings, &provenance, &prepared.grouping.labels);
    let chunk = (2 * rayon::current_num_threads()).max(2);
    let mut tallies = Vec::with_capacity(prepared.pairs.len());
    for pairs in prepared.pairs.chunks(chunk) {
        let results: Vec<Option<(PairTally, Vec<DecisionRecord>)>> = pairs
            .par_iter()
            .map(|pair| {
                tally_pair_records(
                    prepared,
                    pair,
                    control,
                    0..settings.orders,
                    Some(&context),
                    None,
                )
            })
            .collect();
        for result in results {
            let (tally, records) = result.ok_or(ReplayError::Cancelled)?;
            sink(records).map_err(ReplayError::Output)?;
            tallies.push(tally);
        }
    }
    Ok(tallies)
}

/// Aggregates pair tallies (in pair order) into the replay result, skipping the unresolved interval
/// (NaN) unless `intervals`.
fn finish(
    prepared: Prepared,
    tallies: Vec<PairTally>,
    families: Option<FamilyCounts>,
    intervals: bool,
) -> Result<Replay, ReplayError> {
    let budgets = prepared.settings.grid.len();
    let completed: Vec<Vec<bool>> = prepared
        .pairs
        .iter()
        .map(|p| {
            prepared
                .settings
                .thresholds
                .iter()
                .map(|&t| p.completed_promotes(t, prepared.scale))
                .collect()
        })
        .collect();
    let labels = prepared.grouping.labels.len();
    let mut group_missing = vec![vec![0u32; budgets]; labels];
    let mut group_cases = vec![0u32; labels];
    for (pair, tally) in prepared.pairs.iter().zip(&tallies) {
        for (g, &label) in pair.group_labels.iter().enumerate() {
            group_cases[label as usize] += prepared.settings.orders;
            let missing = &tally.missing[g * budgets..(g + 1) * budgets];
            for (total, &count) in group_missing[label as usize].iter_mut().zip(missing) {
                *total += count;
            }
        }
    }
    // Each pair alone: a family's wrong decision is the pair's.
    let families = families.unwrap_or_else(|| FamilyCounts {
        families: tallies.len() as u32,
        wrong: (0..prepared.settings.thresholds.len() * budgets)
            .map(|index| tallies.iter().map(|t| t.counts[index].wrong).sum())
            .collect(),
    });
    let metrics = summarise(
        &prepared.settings,
        &completed,
        &tallies,
        &families,
        intervals,
    );
    Ok(Replay {
        prepared,
        completed,
        tallies,
        metrics,
        group_missing,
        group_cases,
    })
}
