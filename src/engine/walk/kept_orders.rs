//! Task orders kept from one replay to the next (the explorer's worker). A change of threshold set,
//! budget measure, tail cutoff, rule or preset that keeps the task order walks the very same orders
//! again; drawing them is about a quarter of a replay, so they are stored once, up to a memory cap.
//!
//! An order is a function of its key (kind, pair names, seed, index) and of the pair's tasks, groups,
//! group spreads (Neyman) and cost keys (cost orders). Each pair's kept orders carry exactly those
//! inputs and are used only when every one of them is equal, bit for bit, so a kept order is always the
//! order that would have been drawn. Orders are kept whole (every task), so any budget measure can read
//! them, as u16 indices when the pair has at most 65,536 tasks.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::engine::settings::OrderKind;
use crate::engine::walk::pair::PairData;

/// The default memory cap: 100 orders of every SWE-bench pair take about 55 MB.
pub const DEFAULT_CAP_BYTES: usize = 256 << 20;

/// Kept orders of every pair, by the pair's position in the replay.
#[derive(Debug)]
pub struct OrderCache {
    cap_bytes: usize,
    used_bytes: AtomicUsize,
    slots: Mutex<Vec<Option<PairOrders>>>,
}

impl Default for OrderCache {
    fn default() -> Self {
        OrderCache::with_cap(DEFAULT_CAP_BYTES)
    }
}

/// What an order of a pair is drawn from besides its index.
#[derive(Debug, PartialEq)]
struct OrderSource {
    kind: OrderKind,
    seed: u64,
    names: (String, String),
    tasks: Vec<u32>,
    group_of: Vec<u32>,
    group_sd_bits: Vec<u64>,
    cost_key_bits: Vec<u64>,
}

impl OrderSource {
    fn of(kind: OrderKind, seed: u64, names: (&str, &str), pair: &PairData) -> Self {
        OrderSource {
            kind,
            seed,
            names: (names.0.to_string(), names.1.to_string()),
            tasks: pair.tasks.clone(),
            group_of: pair.group_of.clone(),
            group_sd_bits: pair.group_sd.iter().map(|x| x.to_bits()).collect(),
            cost_key_bits: pair.cost_key.iter().map(|x| x.to_bits()).collect(),
        }
    }

    fn matches(&self, kind: OrderKind, seed: u64, names: (&str, &str), pair: &PairData) -> bool {
        let same_bits = |bits: &[u64], values: &[f64]| {
            bits.len() == values.len() && bits.iter().zip(values).all(|(b, v)| *b == v.to_bits())
        };
        self.kind == kind
            && self.seed == seed
            && self.names.0 == names.0
            && self.names.1 == names.1
            && self.tasks == pair.tasks
            && self.group_of == pair.group_of
            && same_bits(&self.group_sd_bits, &pair.group_sd)
            && same_bits(&self.cost_key_bits, &pair.cost_key)
    }
}

/// One boxed slice per order, so each takes exactly its size (a growing vector would hold up to twice).
#[derive(Debug)]
enum Indices {
    Narrow(Vec<Box<[u16]>>),
    Wide(Vec<Box<[u32]>>),
}

/// The first orders of one pair, each of all `n` tasks.
#[derive(Debug)]
pub struct PairOrders {
    source: OrderSource,
    n: usize,
    indices: Indices,
}

impl PairOrders {
    fn count(&self) -> usize {
        match &self.indices {
            Indices::Narrow(v) => v.len(),
            Indices::Wide(v) => v.len(),
        }
    }

    fn bytes_per_order(&self) -> usize {
        match &self.indices {
            Indices::Narrow(_) => self.n * 2,
            Indices::Wide(_) => self.n * 4,
        }
    }

    fn bytes(&self) -> usize {
        self.count() * self.bytes_per_order()
    }

    /// Whether order `index` is kept; if so it is written to `out`.
    pub fn read(&self, index: u32, out: &mut Vec<u32>) -> bool {
        let index = index as usize;
        out.clear();
        match &self.indices {
            Indices::Narrow(v) => match v.get(index) {
                Some(order) => out.extend(order.iter().map(|&i| u32::from(i))),
                None => return false,
            },
            Indices::Wide(v) => match v.get(index) {
                Some(order) => out.extend_from_slice(order),
                None => return false,
            },
        }
        true
    }
}

impl OrderCache {
    pub fn with_cap(cap_bytes: usize) -> Self {
        OrderCache {
            cap_bytes,
            used_bytes: AtomicUsize::new(0),
            slots: Mutex::new(Vec::new()),
        }
    }

    /// Bytes of orders held now.
    pub fn used_bytes(&self) -> usize {
        self.used_bytes.load(Ordering::Relaxed)
    }

    /// The kept orders of the pair at `position`, if they were drawn from the same inputs; otherwise
    /// (and the first time) an empty set for those inputs. Hand it back with [`OrderCache::put`].
    pub fn take(
        &self,
        position: usize,
        kind: OrderKind,
        seed: u64,
        names: (&str, &str),
        pair: &PairData,
    ) -> PairOrders {
        let kept = self
            .slots
            .lock()
            .ok()
            .and_then(|mut slots| slots.get_mut(position).and_then(Option::take));
        match kept {
            Some(orders) if orders.source.matches(kind, seed, names, pair) => orders,
            stale => {
                if let Some(stale) = stale {
                    self.used_bytes.fetch_sub(stale.bytes(), Ordering::Relaxed);
                }
                let n = pair.tasks.len();
                PairOrders {
                    source: OrderSource::of(kind, seed, names, pair),
                    n,
                    indices: if n <= usize::from(u16::MAX) + 1 {
                        Indices::Narrow(Vec::new())
                    } else {
                        Indices::Wide(Vec::new())
                    },
                }
            }
        }
    }

    /// Keeps `order` (all of the pair's tasks) as order `index` when it is the next one and the cap
    /// allows.
    pub fn keep(&self, orders: &mut PairOrders, index: u32, order: &[u32]) {
        if index as usize != orders.count() || order.len() != orders.n {
            return;
        }
        let bytes = orders.bytes_per_order();
        let reserved = self
            .used_bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used + bytes <= self.cap_bytes).then_some(used + bytes)
            });
        if reserved.is_err() {
            return;
        }
        match &mut orders.indices {
            // Indices are below n ≤ 65,536 here, so they fit.
            Indices::Narrow(v) => v.push(order.iter().map(|&i| i as u16).collect()),
            Indices::Wide(v) => v.push(order.into()),
        }
    }

    /// Hands a pair's orders back for the next replay.
    pub fn put(&self, position: usize, orders: PairOrders) {
        let Ok(mut slots) = self.slots.lock() else {
            self.used_bytes.fetch_sub(orders.bytes(), Ordering::Relaxed);
            return;
        };
        if slots.len() <= position {
            slots.resize_with(position + 1, || None);
        }
        if let Some(replaced) = slots[position].replace(orders) {
            self.used_bytes
                .fetch_sub(replaced.bytes(), Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair of `n` tasks in two groups (even and odd tasks).
    fn pair(n: u32) -> PairData {
        let group_of: Vec<u32> = (0..n).map(|i| i % 2).collect();
        PairData {
            tested: 0,
            baseline: 1,
            tasks: (0..n).collect(),
            diffs: vec![0.0; n as usize],
            units: vec![0; n as usize],
            members: (0..2)
                .map(|g| (0..n).filter(|i| i % 2 == g).collect())
                .collect(),
            group_of,
            group_sizes: vec![n.div_ceil(2), n / 2],
            group_labels: vec![0, 1],
            group_sd: vec![0.5, 0.25],
            resource: Vec::new(),
            truth_diffs: Vec::new(),
            truth_units: Vec::new(),
            steps_run: Vec::new(),
            steps_full: Vec::new(),
            cost_key: (0..n).map(f64::from).collect(),
            spent_cost: Vec::new(),
            spent_seconds: Vec::new(),
            left_out: 0,
            quota_schedule: Vec::new(),
            tie_blocks: Vec::new(),
            slots: Vec::new(),
            tie_trees: Vec::new(),
            initial_slack: Vec::new(),
        }
    }

    const NAMES: (&str, &str) = ("a", "b");

    fn reversed(n: u32) -> Vec<u32> {
        (0..n).rev().collect()
    }

    #[test]
    fn kept_orders_are_read_back_only_under_the_same_inputs() {
        let cache = OrderCache::default();
        let base = pair(6);
        let kind = OrderKind::Stratified;
        let mut kept = cache.take(3, kind, 7, NAMES, &base);
        let mut out = Vec::new();
        assert!(!kept.read(0, &mut out));
        cache.keep(&mut kept, 0, &[0, 1, 2, 3, 4, 5]);
        cache.keep(&mut kept, 1, &reversed(6));
        cache.put(3, kept);
        assert_eq!(cache.used_bytes(), 2 * 6 * 2);

        let kept = cache.take(3, kind, 7, NAMES, &base);
        assert!(kept.read(1, &mut out));
        assert_eq!(out, reversed(6));
        assert!(kept.read(0, &mut out));
        assert_eq!(out, [0, 1, 2, 3, 4, 5]);
        assert!(!kept.read(2, &mut out));
        cache.put(3, kept);

        // Each input an order is drawn from, changed alone, makes the kept orders stale.
        let mut other_tasks = pair(6);
        other_tasks.tasks[5] = 9;
        let mut other_groups = pair(6);
        other_groups.group_of.swap(0, 1);
        let mut other_spread = pair(6);
        other_spread.group_sd[1] = 0.3;
        let mut other_costs = pair(6);
        other_costs.cost_key[2] = f64::NAN;
        /// What changed, and the inputs asked for: kind, seed, names, pair.
        type Change<'a> = (&'a str, OrderKind, u64, (&'a str, &'a str), &'a PairData);
        let changes: [Change; 8] = [
            ("kind", OrderKind::Neyman, 7, NAMES, &base),
            ("seed", kind, 8, NAMES, &base),
            ("tested", kind, 7, ("c", "b"), &base),
            ("baseline", kind, 7, ("a", "c"), &base),
            ("tasks", kind, 7, NAMES, &other_tasks),
            ("groups", kind, 7, NAMES, &other_groups),
            ("spreads", kind, 7, NAMES, &other_spread),
            ("costs", kind, 7, NAMES, &other_costs),
        ];
        for (what, other_kind, seed, names, pair) in changes {
            // Orders kept under the base inputs, then asked for under the changed ones.
            let mut kept = cache.take(3, kind, 7, NAMES, &base);
            if !kept.read(0, &mut out) {
                cache.keep(&mut kept, 0, &reversed(6));
            }
            cache.put(3, kept);
            assert_ne!(cache.used_bytes(), 0);
            let kept = cache.take(3, other_kind, seed, names, pair);
            assert!(!kept.read(0, &mut out), "{what}");
            assert_eq!(cache.used_bytes(), 0, "{what}: stale orders still counted");
            cache.put(3, kept);
        }
        // The same NaN cost key is the same input (compared bit for bit).
        let mut kept = cache.take(3, kind, 7, NAMES, &other_costs);
        cache.keep(&mut kept, 0, &reversed(6));
        cache.put(3, kept);
        let kept = cache.take(3, kind, 7, NAMES, &other_costs);
        assert!(kept.read(0, &mut out));
    }

    #[test]
    fn only_the_next_order_is_kept_and_only_within_the_cap() {
        let cache = OrderCache::with_cap(2 * 4 * 2);
        let base = pair(4);
        let mut kept = cache.take(0, OrderKind::Uniform, 1, NAMES, &base);
        cache.keep(&mut kept, 1, &[0, 1, 2, 3]); // not the next order: order 0 is missing
        cache.keep(&mut kept, 0, &[0, 1, 2]); // not a whole order
        assert_eq!(cache.used_bytes(), 0);
        for index in 0..3 {
            cache.keep(&mut kept, index, &reversed(4));
        }
        assert_eq!(cache.used_bytes(), 16, "a third order would pass the cap");
        let mut out = Vec::new();
        assert!(kept.read(1, &mut out) && !kept.read(2, &mut out));
        // A second pair's orders count against the same cap.
        let mut second = cache.take(1, OrderKind::Uniform, 1, NAMES, &base);
        cache.keep(&mut second, 0, &reversed(4));
        assert!(!second.read(0, &mut out));
        cache.put(0, kept);
        cache.put(1, second);
        assert_eq!(cache.used_bytes(), 16);
    }

    #[test]
    fn pairs_of_more_than_65536_tasks_keep_wide_indices() {
        let cache = OrderCache::default();
        let large = pair(70_000);
        let mut kept = cache.take(0, OrderKind::Uniform, 1, NAMES, &large);
        let order = reversed(70_000);
        cache.keep(&mut kept, 0, &order);
        assert_eq!(cache.used_bytes(), 70_000 * 4);
        let mut out = Vec::new();
        assert!(kept.read(0, &mut out));
        assert_eq!(out, order);
    }
}
