//! `pareval serve`: the live service as one long-running process that a harness integration talks to
//! in JSON Lines (one request a line on standard input, exactly one reply a line on standard output;
//! a blank line is skipped without one).
//! It keeps the same state as `watch` ([`WatchState`]: the same reading of the plan's prefix, the
//! same decisions as `decide`), so an integration in another language decides nothing itself.
//!
//! Requests: `{"op":"plan"}` (the task ids in plan order), `{"op":"check","tasks":[…]}` (ids not in
//! the plan, planned ids not given), `{"op":"outcome","system","task","run","outcome"}` (one finished
//! sample, with `"runs":N` when each task gets N runs numbered 0..N: the task then counts as
//! finished once all N are in, and `"status":"error"` for a sample the harness failed on, read as
//! its outcome and counted in the replies' `errored`; the reply is the state after it), `{"op":"decide"}` (the state with the full decision
//! records). A bad request (a key its op does not read among them) gets `{"ok":false,"error":…}` and
//! the process goes on; end of input ends it.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};

use serde::Serialize;
use serde_json::{Value, json};

use super::{CliError, LiveSetup, args};
use crate::engine::walk::record::{DecisionRecord, WaitingOn};
use crate::watch::follow::{Event, OutcomeRow, run_key};
use crate::watch::state::{Baselines, WatchState};

/// The keys each request may hold: a key no op reads (a misspelt "stauts", or a "threshold" sent to
/// `decide`, which takes its policy from the command line) is refused rather than passed over.
const OUTCOME_KEYS: &[&str] = &["op", "system", "task", "run", "outcome", "runs", "status"];
const CHECK_KEYS: &[&str] = &["op", "tasks"];
const BARE_KEYS: &[&str] = &["op"];

/// Refuses a request holding a key its op does not read.
fn known_keys(request: &Value, op: &str, keys: &[&str]) -> Result<(), String> {
    let unknown = request
        .as_object()
        .and_then(|object| object.keys().find(|key| !keys.contains(&key.as_str())));
    match unknown {
        Some(key) => Err(format!(
            "{op}: '{key}' is not one of its keys ({})",
            keys.join(", ")
        )),
        None => Ok(()),
    }
}

/// The request's `"runs"`: how many runs (numbered 0 to N-1) each task of the system gets, from 1
/// to 1000; None when absent.
fn runs_due(request: &Value) -> Result<Option<u32>, String> {
    match request.get("runs") {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .filter(|n| (1..=1000).contains(n))
            .map(|n| Some(n as u32))
            .ok_or_else(|| format!("\"runs\": {value} is not a whole number from 1 to 1000")),
    }
}

/// One pair's action at one threshold.
#[derive(Debug, Serialize)]
struct PairAction<'a> {
    baseline: &'a str,
    threshold_pp: f64,
    action: &'static str,
    /// The look (plan tasks read) that made a final anytime decision; null while it is open and
    /// for a fixed-horizon rule.
    decided_at: Option<u32>,
}

/// The state a reply reports: whether the run can stop, the reading of the pair that has read the
/// least, each pair's action and a line of text.
#[derive(Debug, Serialize)]
struct Status<'a> {
    ok: bool,
    decided: bool,
    usable: u32,
    finished: u32,
    total: u32,
    waiting_on: Option<&'a WaitingOn>,
    actions: Vec<PairAction<'a>>,
    summary: String,
    /// Runs sent with status error, and those of the baseline's preloaded records, per system with
    /// any (read as their outcomes).
    errored: std::collections::BTreeMap<String, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<Vec<&'a DecisionRecord>>,
}

/// The live state with what `serve` checks before a row goes in.
pub(crate) struct Service {
    state: WatchState,
    planned: HashSet<String>,
    /// The outcome of every (system, task, run) taken: the same outcome sent again (an integration
    /// retrying) is taken once; another one for it is refused, not skipped.
    taken: HashMap<(String, String, String), u64>,
    /// Rows taken so far: each gets its own line number in the state's bookkeeping.
    rows: u64,
    /// The (system, task) pairs whose due runs were told to the state (`"runs"`), with the count.
    runs_due: HashMap<(String, String), u32>,
    /// The first run taken of each (system, task): with no runs said due, that run alone is the
    /// task's outcome once read, and another run would change what was decided on it.
    first_run: HashMap<(String, String), String>,
    /// Runs with status error in the baseline's completed records, per system: the preloaded rows
    /// are each task's mean over its runs, which carries no status.
    preloaded_errored: std::collections::BTreeMap<String, usize>,
}

impl Service {
    pub(crate) fn new(state: WatchState) -> Self {
        let planned = state.plan.tasks.iter().cloned().collect();
        Service {
            state,
            planned,
            taken: HashMap::new(),
            rows: 0,
            runs_due: HashMap::new(),
            first_run: HashMap::new(),
            preloaded_errored: std::collections::BTreeMap::new(),
        }
    }

    /// Counts `runs` errored runs of `system` in the preloaded records, for the replies' `errored`.
    pub(crate) fn preloaded_errors(&mut self, system: &str, runs: usize) {
        if runs > 0 {
            *self
                .preloaded_errored
                .entry(system.to_string())
                .or_default() += runs;
        }
    }

    /// Takes a completed record's rows (the baseline's full run) as `label`.
    pub(crate) fn preload(&mut self, label: &str, rows: Vec<OutcomeRow>) {
        let events = rows
            .into_iter()
            .map(|row| {
                self.taken.insert(
                    (row.system.clone(), row.task.clone(), row.run.clone()),
                    row.outcome.to_bits(),
                );
                self.rows += 1;
                Event::Row {
                    file: label.to_string(),
                    line: self.rows,
                    row,
                }
            })
            .collect();
        self.state.apply(events);
    }

    /// The reply to one request line.
    pub(crate) fn answer(&mut self, line: &str) -> Value {
        match self.handle(line) {
            Ok(value) => value,
            Err(error) => json!({ "ok": false, "error": error }),
        }
    }

    fn handle(&mut self, line: &str) -> Result<Value, String> {
        // serde_json would keep the last of two values of one key without a word.
        if let Some(key) = crate::data::read::repeated_key(line.as_bytes()) {
            return Err(format!("the key \"{key}\" appears twice in the request"));
        }
        let request: Value =
            serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
        let op = request
            .get("op")
            .and_then(Value::as_str)
            .ok_or("the request has no \"op\" (plan, check, outcome or decide)")?;
        let keys = match op {
            "plan" | "decide" => Some(BARE_KEYS),
            "check" => Some(CHECK_KEYS),
            "outcome" => Some(OUTCOME_KEYS),
            _ => None,
        };
        if let Some(keys) = keys {
            known_keys(&request, op, keys)?;
        }
        match op {
            "plan" => Ok(json!({
                "ok": true,
                "tasks": self.state.plan.tasks,
                "total": self.state.plan.tasks.len(),
                "tested": self.state.tested,
                "baselines": match &self.state.baselines {
                    Baselines::Named(names) => json!(names),
                    Baselines::Everyone => json!("every other system"),
                },
                "protocol": 1,
            })),
            "check" => {
                let given: Vec<String> = request
                    .get("tasks")
                    .and_then(Value::as_array)
                    .ok_or("check needs \"tasks\": the ids the harness will run")?
                    .iter()
                    .map(|id| id_of("check", "tasks", id))
                    .collect::<Result<_, _>>()?;
                let given_set: HashSet<&str> = given.iter().map(String::as_str).collect();
                let unplanned: Vec<&String> = given
                    .iter()
                    .filter(|t| !self.planned.contains(t.as_str()))
                    .collect();
                let missing: Vec<&String> = self
                    .state
                    .plan
                    .tasks
                    .iter()
                    .filter(|t| !given_set.contains(t.as_str()))
                    .collect();
                Ok(json!({ "ok": true, "unplanned": unplanned, "missing": missing }))
            }
            "outcome" => {
                let runs = runs_due(&request)?;
                let (row, due) = self.outcome_row(&request, runs)?;
                let mut events = due;
                if let Some(row) = row {
                    self.rows += 1;
                    events.push(Event::Row {
                        file: "serve".to_string(),
                        line: self.rows,
                        row,
                    });
                }
                self.state.apply(events);
                Ok(self.status(false))
            }
            "decide" => Ok(self.status(true)),
            other => Err(format!(
                "'{other}' is not an op (plan, check, outcome or decide)"
            )),
        }
    }

    /// A request's row (None when the same outcome was taken before) and the runs it says are due
    /// on its task (once per system and task), refused when the system is not compared, the task is
    /// not planned, the outcome is not in [0, 1], the run is not one of the `runs` due or another
    /// count of runs was said before, or the (system, task, run) was given another outcome before.
    fn outcome_row(
        &mut self,
        request: &Value,
        runs: Option<u32>,
    ) -> Result<(Option<OutcomeRow>, Vec<Event>), String> {
        let field = |name: &str| {
            request
                .get(name)
                .ok_or_else(|| format!("outcome needs \"{name}\""))
                .and_then(|value| id_of("outcome", name, value))
        };
        let system = field("system")?;
        let task = field("task")?;
        let run = run_key(
            &request
                .get("run")
                .map_or(Ok(String::new()), |value| id_of("outcome", "run", value))?,
        )
        .map_err(|e| format!("{e} ({system} on {task})"))?;
        let outcome = match request.get("outcome") {
            Some(Value::Bool(b)) => f64::from(u8::from(*b)),
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            other => {
                return Err(format!(
                    "outcome of {system} on {task}: {} is not a number in [0, 1]",
                    other.map_or("nothing".to_string(), Value::to_string)
                ));
            }
        };
        if !(0.0..=1.0).contains(&outcome) {
            return Err(format!(
                "outcome of {system} on {task}: {outcome} is not a number in [0, 1]"
            ));
        }
        // −0 is 0: a retry that sends −0.0 after 0 is the same outcome, not a second one.
        let outcome = outcome + 0.0;
        // A harness failure is read as its outcome, as `decide` reads a row with status error, and
        // counted in the replies' `errored`.
        let errored = match request.get("status") {
            None | Some(Value::Null) => false,
            Some(Value::String(status)) if status.trim().eq_ignore_ascii_case("ok") => false,
            Some(Value::String(status)) if status.trim().eq_ignore_ascii_case("error") => true,
            Some(other) => {
                return Err(format!(
                    "status of {system} on {task}: {other} is not \"ok\" or \"error\" (a run not attempted has no outcome to send)"
                ));
            }
        };
        if !self.planned.contains(&task) {
            return Err(format!("task '{task}' is not in the plan"));
        }
        if let Baselines::Named(names) = &self.state.baselines
            && system != self.state.tested
            && !names.contains(&system)
        {
            return Err(format!(
                "system '{system}' is neither the tested system ({}) nor a baseline ({})",
                self.state.tested,
                names.join(", ")
            ));
        }
        // A second, different outcome for a run is refused before anything of the request is kept
        // (its `runs` went into the runs due while the request itself was refused).
        let key = (system.clone(), task.clone(), run.clone());
        if let Some(&bits) = self.taken.get(&key)
            && bits != outcome.to_bits()
        {
            return Err(format!(
                "a second outcome for run '{run}' of {system} on {task} ({outcome}, after {})",
                f64::from_bits(bits)
            ));
        }
        let mut due = Vec::new();
        let cell = (system.clone(), task.clone());
        // A request without "runs" is held to the count said before for its task, or --runs: a
        // run past it changed a task already read, and a decision reported turned back.
        let known_runs = runs
            .or_else(|| self.runs_due.get(&cell).copied())
            .or_else(|| self.state.declared_runs(&system));
        // Runs said due only after a run of the task came without them: that run was read as the
        // task's outcome, and the others would change it.
        let said_late = runs.is_some_and(|n| n > 1)
            && !self.runs_due.contains_key(&cell)
            && self.state.declared_runs(&system).is_none();
        match known_runs {
            Some(_) if said_late && self.first_run.contains_key(&cell) => {
                return Err(format!(
                    "{system} on {task}: runs said due after its run '{}' came with no \"runs\" and was read as the task's outcome; a task that gets several runs needs \"runs\":N on each of them (or --runs)",
                    self.first_run[&cell]
                ));
            }
            Some(known) if run.parse::<u32>().map_or(true, |r| r >= known) => {
                return Err(format!(
                    "run '{run}' of {system} on {task} is not one of the {known} runs said due (0 to {})",
                    known - 1
                ));
            }
            Some(_) => {}
            None => {
                if let Some(first) = self.first_run.get(&cell)
                    && *first != run
                {
                    return Err(format!(
                        "run '{run}' of {system} on {task}: its run '{first}' came with no \"runs\" and was read as the task's outcome; a task that gets several runs needs \"runs\":N on each of them (or --runs), else a later run would change what was decided"
                    ));
                }
            }
        }
        if let Some(runs) = runs {
            match self.runs_due.get(&cell) {
                Some(&said) if said != runs => {
                    return Err(format!(
                        "{system} on {task}: {runs} runs said due, after {said}"
                    ));
                }
                Some(_) => {}
                None => {
                    self.runs_due.insert(cell.clone(), runs);
                    due = (0..runs)
                        .map(|r| Event::Due {
                            file: "serve".to_string(),
                            system: system.clone(),
                            task: task.clone(),
                            run: r.to_string(),
                        })
                        .collect();
                }
            }
        }
        // An identical retry is taken once.
        if self.taken.contains_key(&key) {
            return Ok((None, due));
        }
        self.taken.insert(key, outcome.to_bits());
        self.first_run.entry(cell).or_insert_with(|| run.clone());
        Ok((
            Some(OutcomeRow {
                system,
                task,
                run,
                outcome,
                errored,
            }),
            due,
        ))
    }

    /// Whether every pair is decided at every threshold.
    pub(crate) fn decided(&self) -> bool {
        self.state.decided()
    }

    /// The state as a reply (with the full records for `decide`).
    fn status(&self, with_records: bool) -> Value {
        let records: Vec<&DecisionRecord> =
            self.state.pairs.iter().flat_map(|p| &p.records).collect();
        // The pair that has read the least speaks for the run.
        let least = records.iter().min_by_key(|r| r.observed);
        let status = Status {
            ok: true,
            decided: self.decided(),
            usable: least.map_or(0, |r| r.observed),
            finished: least.map_or(0, |r| r.finished.unwrap_or(r.observed)),
            total: self.state.plan.tasks.len() as u32,
            waiting_on: least.and_then(|r| r.waiting_on.as_ref()),
            actions: records
                .iter()
                .map(|r| PairAction {
                    baseline: &r.baseline,
                    threshold_pp: r.threshold_pp,
                    action: r.action.name(),
                    decided_at: r.decided_at,
                })
                .collect(),
            summary: summary(&self.state, &records),
            errored: {
                let mut errored: std::collections::BTreeMap<String, usize> =
                    self.state.errored_runs().into_iter().collect();
                for (system, runs) in &self.preloaded_errored {
                    *errored.entry(system.clone()).or_default() += runs;
                }
                errored
            },
            records: with_records.then(|| records.clone()),
        };
        serde_json::to_value(status)
            .unwrap_or_else(|e| json!({ "ok": false, "error": e.to_string() }))
    }
}

/// One line on the run: each pair's action at each threshold with its reason, or what it waits on.
fn summary(state: &WatchState, records: &[&DecisionRecord]) -> String {
    if records.is_empty() {
        return format!("no baseline rows yet for {}", state.tested);
    }
    records
        .iter()
        .map(|r| {
            // A final anytime decision names the look that made it, which later replies read past.
            let made_at = r.made_at();
            let head = format!(
                "{} vs {} at {} pp: {} after {made_at} of {} planned tasks",
                r.tested,
                r.baseline,
                crate::format::trim_number(r.threshold_pp),
                r.action.name(),
                r.total
            );
            if r.action.is_final() && made_at < r.observed {
                // Why it decided at that look, not what the tests read since.
                let why = r.reason_at_decision.as_deref().unwrap_or(&r.reason);
                format!("{head} (seen at {}; {why})", r.observed)
            } else if r.action.is_final() {
                format!("{head} ({})", r.reason)
            } else {
                match &r.waiting_on {
                    Some(waiting) => format!("{head}; {}", waiting.describe()),
                    None => head,
                }
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// An id given as a string or a number (Inspect sample ids are either), as written: the loader
/// and the other live readers read names so (a task ' t1' is not the plan's 't1'); trimmed here, a
/// planned ' t1' could never be sent and 't2 ' was taken for 't2'. A run id is trimmed where it is
/// parsed ([`run_key`]), as the loader trims it.
fn id_text(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(format!("{other} is not an id (a string or a number)")),
    }
}

/// [`id_text`] of the request's `key`, its error naming the op and the key ("outcome \"task\": null
/// is not an id"; the bare message left the harness to guess which of three ids it was).
fn id_of(op: &str, key: &str, value: &Value) -> Result<String, String> {
    id_text(value).map_err(|e| format!("{op} \"{key}\": {e}"))
}

/// `pareval serve`: loads the plan and any completed baseline records, then answers requests until
/// its input ends.
pub(crate) fn serve_command(
    args: &args::ServeArgs,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let mut setup = LiveSetup::new(&args.live, args.budget.as_deref())?;
    let mut preloads = Vec::new();
    if !args.files.is_empty() {
        let options = crate::data::LoadOptions {
            against_streamed_means: true,
            ..args.live.load_options()?
        };
        let files = crate::data::import::expand_paths(&args.files)?;
        for file in &files {
            let dataset = crate::data::load(std::slice::from_ref(file), &options)?;
            setup.inputs.extend(dataset.inputs.clone());
            let rows = super::replay_rows(&dataset, &setup.plan, file)?;
            let keep = |system: &str| match &setup.baselines {
                Baselines::Named(names) => names.iter().any(|n| n == system),
                Baselines::Everyone => system != args.live.tested,
            };
            let kept: Vec<OutcomeRow> = rows
                .into_iter()
                .flatten()
                .filter(|row| keep(&row.system))
                .collect();
            if dataset.systems.is_empty() {
                return Err(CliError::Input(format!(
                    "{}: no rows: a baseline's records are its completed run",
                    file.display()
                )));
            }
            if kept.is_empty() {
                return Err(CliError::Input(format!(
                    "{}: no rows of the baseline ({}); its systems are {}",
                    file.display(),
                    args.live.baseline_names()?.join(", "),
                    dataset
                        .systems
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            // Each preloaded row is a task's mean over its runs, so the errored runs among them are
            // counted from the record (they were left out of the replies' `errored`).
            let errored: Vec<(String, usize)> = dataset
                .systems
                .iter()
                .filter(|s| keep(&s.name))
                .map(|s| (s.name.clone(), s.errored))
                .collect();
            preloads.push((file.display().to_string(), kept, errored));
        }
    }
    let mut service = Service::new(setup.state(&args.live.tested));
    for (label, rows, errored) in preloads {
        service.preload(&label, rows);
        for (system, runs) in errored {
            service.preloaded_errors(&system, runs);
        }
    }
    let mut bytes = Vec::new();
    let mut first = true;
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(());
        }
        // A byte order mark before the first request (a harness writing through a UTF-8-with-BOM
        // stream) is skipped, as the loader skips one: it got "not a JSON object … column 1".
        let line = match std::mem::take(&mut first) {
            true => bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes),
            false => &bytes[..],
        };
        // A line that is not UTF-8 is a bad request like any other, not the end of the service.
        let reply = match std::str::from_utf8(line) {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => service.answer(line.trim()),
            Err(e) => json!({
                "ok": false,
                "error": format!("the request is not UTF-8 text ({e})"),
            }),
        };
        serde_json::to_writer(&mut *out, &reply).map_err(|e| CliError::Output(e.into()))?;
        writeln!(out)?;
        out.flush()?;
    }
}
