//! The Berkeley Function Calling Leaderboard (BFCL, `bfcl-eval`): `bfcl generate` writes each
//! model's answers to `result/<model>/<group>/BFCL_v4_<category>_result.json` (one JSON object a
//! line: `id`, `result`, token counts, `latency`), and `bfcl evaluate` grades them into
//! `score/<model>/<group>/BFCL_v4_<category>_score.json`, whose first line is a header
//! (`accuracy`, `correct_count`, `total_count`) and whose other lines are **the failures only**
//! (`save_eval_results` keeps an entry just when its check is not valid). So a score file alone
//! cannot say which entries passed: every entry of the matching result file that the score file
//! does not list did. Read as follows:
//!
//! - files: a BFCL project folder (its `score/` beside `result/`), a `score/` folder, a model's
//!   score folder or one score file; each score file is read with its result file, found at the
//!   same place under the `result` folder beside the `score` one (BFCL's own layout; the
//!   leaderboard's published `score-BFCL`/`result-BFCL` too), else beside the score file. Group
//!   folders (`non_live`, `live`, `multi_turn`, `agentic`, `format_sensitivity`, and the memory
//!   backends' `memory/<backend>`) sit between the model folder and the files in v4 and not before.
//! - versions: `BFCL_v<N>_<category>_score.json` (v3, v4), and 2024's `<category>_score.json`
//!   beside `gorilla_openfunctions_v1_test_<category>_result.json`. Since 2025-01-26 a failure's
//!   `id` is the entry's id; before, it is a 1-based place among the answers as bfcl-eval graded
//!   them: sorted by id from 2024-11-24, in file order before. Both agree for a file in id order;
//!   otherwise the failures' prompt ids (most carry one) tell which, and each is checked.
//! - system: the model folder's name as BFCL writes it (its registry name, a `/` written `_`).
//! - task: the entry's `id` (it starts with its category, so ids never collide across categories;
//!   result files before August 2024 carry `idx` from 0 instead, read as `<category>_<idx>`);
//!   group: the category.
//! - outcome: 0 for an entry the score file lists, 1 for every other entry of the result file; a
//!   result that is BFCL's record of an exception during generation (`"Error during inference: …"`)
//!   has status error with the outcome BFCL gave it.
//! - seconds: the entry's `latency` (a number, or per turn and step lists of them, summed); BFCL
//!   writes token counts, not a cost.
//!
//! A score file whose header disagrees with the result file beside it (the answers were generated
//! again after grading, or a file is cut short) is refused naming both: which entries passed is
//! then unknown. Result files with no score file yet are left out, noted.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, value_or_missing};
use crate::data::error::LoadError;

/// The folders BFCL places between a model's folder and its files (v4's groups, and a memory
/// category's `memory/<backend>`).
const GROUP_FOLDERS: [&str; 9] = [
    "non_live",
    "live",
    "multi_turn",
    "agentic",
    "format_sensitivity",
    "memory",
    "kv",
    "vector",
    "rec_sum",
];

/// The result file of 2024's layout is named after the category with this before it.
const OLD_RESULT_PREFIX: &str = "gorilla_openfunctions_v1_test_";

/// What BFCL's generation writes as the result of an entry whose inference raised.
const INFERENCE_ERROR: &str = "Error during inference";

/// How deep below a given folder score files are looked for (a project folder's
/// `score/<model>/agentic/memory/<backend>/<file>`).
const DEEPEST: usize = 5;

/// A score file's category and the name of its result file: `BFCL_v4_simple_python_score.json`
/// gives `simple_python` and `BFCL_v4_simple_python_result.json`; 2024's `simple_score.json`
/// gives `simple` and `gorilla_openfunctions_v1_test_simple_result.json`.
fn category_of(name: &str) -> Option<(String, String)> {
    let stem = name.strip_suffix("_score.json")?;
    if stem.is_empty() {
        return None;
    }
    if let Some(rest) = stem.strip_prefix("BFCL_v") {
        let (version, category) = rest.split_once('_')?;
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) || category.is_empty()
        {
            return None;
        }
        return Some((category.to_string(), format!("{stem}_result.json")));
    }
    Some((
        stem.to_string(),
        format!("{OLD_RESULT_PREFIX}{stem}_result.json"),
    ))
}

/// Whether a file is a BFCL score file: its name, and a first line with BFCL's header.
pub fn is_score_file(path: &Path) -> bool {
    let named = path
        .file_name()
        .is_some_and(|n| category_of(&n.to_string_lossy()).is_some());
    named
        && path.is_file()
        && first_line(path)
            .and_then(|line| serde_json::from_str::<ScoreLine>(&line).ok())
            .is_some_and(|line| line.header().is_some())
}

/// Whether a file is one of BFCL's result files (the answers, not their grades): its name, and a
/// first line with `id` and `result`.
pub fn is_result_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let named = (name.starts_with("BFCL_v") || name.starts_with(OLD_RESULT_PREFIX))
        && name.ends_with("_result.json");
    named
        && first_line(path)
            .and_then(|line| serde_json::from_str::<ResultLine>(&line).ok())
            .is_some_and(|line| line.id.is_some())
}

/// The first line of a file (at most 64 KiB of it are read).
fn first_line(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file.take(64 * 1024))
        .read_line(&mut line)
        .ok()?;
    Some(line)
}

/// The folder score files are looked for under: a project folder's `score/` (or the leaderboard's
/// `score-BFCL/`), else the folder itself.
fn score_root(folder: &Path) -> PathBuf {
    ["score", "score-BFCL"]
        .iter()
        .map(|name| folder.join(name))
        .find(|candidate| candidate.is_dir())
        .unwrap_or_else(|| folder.to_path_buf())
}

/// The score files under a folder, in path order: in the folder itself, in any of its subfolders (a
/// `score/` folder's model folders), and below those only through BFCL's group folders, so a
/// folder of other things is not walked.
fn score_files(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let score = |name: &str, path: &Path| name.ends_with("_score.json") && is_score_file(path);
    collect_files(&score_root(folder), 0, true, &score, &mut found);
    found.sort();
    found
}

/// The files under `folder` that `keep` takes (by name and path), walking subfolders only through
/// BFCL's group folders, and any subfolder of the first level when `models_first` (a `score/`
/// folder's model folders).
fn collect_files(
    folder: &Path,
    depth: usize,
    models_first: bool,
    keep: &impl Fn(&str, &Path) -> bool,
    found: &mut Vec<PathBuf>,
) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            let through = (models_first && depth == 0) || GROUP_FOLDERS.contains(&name.as_str());
            if through && depth < DEEPEST {
                collect_files(&path, depth + 1, models_first, keep, found);
            }
        } else if keep(&name, &path) {
            found.push(path);
        }
    }
}

/// Whether a folder holds BFCL score files (a project, `score/`, or a model's folder): read as one
/// result, every model in it.
pub fn is_tree(folder: &Path) -> bool {
    folder.is_dir() && !score_files(folder).is_empty()
}

/// A score file's model folder (the first folder above it that is not one of BFCL's group folders)
/// and the path from there to the file's folder.
fn model_of(score: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut folder = score.parent()?.to_path_buf();
    let mut below = PathBuf::new();
    while let Some(name) = folder.file_name().map(|n| n.to_string_lossy().into_owned()) {
        if !GROUP_FOLDERS.contains(&name.as_str()) {
            return Some((folder, below));
        }
        below = Path::new(&name).join(&below);
        folder = folder.parent()?.to_path_buf();
    }
    None
}

/// Where a score file's result file may be: at the same place under the `result` folder beside the
/// `score` one (`score-BFCL` ↔ `result-BFCL`), then beside the score file.
fn result_candidates(score: &Path, result_name: &str) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some((model, below)) = model_of(score)
        && let (Some(root), Some(model_name)) = (model.parent(), model.file_name())
        && let Some(root_name) = root.file_name().map(|n| n.to_string_lossy().into_owned())
        && root_name.contains("score")
        && let Some(project) = root.parent()
    {
        let result_root = project.join(root_name.replacen("score", "result", 1));
        candidates.push(result_root.join(model_name).join(below).join(result_name));
    }
    if let Some(folder) = score.parent() {
        candidates.push(folder.join(result_name));
    }
    candidates
}

/// One line of a result file, as far as it is read: a model's answer may hold numbers past f64's
/// range (2024's files do), and those fields are skipped unparsed.
#[derive(Deserialize)]
struct ResultLine {
    id: Option<Value>,
    /// BFCL's results before August 2024 number their entries from 0 instead (`"idx": index`).
    idx: Option<Value>,
    #[serde(default, deserialize_with = "is_inference_error")]
    result: bool,
    #[serde(default, deserialize_with = "latency_sum")]
    latency: Option<f64>,
}

/// One line of a score file: the header's counts, or a failure's id, type and prompt id (its
/// other fields, the answer and the prompt, skipped unparsed).
#[derive(Deserialize)]
struct ScoreLine {
    accuracy: Option<f64>,
    correct_count: Option<u64>,
    total_count: Option<u64>,
    id: Option<Value>,
    error_type: Option<String>,
    #[serde(default, deserialize_with = "error_type_within")]
    error: Option<String>,
    #[serde(default, deserialize_with = "id_within")]
    prompt: Option<String>,
}

impl ScoreLine {
    /// The header's counts (correct, total), when this line is BFCL's header.
    fn header(&self) -> Option<(u64, u64)> {
        self.accuracy?;
        Some((self.correct_count?, self.total_count?))
    }
}

/// Each non-empty line of a JSON Lines file parsed as `T` (Python's NaN tokens read as null),
/// with its 1-based number.
fn parse_lines<T: DeserializeOwned>(bytes: &[u8], file: &str) -> Result<Vec<(u64, T)>, LoadError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| LoadError::new(file, "the file is not UTF-8 text"))?;
    let mut lines = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = index as u64 + 1;
        let (cleaned, _) = super::json::without_non_finite(line);
        let parsed = serde_json::from_str::<T>(&cleaned).map_err(|e| {
            LoadError::new(
                file,
                format!(
                    "line {number}: not a BFCL entry: {e} (column {})",
                    e.column()
                ),
            )
        })?;
        lines.push((number, parsed));
    }
    Ok(lines)
}

/// Whether a `result` is BFCL's record of an exception during generation (any other value, of
/// any shape, is skipped unparsed).
fn is_inference_error<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    struct Text;
    impl<'de> Visitor<'de> for Text {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a model's result")
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<bool, E> {
            Ok(text.starts_with(INFERENCE_ERROR))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(false)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(false)
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
    }
    deserializer.deserialize_any(Text)
}

/// The seconds of a `latency`: a number, or lists of them (per turn and step), summed; None when
/// there is none (BFCL writes 0 where it measured nothing).
fn latency_sum<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    struct Sum(f64);
    impl<'de> Deserialize<'de> for Sum {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Sum, D::Error> {
            deserializer.deserialize_any(SumVisitor)
        }
    }
    struct SumVisitor;
    impl<'de> Visitor<'de> for SumVisitor {
        type Value = Sum;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a latency in seconds, or lists of them")
        }
        fn visit_f64<E>(self, v: f64) -> Result<Sum, E> {
            Ok(Sum(if v.is_finite() && v > 0.0 { v } else { 0.0 }))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Sum, E> {
            Ok(Sum(v as f64))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Sum, E> {
            Ok(Sum(v.max(0) as f64))
        }
        fn visit_unit<E>(self) -> Result<Sum, E> {
            Ok(Sum(0.0))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Sum, A::Error> {
            let mut total = 0.0;
            while let Some(Sum(v)) = seq.next_element()? {
                total += v;
            }
            Ok(Sum(total))
        }
    }
    let Sum(total) = Sum::deserialize(deserializer)?;
    Ok((total > 0.0).then_some(total))
}

/// The string under `key` of an object (None for anything else; the other fields skipped).
fn string_within<'de, D: Deserializer<'de>>(
    deserializer: D,
    key: &'static str,
) -> Result<Option<String>, D::Error> {
    struct Within(&'static str);
    impl<'de> Visitor<'de> for Within {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "an object with '{}'", self.0)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(name) = map.next_key::<String>()? {
                if name == self.0 {
                    found = map.next_value::<Value>()?.as_str().map(str::to_string);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(Within(key))
}

/// A multi-turn or agentic failure's `error` object carries its `error_type`.
fn error_type_within<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    string_within(d, "error_type")
}

/// A 2024 failure's `prompt` carries the entry's own id.
fn id_within<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    string_within(d, "id")
}

/// One result file's entries, in file order (an id twice is refused).
struct Entry {
    id: String,
    inference_error: bool,
    seconds: Option<f64>,
}

/// One result file's entries, and whether they were named from their `idx` (`<category>_<idx>`,
/// as BFCL's later ids are made): its results before August 2024 carry no `id`, and its score files
/// then number the failures from 1 in file order.
fn read_results(
    path: &Path,
    bytes: &[u8],
    category: &str,
) -> Result<(Vec<Entry>, bool), LoadError> {
    let file = path.display().to_string();
    let mut entries = Vec::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut from_idx = false;
    for (line, parsed) in parse_lines::<ResultLine>(bytes, &file)? {
        let at = |what: String| LoadError::new(&file, format!("line {line}: {what}"));
        let id = match (parsed.id, parsed.idx) {
            (Some(Value::String(id)), _) if !id.is_empty() => id,
            (None, Some(Value::Number(idx))) if idx.as_u64().is_some() => {
                from_idx = true;
                format!("{category}_{idx}")
            }
            (None, Some(other)) => {
                return Err(at(format!(
                    "the entry's idx is {other}, not a whole number (BFCL's results before August 2024 number their entries from 0)"
                )));
            }
            (other, _) => {
                return Err(at(format!(
                    "the entry's id is {}, not BFCL's test entry id (nor does it have 2024's 'idx')",
                    value_or_missing(other.as_ref())
                )));
            }
        };
        if let Some(first) = seen.insert(id.clone(), line) {
            return Err(at(format!(
                "entry '{id}' again (first on line {first}): a result file holds each entry once"
            )));
        }
        entries.push(Entry {
            id,
            inference_error: parsed.result,
            seconds: parsed.latency,
        });
    }
    Ok((entries, from_idx))
}

/// What one score file's lines say: its counts, and the places (in the result file) of the entries
/// it lists as failed, with each failure's `error_type`.
struct Graded {
    correct: u64,
    total: u64,
    failed: BTreeMap<usize, String>,
    numbering: Numbering,
    /// Whether any failure is numbered rather than named.
    numbered: bool,
}

fn read_score(
    path: &Path,
    bytes: &[u8],
    entries: &[Entry],
    result_file: &str,
) -> Result<Graded, LoadError> {
    let file = path.display().to_string();
    let places: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(place, entry)| (entry.id.as_str(), place))
        .collect();
    let lines = parse_lines::<ScoreLine>(bytes, &file)?;
    let Some(((header_line, header), failures)) = lines.split_first() else {
        return Err(LoadError::new(&file, "the score file is empty"));
    };
    let Some((correct, total)) = header.header() else {
        return Err(LoadError::new(
            &file,
            format!(
                "line {header_line}: not BFCL's score header (accuracy, correct_count, total_count)"
            ),
        ));
    };
    let (numbered, numbering) = numbering(entries, failures);
    let mut failed = BTreeMap::new();
    for (line, failure) in failures {
        let at = |what: String| LoadError::new(&file, format!("line {line}: {what}"));
        let place = match &failure.id {
            Some(Value::String(id)) => *places.get(id.as_str()).ok_or_else(|| {
                at(format!(
                    "failed entry '{id}' is not in {result_file}: grade the answers again"
                ))
            })?,
            // Score files before 2025-01-26 number the failed entries from 1 (see [`numbering`]).
            Some(Value::Number(n)) => {
                let place = n
                    .as_u64()
                    .and_then(|p| numbered.get((p as usize).checked_sub(1)?))
                    .copied()
                    .ok_or_else(|| {
                        at(format!(
                            "failed entry {n} is not a place in {result_file} (1 to {})",
                            entries.len()
                        ))
                    })?;
                if let Some(said) = failure.prompt.as_ref().filter(|s| **s != entries[place].id) {
                    return Err(at(format!(
                        "failed entry {n} is '{said}', but entry {n} of {result_file} is '{}'",
                        entries[place].id
                    )));
                }
                place
            }
            other => {
                return Err(at(format!(
                    "a failed entry's id is {}",
                    value_or_missing(other.as_ref())
                )));
            }
        };
        let kind = failure
            .error_type
            .clone()
            .or_else(|| failure.error.clone())
            .unwrap_or_else(|| "failed".to_string());
        if failed.insert(place, kind).is_some() {
            return Err(at(format!(
                "entry '{}' is listed as failed twice",
                entries[place].id
            )));
        }
    }
    Ok(Graded {
        correct,
        total,
        failed,
        numbering,
        numbered: failures
            .iter()
            .any(|(_, f)| matches!(f.id, Some(Value::Number(_)))),
    })
}

/// How a score file that numbers its failures counts the result file's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numbering {
    /// The file is in id order, so both readings agree (or the failures are named by id).
    Agreed,
    /// In id order (bfcl-eval sorted the answers before grading from 2024-11-24), as the failures'
    /// own prompt ids confirm, or with none to confirm it.
    IdOrder { confirmed: bool },
    /// In file order (as bfcl-eval graded before sorting), as the failures' prompt ids show.
    FileOrder,
}

/// BFCL's sort key of an entry id: its category and the number after the last `_` (before any
/// `-`, as `live_simple_19-3-15` has); ids it cannot read sort last in their category.
fn sort_key(id: &str) -> (&str, u64) {
    match id.rsplit_once('_') {
        Some((category, index)) => (
            category,
            index
                .split('-')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(u64::MAX),
        ),
        None => (id, u64::MAX),
    }
}

/// Which entry each place 1, 2, … of a score file's numbered failures is: bfcl-eval numbered the
/// answers as it graded them, in file order until it began sorting them by id (2024-11-24); the two
/// agree for a file in id order, and where they do not, the failures' prompt ids (most carry one)
/// tell which was used.
fn numbering(entries: &[Entry], failures: &[(u64, ScoreLine)]) -> (Vec<usize>, Numbering) {
    let file_order: Vec<usize> = (0..entries.len()).collect();
    let mut id_order = file_order.clone();
    id_order.sort_by(|&a, &b| sort_key(&entries[a].id).cmp(&sort_key(&entries[b].id)));
    if id_order == file_order {
        return (file_order, Numbering::Agreed);
    }
    let named: Vec<(usize, &str)> = failures
        .iter()
        .filter_map(|(_, failure)| match (&failure.id, &failure.prompt) {
            (Some(Value::Number(n)), Some(said)) => {
                Some(((n.as_u64()? as usize).checked_sub(1)?, said.as_str()))
            }
            _ => None,
        })
        .collect();
    let fits = |order: &[usize]| {
        named
            .iter()
            .all(|&(place, said)| order.get(place).is_some_and(|&i| entries[i].id == said))
    };
    if fits(&id_order) {
        let confirmed = !named.is_empty();
        (id_order, Numbering::IdOrder { confirmed })
    } else if fits(&file_order) {
        (file_order, Numbering::FileOrder)
    } else {
        // Neither: the failures' own check names the first that does not fit.
        (id_order, Numbering::IdOrder { confirmed: false })
    }
}

/// The rows of every score file under `path` (a folder [`is_tree`], or one score file), the bytes
/// read (for the content hash) and the name messages use.
pub fn results(path: &Path) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = path.display().to_string();
    let path = path
        .canonicalize()
        .map_err(|e| LoadError::new(&shown, format!("cannot read it: {e}")))?;
    let scores = if path.is_dir() {
        score_files(&path)
    } else {
        vec![path.clone()]
    };
    if scores.is_empty() {
        return Err(LoadError::new(
            &shown,
            "no BFCL score file (BFCL_v4_<category>_score.json) in it: run `bfcl evaluate`, then give its score folder",
        ));
    }
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let mut models = HashSet::new();
    let mut categories = HashSet::new();
    let mut scored_results = HashSet::new();
    let mut whole_models = HashSet::new();
    let mut inference_errors = 0;
    let mut named_from_idx = 0usize;
    // Score files that number their failures, and of those the ones read in file order and the
    // ones read in id order with no failure's prompt id to confirm it.
    let mut numbered = 0;
    let mut in_file_order = 0;
    let mut unconfirmed = 0;
    for score in &scores {
        let score_file = score.display().to_string();
        let name = score
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (category, result_name) = category_of(&name).ok_or_else(|| {
            LoadError::new(
                &score_file,
                "not a BFCL score file name (BFCL_v4_<category>_score.json)",
            )
        })?;
        let candidates = result_candidates(score, &result_name);
        let result = candidates.iter().find(|c| c.is_file()).ok_or_else(|| {
            LoadError::new(
                &score_file,
                format!(
                    "its result file is not there ({}): a BFCL score file lists the failed entries only, so the answers `bfcl generate` wrote are needed to know which passed",
                    candidates
                        .iter()
                        .map(|c| c.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", or ")
                ),
            )
        })?;
        let result_file = result.display().to_string();
        let read = |p: &Path, shown: &str| {
            std::fs::read(p).map_err(|e| LoadError::new(shown, format!("cannot read it: {e}")))
        };
        let result_bytes = read(result, &result_file)?;
        let score_bytes = read(score, &score_file)?;
        let (entries, from_idx) = read_results(result, &result_bytes, &category)?;
        named_from_idx += usize::from(from_idx);
        let graded = read_score(score, &score_bytes, &entries, &result_file)?;
        if graded.numbered {
            numbered += 1;
            match graded.numbering {
                Numbering::FileOrder => in_file_order += 1,
                Numbering::IdOrder { confirmed: false } => unconfirmed += 1,
                _ => {}
            }
        }
        if graded.total != entries.len() as u64
            || graded.correct + graded.failed.len() as u64 != graded.total
        {
            return Err(LoadError::new(
                &score_file,
                format!(
                    "it graded {} entries ({} correct, {} failures listed), but {result_file} holds {}: the answers changed after `bfcl evaluate`, or a file is cut short; grade them again",
                    graded.total,
                    graded.correct,
                    graded.failed.len(),
                    entries.len()
                ),
            ));
        }
        let model_folder = model_of(score).map(|(folder, _)| folder);
        let model = model_folder
            .as_ref()
            .and_then(|folder| folder.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        // Only a model read whole (its score folder inside what was given) may name result files
        // that were not graded: a file or group folder given alone leaves the rest out by choice.
        if model_folder.is_some_and(|folder| folder.starts_with(&path))
            && let Some((result_model, _)) = model_of(result)
        {
            whole_models.insert(result_model);
        }
        for (place, entry) in entries.iter().enumerate() {
            let failure = graded.failed.get(&place);
            inference_errors += usize::from(entry.inference_error);
            let mut source = format!("bfcl {category}: ");
            match failure {
                Some(kind) => source.push_str(&format!("failed ({kind})")),
                None => source.push_str("passed"),
            }
            if entry.inference_error {
                source.push_str(", an exception during generation");
            }
            rows.push(CanonicalRow {
                system: model.clone(),
                task: entry.id.clone(),
                run: 0,
                outcome: Some(if failure.is_some() { 0.0 } else { 1.0 }),
                status: if entry.inference_error {
                    RowStatus::Error
                } else {
                    RowStatus::Ok
                },
                group: Some(category.clone()),
                cost_usd: None,
                seconds: entry.seconds,
                source,
            });
        }
        bytes.extend_from_slice(&score_bytes);
        bytes.extend_from_slice(&result_bytes);
        scored_results.insert(result.clone());
        models.insert(model);
        categories.insert(category);
    }
    let mut notes = vec![format!(
        "{shown}: BFCL scores of {} over {} ({} entries; a score file lists the failed entries only, so every other entry of its result file passed); systems are the model folders, groups the categories",
        counted(models.len(), "model", "models"),
        counted(categories.len(), "category", "categories"),
        rows.len(),
    )];
    if numbered > 0 {
        notes.push(format!(
            "{shown}: {} the failed entries from 1 (bfcl-eval before 2025-01-26), read as places among the result file's entries in id order{}{}",
            counted(numbered, "score file numbers", "score files number"),
            if in_file_order > 0 {
                format!(
                    "; {in_file_order} in file order, as their failures' prompt ids show (bfcl-eval sorted the answers only from 2024-11-24)"
                )
            } else {
                String::new()
            },
            if unconfirmed > 0 {
                format!(
                    "; {unconfirmed} with the result file out of id order and no failure naming its entry to confirm the reading"
                )
            } else {
                String::new()
            }
        ));
    }
    if named_from_idx > 0 {
        notes.push(format!(
            "{shown}: {} their entries by 'idx' from 0 (BFCL before August 2024 wrote no id): tasks named <category>_<idx>",
            counted(named_from_idx, "result file numbers", "result files number")
        ));
    }
    if inference_errors > 0 {
        notes.push(format!(
            "{shown}: {} BFCL's record of an exception during generation (\"{INFERENCE_ERROR}: …\"): status error, with the outcome BFCL graded",
            counted(inference_errors, "entry is", "entries are")
        ));
    }
    let unscored = unscored_results(&whole_models, &scored_results);
    if !unscored.is_empty() {
        notes.push(format!(
            "{shown}: {} no score file yet (not graded by `bfcl evaluate`, or a category BFCL does not grade): left out ({})",
            counted(
                unscored.len(),
                "result file of these models has",
                "result files of these models have"
            ),
            named(&unscored)
        ));
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}

/// The result files under the models' result folders that no score file was read with.
fn unscored_results(models: &HashSet<PathBuf>, scored: &HashSet<PathBuf>) -> Vec<PathBuf> {
    let mut unscored = Vec::new();
    for folder in models {
        let mut found = Vec::new();
        let result =
            |name: &str, path: &Path| name.ends_with("_result.json") && is_result_file(path);
        collect_files(folder, 0, false, &result, &mut found);
        unscored.extend(found.into_iter().filter(|f| !scored.contains(f)));
    }
    unscored.sort();
    unscored
}

/// The first few of `files` by name, and how many more.
fn named(files: &[PathBuf]) -> String {
    const NAMED: usize = 3;
    let mut names: Vec<String> = files
        .iter()
        .take(NAMED)
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    if files.len() > NAMED {
        names.push(format!("and {} more", files.len() - NAMED));
    }
    names.join(", ")
}

/// Every file of a BFCL folder whose change `watch` must see: the score files and the result
/// files they are read with.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for score in score_files(folder) {
        let name = score
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some((_, result_name)) = category_of(&name)
            && let Some(result) = result_candidates(&score, &result_name)
                .into_iter()
                .find(|c| c.is_file())
        {
            files.push(result);
        }
        files.push(score);
    }
    files
}
