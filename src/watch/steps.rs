//! Following steps files while a harness appends to them (issue 21), for `halt --follow` and
//! `watch --early`: each file's [`Tail`] (partial lines wait, a shrunk or replaced file is read anew),
//! every complete row parsed by the loader's rules for step values and pushed into the
//! [`Scoreboard`] of running trajectories. A CSV header (or a JSON Lines file's first object, whose
//! keys stand for one) without a step column the model was trained on is an error, and nothing more
//! is read from that file until it is replaced (nothing it would score could be trusted); a bad row, a step out of order or a trajectory that appears in two files
//! is news with file and line, and the rest goes on. A file read again announces no trajectory
//! twice, and keeps the trajectories it held before for the end's count.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::tail::{LineFormat, Tail, TailEvent};
use crate::data::ColumnMap;
use crate::data::trajectories::{STEP_COLUMNS, step_columns, step_from_fields};
use crate::early::halting::Thresholds;
use crate::early::running::{Change, HaltRow, RunKey, RunState, Scoreboard};
use crate::early::saved::Predictor;

/// What one poll found, in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum StepsNews {
    /// A trajectory seen for the first time, or one that just halted: its row now.
    Changed { change: Change, row: HaltRow },
    /// A line or step that could not be taken: file, line, what is wrong.
    Problem(String),
    /// A file shrank or was replaced; its trajectories are read again from the start.
    Reread(String),
    /// A last line has had no line end for a while (see [`TailEvent::Waiting`]): what to say.
    Waiting(String),
}

pub struct StepsFollower {
    files: Vec<(String, Tail)>,
    /// Files whose header lacks a column the model needs: nothing more is read from them until they
    /// are replaced.
    refused: Vec<bool>,
    /// Files whose columns have been checked: a CSV header, or a JSON Lines file's first object.
    checked: Vec<bool>,
    /// Which file each trajectory came from (a trajectory lives in one file).
    origin: HashMap<RunKey, usize>,
    pub board: Scoreboard,
    predictor: Arc<Predictor>,
    columns: ColumnMap,
    /// Lines taken so far (rows, headers, bad lines): an idle time counts from the last one, not
    /// from the last line printed (steps that change no action print nothing).
    pub lines_read: u64,
    /// The trajectories a file held before it was read again from its start (rewritten, or rotated
    /// away): still counted at the end unless the new file holds them again.
    retired: Vec<RunState>,
    /// The (trajectory, halted) announcements made: a file read again announces none twice.
    announced: HashSet<(RunKey, bool)>,
    /// The paths given: which never appeared, or went.
    pub presence: super::follow::Presence,
    /// Where each step that came before its turn was read (file, line): a gap that never closes is
    /// named with its place, as a finished file's is.
    ahead_at: HashMap<(RunKey, usize), (usize, u64)>,
}

/// `--follow` reads appended CSV or TSV rows, or JSON Lines objects.
pub fn line_format(path: &Path) -> Result<LineFormat, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.ends_with(".csv") {
        Ok(LineFormat::Csv)
    } else if name.ends_with(".tsv") || name.ends_with(".tab") {
        Ok(LineFormat::Tsv)
    } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        Ok(LineFormat::JsonLines)
    } else {
        Err(format!(
            "{}: steps are followed in .csv, .tsv or .jsonl files that a harness appends to",
            path.display()
        ))
    }
}

impl StepsFollower {
    pub fn new(
        paths: &[PathBuf],
        predictor: Arc<Predictor>,
        thresholds: Thresholds,
        columns: ColumnMap,
    ) -> Result<Self, String> {
        let mut files = Vec::new();
        for path in paths {
            files.push((
                path.display().to_string(),
                Tail::new(path, line_format(path)?),
            ));
        }
        Ok(StepsFollower {
            refused: vec![false; files.len()],
            checked: vec![false; files.len()],
            files,
            origin: HashMap::new(),
            board: Scoreboard::new(predictor.clone(), thresholds),
            predictor,
            columns,
            lines_read: 0,
            retired: Vec::new(),
            announced: HashSet::new(),
            presence: super::follow::Presence::new(paths),
            ahead_at: HashMap::new(),
        })
    }

    /// The trajectories whose steps before their turn are still waiting, each named with the file and
    /// line of its first waiting step ("f.csv, line 4: … jumps to step 4 (step 3 is missing)").
    pub fn gaps(&self) -> Vec<String> {
        self.board
            .runs
            .iter()
            .filter_map(|run| {
                let gap = run.gap()?;
                let place = run
                    .first_ahead()
                    .and_then(|number| self.ahead_at.get(&(run.key.clone(), number)))
                    .map(|&(f, line)| format!("{}, line {line}: ", self.files[f].0));
                Some(place.unwrap_or_default() + &gap)
            })
            .collect()
    }

    /// Every trajectory followed: those of the files as they are now, then those a file held before
    /// it was read again and does not hold now.
    pub fn all_runs(&self) -> impl Iterator<Item = &RunState> {
        self.board.runs.iter().chain(&self.retired)
    }

    /// The writers have ended: a last line without a line end is read at the next poll.
    pub fn writers_ended(&mut self) {
        for (_, tail) in &mut self.files {
            tail.writer_ended();
        }
    }

    /// One poll of every file. Err: a file's header lacks a column the model needs.
    pub fn poll(&mut self) -> Result<Vec<StepsNews>, String> {
        let mut news = Vec::new();
        for f in 0..self.files.len() {
            let mut events = Vec::new();
            self.files[f].1.poll(&mut events);
            for event in events {
                if self.refused[f] && event != TailEvent::Reread {
                    continue;
                }
                if let Err(message) = self.take(f, event, &mut news) {
                    self.refused[f] = true;
                    return Err(message);
                }
            }
        }
        Ok(news)
    }

    /// Whether file f's columns (`names`, first seen at `line`) carry every step value the model
    /// was trained on.
    fn check_columns(&mut self, f: usize, line: u64, names: &[&str]) -> Result<(), String> {
        // A `--col` source the file lacks is a typo: the file's own column would be read instead.
        if let Some((target, source)) = self
            .columns
            .renames()
            .find(|(t, s)| STEP_COLUMNS.contains(t) && !names.contains(s))
        {
            return Err(format!(
                "{}, line {line}: --col {target}={source}: the file has no column '{source}' (its columns: {})",
                self.files[f].0,
                names.join(", ")
            ));
        }
        let present: Vec<&str> = STEP_COLUMNS
            .iter()
            .copied()
            .filter(|c| names.contains(&self.columns.source_of(c)) || names.contains(c))
            .collect();
        self.predictor.check_columns(
            step_columns(&present),
            &format!("{}, line {line}", self.files[f].0),
        )?;
        self.checked[f] = true;
        Ok(())
    }

    fn take(
        &mut self,
        f: usize,
        event: TailEvent,
        news: &mut Vec<StepsNews>,
    ) -> Result<(), String> {
        let name = &self.files[f].0;
        match event {
            TailEvent::Reread => {
                self.refused[f] = false;
                self.checked[f] = false;
                let origin = &self.origin;
                let gone = self.board.take_where(|key| origin.get(key) == Some(&f));
                self.retired
                    .retain(|run| gone.iter().all(|g| g.key != run.key));
                self.retired.extend(gone);
                self.origin.retain(|_, at| *at != f);
                news.push(StepsNews::Reread(name.clone()));
            }
            TailEvent::Bad { line, message } => {
                self.lines_read += 1;
                news.push(StepsNews::Problem(format!(
                    "{name}, line {line}: {message}"
                )));
            }
            TailEvent::Waiting { line, open_quote } => {
                news.push(StepsNews::Waiting(super::tail::waiting_message(
                    name, line, open_quote,
                )));
            }
            TailEvent::Header {
                line,
                columns: names,
            } => {
                self.lines_read += 1;
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                self.check_columns(f, line, &names)?;
            }
            TailEvent::Record { line, fields } => {
                self.lines_read += 1;
                if !self.checked[f] {
                    // A JSON Lines file has no header: its first object's keys stand for one.
                    let names: Vec<&str> = fields.names().collect();
                    self.check_columns(f, line, &names)?;
                }
                let name = &self.files[f].0;
                let columns = &self.columns;
                let get = |column: &str| {
                    fields
                        .get(columns.source_of(column))
                        .or_else(|| fields.get(column))
                        .map(str::to_string)
                };
                let (key, number, step) = match step_from_fields(&get) {
                    Ok(parsed) => parsed,
                    Err(message) => {
                        news.push(StepsNews::Problem(format!(
                            "{name}, line {line}: {message}"
                        )));
                        return Ok(());
                    }
                };
                match self.origin.get(&key) {
                    Some(&other) if other != f => {
                        news.push(StepsNews::Problem(format!(
                            "{name}, line {line}: trajectory {key} is also in {}; this step is not scored",
                            self.files[other].0
                        )));
                        return Ok(());
                    }
                    Some(_) => {}
                    None => {
                        self.origin.insert(key.clone(), f);
                        // Read again from a rewritten file: the new reading stands for it.
                        self.retired.retain(|run| run.key != key);
                    }
                }
                if number > self.board.steps_of(&key) + 1 {
                    self.ahead_at.insert((key.clone(), number), (f, line));
                }
                match self.board.push(key, number, step) {
                    Err(message) => {
                        news.push(StepsNews::Problem(format!(
                            "{name}, line {line}: {message}"
                        )));
                    }
                    Ok((Change::Nothing, _)) => {}
                    Ok((change, at)) => {
                        let row = self.board.runs[at].row();
                        let halted = matches!(change, Change::Halted);
                        if self
                            .announced
                            .insert((self.board.runs[at].key.clone(), halted))
                        {
                            news.push(StepsNews::Changed { change, row });
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::early::protocol::Protocol;
    use crate::early::saved::ThresholdChoice;
    use crate::early::saved::tests::{small_settings, synthetic};

    /// A small predictor trained on the synthetic trajectories (which carry is_error).
    fn trained() -> Arc<Predictor> {
        let (features, model) = small_settings();
        Arc::new(
            Predictor::train(
                &synthetic(),
                Protocol::Loao,
                features,
                model,
                ThresholdChoice::Tau(0.9),
            )
            .expect("train"),
        )
    }

    /// A follower of the one file `path` with the predictor's own thresholds.
    fn following(path: &std::path::Path, predictor: Arc<Predictor>) -> StepsFollower {
        let thresholds = predictor.thresholds(None, None);
        StepsFollower::new(
            std::slice::from_ref(&path.to_path_buf()),
            predictor,
            thresholds,
            ColumnMap::default(),
        )
        .expect("follower")
    }

    #[test]
    fn a_file_without_a_trained_column_is_refused_until_replaced() {
        let predictor = trained();
        let dir = std::env::temp_dir().join(format!("pareval-steps-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("steps.csv");
        // No is_error column, which the synthetic model learned from.
        std::fs::write(
            &path,
            "system,task,run,step,action,observation_chars,text\na,t,0,1,ls,10,hi\n",
        )
        .expect("write");
        let mut follower = following(&path, predictor);
        let error = follower.poll().unwrap_err();
        assert!(error.contains("is_error, which this file lacks"), "{error}");
        // Later rows of that file are not scored.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        std::io::Write::write_all(&mut file, b"a,t,0,2,ls,10,hi\n").expect("append");
        assert_eq!(follower.poll(), Ok(Vec::new()));
        assert!(follower.board.runs.is_empty());
        // Replaced by a file with the column: read again from the start and scored.
        std::fs::remove_file(&path).expect("remove");
        std::fs::write(
            &path,
            "system,task,run,step,action,observation_chars,is_error,text\na,t,0,1,ls,10,0,hi\n",
        )
        .expect("rewrite");
        let news = follower.poll().expect("read");
        assert!(
            matches!(news.first(), Some(StepsNews::Reread(_))),
            "{news:?}"
        );
        assert_eq!(follower.board.runs.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_read_again_announces_nothing_twice_and_its_old_trajectories_still_count() {
        // From an audit of halt --follow: a rewritten file printed its trajectories as first seen
        // (and halted) again, a rotated one dropped them from the end's summary, and steps that
        // changed no action did not count as lines read, so --idle-exit ended a live follow.
        let predictor = trained();
        let dir = std::env::temp_dir().join(format!("pareval-steps-again-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("steps.csv");
        let header = "system,task,run,step,action,observation_chars,is_error,text\n";
        let step = |task: &str, n: u32| format!("a,{task},0,{n},ls,10,0,hi\n");
        std::fs::write(&path, format!("{header}{}", step("t", 1))).expect("write");
        let mut follower = following(&path, predictor);
        let news = follower.poll().expect("read");
        assert!(
            matches!(news.as_slice(), [StepsNews::Changed { .. }]),
            "{news:?}"
        );
        assert_eq!(follower.lines_read, 2);
        // A step that changes no action is news to nobody, but a line read.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        std::io::Write::write_all(&mut file, step("t", 2).as_bytes()).expect("append");
        drop(file);
        let _ = follower.poll().expect("read");
        assert_eq!(follower.lines_read, 3);
        // Rewritten with the same trajectory: read again, announced once only.
        std::fs::remove_file(&path).expect("remove");
        std::fs::write(&path, format!("{header}{}", step("t", 1))).expect("rewrite");
        let news = follower.poll().expect("read");
        assert!(
            news.iter().all(|n| !matches!(n, StepsNews::Changed { .. })),
            "{news:?}"
        );
        assert_eq!(follower.all_runs().count(), 1);
        // Replaced by another trajectory (the log rotated): the first still counts at the end.
        std::fs::remove_file(&path).expect("remove");
        std::fs::write(&path, format!("{header}{}", step("u", 1))).expect("rotate");
        let news = follower.poll().expect("read");
        assert!(
            news.iter().any(|n| matches!(n, StepsNews::Changed { .. })),
            "{news:?}"
        );
        assert_eq!(follower.board.runs.len(), 1);
        let tasks: Vec<&str> = follower.all_runs().map(|r| r.key.task.as_str()).collect();
        assert_eq!(tasks, ["u", "t"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn json_lines_and_tsv_steps_are_followed_and_checked_by_their_first_line() {
        let predictor = trained();
        let dir = std::env::temp_dir().join(format!("pareval-steps-json-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let follow = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write");
            let mut follower = following(&path, predictor.clone());
            let polled = follower.poll();
            (polled, follower.board.runs.len())
        };
        // No is_error key in the first object: refused, with the file and line, nothing scored.
        let (polled, runs) = follow(
            "without.jsonl",
            concat!(
                r#"{"system":"a","task":"t","run":0,"step":1,"action":"ls","observation_chars":10,"text":"hi"}"#,
                "\n"
            ),
        );
        let error = polled.unwrap_err();
        assert!(error.contains("without.jsonl, line 1"), "{error}");
        assert!(error.contains("is_error, which this file lacks"), "{error}");
        assert_eq!(runs, 0);
        // The key present, even null in a step, is a column the file has: scored.
        let (polled, runs) = follow(
            "with.jsonl",
            concat!(
                r#"{"system":"a","task":"t","run":0,"step":1,"action":"ls","observation_chars":10,"is_error":null,"text":"hi"}"#,
                "\n",
                r#"{"system":"a","task":"t","run":0,"step":2,"action":"ls","observation_chars":10,"is_error":0,"text":"hi"}"#,
                "\n"
            ),
        );
        assert!(polled.is_ok(), "{polled:?}");
        assert_eq!(runs, 1);
        // Tab-separated steps are followed too (they were refused: only .csv and .jsonl).
        let (polled, runs) = follow(
            "steps.tsv",
            "system\ttask\trun\tstep\taction\tobservation_chars\tis_error\ttext\na\tt\t0\t1\tls -l, -a\t10\t0\thi\n",
        );
        assert!(polled.is_ok(), "{polled:?}");
        assert_eq!(runs, 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
