//! The explorer's config file (theme, default policy, thresholds, orders, bootstrap, mouse, export
//! folder) and session files (every compute and view setting plus the input files and seed, to reopen the
//! exact same view). The config is found with `--config`, else in `$XDG_CONFIG_HOME/pareval/config.toml`
//! (on every OS), else in the platform's config folder (the `directories` crate). A missing config means
//! defaults; a bad one is an error naming the file and the key, never a silent fallback.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::app::{ComputeKey, ViewKey};
use crate::data::error::escape_unseen;
use crate::engine::settings::{BootstrapMode, Preset, Threshold};

/// The config file's contents; every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub theme: Option<String>,
    pub preset: Option<String>,
    pub thresholds: Option<Vec<f64>>,
    pub orders: Option<u32>,
    pub bootstrap: Option<String>,
    pub mouse: Option<bool>,
    pub export_dir: Option<PathBuf>,
}

/// Validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub theme: ThemeName,
    pub preset: Preset,
    /// Hundredths of a percentage point.
    pub thresholds: Vec<i32>,
    pub orders: u32,
    /// 0 for exact.
    pub bootstrap_resamples: u32,
    pub mouse: bool,
    pub export_dir: PathBuf,
    /// Where it was read from (None: defaults).
    pub source: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeName {
    Default,
    HighContrast,
    Mono,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            theme: ThemeName::Default,
            preset: Preset::Primary,
            thresholds: vec![0, 500, 1000],
            orders: 100,
            bootstrap_resamples: 0,
            mouse: false,
            export_dir: PathBuf::from("."),
            source: None,
        }
    }
}

/// Why a config or session file cannot be used; every message starts with the file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: cannot read the {what}: {source}")]
    Read {
        file: String,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{file}: cannot write the session: {source}")]
    Write {
        file: String,
        source: std::io::Error,
    },
    /// Not TOML (config) or not JSON of a session; the parser's message.
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    /// A key whose value is not allowed.
    #[error("{file}: key '{key}': {message}")]
    Key {
        file: String,
        key: &'static str,
        message: String,
    },
    #[error("{file}: session version {version} is not supported (expected 1)")]
    SessionVersion { file: String, version: u32 },
}

/// Where the config is looked for when `--config` is not given.
pub fn default_config_path() -> Option<PathBuf> {
    if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(xdg).join("pareval").join("config.toml"));
    }
    directories::ProjectDirs::from("", "", "pareval")
        .map(|dirs| dirs.config_dir().join("config.toml"))
}

/// Loads the config: `explicit` must exist; the default location may be absent.
pub fn load_config(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => match default_config_path() {
            Some(path) if path.exists() => path,
            _ => return Ok(Config::default()),
        },
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        file: shown.clone(),
        what: "config",
        source,
    })?;
    parse_config(text.strip_prefix('\u{feff}').unwrap_or(&text), &shown).map(|mut config| {
        config.source = Some(path);
        config
    })
}

/// Parses and checks config text; messages start with `file` and name the key.
pub fn parse_config(text: &str, file: &str) -> Result<Config, ConfigError> {
    // The messages quote the file's keys and values: a carriage return or an escape sequence in
    // them, printed raw, would rewrite the message on a terminal.
    let raw: ConfigFile = toml::from_str(text).map_err(|e| ConfigError::Syntax {
        file: file.to_string(),
        message: escape_unseen(&toml_error_at(text, &e)),
    })?;
    apply(raw, Config::default()).map_err(|(key, message)| ConfigError::Key {
        file: file.to_string(),
        key,
        message: escape_unseen(&message),
    })
}

/// A TOML error as one line naming its line, column and that line's text: the crate's own display
/// draws the line with a caret under it, which joined into one line lost its alignment.
fn toml_error_at(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim();
    // A span off a character's boundary (or past the text) is not sliced: the message alone.
    let Some(before) = error.span().and_then(|span| text.get(..span.start)) else {
        return message.to_string();
    };
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let shown = line_around(text.lines().nth(line - 1).unwrap_or(""), column);
    if shown.is_empty() {
        format!("line {line}, column {column}: {message}")
    } else {
        format!("line {line}, column {column} (`{shown}`): {message}")
    }
}

/// The line as typed around a column (1-based, in characters), so that the key and its value are
/// named: at most [`SHOWN_CHARS`] characters, a long line cut to a window around the column ("…"
/// where cut); its control characters are escaped with the whole message (`parse_config`).
fn line_around(line: &str, column: usize) -> String {
    let chars: Vec<char> = line.chars().collect();
    let start = if chars.len() <= SHOWN_CHARS {
        0
    } else {
        column
            .saturating_sub(1 + SHOWN_CHARS / 2)
            .min(chars.len() - SHOWN_CHARS)
    };
    let end = (start + SHOWN_CHARS).min(chars.len());
    let mut shown = String::new();
    if start > 0 {
        shown.push('…');
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push('…');
    }
    shown.trim().to_string()
}

/// How many characters of a line a TOML error shows.
const SHOWN_CHARS: usize = 80;

/// The explorer's flags that set what the config sets (`--preset`, `--thresholds`, `--orders`,
/// `--bootstrap`), over the config: checked as its keys are, a message naming the flag.
pub fn with_flags(config: Config, flags: ConfigFile) -> Result<Config, String> {
    apply(flags, config).map_err(|(key, message)| {
        let flag = format!("--{key}");
        // Some settings' own messages name the flag already.
        if message.starts_with(&flag) {
            message
        } else {
            format!("{flag}: {message}")
        }
    })
}

/// `config` with every key `raw` sets, checked; an error names the key.
fn apply(raw: ConfigFile, mut config: Config) -> Result<Config, (&'static str, String)> {
    let key = |key: &'static str| move |message: String| (key, message);
    if let Some(theme) = raw.theme {
        config.theme = match theme.as_str() {
            "default" => ThemeName::Default,
            "high-contrast" => ThemeName::HighContrast,
            "mono" => ThemeName::Mono,
            _ => {
                return Err(key("theme")(format!(
                    "'{theme}' is not one of default, high-contrast, mono"
                )));
            }
        };
    }
    if let Some(preset) = raw.preset {
        config.preset = Preset::parse(&preset).map_err(|e| key("preset")(e.to_string()))?;
    }
    if let Some(thresholds) = raw.thresholds {
        let mut parsed = Vec::new();
        for value in thresholds {
            parsed.push(
                Threshold::from_pp(value)
                    .map_err(|e| key("thresholds")(e.to_string()))?
                    .0,
            );
        }
        parsed.sort_unstable();
        // Given twice it was dropped without a word, where a session's is refused.
        if let Some(pair) = parsed.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(key("thresholds")(format!(
                "{} pp is given twice (each threshold once)",
                f64::from(pair[0]) / 100.0
            )));
        }
        if parsed.is_empty() {
            return Err(key("thresholds")("give at least one threshold".to_string()));
        }
        config.thresholds = parsed;
    }
    if let Some(orders) = raw.orders {
        if orders == 0 {
            return Err(key("orders")("must be at least 1".to_string()));
        }
        config.orders = orders;
    }
    if let Some(bootstrap) = raw.bootstrap {
        config.bootstrap_resamples =
            match BootstrapMode::parse(&bootstrap).map_err(|e| key("bootstrap")(e.to_string()))? {
                BootstrapMode::Exact => 0,
                BootstrapMode::Mc { resamples } => resamples,
            };
    }
    if let Some(mouse) = raw.mouse {
        config.mouse = mouse;
    }
    if let Some(dir) = raw.export_dir {
        config.export_dir = dir;
    }
    Ok(config)
}

/// What the early-outcome view trains on and how (`--steps`, `--outcomes`, `--early-protocol`,
/// `--early-trees`, `--early-target`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// A key pareval does not write (a typo in a hand-edited session) is refused, not passed over.
#[serde(deny_unknown_fields)]
pub struct EarlySource {
    pub steps: String,
    pub outcomes: String,
    /// None: the default for the trajectories (leave one system out, or task folds for one system).
    pub protocol: Option<String>,
    pub trees: usize,
    pub target: Option<f64>,
    /// The view's τ slider when the session was saved (none: the view's start, 0.95).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tau: Option<f64>,
}

/// Everything needed to reopen the same view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// A key pareval does not write (a typo in a hand-edited session) is refused, not passed over.
#[serde(deny_unknown_fields)]
pub struct Session {
    pub version: u32,
    pub files: Vec<String>,
    /// The load flags the files were read with (`--min-system-coverage=0.95`, `--from=…`), so that
    /// the session reopens the same records; none in a session saved before they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_flags: Vec<String>,
    pub compute: ComputeKey,
    pub view: ViewKey,
    /// The early-outcome view's trajectories and training settings, when the explorer had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early: Option<EarlySource>,
    /// Every file the records were read from, with its SHA-256, so that a reopened session says
    /// when one has changed since (none in a session saved before they were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<SessionInput>,
}

/// One file a session's records were read from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// A key pareval does not write (a typo in a hand-edited session) is refused, not passed over.
#[serde(deny_unknown_fields)]
pub struct SessionInput {
    pub path: String,
    pub sha256: String,
}

impl Session {
    /// What changed among the session's files since it was saved ("chg.csv changed; old.csv is no
    /// longer read"), judged by their SHA-256 against the files read now; None when nothing did.
    /// `side`: the files read beside the records (task and system tables, the early view's
    /// steps), which a session saved before they were kept does not list; one it does not list is
    /// not named as new (such a session warned its task table "is read now and was not then").
    pub fn changed_inputs(
        &self,
        records: &[crate::dataset::InputFile],
        side: &[crate::dataset::InputFile],
    ) -> Option<String> {
        // Sessions keep absolute paths; the files read now are compared the same way.
        fn absolute(file: &crate::dataset::InputFile) -> (String, &str) {
            let path = std::fs::canonicalize(&file.path)
                .map_or_else(|_| file.path.clone(), |p| p.display().to_string());
            (path, file.sha256.as_str())
        }
        let records: Vec<(String, &str)> = records.iter().map(absolute).collect();
        let side: Vec<(String, &str)> = side.iter().map(absolute).collect();
        let mut changed = Vec::new();
        for saved in &self.inputs {
            match records
                .iter()
                .chain(&side)
                .find(|(path, _)| *path == saved.path)
            {
                Some((_, sha256)) if *sha256 == saved.sha256 => {}
                Some(_) => changed.push(format!("{} changed", saved.path)),
                None => changed.push(format!("{} is no longer read", saved.path)),
            }
        }
        for (path, _) in &records {
            if !self.inputs.is_empty() && !self.inputs.iter().any(|saved| saved.path == *path) {
                changed.push(format!("{path} is read now and was not then"));
            }
        }
        (!changed.is_empty()).then(|| changed.join("; "))
    }
}

/// Where `w` writes a session in `folder`: `pareval-session.json`, or the first of
/// `pareval-session-2.json`, `-3`, … that does not exist. The fixed name was written over without a
/// word: an earlier session in the folder, the one the explorer was reopened from too.
pub fn free_session_path(folder: &Path) -> PathBuf {
    let first = folder.join("pareval-session.json");
    if !first.exists() {
        return first;
    }
    (2u32..)
        .map(|n| folder.join(format!("pareval-session-{n}.json")))
        .find(|path| !path.exists())
        .unwrap_or(first)
}

pub fn save_session(session: &Session, path: &Path) -> Result<(), ConfigError> {
    let file = path.display().to_string();
    let text = serde_json::to_string_pretty(session).map_err(|e| ConfigError::Syntax {
        file: file.clone(),
        message: e.to_string(),
    })?;
    // The export folder is made when missing, as `e` makes it (`w` first failed there).
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|source| ConfigError::Write {
            file: folder.display().to_string(),
            source,
        })?;
    }
    crate::data::write::write_whole(path, (text + "\n").as_bytes())
        .map_err(|source| ConfigError::Write { file, source })
}

pub fn load_session(path: &Path) -> Result<Session, ConfigError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        file: shown.clone(),
        what: "session",
        source,
    })?;
    // Saved by an editor with a byte order mark, as record and harness files are read with one.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let session: Session = serde_json::from_str(text).map_err(|e| ConfigError::Syntax {
        file: shown.clone(),
        message: format!("not a pareval session: {e}"),
    })?;
    if session.version != 1 {
        return Err(ConfigError::SessionVersion {
            file: shown,
            version: session.version,
        });
    }
    // The early view's τ slider takes only its grid's values: another reopened at 0.95 unsaid.
    if let Some(tau) = session.early.as_ref().and_then(|early| early.tau)
        && !super::early::tau_grid()
            .iter()
            .any(|t| (t - tau).abs() < 1e-9)
    {
        return Err(ConfigError::Key {
            file: shown,
            key: "early.tau",
            message: format!(
                "{tau} is not a value of the early view's τ slider (0.55, 0.56, …, 0.99)"
            ),
        });
    }
    Ok(session)
}

impl Session {
    /// Checks the session's settings against the records it reopens, as a replay would (each
    /// value is checked when the session loads: a hand-edited one opened the explorer with a
    /// failed replay in its status bar, or a group filter naming no group replayed other tasks).
    pub fn check(&self, dataset: &crate::dataset::Dataset) -> Result<(), String> {
        use crate::engine::settings::{FRACTION_UNITS, Fraction, Rule};
        // Read only under the bootstrap rule, so the replay checks it only then: a session under
        // another rule opened, and failed once `r` reached the bootstrap.
        let resamples = self.compute.bootstrap_resamples;
        if resamples > crate::engine::settings::MOST_RESAMPLES {
            return Err(format!(
                "key 'compute': bootstrap resamples '{resamples}' must be in 1..={} (0: exact), whatever the rule",
                crate::engine::settings::MOST_RESAMPLES
            ));
        }
        self.compute
            .settings()
            .validate(dataset)
            .map_err(|error| format!("key 'compute': {error}"))?;
        // The bets likewise are read only under the anytime rule: a session under another opened,
        // and failed once `p` or `r` reached it.
        if let Some(cap) = self.compute.bet_cap
            && !(1..FRACTION_UNITS).contains(&cap)
        {
            return Err(format!(
                "key 'compute': bet cap '{}' must be in (0, 1), whatever the rule",
                Fraction(cap)
            ));
        }
        if let Some(max) = self.compute.bet_max
            && !(Rule::DEFAULT_BET_MIN.0..FRACTION_UNITS).contains(&max)
        {
            return Err(format!(
                "key 'compute': largest bet scale '{}' must be in [{}, 1) (§9a's least is {}), whatever the rule",
                Fraction(max),
                Rule::DEFAULT_BET_MIN,
                Rule::DEFAULT_BET_MIN
            ));
        }
        // The view's budget and threshold are positions on the grid and the thresholds: one past
        // them opened at the last budget ("budget": 99 at 95%) or another threshold unsaid.
        let grid = self.compute.grid.len();
        if self.view.budget >= grid {
            return Err(format!(
                "key 'view.budget': {} is no position on the budget grid (0 to {}, one per budget of 'compute.grid')",
                self.view.budget,
                grid.saturating_sub(1)
            ));
        }
        let thresholds = self.compute.thresholds.len();
        if self.view.focus >= thresholds {
            return Err(format!(
                "key 'view.focus': {} is no position among the {thresholds} thresholds (0 to {})",
                self.view.focus,
                thresholds.saturating_sub(1)
            ));
        }
        let filter = &self.compute.group_filter;
        if filter.is_empty() {
            return Ok(());
        }
        let Some(column) = self.compute.group_column.as_deref() else {
            return Err(
                "key 'compute.group_filter': a group filter needs a group column".to_string(),
            );
        };
        let labels = dataset
            .group_column(column)
            .map(|groups| groups.labels.clone())
            .unwrap_or_default();
        match filter.iter().find(|label| !labels.contains(label)) {
            Some(label) => Err(format!(
                "key 'compute.group_filter': '{label}' is no group of column '{column}' (its groups: {})",
                labels.join(", ")
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_session_never_writes_over_one_in_its_folder() {
        let folder = std::env::temp_dir().join(format!("pareval-sessions-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("folder");
        let first = free_session_path(&folder);
        assert_eq!(first, folder.join("pareval-session.json"));
        std::fs::write(&first, "{}").expect("write");
        let second = free_session_path(&folder);
        assert_eq!(second, folder.join("pareval-session-2.json"));
        std::fs::write(&second, "{}").expect("write");
        assert_eq!(
            free_session_path(&folder),
            folder.join("pareval-session-3.json")
        );
        let _ = std::fs::remove_dir_all(&folder);
    }

    #[test]
    fn the_explorers_flags_go_over_the_config() {
        let config =
            parse_config("preset = \"serfling\"\norders = 50\n", "c.toml").expect("config");
        let flags = ConfigFile {
            preset: Some("anytime".to_string()),
            thresholds: Some(vec![5.0, 0.0]),
            bootstrap: Some("mc:300".to_string()),
            ..ConfigFile::default()
        };
        let config = with_flags(config, flags).expect("flags");
        assert_eq!(config.preset, Preset::Anytime);
        assert_eq!(config.thresholds, vec![0, 500]);
        assert_eq!(config.orders, 50, "the config's, where no flag is given");
        assert_eq!(config.bootstrap_resamples, 300);
        let zero = ConfigFile {
            orders: Some(0),
            ..ConfigFile::default()
        };
        assert_eq!(
            with_flags(Config::default(), zero),
            Err("--orders: must be at least 1".to_string())
        );
    }

    #[test]
    fn a_good_config_is_read() {
        let config = parse_config(
            "theme = \"mono\"\npreset = \"serfling\"\nthresholds = [10, 0]\norders = 50\nbootstrap = \"mc:300\"\nmouse = true\n",
            "c.toml",
        )
        .expect("config");
        assert_eq!(config.theme, ThemeName::Mono);
        assert_eq!(config.preset, Preset::Serfling);
        assert_eq!(config.thresholds, [0, 1000]);
        assert_eq!(
            (config.orders, config.bootstrap_resamples, config.mouse),
            (50, 300, true)
        );
    }

    #[test]
    fn a_threshold_given_twice_in_the_config_is_refused() {
        assert_eq!(
            parse_config("thresholds = [5, 5.0]", "c.toml")
                .unwrap_err()
                .to_string(),
            "c.toml: key 'thresholds': 5 pp is given twice (each threshold once)"
        );
    }

    #[test]
    fn bad_configs_name_the_file_and_the_key() {
        assert_eq!(
            parse_config("preset = \"fastest\"", "c.toml")
                .unwrap_err()
                .to_string(),
            "c.toml: key 'preset': preset 'fastest' is not one of primary, forced-uniform, forced-group, paired-normal, neyman, serfling, cost-forced, cost-aware, anytime, anytime-uniform, peeking"
        );
        assert_eq!(
            parse_config("thresholds = [120]", "c.toml")
                .unwrap_err()
                .to_string(),
            "c.toml: key 'thresholds': threshold '120' must be in (-100, 100) percentage points"
        );
        let unknown = parse_config("colour = \"red\"", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(
            unknown.starts_with("c.toml: ") && unknown.contains("colour"),
            "{unknown}"
        );
        let wrong_type = parse_config("orders = \"many\"", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(wrong_type.contains("orders"), "{wrong_type}");
    }

    #[test]
    fn a_toml_error_names_its_line_column_and_text_on_one_line() {
        // The crate's display (a caret under the line) was joined into one line, its caret
        // pointing nowhere: "TOML parse error at line 2, column 10   | 2 | orders = ..."
        assert_eq!(
            parse_config("preset = \"primary\"\norders = \"x\"\n", "c.toml")
                .unwrap_err()
                .to_string(),
            "c.toml: line 2, column 10 (`orders = \"x\"`): invalid type: string \"x\", expected u32"
        );
        let unclosed = parse_config("preset = \"primary\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(
            unclosed.starts_with("c.toml: line 1, column 18") && !unclosed.contains(" | "),
            "{unclosed}"
        );
        let unknown = parse_config("\n\ncolour = \"red\"", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(
            unknown.starts_with(
                "c.toml: line 3, column 1 (`colour = \"red\"`): unknown field `colour`"
            ),
            "{unknown}"
        );
        // A carriage return (old line ends make the file one line) or an escape sequence in the
        // line is escaped, not printed to rewrite the message on a terminal.
        let raw = parse_config("orders = 3\rpreset = 1\u{1b}[2J\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(
            !raw.contains('\r') && !raw.contains('\u{1b}') && raw.contains("orders = 3\\r"),
            "{raw:?}"
        );
        // Keys and values quoted by the parser's own message, or by a key's check, too.
        for text in [
            "orders = 3\n\"a\\rb\" = 1\n",
            "\"\\u001b[2Jevil\" = 1\n",
            "preset = \"\\u001b[2Jx\"\n",
            "preset = \"\\u202ex\"\n",
        ] {
            let message = parse_config(text, "c.toml").unwrap_err().to_string();
            assert!(
                !message.contains('\r')
                    && !message.contains('\u{1b}')
                    && !message.contains('\u{202e}'),
                "{text:?}: {message:?}"
            );
        }
        // A long line shows a window around the column, where the error is.
        let long = format!("thresholds = [{}\"x\"]", "1, ".repeat(60));
        let message = parse_config(&long, "c.toml").unwrap_err().to_string();
        assert!(
            message.contains("(`…")
                && message.contains("\"x\"]`)")
                && message.contains("column 195"),
            "{message}"
        );
    }
}
