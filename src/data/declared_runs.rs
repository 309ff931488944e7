//! The runs a live run gives each task, as the user declares them (`--runs N`, `--runs SYSTEM=N`):
//! a task's outcome is the mean of its runs (SPEC §1), so while a harness runs, a task with fewer
//! ended runs than it will get is not finished, and a live reader that took the mean of the runs
//! that happen to be in would feed the sequence a value that a later run changes (SPEC §9c). Some
//! harness files say how many runs are coming and their importers hold such tasks themselves; a
//! canonical CSV, OpenAI Evals logs or OSWorld run folders do not, and the user says it here. The
//! loader holds the short tasks' rows (`hold_runs`); `watch`'s state reads this itself.

/// The most runs a task may be declared to get (as `serve`'s `"runs"`).
const MOST_RUNS: u32 = 1000;

/// Runs per task: one count for every system, and counts for named systems (which win).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredRuns {
    every: Option<u32>,
    systems: Vec<(String, u32)>,
}

impl DeclaredRuns {
    /// Reads `N` (every system) and `SYSTEM=N` items; a system or `N` given twice is refused.
    pub fn parse(items: &[String]) -> Result<Self, String> {
        let mut declared = DeclaredRuns::default();
        for item in items.iter().map(|item| item.trim()) {
            let (system, count) = match item.rsplit_once('=') {
                Some((system, count)) => (Some(system.trim()), count.trim()),
                None => (None, item),
            };
            let runs = count
                .parse::<u32>()
                .ok()
                .filter(|runs| (1..=MOST_RUNS).contains(runs))
                .ok_or_else(|| {
                    format!(
                        "'{item}' is not N or SYSTEM=N with N a whole number from 1 to {MOST_RUNS}"
                    )
                })?;
            match system {
                Some("") => return Err(format!("'{item}' names no system before '='")),
                Some(system) => {
                    if declared.systems.iter().any(|(name, _)| name == system) {
                        return Err(format!("{system}'s runs are declared twice"));
                    }
                    declared.systems.push((system.to_string(), runs));
                }
                None if declared.every.is_some() => {
                    return Err(format!(
                        "'{item}': the runs of every system are declared twice (name a system as SYSTEM=N)"
                    ));
                }
                None => declared.every = Some(runs),
            }
        }
        Ok(declared)
    }

    pub fn is_empty(&self) -> bool {
        self.every.is_none() && self.systems.is_empty()
    }

    /// The runs each task of `system` gets, when declared.
    pub fn for_system(&self, system: &str) -> Option<u32> {
        self.systems
            .iter()
            .find(|(name, _)| name == system)
            .map(|&(_, runs)| runs)
            .or(self.every)
    }

    /// The systems named in the declaration.
    pub fn named(&self) -> impl Iterator<Item = &str> {
        self.systems.iter().map(|(name, _)| name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(items: &[&str]) -> Result<DeclaredRuns, String> {
        DeclaredRuns::parse(&items.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_named_system_s_count_wins_over_every_system_s() {
        let declared = parse(&["3", "base=1"]).expect("parses");
        assert_eq!(declared.for_system("base"), Some(1));
        assert_eq!(declared.for_system("agent"), Some(3));
        let named_only = parse(&["agent=2"]).expect("parses");
        assert_eq!(named_only.for_system("base"), None);
        assert!(parse(&[]).expect("parses").is_empty());
    }

    #[test]
    fn counts_that_cannot_be_runs_are_refused() {
        for bad in [
            &["0"][..],
            &["x"],
            &["a=1001"],
            &["=3"],
            &["3", "4"],
            &["a=1", "a=2"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
