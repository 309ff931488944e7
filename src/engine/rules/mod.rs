//! Decision rules at the budget limit (SPEC §6): the coverage gate, then `bootstrap` (exact or mc),
//! `paired-normal`, `serfling` or `forced` on the observed differences. Bootstrap tails depend only on the
//! observed count pattern and the cut, so they are cached per (pattern, cut) in a cache shared by the
//! worker threads; the cached values are pure functions of the pattern, the cut and the seed, so sharing
//! cannot change a result. A caller that reads only actions lets bounds settle most exact-bootstrap
//! cases without their tails ([`Detail::Actions`]).

pub mod anytime;
pub mod bootstrap;
pub mod bounds;
pub mod coverage;
pub mod crosscheck;
pub mod decision;
pub(crate) mod foresight;
pub mod grid;
pub mod sequence;
pub mod stats;
pub mod stratified;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use crate::engine::rules::anytime::Bets;
use crate::engine::rules::bootstrap::{
    LatticeCounts, Tails, exact_binary_tails, exact_lattice, mc_lattice, mc_values,
};
use crate::engine::rules::coverage::CoverageStatus;
pub use crate::engine::rules::decision::{Action, Reason, Statistic};
use crate::engine::rules::sequence::Sequence;
use crate::engine::rules::stats::{LnFactorial, normal_cdf};
use crate::engine::settings::{BootstrapMode, Degenerate, EPSILON, Policy, Rule, Threshold};
use crate::engine::streams::StreamKey;
use bounds::{Cutoff, Draw};

/// The resamples `--bootstrap exact` draws when the outcomes are off a lattice (SPEC §6: it falls
/// back to mc and says so).
pub const EXACT_FALLBACK_RESAMPLES: u32 = 200;

/// One decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Decision {
    pub action: Action,
    pub reason: Reason,
    pub coverage: CoverageStatus,
    pub estimate: f64,
    pub statistic: Statistic,
}

impl Decision {
    /// A decision that carries only its action (for tallies that read nothing else): the reason is
    /// `Supported` for promote and reject, `Evidence` otherwise, with no estimate or statistic.
    pub fn bare(action: Action, coverage: CoverageStatus) -> Self {
        Decision {
            action,
            reason: if action.is_final() {
                Reason::Supported
            } else {
                Reason::Evidence
            },
            coverage,
            estimate: f64::NAN,
            statistic: Statistic::None,
        }
    }
}

/// Sums over an observed prefix, enough for every rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    pub n: u32,
    /// Shared tasks of the pair (N).
    pub total: u32,
    /// Lattice counts when outcomes are on a lattice.
    pub counts: Option<LatticeCounts>,
    /// Σ D·L and Σ (D·L)² on the lattice (exact integers).
    pub sum_units: i64,
    pub sum_sq_units: i64,
    /// Σ D and Σ D² (kept only off the lattice).
    pub sum: f64,
    pub sum_sq: f64,
    /// The anytime rule's wealths along the order (kept only under that rule, which needs the order).
    pub sequence: Option<Sequence>,
}

impl Observed {
    pub fn estimate(&self, scale: Option<u32>) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        match scale {
            Some(scale) => self.sum_units as f64 / (f64::from(self.n) * f64::from(scale)),
            None => self.sum / f64::from(self.n),
        }
    }

    /// Whether the estimate is above δ (with ε), exactly on the lattice.
    pub fn above(&self, threshold: Threshold, scale: Option<u32>) -> bool {
        match scale {
            Some(scale) => self.sum_units > cut(self.n, scale, threshold),
            None => self.sum / f64::from(self.n) > threshold.delta() + EPSILON,
        }
    }

    /// The n − 1 sample variance of D.
    fn variance(&self, scale: Option<u32>) -> f64 {
        let n = f64::from(self.n);
        match scale {
            Some(scale) => {
                let s = self.sum_units as f64;
                let numerator = (self.sum_sq_units as f64 * n - s * s) / n;
                (numerator / (n - 1.0)).max(0.0) / f64::from(scale * scale)
            }
            None => ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0),
        }
    }
}

/// How much of a decision the caller reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The action, its reason and the rule's statistic (decision records, the pair drill-down).
    Full,
    /// The action and its reason. An exact bootstrap on 0/±1 differences then skips the exact tails
    /// where bounds settle the action ([`crate::engine::rules::bounds`]), and reports `Statistic::None` there.
    Actions,
}

/// Fixed inputs of the rules for one replay.
pub struct RuleContext {
    pub policy: Policy,
    pub thresholds: Vec<Threshold>,
    pub scale: Option<u32>,
    pub seed: u64,
    /// ln k! up to the largest case, built on the first bootstrap that reads it (the anytime rules
    /// never do, and `decide`/`watch` build a context per look).
    ln_fact: OnceLock<LnFactorial>,
    max_n: usize,
    pub tails: Arc<TailCache>,
    /// The policy's tail cutoff with its logarithm, computed once rather than per decision.
    cutoff: Cutoff,
    /// The anytime rule's bets (unused by the other rules).
    pub bets: Bets,
}

impl RuleContext {
    /// For pairs decided in families of up to `size` under an adjustment: the anytime tests bet
    /// towards 1/(a/size), the barrier the strictest adjusted cutoff asks for, instead of stopping at
    /// 1/a where an adjusted family could never reject them. Each wealth stays a valid e-process, so
    /// its anytime p-value stays valid; unadjusted or single pairs keep 1/a.
    pub fn for_families(mut self, size: usize) -> Self {
        if size > 1 && self.policy.adjust != crate::engine::settings::Adjust::None {
            self.bets = self.bets.aimed_at(self.policy.tail.value() / size as f64);
        }
        self
    }

    pub fn new(
        policy: Policy,
        thresholds: Vec<Threshold>,
        scale: Option<u32>,
        seed: u64,
        max_n: usize,
    ) -> Self {
        RuleContext {
            cutoff: Cutoff::new(policy.tail.value()),
            bets: bets_of(&policy, max_n),
            policy,
            thresholds,
            scale,
            seed,
            ln_fact: OnceLock::new(),
            max_n,
            tails: Arc::new(TailCache::default()),
        }
    }

    /// ln k! for k up to the largest case.
    pub fn ln_fact(&self) -> &LnFactorial {
        self.ln_fact.get_or_init(|| LnFactorial::new(self.max_n))
    }

    /// The bootstrap as it runs here: `exact` off a lattice falls back to
    /// mc:[`EXACT_FALLBACK_RESAMPLES`] (SPEC §6), which headers name instead of "exact".
    pub fn effective_bootstrap(&self, mode: BootstrapMode) -> BootstrapMode {
        match mode {
            BootstrapMode::Exact if self.scale.is_none() => BootstrapMode::Mc {
                resamples: EXACT_FALLBACK_RESAMPLES,
            },
            other => other,
        }
    }

    /// Whether the bootstrap here is exact (the mode asks for it and the outcomes are on a lattice).
    pub fn exact_bootstrap(&self) -> bool {
        matches!(self.policy.rule, Rule::Bootstrap(BootstrapMode::Exact)) && self.scale.is_some()
    }

    /// Decisions at the budget limit for every threshold. `values` are the observed differences
    /// (needed only by the bootstrap off a lattice); `case_key` keys that bootstrap's random stream;
    /// `detail` says whether the caller reads the rule's statistic or only the action.
    #[allow(clippy::too_many_arguments)] // the case, what to report, and reused buffers
    pub fn decide(
        &self,
        observed: &Observed,
        coverage: CoverageStatus,
        values: &[f64],
        case_key: impl Fn() -> StreamKey,
        detail: Detail,
        local: &mut LocalTails,
        out: &mut Vec<Decision>,
    ) {
        out.clear();
        let estimate = observed.estimate(self.scale);
        let fixed = |action: Action, reason: Reason| Decision {
            action,
            reason,
            coverage,
            estimate,
            statistic: Statistic::None,
        };
        if self.policy.coverage_gate && coverage != CoverageStatus::Ok {
            // The anytime wealths are shown even while the gate holds the decision back.
            out.extend((0..self.thresholds.len()).map(|t| {
                Decision {
                    statistic: observed
                        .sequence
                        .as_ref()
                        .map_or(Statistic::None, |state| anytime_statistic(state, t, detail)),
                    ..fixed(Action::Abstain, Reason::Coverage)
                }
            }));
            return;
        }
        if observed.n == 0 {
            out.extend(
                self.thresholds
                    .iter()
                    .map(|_| fixed(Action::Abstain, Reason::NoTasks)),
            );
            return;
        }
        let a = self.policy.tail.value();
        match self.policy.rule {
            Rule::Anytime { .. } => {
                // The wealths were built along the order by whoever walked it; without them there is
                // no evidence at all.
                for t in 0..self.thresholds.len() {
                    out.push(match &observed.sequence {
                        Some(state) => {
                            let (action, reason) = state.verdict(t);
                            Decision {
                                action,
                                reason,
                                coverage,
                                estimate,
                                statistic: anytime_statistic(state, t, detail),
                            }
                        }
                        None => fixed(Action::Abstain, Reason::Evidence),
                    });
                }
            }
            Rule::Forced => {
                for &threshold in &self.thresholds {
                    let action = if observed.above(threshold, self.scale) {
                        Action::Promote
                    } else {
                        Action::Reject
                    };
                    out.push(fixed(action, Reason::Supported));
                }
            }
            Rule::Serfling => {
                // Sampling without replacement from N tasks, D in an interval of width 2.
                let n = f64::from(observed.n);
                let big_n = f64::from(observed.total.max(observed.n));
                let t = (4.0 * (1.0 - (n - 1.0) / big_n) * (1.0 / a).ln() / (2.0 * n))
                    .max(0.0)
                    .sqrt();
                for &threshold in &self.thresholds {
                    let delta = threshold.delta() + EPSILON;
                    let (action, reason) = if estimate - t > delta {
                        (Action::Promote, Reason::Supported)
                    } else if estimate + t <= delta {
                        (Action::Reject, Reason::Supported)
                    } else {
                        (Action::Abstain, Reason::Evidence)
                    };
                    out.push(Decision {
                        action,
                        reason,
                        coverage,
                        estimate,
                        statistic: Statistic::Serfling { t },
                    });
                }
            }
            Rule::PairedNormal => {
                let variance = if observed.n >= 2 {
                    observed.variance(self.scale)
                } else {
                    0.0
                };
                let se = (variance / f64::from(observed.n)).sqrt();
                for &threshold in &self.thresholds {
                    if se <= 0.0 {
                        out.push(fixed(Action::Abstain, Reason::NoVariance));
                        continue;
                    }
                    let z = (estimate - threshold.delta()) / se;
                    let (p_promote, p_reject) = (normal_cdf(-z), normal_cdf(z));
                    let (action, reason) = one_sided(
                        observed.above(threshold, self.scale),
                        p_promote,
                        p_reject,
                        a,
                    );
                    out.push(Decision {
                        action,
                        reason,
                        coverage,
                        estimate,
                        statistic: Statistic::PairedNormal {
                            se,
                            p_promote,
                            p_reject,
                        },
                    });
                }
            }
            Rule::Bootstrap(_)
                if self.policy.degenerate == Degenerate::Abstain
                    && no_discordant_tasks(observed, values) =>
            {
                // Every resample would equal 0 and both tails would be 0 or 1: a point mass is no evidence
                // of precision, so the bootstrap abstains here as paired-normal does (SPEC §6, se = 0);
                // `literal` lets the plain bootstrap decide.
                out.extend(
                    self.thresholds
                        .iter()
                        .map(|_| fixed(Action::Abstain, Reason::NoVariance)),
                );
            }
            Rule::Bootstrap(mode) => {
                let mut evidence = std::mem::take(&mut local.evidence);
                self.bootstrap_evidence(
                    mode,
                    observed,
                    values,
                    case_key,
                    detail,
                    local,
                    &mut evidence,
                );
                let exact = self.exact_bootstrap();
                for (&threshold, evidence) in self.thresholds.iter().zip(&evidence) {
                    let above = observed.above(threshold, self.scale);
                    let decision = match *evidence {
                        Evidence::Tails(tail) => {
                            let (r_promote, r_reject) = (tail.at_most, tail.above);
                            let (action, reason) = one_sided(above, r_promote, r_reject, a);
                            Decision {
                                action,
                                reason,
                                coverage,
                                estimate,
                                statistic: Statistic::Bootstrap {
                                    r_promote,
                                    r_reject,
                                    exact,
                                },
                            }
                        }
                        // The deciding tail is surely within the cutoff, or surely not.
                        Evidence::Settled(within) => match (within, above) {
                            (true, true) => fixed(Action::Promote, Reason::Supported),
                            (true, false) => fixed(Action::Reject, Reason::Supported),
                            (false, _) => fixed(Action::Abstain, Reason::Evidence),
                        },
                    };
                    out.push(decision);
                }
                local.evidence = evidence;
            }
        }
    }

    /// Per threshold, what decides it: the tails at the threshold's cut, or (with [`Detail::Actions`],
    /// for an exact bootstrap of 0/±1 differences) bounds that settle whether the deciding tail —
    /// R_promote above δ, R_reject otherwise — is within the cutoff. Looked up in the pair's recent
    /// table first, then bounds, then the front's map, then the shared cache, else computed.
    #[allow(clippy::too_many_arguments)]
    fn bootstrap_evidence(
        &self,
        mode: BootstrapMode,
        observed: &Observed,
        values: &[f64],
        case_key: impl Fn() -> StreamKey,
        detail: Detail,
        local: &mut LocalTails,
        out: &mut Vec<Evidence>,
    ) {
        out.clear();
        match (&observed.counts, self.scale) {
            (Some(counts), Some(scale)) => {
                let packed = pack(counts);
                let settle = detail == Detail::Actions && self.exact_bootstrap() && scale == 1;
                let cutoff = self.cutoff;
                // The draw's moments, computed once per pattern and only if a bound is needed.
                let mut draw: Option<Option<Draw>> = None;
                let mut slots = std::mem::take(&mut local.slots);
                let mut missing = std::mem::take(&mut local.missing);
                slots.clear();
                missing.clear();
                let n = counts.n();
                for &threshold in &self.thresholds {
                    let m = cut(n, scale, threshold);
                    // Above δ the deciding tail is R_promote = P*(S* ≤ m), else R_reject.
                    let at_most = observed.sum_units > m;
                    let settled = if settle {
                        let draw = *draw.get_or_insert_with(|| {
                            Draw::new(n, counts.counts[0], counts.counts[2])
                        });
                        draw.and_then(|draw| {
                            if at_most {
                                draw.settle_at_most(m, cutoff)
                            } else {
                                draw.settle_above(m, cutoff)
                            }
                        })
                    } else {
                        None
                    };
                    if let Some(within) = settled {
                        // Bounds cost about what a table lookup does: tried first, never remembered.
                        slots.push(Slot::Ready(Evidence::Settled(within)));
                        continue;
                    }
                    if let Some(&evidence) = packed.and_then(|key| local.recent.get(&(key, m))) {
                        slots.push(Slot::Ready(evidence));
                        continue;
                    }
                    let known = packed
                        .and_then(|key| local.map.get(&(key, m)))
                        .and_then(|known| known.evidence(at_most, settle, cutoff));
                    // Only packed patterns have thread-map entries, so a hit always has a key.
                    match (known, packed) {
                        (Some(evidence), Some(key)) => {
                            local.recent.insert((key, m), evidence);
                            slots.push(Slot::Ready(evidence));
                        }
                        _ => {
                            missing.push((m, at_most));
                            slots.push(Slot::Fetch(missing.len() - 1));
                        }
                    }
                }
                let mut found = std::mem::take(&mut local.fetched);
                found.clear();
                if !missing.is_empty() {
                    self.fetch_evidence(
                        mode,
                        counts,
                        scale,
                        packed,
                        &missing,
                        settle,
                        &mut local.fetch,
                        &mut found,
                    );
                }
                if let Some(key) = packed {
                    for (&(m, _), &(evidence, known)) in missing.iter().zip(&found) {
                        local.recent.insert((key, m), evidence);
                        local.map.insert((key, m), known);
                    }
                }
                out.extend(slots.iter().map(|slot| match *slot {
                    Slot::Ready(evidence) => evidence,
                    Slot::Fetch(index) => found[index].0,
                }));
                local.slots = slots;
                local.missing = missing;
                local.fetched = found;
            }
            _ => {
                // Off the lattice: resample the values (exact falls back to mc).
                let resamples = match mode {
                    BootstrapMode::Mc { resamples } => resamples,
                    BootstrapMode::Exact => EXACT_FALLBACK_RESAMPLES,
                };
                let cuts: Vec<f64> = self
                    .thresholds
                    .iter()
                    .map(|t| t.delta() + EPSILON)
                    .collect();
                let mut rng = case_key().rng();
                out.extend(
                    mc_values(values, &cuts, resamples, || rng.next_u64())
                        .into_iter()
                        .map(Evidence::Tails),
                );
            }
        }
    }

    /// Evidence for a lattice pattern at the `missing` cuts (each with its deciding side: true for
    /// R_promote = P*(S* ≤ m)), with the tails now known there: from the shared cache; else, when
    /// `settle`, the coarse sum, remembered there too; the exact tails where neither settles, computed
    /// and remembered. The shared cache holds one entry per pattern and cut, so replays with other
    /// threshold sets and tail cutoffs share the cuts they have in common.
    #[allow(clippy::too_many_arguments)] // the pattern, what to fetch, and reused buffers
    fn fetch_evidence(
        &self,
        mode: BootstrapMode,
        counts: &LatticeCounts,
        scale: u32,
        packed: Option<u64>,
        missing: &[(i64, bool)],
        settle: bool,
        scratch: &mut FetchScratch,
        out: &mut Vec<(Evidence, KnownTails)>,
    ) {
        let FetchScratch {
            cuts,
            cached,
            found,
            coarse_cuts,
            coarse_known,
            open,
        } = scratch;
        let pattern = match packed {
            Some(key) => Pattern::Packed(key),
            None => Pattern::Counts(counts.clone()),
        };
        let cutoff = self.cutoff;
        cuts.clear();
        cuts.extend(missing.iter().map(|&(m, _)| m));
        self.tails.get(&pattern, cuts, cached);
        coarse_cuts.clear();
        coarse_known.clear();
        found.clear();
        for (&(m, at_most), &known) in missing.iter().zip(cached.iter()) {
            let known = match known {
                Some(known) => Some(known),
                None if settle => {
                    let (tails, error) = bounds::coarse_tails(
                        counts.n(),
                        counts.counts[0],
                        counts.counts[2],
                        m,
                        self.ln_fact(),
                    );
                    let known = KnownTails { tails, error };
                    coarse_cuts.push(m);
                    coarse_known.push(known);
                    Some(known)
                }
                None => None,
            };
            found.push(known.and_then(|known| {
                known
                    .evidence(at_most, settle, cutoff)
                    .map(|evidence| (evidence, known))
            }));
        }
        if !coarse_cuts.is_empty() {
            self.tails.insert(&pattern, coarse_cuts, coarse_known);
        }
        open.clear();
        open.extend(
            cuts.iter()
                .zip(found.iter())
                .filter(|(_, slot)| slot.is_none())
                .map(|(&m, _)| m),
        );
        if !open.is_empty() {
            let computed: Vec<KnownTails> = match mode {
                BootstrapMode::Exact if scale == 1 => exact_binary_tails(
                    counts.n(),
                    counts.counts[0],
                    counts.counts[2],
                    open,
                    self.ln_fact(),
                ),
                BootstrapMode::Exact => {
                    let dist = exact_lattice(counts);
                    open.iter().map(|&m| dist.tails(m)).collect()
                }
                BootstrapMode::Mc { resamples } => {
                    // The resamples depend on the pattern only, so each cut's tails do not depend on
                    // which other cuts are computed with it.
                    let mut key = StreamKey::new(self.seed, "bootstrap").u64(u64::from(scale));
                    for &c in &counts.counts {
                        key = key.u64(u64::from(c));
                    }
                    let mut rng = key.rng();
                    mc_lattice(counts, open, resamples, || rng.next_u64())
                }
            }
            .into_iter()
            .map(KnownTails::exact)
            .collect();
            self.tails.insert(&pattern, open, &computed);
            let mut computed = computed.into_iter();
            for slot in found.iter_mut().filter(|slot| slot.is_none()) {
                *slot = computed
                    .next()
                    .map(|known| (Evidence::Tails(known.tails), known));
            }
        }
        out.clear();
        out.extend(found.iter().flatten().copied());
    }
}

/// The anytime rule's bets for a policy (defaults for the other rules, which do not read them).
pub fn bets_of(policy: &Policy, max_n: usize) -> Bets {
    let (cap, min, max) = match policy.rule {
        Rule::Anytime {
            cap,
            bet_min,
            bet_max,
        } => (cap, bet_min, bet_max),
        _ => (
            Rule::DEFAULT_CAP,
            Rule::DEFAULT_BET_MIN,
            Rule::DEFAULT_BET_MAX,
        ),
    };
    Bets::new(policy.tail.value(), cap.value(), max_n).with_scale(min.value(), max.value())
}

/// The anytime statistic for threshold `t`: exact for records; a caller that reads only actions
/// may get §9a's screened bound (below ln(1/a), so no adjustment can reject on it).
fn anytime_statistic(state: &Sequence, t: usize, detail: Detail) -> Statistic {
    match detail {
        Detail::Full => state.statistic(t),
        Detail::Actions => state.statistic_as_kept(t),
    }
}

/// The one-sided rule shared by the bootstrap and paired-normal: promote when the estimate is above δ
/// and the promote-side tail is within the cutoff, reject when it is not above and the reject-side tail
/// is, abstain otherwise.
fn one_sided(above: bool, promote_tail: f64, reject_tail: f64, cutoff: f64) -> (Action, Reason) {
    if above && promote_tail <= cutoff {
        (Action::Promote, Reason::Supported)
    } else if !above && reject_tail <= cutoff {
        (Action::Reject, Reason::Supported)
    } else {
        (Action::Abstain, Reason::Evidence)
    }
}

/// Whether every observed difference is exactly 0.
fn no_discordant_tasks(observed: &Observed, values: &[f64]) -> bool {
    match &observed.counts {
        Some(counts) => counts.counts[counts.scale as usize] == observed.n,
        None => values.iter().all(|&d| d == 0.0),
    }
}

/// A front for the shared [`TailCache`], held by one pair's tally at a time (the cache keeps them for
/// later pairs): tails of 0/±1 count patterns (packed into one integer) per cut, looked up without a
/// lock. Orders of one pair repeat the same patterns often, and
/// an entry serves every threshold set whose cut it is.
#[derive(Default)]
pub struct LocalTails {
    map: HashMap<(u64, i64), KnownTails, BuildHasherDefault<CountHasher>>,
    /// What the tails decided for each (pattern, cut) of the pair being walked (not what the cheap
    /// bounds settled: recomputing those costs about what remembering them does): a small table that
    /// stays in the processor's cache where the thread's whole map does not. Cleared per pair, so a
    /// settled entry never outlives the rule context and detail it was settled under.
    recent: HashMap<(u64, i64), Evidence, BuildHasherDefault<CountHasher>>,
    /// Reused per decision: the evidence per threshold and the cuts fetched from the shared cache.
    evidence: Vec<Evidence>,
    slots: Vec<Slot>,
    missing: Vec<(i64, bool)>,
    fetched: Vec<(Evidence, KnownTails)>,
    fetch: FetchScratch,
}

/// Buffers of [`RuleContext::fetch_evidence`], reused from one decision to the next.
#[derive(Default)]
struct FetchScratch {
    cuts: Vec<i64>,
    cached: Vec<Option<KnownTails>>,
    found: Vec<Option<(Evidence, KnownTails)>>,
    coarse_cuts: Vec<i64>,
    coarse_known: Vec<KnownTails>,
    open: Vec<i64>,
}

impl LocalTails {
    /// Starts a new pair (under one rule context and detail): the small table forgets the last pair.
    pub fn start_pair(&mut self) {
        self.recent.clear();
    }
}

/// What decides one threshold of a bootstrap decision.
#[derive(Debug, Clone, Copy)]
enum Evidence {
    /// Bounds settled whether the deciding tail is within the cutoff.
    Settled(bool),
    Tails(Tails),
}

/// The tails known for a pattern and cut: exact (`error` 0), or summed over coarse windows and within
/// `error` of the exact ones.
#[derive(Debug, Clone, Copy)]
struct KnownTails {
    tails: Tails,
    error: f64,
}

impl KnownTails {
    fn exact(tails: Tails) -> Self {
        KnownTails { tails, error: 0.0 }
    }

    /// The evidence these tails give for the side `at_most` (R_promote) or not (R_reject): exact tails
    /// always; coarse ones only a verdict, and only when the caller settles (`None` otherwise).
    fn evidence(self, at_most: bool, settle: bool, cutoff: Cutoff) -> Option<Evidence> {
        if self.error == 0.0 {
            return Some(Evidence::Tails(self.tails));
        }
        if !settle {
            return None;
        }
        let tail = if at_most {
            self.tails.at_most
        } else {
            self.tails.above
        };
        bounds::settle_near(tail, self.error, cutoff).map(Evidence::Settled)
    }
}

/// A threshold's evidence while the missing tails are fetched: ready, or the index of its cut among them.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Ready(Evidence),
    Fetch(usize),
}

/// Packs three counts below 2²¹ into one integer (the 0/±1 case); `None` for other lattices.
pub fn pack(counts: &LatticeCounts) -> Option<u64> {
    match counts.counts.as_slice() {
        [neg, zero, pos]
            if counts.scale == 1 && *neg < 1 << 21 && *zero < 1 << 21 && *pos < 1 << 21 =>
        {
            Some(u64::from(*neg) | u64::from(*zero) << 21 | u64::from(*pos) << 42)
        }
        _ => None,
    }
}

/// A multiply-rotate hasher for small integer keys (count patterns): much cheaper than SipHash, and the
/// keys are not attacker-controlled.
#[derive(Default, Clone, Copy)]
pub struct CountHasher(u64);

impl Hasher for CountHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    fn finish(&self) -> u64 {
        // The product's low bits depend only on the input's low bits (for a packed pattern, the count of
        // negatives), and the table picks its bucket from the low bits: fold the well-mixed high half
        // down, or patterns sharing a count of negatives all land in one probe sequence.
        self.0 ^ (self.0 >> 32)
    }
}

/// A count pattern: three counts packed into one integer (the 0/±1 case), or the lattice counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Pattern {
    Packed(u64),
    Counts(LatticeCounts),
}

type PackedCutMap = HashMap<(u64, i64), KnownTails, BuildHasherDefault<CountHasher>>;

type CountsCutMap = HashMap<(LatticeCounts, i64), KnownTails, BuildHasherDefault<CountHasher>>;

/// Bootstrap tails per observed count pattern and cut (exact, or coarse with their error bound), sharded
/// by pattern so that worker threads rarely wait. The values depend only on the pattern, the cut, the
/// bootstrap mode and (for mc) the seed, so a cache can serve every replay that shares those, whatever
/// its thresholds and tail cutoff (see [`TailCache::signature`]).
#[derive(Default)]
pub struct TailCache {
    /// 0/±1 patterns (nearly all) by their packed counts; other lattices by their counts.
    packed: [Mutex<PackedCutMap>; 16],
    counts: [Mutex<CountsCutMap>; 16],
    /// Lock-free fronts of this cache ([`LocalTails`]), one per pair being tallied at a time: a pair
    /// takes one and gives it back, so the next pair (of this replay or a later one sharing the cache)
    /// starts with what earlier pairs met. They hold only this cache's values, so they live with it.
    fronts: Mutex<Vec<LocalTails>>,
}

impl TailCache {
    /// A front for one pair's decisions: a kept one, or a new one if every kept front is in use.
    pub fn take_front(&self) -> LocalTails {
        let mut front = self
            .fronts
            .lock()
            .ok()
            .and_then(|mut fronts| fronts.pop())
            .unwrap_or_default();
        front.start_pair();
        front
    }

    /// Gives a front back for later pairs.
    pub fn put_front(&self, front: LocalTails) {
        if let Ok(mut fronts) = self.fronts.lock() {
            fronts.push(front);
        }
    }

    /// What a cache's contents depend on: replays with the same signature can share one cache.
    pub fn signature(settings: &crate::engine::settings::ReplaySettings) -> (Option<u32>, u64) {
        match settings.policy.rule {
            Rule::Bootstrap(BootstrapMode::Mc { resamples }) => (Some(resamples), settings.seed),
            _ => (None, 0),
        }
    }

    fn shard_index(pattern: &Pattern) -> usize {
        let mut hasher = CountHasher::default();
        pattern.hash(&mut hasher);
        (hasher.finish().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as usize
    }

    /// The cached tails of a pattern at each cut (`None` where absent).
    /// The cached tails of a pattern at each cut (`None` where absent), into `out`.
    fn get(&self, pattern: &Pattern, cuts: &[i64], out: &mut Vec<Option<KnownTails>>) {
        out.clear();
        let shard = Self::shard_index(pattern);
        match pattern {
            Pattern::Packed(key) => {
                if let Ok(map) = self.packed[shard].lock() {
                    out.extend(cuts.iter().map(|&m| map.get(&(*key, m)).copied()));
                }
            }
            Pattern::Counts(counts) => {
                if let Ok(map) = self.counts[shard].lock() {
                    out.extend(cuts.iter().map(|&m| map.get(&(counts.clone(), m)).copied()));
                }
            }
        }
        // A poisoned shard serves nothing: every cut is then computed afresh.
        out.resize(cuts.len(), None);
    }

    /// Remembers tails at each cut, keeping an exact entry over a coarse one (another thread may have
    /// computed the exact tails meanwhile).
    fn insert(&self, pattern: &Pattern, cuts: &[i64], tails: &[KnownTails]) {
        fn keep_best<K: Eq + Hash>(
            map: &mut HashMap<K, KnownTails, BuildHasherDefault<CountHasher>>,
            key: K,
            value: KnownTails,
        ) {
            map.entry(key)
                .and_modify(|old| {
                    if value.error <= old.error {
                        *old = value
                    }
                })
                .or_insert(value);
        }
        let shard = Self::shard_index(pattern);
        match pattern {
            Pattern::Packed(key) => {
                if let Ok(mut map) = self.packed[shard].lock() {
                    for (&m, &value) in cuts.iter().zip(tails) {
                        keep_best(&mut map, (*key, m), value);
                    }
                }
            }
            Pattern::Counts(counts) => {
                if let Ok(mut map) = self.counts[shard].lock() {
                    for (&m, &value) in cuts.iter().zip(tails) {
                        keep_best(&mut map, (counts.clone(), m), value);
                    }
                }
            }
        }
    }
}

/// The integer cut point of "estimate > δ" for n differences on the lattice 1/scale: the sum S of the
/// lattice values satisfies S/(n·scale) > δ + ε exactly when S > cut.
pub fn cut(n: u32, scale: u32, threshold: Threshold) -> i64 {
    let limit = f64::from(n) * f64::from(scale) * (threshold.delta() + EPSILON);
    // For limit ≥ 0 truncation is the floor, without a call to libm's floor (hot: every decision).
    if limit >= 0.0 {
        limit as i64
    } else {
        limit.floor() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::{Fraction, OrderKind};

    fn observed(values: &[i64], total: u32) -> Observed {
        let mut counts = LatticeCounts {
            scale: 1,
            counts: vec![0; 3],
        };
        for &v in values {
            counts.counts[(v + 1) as usize] += 1;
        }
        Observed {
            n: values.len() as u32,
            total,
            counts: Some(counts),
            sum_units: values.iter().sum(),
            sum_sq_units: values.iter().map(|v| v * v).sum(),
            sum: 0.0,
            sum_sq: 0.0,
            sequence: None,
        }
    }

    fn context(rule: Rule, tail: u32, thresholds: &[i32]) -> RuleContext {
        let policy = Policy {
            order: OrderKind::Uniform,
            coverage_gate: true,
            rule,
            tail: Fraction(tail),
            degenerate: Degenerate::Abstain,
            monitor: Default::default(),
            looks: Default::default(),
            family: Default::default(),
            adjust: Default::default(),
            coverage_share: Fraction::ONE,
        };
        RuleContext::new(
            policy,
            thresholds.iter().map(|&t| Threshold(t)).collect(),
            Some(1),
            0,
            600,
        )
    }

    fn decide(ctx: &RuleContext, obs: &Observed, coverage: CoverageStatus) -> Vec<Decision> {
        let mut out = Vec::new();
        ctx.decide(
            obs,
            coverage,
            &[],
            || StreamKey::new(0, "test"),
            Detail::Full,
            &mut LocalTails::default(),
            &mut out,
        );
        out
    }

    #[test]
    fn paired_normal_on_worked_numbers() {
        // D = 1,0,1,1,−1,0,1,0: mean 0.375, se = 0.263052, z = 1.425573, Φ(−z) = 0.076996.
        let obs = observed(&[1, 0, 1, 1, -1, 0, 1, 0], 100);
        let at_5 = decide(
            &context(Rule::PairedNormal, 500, &[0]),
            &obs,
            CoverageStatus::Ok,
        );
        let Statistic::PairedNormal {
            se,
            p_promote,
            p_reject,
        } = at_5[0].statistic
        else {
            panic!("statistic")
        };
        assert!((se - 0.263_052_140_404_575_6).abs() < 1e-12);
        assert!((p_promote - 0.076_995_833_143_499_5).abs() < 1e-12);
        assert!((p_reject - 0.923_004_166_856_500_6).abs() < 1e-12);
        assert_eq!(at_5[0].action, Action::Abstain);
        let at_10 = decide(
            &context(Rule::PairedNormal, 1000, &[0]),
            &obs,
            CoverageStatus::Ok,
        );
        assert_eq!(at_10[0].action, Action::Promote);
    }

    #[test]
    fn paired_normal_without_discordant_tasks_abstains() {
        let obs = observed(&[0, 0, 0, 0, 0], 10);
        let decisions = decide(
            &context(Rule::PairedNormal, 500, &[0, 500]),
            &obs,
            CoverageStatus::Ok,
        );
        assert!(
            decisions
                .iter()
                .all(|d| d.action == Action::Abstain && d.reason == Reason::NoVariance)
        );
    }

    #[test]
    fn serfling_on_worked_numbers() {
        // n = 50 of N = 100, a = 0.05: t = sqrt(4·(1 − 49/100)·ln 20 / 100) = 0.2472103.
        // 15 wins, 35 ties: estimate 0.3. At 0 pp 0.3 − t > 0 promotes; at 10 pp it abstains;
        // at 60 pp 0.3 + t ≤ 0.6 rejects.
        let mut values = vec![1; 15];
        values.extend(vec![0; 35]);
        let obs = observed(&values, 100);
        let decisions = decide(
            &context(Rule::Serfling, 500, &[0, 1000, 6000]),
            &obs,
            CoverageStatus::Ok,
        );
        let Statistic::Serfling { t } = decisions[0].statistic else {
            panic!("statistic")
        };
        assert!((t - 0.247_210_312_043_210_3).abs() < 1e-12);
        assert_eq!(
            decisions.iter().map(|d| d.action).collect::<Vec<_>>(),
            [Action::Promote, Action::Abstain, Action::Reject]
        );
    }

    #[test]
    fn a_margin_exactly_at_the_threshold_rejects() {
        // 30 wins, 20 losses, 50 ties: estimate exactly 0.10 = 10 pp.
        let mut values = vec![1; 30];
        values.extend(vec![-1; 20]);
        values.extend(vec![0; 50]);
        let obs = observed(&values, 100);
        assert!(!obs.above(Threshold(1000), Some(1)));
        assert!(obs.above(Threshold(999), Some(1)));
        let forced = decide(
            &context(Rule::Forced, 500, &[1000]),
            &obs,
            CoverageStatus::Ok,
        );
        assert_eq!(forced[0].action, Action::Reject);
    }

    #[test]
    fn no_discordant_tasks_never_promote_or_reject_under_the_bootstrap() {
        // All ties: every resample equals 0, so the tails would be 0 and 1 and a naive rule would reject
        // with certainty. The bootstrap abstains instead, like paired-normal with se = 0.
        for mode in [BootstrapMode::Exact, BootstrapMode::Mc { resamples: 200 }] {
            let obs = observed(&[0; 40], 100);
            let decisions = decide(
                &context(Rule::Bootstrap(mode), 500, &[0, 500, 1000]),
                &obs,
                CoverageStatus::Ok,
            );
            for d in &decisions {
                assert_eq!((d.action, d.reason), (Action::Abstain, Reason::NoVariance));
            }
            // One discordant task is enough for the rule to speak.
            let mut values = vec![0; 39];
            values.push(-1);
            let decisions = decide(
                &context(Rule::Bootstrap(mode), 500, &[0]),
                &observed(&values, 100),
                CoverageStatus::Ok,
            );
            assert_eq!(decisions[0].action, Action::Reject);
        }
    }

    #[test]
    fn a_literal_bootstrap_rejects_when_nothing_is_discordant() {
        // The plain bootstrap's resamples all equal 0: R_reject = P*(Δ* > δ) = 0 for δ ≥ 0.
        for mode in [BootstrapMode::Exact, BootstrapMode::Mc { resamples: 200 }] {
            let mut literal = context(Rule::Bootstrap(mode), 500, &[0, 500, 1000]);
            literal.policy.degenerate = Degenerate::Literal;
            let decisions = decide(&literal, &observed(&[0; 40], 100), CoverageStatus::Ok);
            for d in &decisions {
                assert_eq!(d.action, Action::Reject, "{mode}");
            }
        }
    }

    #[test]
    fn the_coverage_gate_abstains_before_looking_at_the_evidence() {
        let obs = observed(&[1; 30], 100);
        let decisions = decide(
            &context(Rule::Forced, 500, &[0]),
            &obs,
            CoverageStatus::Missing,
        );
        assert_eq!(decisions[0].action, Action::Abstain);
        assert_eq!(decisions[0].reason, Reason::Coverage);
        let mut ungated = context(Rule::Forced, 500, &[0]);
        ungated.policy.coverage_gate = false;
        assert_eq!(
            decide(&ungated, &obs, CoverageStatus::Missing)[0].action,
            Action::Promote
        );
    }

    #[test]
    fn exact_bootstrap_tails_are_reported_and_decide() {
        // 20 wins, 5 losses, 25 ties: Δ̂ = 0.3; at 0 pp the promote tail is tiny.
        let mut values = vec![1; 20];
        values.extend(vec![-1; 5]);
        values.extend(vec![0; 25]);
        let obs = observed(&values, 100);
        let decisions = decide(
            &context(Rule::Bootstrap(BootstrapMode::Exact), 500, &[0, 3000]),
            &obs,
            CoverageStatus::Ok,
        );
        let Statistic::Bootstrap {
            r_promote,
            r_reject,
            exact,
        } = decisions[0].statistic
        else {
            panic!("statistic")
        };
        assert!(exact);
        assert!(r_promote < 1e-3 && (r_promote + r_reject - 1.0).abs() < 1e-12);
        assert_eq!(decisions[0].action, Action::Promote);
        // At 30 pp the estimate equals δ: not above, and R_reject ≈ 0.5 > a, so it abstains.
        assert_eq!(decisions[1].action, Action::Abstain);
    }
}
