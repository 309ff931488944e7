//! What `pareval watch` knows and shows: the outcome rows read so far (by file, so that a file read
//! again replaces what it said), the run-averaged outcomes on the planned tasks, and per baseline the
//! live decision records (the same `decide` function, so the screen and `decide` agree at every
//! observed count), the running estimate with its anytime band and both wealths over the observed
//! tasks in plan order, and a notice when a pair decides. Rows for unplanned tasks, duplicate runs and
//! unreadable lines are reported with file and line and left out until fixed.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::follow::{Event, OutcomeRow};
use crate::engine::live::{
    LiveCache, LivePlan, LiveSettings, Reading, decide_live_cached, decide_live_family_cached,
    usable_tasks,
};
use crate::engine::rules::anytime::Band;
use crate::engine::rules::sequence::{BandTracker, Sequence};
use crate::engine::settings::Construction;
use crate::engine::walk::record::{DecisionRecord, Provenance};

/// Which systems are compared.
#[derive(Debug, Clone, PartialEq)]
pub enum Baselines {
    /// These, in this order.
    Named(Vec<String>),
    /// Every other system seen in the files (family `tested`), by name.
    Everyone,
}

/// One pair on screen.
#[derive(Debug, Clone)]
pub struct PairView {
    pub baseline: String,
    /// One record per threshold.
    pub records: Vec<DecisionRecord>,
    /// Estimate and anytime band after each observed task (plan order).
    pub band: Band,
    /// Both wealths of the focused threshold after each observed task.
    pub wealth_promote: Vec<f64>,
    pub wealth_reject: Vec<f64>,
    /// D_i of the tasks the pair's rule reads (SPEC §9c), in plan order, and each one's group
    /// (label index).
    pub diffs: Vec<f64>,
    pub groups: Vec<u32>,
}

/// Items by the system they belong to.
type BySystem<'a, T> = HashMap<&'a str, Vec<T>>;
/// Each system's rows (with their file) and due runs (task, run).
type RowsAndDue<'a> = (
    BySystem<'a, (&'a str, &'a Placed)>,
    BySystem<'a, (&'a str, &'a str)>,
);

/// A row as read, with where it came from.
/// A row's system, task and run.
type RowKey = (String, String, String);

#[derive(Debug, Clone)]
struct Placed {
    row: OutcomeRow,
    line: u64,
    /// When it was read, over every followed file: of two outcomes for one run in two files, the
    /// one read first is the one kept (in file-name order, a retry file named before the original
    /// took its place, and a standing decision flipped).
    arrival: u64,
}

pub struct WatchState {
    pub plan: LivePlan,
    pub tested: String,
    pub baselines: Baselines,
    pub settings: LiveSettings,
    provenance: Provenance,
    /// The threshold the band and wealth curves follow.
    pub focus: usize,
    rows: BTreeMap<String, Vec<Placed>>,
    /// Rows read so far, over all files (each row's `arrival`).
    arrivals: u64,
    /// By file read again from its start: when each (system, task, run) it held was first read, so
    /// that a rewritten or replaced file does not lose its rows' place to a file read since (a
    /// retry file's second outcomes took the original's place, and a decision flipped).
    reread_arrivals: HashMap<String, HashMap<RowKey, u64>>,
    /// Runs with status error on planned tasks, per system with any (see
    /// [`WatchState::errored_runs`]).
    errored: Vec<(String, usize)>,
    /// By file: the (system, task, run) keys said to be due (`Event::Due`).
    due: BTreeMap<String, Vec<(String, String, String)>>,
    pub pairs: Vec<PairView>,
    /// Newest last: decisions and rereads.
    pub notices: Vec<String>,
    /// The latest problem with an input row (file, line, value), until a poll reads cleanly.
    pub problem: Option<String>,
    /// Every row read but left out of the decisions as the files stand (a second outcome for a run,
    /// a task not in the plan), each named with its file and line: what `run` prints as it meets
    /// them and counts at the end.
    pub skipped_rows: Vec<String>,
    /// By file: the lines that could not be read as a row (`Event::Bad`), until the file is read
    /// again from its start.
    unreadable: BTreeMap<String, BTreeSet<u64>>,
    pub rows_read: usize,
    plan_index: HashMap<String, usize>,
    /// Each baseline's curves, kept between polls.
    curves: HashMap<String, Curves>,
    /// Each baseline's anytime sequence for the decisions, kept between polls (a poll that only adds
    /// tasks in plan order feeds just those; the decisions are the ones from scratch).
    decisions: HashMap<String, LiveCache>,
    /// The early predictor's panel (`--early MODEL --steps FILE`).
    pub early: Option<super::early::EarlyWatch>,
    /// The runs each task gets (`--runs`): a task with fewer runs in has no outcome yet.
    runs: crate::data::DeclaredRuns,
    /// Per system with declared runs that has rows: the runs declared and the planned tasks with
    /// some of them in but not all (see [`WatchState::runs_note`]).
    runs_waiting: Vec<(String, u32, usize)>,
}

impl WatchState {
    pub fn new(
        plan: LivePlan,
        tested: String,
        baselines: Baselines,
        settings: LiveSettings,
        provenance: Provenance,
    ) -> Self {
        let plan_index = plan
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i))
            .collect();
        let mut state = WatchState {
            plan,
            tested,
            baselines,
            settings,
            provenance,
            focus: 0,
            rows: BTreeMap::new(),
            arrivals: 0,
            reread_arrivals: HashMap::new(),
            errored: Vec::new(),
            due: BTreeMap::new(),
            pairs: Vec::new(),
            notices: Vec::new(),
            problem: None,
            skipped_rows: Vec::new(),
            unreadable: BTreeMap::new(),
            rows_read: 0,
            plan_index,
            curves: HashMap::new(),
            decisions: HashMap::new(),
            early: None,
            runs: crate::data::DeclaredRuns::default(),
            runs_waiting: Vec::new(),
        };
        state.recompute();
        state
    }

    /// Systems with rows read that are neither the tested system nor a named baseline (none under
    /// family `tested`, which compares every system): a misspelt `--tested` leaves its rows here.
    pub fn uncompared_systems(&self) -> Vec<String> {
        let seen: BTreeSet<&String> = self
            .rows
            .values()
            .flatten()
            .map(|placed| &placed.row.system)
            .filter(|system| !self.compares(system))
            .collect();
        seen.into_iter().cloned().collect()
    }

    /// Whether `system`'s rows are compared: the tested system, a named baseline, or any system
    /// under family `tested`.
    pub fn compares(&self, system: &str) -> bool {
        match &self.baselines {
            Baselines::Named(names) => system == self.tested || names.iter().any(|n| n == system),
            Baselines::Everyone => true,
        }
    }

    /// The compared systems (the tested one, then the named baselines) no row of which was read.
    pub fn compared_without_rows(&self) -> Vec<String> {
        let mut compared = vec![self.tested.clone()];
        if let Baselines::Named(names) = &self.baselines {
            compared.extend(names.iter().cloned());
        }
        compared.retain(|system| {
            !self
                .rows
                .values()
                .flatten()
                .any(|placed| placed.row.system == *system)
        });
        compared
    }

    /// The runs `--runs` declares for `system`'s tasks, if any.
    pub fn declared_runs(&self, system: &str) -> Option<u32> {
        self.runs.for_system(system)
    }

    /// Declares the runs each task gets (`--runs`): a task waits until that many are in.
    pub fn with_runs(mut self, runs: crate::data::DeclaredRuns) -> Self {
        self.runs = runs;
        self.recompute();
        self
    }

    /// Starts the notices panel with these lines (what the command line set that does not apply).
    pub fn with_notices(mut self, notices: &[String]) -> Self {
        self.notices.extend(notices.iter().cloned());
        self
    }

    /// Adds the early predictor's panel.
    pub fn with_early(mut self, early: super::early::EarlyWatch) -> Self {
        self.early = Some(early);
        self
    }

    /// Polls the steps files of the early panel; whether anything changed.
    pub fn poll_early(&mut self) -> bool {
        self.early
            .as_mut()
            .is_some_and(super::early::EarlyWatch::poll)
    }

    /// The early panel's figures: a trajectory has completed when its outcome row was read.
    pub fn early_summary(&self) -> Option<super::early::EarlySummary> {
        let early = self.early.as_ref()?;
        let mut completed = HashSet::new();
        let mut tasks = HashSet::new();
        for placed in self.rows.values().flatten() {
            let row = &placed.row;
            if self.plan_index.contains_key(&row.task) {
                tasks.insert(row.task.as_str());
            }
            completed.insert(crate::early::running::RunKey {
                system: row.system.clone(),
                task: row.task.clone(),
                run: row.run.clone(),
            });
        }
        Some(early.summary(&completed, tasks.len(), self.plan.tasks.len()))
    }

    /// Runs with status `error` on planned tasks, per system with any (the tested system first, then
    /// by name): each is read as its outcome, usually 0 (SPEC §9c), so a harness failure counts as
    /// the agent's unless the harness runs it again.
    pub fn errored_runs(&self) -> Vec<(String, usize)> {
        self.errored.clone()
    }

    /// [`WatchState::errored_runs`] counted from the rows as they are: once per poll (in
    /// [`WatchState::recompute`]), not per redraw or per `serve` reply.
    fn count_errored(&self) -> Vec<(String, usize)> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for placed in self.rows.values().flatten() {
            let row = &placed.row;
            if row.errored && self.plan_index.contains_key(&row.task) {
                *counts.entry(row.system.as_str()).or_default() += 1;
            }
        }
        let mut list: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(system, count)| (system.to_string(), count))
            .collect();
        list.sort_by_key(|(system, _)| *system != self.tested);
        list
    }

    /// Per system with declared runs (`--runs`), the planned tasks with some runs in but not all:
    /// counted once per poll, as the errored runs are.
    fn count_runs_waiting(&self) -> Vec<(String, u32, usize)> {
        if self.runs.is_empty() {
            return Vec::new();
        }
        // Distinct runs: a second outcome for a run is a problem the screen names, not a run.
        let mut seen: HashSet<(&str, &str, &str)> = HashSet::new();
        let mut runs_in: HashMap<(&str, &str), u32> = HashMap::new();
        for placed in self.rows.values().flatten() {
            let row = &placed.row;
            if self.plan_index.contains_key(&row.task)
                && seen.insert((&row.system, &row.task, &row.run))
            {
                *runs_in.entry((&row.system, &row.task)).or_default() += 1;
            }
        }
        let mut waiting: BTreeMap<&str, (u32, usize)> = BTreeMap::new();
        for (&(system, _), &count) in &runs_in {
            if let Some(runs) = self.runs.for_system(system) {
                let entry = waiting.entry(system).or_insert((runs, 0));
                entry.1 += usize::from(count < runs);
            }
        }
        let mut list: Vec<(String, u32, usize)> = waiting
            .into_iter()
            .map(|(system, (runs, tasks))| (system.to_string(), runs, tasks))
            .collect();
        list.sort_by_key(|(system, _, _)| *system != self.tested);
        list
    }

    /// The declared runs (`--runs`) of the systems with rows, and how many of their planned tasks
    /// wait for the rest of their runs, in words (None when no runs are declared).
    pub fn runs_note(&self) -> Option<String> {
        if self.runs.is_empty() {
            return None;
        }
        let each: Vec<String> = self
            .runs_waiting
            .iter()
            .map(|(system, runs, tasks)| {
                let plural = if *runs == 1 { "" } else { "s" };
                format!("{system} {runs} run{plural} a task ({tasks} waiting for the rest)")
            })
            .collect();
        Some(format!(
            "a task is read once all its runs are in (--runs): {}",
            if each.is_empty() {
                "no rows yet".to_string()
            } else {
                each.join(", ")
            }
        ))
    }

    /// What [`WatchState::errored_runs`] says, in words (None without any).
    pub fn errored_note(&self) -> Option<String> {
        let counts = self.errored_runs();
        if counts.is_empty() {
            return None;
        }
        let each: Vec<String> = counts
            .iter()
            .map(|(system, count)| format!("{system} {count}"))
            .collect();
        Some(format!(
            "runs with status error, read as their outcomes (a harness failure counts as the agent's \
             unless the harness runs it again): {}",
            each.join(", ")
        ))
    }

    /// Takes one poll's events; returns whether anything on screen changed. A poll without a bad
    /// line clears the last problem (it was fixed or is behind).
    pub fn apply(&mut self, events: Vec<Event>) -> bool {
        if events.is_empty() {
            return false;
        }
        let mut clean = true;
        // The rows this read left out, as the status bar names them: the last with the places of
        // the others (several in one read showed only the last before).
        let mut met: Vec<String> = Vec::new();
        let skipped_before: HashSet<String> = self.skipped_rows.iter().cloned().collect();
        for event in events {
            match event {
                Event::Row { file, line, row } => {
                    // A row a file read again still holds keeps its place among the files.
                    let key = (row.system.clone(), row.task.clone(), row.run.clone());
                    let arrival = match self
                        .reread_arrivals
                        .get_mut(&file)
                        .and_then(|earlier| earlier.remove(&key))
                    {
                        Some(arrival) => arrival,
                        None => {
                            self.arrivals += 1;
                            self.arrivals
                        }
                    };
                    self.rows
                        .entry(file)
                        .or_default()
                        .push(Placed { row, line, arrival });
                }
                Event::Bad {
                    file,
                    line,
                    message,
                } => {
                    clean = false;
                    met.push(format!(
                        "✗ {}: {message} (skipped)",
                        super::follow::bad_place(&file, line)
                    ));
                    self.unreadable.entry(file).or_default().insert(line);
                }
                Event::Due {
                    file,
                    system,
                    task,
                    run,
                } => self.due.entry(file).or_default().push((system, task, run)),
                Event::Waiting {
                    file,
                    line,
                    open_quote,
                } => self
                    .notices
                    .push(super::tail::waiting_message(&file, line, open_quote)),
                Event::Reread { file, rewritten } => {
                    if let Some(rows) = self.rows.remove(&file) {
                        let earlier: HashMap<RowKey, u64> = rows
                            .into_iter()
                            .map(|p| ((p.row.system, p.row.task, p.row.run), p.arrival))
                            .collect();
                        self.reread_arrivals.insert(file.clone(), earlier);
                    }
                    self.due.remove(&file);
                    self.unreadable.remove(&file);
                    if !rewritten {
                        self.notices.push(format!(
                            "{file} shrank or was replaced: read again from the start"
                        ));
                    }
                }
            }
        }
        if clean {
            self.problem = None;
        }
        self.recompute();
        met.extend(
            self.skipped_rows
                .iter()
                .filter(|row| !skipped_before.contains(*row))
                .cloned(),
        );
        if let Some(last) = met.last() {
            self.problem = Some(match met.len() {
                1 => last.clone(),
                n => format!(
                    "{last}; and {} more left out in this read: {}",
                    n - 1,
                    met[..n - 1]
                        .iter()
                        .map(|problem| problem_place(problem))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            });
        }
        true
    }

    /// How many lines of the files as they stand could not be read as rows (each was named when it
    /// was met), with the first of them: what a run that ends undecided must not pass over in silence.
    pub fn unreadable_note(&self) -> Option<String> {
        // Line 0 stands for a file that could not be read as a whole (a harness's result file).
        let lines = |file_lines: &BTreeSet<u64>| file_lines.range(1..).count();
        let count: usize = self.unreadable.values().map(lines).sum();
        let first_line = self
            .unreadable
            .iter()
            .find_map(|(file, file_lines)| Some((file, file_lines.range(1..).next()?)));
        let whole: Vec<&String> = self
            .unreadable
            .iter()
            .filter(|(_, file_lines)| file_lines.contains(&0))
            .map(|(file, _)| file)
            .collect();
        let mut parts = Vec::new();
        if let Some((file, first)) = first_line {
            parts.push(format!(
                "{count} line{} of the files could not be read and {} left out (the first: {file}, line {first})",
                if count == 1 { "" } else { "s" },
                if count == 1 { "was" } else { "were" }
            ));
        }
        if let Some(first) = whole.first() {
            parts.push(format!(
                "{} file{} could not be read and {} left out (the first: {first})",
                whole.len(),
                if whole.len() == 1 { "" } else { "s" },
                if whole.len() == 1 { "was" } else { "were" }
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// How many rows were read but left out of the decisions (a second outcome for a run, a task
    /// not in the plan), with the first of them.
    pub fn skipped_note(&self) -> Option<String> {
        let first = self.skipped_rows.first()?;
        let count = self.skipped_rows.len();
        Some(format!(
            "{count} row{} of the files {} left out of the decisions (the first: {})",
            if count == 1 { "" } else { "s" },
            if count == 1 { "was" } else { "were" },
            first.trim_start_matches("✗ ")
        ))
    }

    /// How many planned tasks `system` has finished: every run due on them is in.
    pub fn finished_tasks(&self, system: &str) -> usize {
        let (rows, due) = self.by_system();
        let outcomes = self.outcomes(
            rows.get(system).map_or(&[][..], Vec::as_slice),
            due.get(system).map_or(&[][..], Vec::as_slice),
            self.runs.for_system(system),
            &mut Vec::new(),
        );
        outcomes.iter().flatten().count()
    }

    /// Whether the run can stop: some pair is watched and every pair has its last action at every
    /// threshold: promote or reject, or whatever it decided at its budget limit.
    pub fn decided(&self) -> bool {
        // An action at the limit is the last, abstain included: nothing after the limit is read,
        // so the run has nothing left to give it (an anytime pair continues until then).
        let settled = |r: &DecisionRecord| r.action != crate::engine::rules::Action::Continue;
        !self.pairs.is_empty()
            && self
                .pairs
                .iter()
                .all(|p| !p.records.is_empty() && p.records.iter().all(settled))
    }

    pub fn cycle_focus(&mut self) {
        self.focus = (self.focus + 1) % self.settings.thresholds.len().max(1);
        self.recompute_curves();
    }

    fn baseline_names(&self, seen: &HashSet<&str>) -> Vec<String> {
        match &self.baselines {
            Baselines::Named(names) => names.clone(),
            Baselines::Everyone => {
                let mut names: Vec<String> = seen
                    .iter()
                    .filter(|&&s| s != self.tested)
                    .map(|s| s.to_string())
                    .collect();
                names.sort();
                names
            }
        }
    }

    /// Run-averaged outcomes on the planned tasks of one system's rows (file by file, in line order),
    /// and the problems met on the way. A task with a run said to be due (`Event::Due`) and not in
    /// yet has no outcome: averaging the runs that happen to be in would feed the sequence a value
    /// that later runs change. So has a task with fewer runs in than `declared` (`--runs`).
    fn outcomes(
        &self,
        rows: &[(&str, &Placed)],
        due: &[(&str, &str)],
        declared: Option<u32>,
        problems: &mut Vec<String>,
    ) -> Vec<Option<f64>> {
        // Each task's runs, added up in run order as the loader averages them (`decide` on the same
        // rows): in arrival order a run's mean had other last bits.
        let mut outcomes: Vec<Vec<(&str, f64)>> = vec![Vec::new(); self.plan.tasks.len()];
        // Keyed by plan index and run, sized for every row: one hash of the task per row, no rehash.
        let mut runs: HashSet<(usize, &str)> = HashSet::with_capacity(rows.len());
        for &(file, placed) in rows {
            let row = &placed.row;
            let Some(&i) = self.plan_index.get(&row.task) else {
                problems.push(format!(
                    "✗ {file}, line {}: task '{}' is not in the plan (skipped)",
                    placed.line, row.task
                ));
                continue;
            };
            if !runs.insert((i, row.run.as_str())) {
                problems.push(format!(
                    "✗ {file}, line {}: a second outcome for run '{}' of {} on {} (skipped)",
                    placed.line, row.run, row.system, row.task
                ));
                continue;
            }
            outcomes[i].push((row.run.as_str(), row.outcome));
        }
        let mut sums: Vec<(f64, u32)> = outcomes
            .iter_mut()
            .map(|task| {
                if task.len() > 1 {
                    task.sort_by(|a, b| run_order(a.0).cmp(&run_order(b.0)));
                }
                let sum = task.iter().fold(0.0, |sum, &(_, outcome)| sum + outcome);
                (sum, task.len() as u32)
            })
            .collect();
        for &(task, run) in due {
            if let Some(&i) = self.plan_index.get(task)
                && !runs.contains(&(i, run))
            {
                sums[i].1 = 0;
            }
        }
        if let Some(runs) = declared {
            for sum in &mut sums {
                if sum.1 < runs {
                    sum.1 = 0;
                }
            }
        }
        sums.into_iter()
            .map(|(sum, n)| (n > 0).then(|| sum / f64::from(n)))
            .collect()
    }

    /// Every row and due run, by system (one pass, not one per system).
    fn by_system(&self) -> RowsAndDue<'_> {
        let mut rows: BySystem<(&str, &Placed)> = HashMap::new();
        for (file, placed_rows) in &self.rows {
            for placed in placed_rows {
                rows.entry(placed.row.system.as_str())
                    .or_default()
                    .push((file.as_str(), placed));
            }
        }
        // In the order the rows were read, whatever their files' names.
        if self.rows.len() > 1 {
            for system_rows in rows.values_mut() {
                system_rows.sort_by_key(|&(_, placed)| placed.arrival);
            }
        }
        let mut due: BySystem<(&str, &str)> = HashMap::new();
        for (system, task, run) in self.due.values().flatten() {
            due.entry(system.as_str())
                .or_default()
                .push((task.as_str(), run.as_str()));
        }
        (rows, due)
    }

    fn recompute(&mut self) {
        self.rows_read = self.rows.values().map(Vec::len).sum();
        self.errored = self.count_errored();
        self.runs_waiting = self.count_runs_waiting();
        let (by_system, due_by_system) = self.by_system();
        let seen: HashSet<&str> = by_system.keys().copied().collect();
        let names = self.baseline_names(&seen);
        let mut problems = Vec::new();
        let rows_of = |name: &str| by_system.get(name).map_or(&[][..], Vec::as_slice);
        let due_of = |name: &str| due_by_system.get(name).map_or(&[][..], Vec::as_slice);
        let tested = self.outcomes(
            rows_of(&self.tested),
            due_of(&self.tested),
            self.runs.for_system(&self.tested),
            &mut problems,
        );
        let baselines: Vec<(String, Vec<Option<f64>>)> = names
            .iter()
            .map(|name| {
                let outcomes = self.outcomes(
                    rows_of(name),
                    due_of(name),
                    self.runs.for_system(name),
                    &mut problems,
                );
                (name.clone(), outcomes)
            })
            .collect();
        if let Some(problem) = problems.last() {
            self.problem = Some(problem.clone());
        }
        self.skipped_rows = problems;
        let mut caches: Vec<LiveCache> = baselines
            .iter()
            .map(|(name, _)| self.decisions.remove(name).unwrap_or_default())
            .collect();
        let records: Vec<Vec<DecisionRecord>> = if baselines.len() > 1 {
            let family: Vec<(&str, Vec<Option<f64>>)> = baselines
                .iter()
                .map(|(n, o)| (n.as_str(), o.clone()))
                .collect();
            let all = decide_live_family_cached(
                &self.plan,
                &self.tested,
                &tested,
                &family,
                &self.settings,
                &self.provenance,
                &mut caches,
            );
            all.chunks(self.settings.thresholds.len().max(1))
                .map(<[DecisionRecord]>::to_vec)
                .collect()
        } else {
            baselines
                .iter()
                .zip(caches.iter_mut())
                .map(|((name, outcomes), cache)| {
                    decide_live_cached(
                        &self.plan,
                        (&self.tested, name),
                        &tested,
                        outcomes,
                        &self.settings,
                        &self.provenance,
                        cache,
                    )
                })
                .collect()
        };
        // Baselines no longer watched drop their caches with them.
        self.decisions = baselines
            .iter()
            .map(|(name, _)| name.clone())
            .zip(caches)
            .collect();
        // Notices for pairs whose action became final since the last poll.
        for ((name, _), new) in baselines.iter().zip(&records) {
            let old = self.pairs.iter().find(|p| &p.baseline == name);
            for record in new {
                let was_final = old.is_some_and(|p| {
                    p.records
                        .iter()
                        .any(|r| r.threshold_pp == record.threshold_pp && r.action.is_final())
                });
                if record.action.is_final() && !was_final {
                    // An anytime decision names the look that made it; a poll may come tasks later.
                    let made_at = record.made_at();
                    let seen = if made_at < record.observed {
                        format!(" (seen at {})", record.observed)
                    } else {
                        String::new()
                    };
                    self.notices.push(format!(
                        "{} vs {} at {} pp: {} after {made_at} of {} tasks{seen}",
                        self.tested,
                        name,
                        crate::format::trim_number(record.threshold_pp),
                        record.action.name(),
                        record.total
                    ));
                }
            }
        }
        self.pairs = baselines
            .into_iter()
            .zip(records)
            .map(|((baseline, outcomes), records)| {
                let (mut diffs, mut groups) =
                    read_diffs(&self.plan, &tested, &outcomes, self.settings.reading);
                // A fixed-horizon rule read after its limit reads the limit's prefix only: the
                // curves follow what the decisions read.
                let read = records.first().map_or(diffs.len(), |r| r.observed as usize);
                diffs.truncate(read);
                groups.truncate(read);
                PairView {
                    baseline,
                    records,
                    band: Band {
                        estimate: Vec::new(),
                        lower: Vec::new(),
                        upper: Vec::new(),
                    },
                    wealth_promote: Vec::new(),
                    wealth_reject: Vec::new(),
                    diffs,
                    groups,
                }
            })
            .collect();
        self.recompute_curves();
    }

    /// The band and the wealth curves of every pair, grown from where the last poll left them when
    /// the new observed tasks only extend the old ones in plan order (else drawn afresh).
    fn recompute_curves(&mut self) {
        let total = self.plan.tasks.len();
        // The bets of the decisions: aimed at K/a when K baselines are adjusted together.
        let tail = self.settings.policy.tail.value();
        let mut bets = crate::engine::rules::bets_of(&self.settings.policy, total);
        let family = self.pairs.len();
        if family > 1 && self.settings.policy.adjust != crate::engine::settings::Adjust::None {
            bets = bets.aimed_at(tail / family as f64);
        }
        let focus = self
            .focus
            .min(self.settings.thresholds.len().saturating_sub(1));
        let mut sizes = vec![0u32; self.plan.labels.len()];
        for &g in &self.plan.groups {
            sizes[g as usize] += 1;
        }
        let construction = self
            .settings
            .policy
            .construction()
            .unwrap_or(Construction::Uniform);
        let mut kept = std::mem::take(&mut self.curves);
        for pair in &mut self.pairs {
            let scale = crate::engine::walk::pair::lattice_of(&pair.diffs);
            let key = (focus, family, scale);
            let curves = match kept.remove(&pair.baseline) {
                Some(curves)
                    if curves.key == key && curves.extends_to(&pair.diffs, &pair.groups) =>
                {
                    curves
                }
                _ => {
                    // §9a's band on nulls 2 pp apart (each null keeps its own minimiser), §9's 1 pp.
                    let step = if construction == Construction::Stratified {
                        0.02
                    } else {
                        0.01
                    };
                    Curves {
                        key,
                        seen: 0,
                        band: BandTracker::new(construction, &sizes, scale, step),
                        // The curves follow the focused threshold only.
                        sequence: Sequence::start(
                            construction,
                            &sizes,
                            scale,
                            &self.settings.thresholds[focus..=focus],
                            None,
                        )
                        .traced(),
                        diffs: Vec::new(),
                        groups: Vec::new(),
                        wealth_promote: Vec::new(),
                        wealth_reject: Vec::new(),
                    }
                }
            };
            let mut curves = curves;
            curves.grow(&pair.diffs, &pair.groups, &bets);
            let was_empty = pair.band.is_empty_now();
            pair.band = curves.band.band.clone();
            if let Some(since) = pair.band.empty_since()
                && !was_empty
            {
                self.notices.push(format!(
                    "{} vs {}: anytime band empty since task {since}: a crossing was false \
                     (each has a chance ≤ a)",
                    self.tested, pair.baseline
                ));
            }
            pair.wealth_promote.clone_from(&curves.wealth_promote);
            pair.wealth_reject.clone_from(&curves.wealth_reject);
            self.curves.insert(pair.baseline.clone(), curves);
        }
    }
}

/// One pair's band and wealth curves over the tasks observed so far (plan order), with what they
/// were drawn for (focused threshold, family size, lattice) so that a change redraws them.
#[derive(Debug, Clone)]
struct Curves {
    key: (usize, usize, Option<u32>),
    seen: usize,
    band: BandTracker,
    sequence: Sequence,
    diffs: Vec<f64>,
    groups: Vec<u32>,
    wealth_promote: Vec<f64>,
    wealth_reject: Vec<f64>,
}

impl Curves {
    /// Whether the pair's observed tasks now start with the ones these curves were drawn on.
    fn extends_to(&self, diffs: &[f64], groups: &[u32]) -> bool {
        diffs.len() >= self.seen
            && diffs[..self.seen] == self.diffs[..]
            && groups[..self.seen] == self.groups[..]
    }

    /// Takes the tasks beyond those already drawn.
    fn grow(&mut self, diffs: &[f64], groups: &[u32], bets: &crate::engine::rules::anytime::Bets) {
        for (&d, &g) in diffs[self.seen..].iter().zip(&groups[self.seen..]) {
            self.band.observe(d, g, bets);
            self.sequence.observe(d, g, bets);
            // §9's wealths, or §9a's exp(Λ): either is drawn against 1/a.
            let (up, down, _, _) = self
                .sequence
                .statistic(0)
                .anytime_evidence()
                .unwrap_or((1.0, 1.0, 1.0, 1.0));
            self.wealth_promote.push(up);
            self.wealth_reject.push(down);
        }
        self.diffs.extend_from_slice(&diffs[self.seen..]);
        self.groups.extend_from_slice(&groups[self.seen..]);
        self.seen = diffs.len();
    }
}

/// D_i of the tasks the pair's rule reads ([`usable_tasks`]: the plan's finished prefix by default),
/// in plan order, and each one's group.
fn read_diffs(
    plan: &LivePlan,
    tested: &[Option<f64>],
    baseline: &[Option<f64>],
    reading: Reading,
) -> (Vec<f64>, Vec<u32>) {
    usable_tasks(tested, baseline, reading)
        .tasks
        .iter()
        .map(|&i| {
            (
                tested[i].unwrap_or(0.0) - baseline[i].unwrap_or(0.0),
                plan.groups[i],
            )
        })
        .unzip()
}

/// A watch of `tested` against `baselines` with seed 0, the whole plan as budget and the default reading,
/// read by no file: the state the view's and the state's tests start from.
/// "f.csv, line 22" of a status-bar problem "✗ f.csv, line 22: … (skipped)".
fn problem_place(problem: &str) -> &str {
    let text = problem.trim_start_matches("✗ ");
    text.find(": ").map_or(text, |end| &text[..end])
}

#[cfg(test)]
impl WatchState {
    pub(crate) fn for_tests(
        plan: LivePlan,
        tested: &str,
        baselines: &[&str],
        policy: crate::engine::settings::Policy,
        thresholds: Vec<crate::engine::settings::Threshold>,
    ) -> Self {
        WatchState::new(
            plan,
            tested.into(),
            Baselines::Named(baselines.iter().map(|b| b.to_string()).collect()),
            LiveSettings {
                policy,
                thresholds,
                seed: 0,
                budget: crate::engine::settings::Fraction(10_000),
                reading: Default::default(),
            },
            Provenance {
                files: Vec::new(),
                program: "test".into(),
            },
        )
    }
}

/// Where a run comes in its task's order, as the loader numbers runs: whole numbers by value, then
/// any other id by its text.
pub(crate) fn run_order(run: &str) -> (bool, u64, &str) {
    match run.parse::<u64>() {
        Ok(number) => (false, number, ""),
        Err(_) => (true, 0, run),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Action;
    use crate::engine::settings::{Fraction, OrderKind, Preset, Threshold};

    fn state() -> WatchState {
        state_of(10, OrderKind::Stratified)
    }

    /// A watch of A against B on a plan of `tasks` tasks in one group drawn in `order`, at 0 pp
    /// under the anytime rule.
    fn state_of(tasks: usize, order: OrderKind) -> WatchState {
        let plan = LivePlan {
            tasks: (0..tasks).map(|i| format!("t{i}")).collect(),
            groups: vec![0; tasks],
            labels: vec!["all".into()],
        };
        let mut policy =
            Preset::Primary.policy(crate::engine::settings::BootstrapMode::Exact, Fraction(500));
        policy.rule = crate::engine::settings::Rule::ANYTIME;
        policy.order = order;
        WatchState::for_tests(plan, "A", &["B"], policy, vec![Threshold(0)])
    }

    fn row(file: &str, line: u64, system: &str, task: &str, outcome: f64) -> Event {
        Event::Row {
            file: file.into(),
            line,
            row: OutcomeRow {
                system: system.into(),
                task: task.into(),
                run: "0".into(),
                outcome,
                errored: false,
            },
        }
    }

    /// Of two outcomes for one run in two files, the one read first is kept, whatever the files'
    /// names: a retry file named before the original ("a_retry.csv") took its place when it
    /// appeared, and the standing decision flipped.
    #[test]
    fn a_later_file_s_second_outcome_does_not_replace_the_first_one_read() {
        let mut state = state_of(10, OrderKind::Stratified);
        let first: Vec<Event> = (0..10)
            .flat_map(|i| {
                let task = format!("t{i}");
                [
                    row("b_original.csv", 2 * i + 1, "A", &task, 1.0),
                    row("b_original.csv", 2 * i + 2, "B", &task, 0.0),
                ]
            })
            .collect();
        state.apply(first);
        let before = state.pairs[0].records[0].clone();
        assert!(before.action.is_final(), "{}", before.reason);
        state.apply(
            (0..10)
                .map(|i| row("a_retry.csv", i + 1, "A", &format!("t{i}"), 0.0))
                .collect(),
        );
        let after = &state.pairs[0].records[0];
        assert_eq!(
            (after.action, after.estimate),
            (before.action, before.estimate)
        );
        assert!(
            state
                .skipped_rows
                .iter()
                .all(|r| r.contains("a_retry.csv") && r.contains("a second outcome")),
            "{:?}",
            state.skipped_rows
        );
        assert_eq!(state.skipped_rows.len(), 10);
        // The original replaced by a copy of itself (a write to a temporary file and a rename):
        // read again, its rows keep their place before the retry file's.
        let mut again = vec![Event::Reread {
            file: "b_original.csv".into(),
            rewritten: false,
        }];
        again.extend((0..10).flat_map(|i| {
            let task = format!("t{i}");
            [
                row("b_original.csv", 2 * i + 1, "A", &task, 1.0),
                row("b_original.csv", 2 * i + 2, "B", &task, 0.0),
            ]
        }));
        state.apply(again);
        let reread = &state.pairs[0].records[0];
        assert_eq!(
            (reread.action, reread.estimate),
            (before.action, before.estimate)
        );
    }

    #[test]
    fn errored_runs_are_read_as_their_outcomes_and_counted() {
        let mut state = state();
        let errored = |file: &str, line: u64, system: &str, task: &str| {
            let mut event = row(file, line, system, task, 0.0);
            if let Event::Row { row, .. } = &mut event {
                row.errored = true;
            }
            event
        };
        assert_eq!(state.errored_note(), None);
        state.apply(vec![
            row("b.csv", 1, "B", "t0", 0.0),
            errored("a.csv", 1, "A", "t0"),
            row("b.csv", 2, "B", "t1", 1.0),
            errored("a.csv", 2, "A", "t1"),
            errored("b.csv", 3, "B", "t2"),
            // Not planned: named as a problem, not counted.
            errored("a.csv", 3, "A", "t99"),
        ]);
        // Read as their outcomes (0): both tasks read, A behind by one.
        assert_eq!(state.pairs[0].records[0].observed, 2);
        assert!((state.pairs[0].records[0].estimate - -0.5).abs() < 1e-12);
        assert_eq!(
            state.errored_runs(),
            [("A".to_string(), 2), ("B".to_string(), 1)]
        );
        assert_eq!(
            state.errored_note().as_deref(),
            Some(
                "runs with status error, read as their outcomes (a harness failure counts as the \
                 agent's unless the harness runs it again): A 2, B 1"
            )
        );
        // A file read again forgets its errored rows with the rest.
        state.apply(vec![Event::Reread {
            file: "a.csv".into(),
            rewritten: true,
        }]);
        assert_eq!(state.errored_runs(), [("B".to_string(), 1)]);
    }

    #[test]
    fn a_task_waits_for_every_run_said_due_and_its_outcome_is_their_mean() {
        // A's first run of t0 is in and a second is due: t0 is not read, whatever B did; once the
        // second is in, t0 is read with the mean of both. A file read again forgets what it said
        // was due, as it forgets its rows.
        let mut state = state();
        let due = |file: &str, run: &str| Event::Due {
            file: file.into(),
            system: "A".into(),
            task: "t0".into(),
            run: run.into(),
        };
        state.apply(vec![
            row("b.csv", 2, "B", "t0", 0.0),
            row("a.eval", 1, "A", "t0", 1.0),
            due("a.eval", "0"),
            due("a.eval", "1"),
        ]);
        assert_eq!(state.pairs[0].records[0].observed, 0);
        assert_eq!(state.finished_tasks("A"), 0);
        let mut second = row("a.eval", 2, "A", "t0", 0.0);
        if let Event::Row { row, .. } = &mut second {
            row.run = "1".into();
        }
        state.apply(vec![second]);
        assert_eq!(state.pairs[0].records[0].observed, 1);
        assert_eq!(state.finished_tasks("A"), 1);
        assert_eq!(state.pairs[0].diffs, vec![0.5]);
        state.apply(vec![
            Event::Reread {
                file: "a.eval".into(),
                rewritten: true,
            },
            row("a.eval", 1, "A", "t0", 1.0),
        ]);
        assert_eq!(state.pairs[0].diffs, vec![1.0]);
    }

    #[test]
    fn a_task_s_runs_are_added_in_run_order_whatever_order_they_arrive_in() {
        // As the loader averages them, so `watch` and `decide` on the same rows give the same bits:
        // 0.3 + 0.2 + 0.1 (arrival order) is not 0.1 + 0.2 + 0.3.
        let arriving = |runs: [(&str, f64); 3]| {
            let mut state = state();
            let mut events = vec![row("b.csv", 2, "B", "t0", 0.0)];
            for (line, (run, outcome)) in runs.into_iter().enumerate() {
                let mut event = row("a.csv", line as u64 + 2, "A", "t0", outcome);
                if let Event::Row { row, .. } = &mut event {
                    row.run = run.into();
                }
                events.push(event);
            }
            state.apply(events);
            state.pairs[0].diffs.clone()
        };
        let in_order = arriving([("0", 0.1), ("1", 0.2), ("2", 0.3)]);
        assert_eq!(in_order, vec![(0.1 + 0.2 + 0.3) / 3.0]);
        assert_eq!(arriving([("2", 0.3), ("1", 0.2), ("0", 0.1)]), in_order);
        assert_eq!(arriving([("1", 0.2), ("2", 0.3), ("0", 0.1)]), in_order);
    }

    #[test]
    fn a_task_waits_for_its_declared_runs_and_the_header_counts_it() {
        // --runs A=2: A's first run of t0 is not read; its second makes t0 read with their mean.
        let runs = crate::data::DeclaredRuns::parse(&["A=2".to_string()]).expect("runs");
        let mut declared = state().with_runs(runs);
        assert_eq!(
            declared.runs_note().as_deref(),
            Some("a task is read once all its runs are in (--runs): no rows yet")
        );
        declared.apply(vec![
            row("b.csv", 2, "B", "t0", 0.0),
            row("a.csv", 2, "A", "t0", 1.0),
        ]);
        assert_eq!(declared.pairs[0].records[0].observed, 0);
        assert_eq!(declared.finished_tasks("A"), 0);
        assert_eq!(
            declared.runs_note().as_deref(),
            Some(
                "a task is read once all its runs are in (--runs): A 2 runs a task (1 waiting for the rest)"
            )
        );
        let mut second = row("a.csv", 3, "A", "t0", 0.0);
        if let Event::Row { row, .. } = &mut second {
            row.run = "1".into();
        }
        declared.apply(vec![second]);
        assert_eq!(declared.pairs[0].records[0].observed, 1);
        assert_eq!(declared.pairs[0].diffs, vec![0.5]);
        assert!(
            declared
                .runs_note()
                .is_some_and(|n| n.ends_with("A 2 runs a task (0 waiting for the rest)"))
        );
        // Undeclared, the first run alone was read.
        let mut undeclared = state();
        undeclared.apply(vec![
            row("b.csv", 2, "B", "t0", 0.0),
            row("a.csv", 2, "A", "t0", 1.0),
        ]);
        assert_eq!(undeclared.pairs[0].records[0].observed, 1);
        assert_eq!(undeclared.runs_note(), None);
    }

    #[test]
    fn a_decision_found_by_a_late_poll_names_the_look_that_made_it() {
        // All ten tasks arrive in one poll; A wins every one, so the anytime rule decides well
        // before the tenth, and the record and the notice name that look.
        let mut state = state();
        let mut events = Vec::new();
        for t in 0..10 {
            events.push(row("f.csv", 2 * t + 2, "A", &format!("t{t}"), 1.0));
            events.push(row("f.csv", 2 * t + 3, "B", &format!("t{t}"), 0.0));
        }
        state.apply(events);
        let record = &state.pairs[0].records[0];
        assert_eq!((record.action, record.observed), (Action::Promote, 10));
        let at = record
            .decided_at
            .expect("a final anytime decision names its look");
        assert!(at < 10, "decided at {at}");
        let notice = format!("A vs B at 0 pp: promote after {at} of 10 tasks (seen at 10)");
        assert!(state.notices.contains(&notice), "{:?}", state.notices);
    }

    #[test]
    fn the_wealth_curve_and_the_record_go_on_past_the_decision() {
        // A wins three tasks in four, B one in three, on a plan of 200: the rule decides early by a
        // crossing, and 60 tasks in the record and the curve both show the evidence of the last
        // task, not of the look that decided (§9 on a uniform plan, §9a on a stratified one).
        for order in [OrderKind::Uniform, OrderKind::Stratified] {
            let mut state = state_of(200, order);
            let mut events = Vec::new();
            for t in 0..60 {
                let (a, b) = (u8::from(t % 4 != 0), u8::from(t % 3 == 0));
                events.push(row("f.csv", 2 * t + 2, "A", &format!("t{t}"), f64::from(a)));
                events.push(row("f.csv", 2 * t + 3, "B", &format!("t{t}"), f64::from(b)));
            }
            state.apply(events);
            let pair = &state.pairs[0];
            let record = &pair.records[0];
            assert_eq!(record.reason_code, crate::engine::rules::Reason::Supported);
            let at = record.decided_at.expect("decided") as usize;
            assert!(at < 50, "{order:?}: decided at {at}");
            let (wealth, _, _, _) = record
                .statistic
                .anytime_evidence()
                .expect("anytime evidence");
            let curve = &pair.wealth_promote;
            assert_eq!(curve.len(), 60);
            assert!(
                (curve[59] - wealth).abs() <= 1e-9 * wealth,
                "{order:?}: curve {} vs record {wealth}",
                curve[59]
            );
            assert!(curve[59] > curve[at - 1], "{order:?}: {curve:?}");
        }
    }

    #[test]
    fn after_a_fixed_horizon_limit_the_curves_follow_the_tasks_the_decision_read() {
        let plan = LivePlan {
            tasks: (0..10).map(|i| format!("t{i}")).collect(),
            groups: vec![0; 10],
            labels: vec!["all".into()],
        };
        let policy =
            Preset::Primary.policy(crate::engine::settings::BootstrapMode::Exact, Fraction(500));
        let mut state = WatchState::new(
            plan,
            "A".into(),
            Baselines::Named(vec!["B".into()]),
            LiveSettings {
                policy,
                thresholds: vec![Threshold(0)],
                seed: 0,
                budget: Fraction(5000),
                reading: Default::default(),
            },
            Provenance {
                files: Vec::new(),
                program: "test".into(),
            },
        );
        let mut events = Vec::new();
        for t in 0..10 {
            events.push(row("f.csv", 2 * t + 2, "A", &format!("t{t}"), 1.0));
            events.push(row("f.csv", 2 * t + 3, "B", &format!("t{t}"), 0.0));
        }
        state.apply(events);
        let pair = &state.pairs[0];
        assert_eq!(pair.records[0].observed, 5);
        assert_eq!(pair.records[0].finished, Some(10));
        assert_eq!(pair.diffs.len(), 5);
        assert_eq!(pair.band.estimate.len(), 5);
        assert_eq!(pair.wealth_promote.len(), 5);
    }

    #[test]
    fn rows_become_decisions_and_bad_rows_are_named() {
        let mut state = state();
        assert_eq!(state.pairs[0].records[0].observed, 0);
        let mut events = Vec::new();
        for t in 0..4 {
            events.push(row("f.csv", 2 * t + 2, "A", &format!("t{t}"), 1.0));
            events.push(row("f.csv", 2 * t + 3, "B", &format!("t{t}"), 0.0));
        }
        assert!(state.apply(events));
        assert_eq!(state.pairs[0].records[0].observed, 4);
        assert_eq!(state.pairs[0].diffs, [1.0; 4]);
        assert_eq!(state.pairs[0].band.estimate.len(), 4);
        assert_eq!(state.pairs[0].wealth_promote.len(), 4);
        // An unplanned task and a second outcome for one run: named with file and line, left out.
        state.apply(vec![row("f.csv", 10, "A", "elsewhere", 1.0)]);
        assert_eq!(
            state.problem.as_deref(),
            Some("✗ f.csv, line 10: task 'elsewhere' is not in the plan (skipped)")
        );
        state.apply(vec![row("f.csv", 11, "B", "t0", 1.0)]);
        assert!(
            state
                .problem
                .as_deref()
                .is_some_and(|p| p.contains("line 11: a second outcome"))
        );
        assert_eq!(state.pairs[0].records[0].observed, 4);
        // Lines that are no row at all are counted until the file is read again.
        assert_eq!(state.unreadable_note(), None);
        let bad = |line| Event::Bad {
            file: "f.csv".into(),
            line,
            message: "outcome 'abc' of A on t5 is not a number in [0, 1]".into(),
        };
        state.apply(vec![bad(13), bad(12)]);
        // Several left out in one read: the status bar names each (it showed the last alone).
        assert_eq!(
            state.problem.as_deref(),
            Some(
                "✗ f.csv, line 12: outcome 'abc' of A on t5 is not a number in [0, 1] (skipped); and 1 more left out in this read: f.csv, line 13"
            )
        );
        state.apply(vec![
            row("f.csv", 14, "A", "nope-1", 1.0),
            row("f.csv", 15, "A", "nope-2", 1.0),
            bad(16),
        ]);
        let problem = state.problem.clone().unwrap_or_default();
        for place in ["f.csv, line 14", "f.csv, line 15", "f.csv, line 16"] {
            assert!(problem.contains(place), "{place}: {problem}");
        }
        assert!(
            problem.contains("2 more left out in this read"),
            "{problem}"
        );
        state.apply(vec![bad(13)]);
        assert_eq!(
            state.unreadable_note().as_deref(),
            Some(
                "3 lines of the files could not be read and were left out (the first: f.csv, line 12)"
            )
        );
        // A harness's result file that could not be read at all is named as the file, not as a
        // "line 0" of it.
        state.apply(vec![Event::Bad {
            file: "output.jsonl".into(),
            line: 0,
            message: "line 31: not valid JSON".into(),
        }]);
        assert_eq!(
            state.problem.as_deref(),
            Some("✗ output.jsonl: line 31: not valid JSON (skipped)")
        );
        assert_eq!(
            state.unreadable_note().as_deref(),
            Some(
                "3 lines of the files could not be read and were left out (the first: f.csv, line 12); 1 file could not be read and was left out (the first: output.jsonl)"
            )
        );
        // Nothing new: nothing to redraw.
        assert!(!state.apply(Vec::new()));
        // The files are read again: what they said before is withdrawn.
        state.apply(
            ["f.csv", "output.jsonl"]
                .map(|file| Event::Reread {
                    file: file.into(),
                    rewritten: false,
                })
                .into(),
        );
        assert_eq!(state.unreadable_note(), None);
        assert_eq!(state.pairs[0].records[0].observed, 0);
        assert!(
            state
                .notices
                .last()
                .is_some_and(|n| n.contains("read again"))
        );
    }
}
