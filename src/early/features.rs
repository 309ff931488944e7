//! Features of a trajectory prefix (SPEC §11), built from steps 1 … k only. A [`Featurizer`] is fitted
//! on a training fold (the action-kind vocabulary, and the TF-IDF vocabularies with their truncated SVD
//! bases) and then turns every prefix of any trajectory into one vector, walking the steps once: the
//! state after step k never reads step k + 1, the length T or the outcome (tested by truncating).
//!
//! Families, each switchable: behavioral (k, errors, observation sizes, tokens, repetition and
//! stalling), action kinds (shares of the most frequent first words of actions, and the last one),
//! milestones (keyword families in actions and text: run tests, edit a file, search or read, submit or
//! finish, with the step each first appeared), and textual (TF-IDF of all actions so far, the last
//! three actions and the agent's recent text, each reduced to `svd_dims` dimensions).

use std::collections::HashMap;

use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::trajectories::{Step, Trajectory};
use crate::engine::streams::StreamKey;

/// Which feature families are on, and their sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureSettings {
    pub behavioral: bool,
    pub actions: bool,
    pub milestones: bool,
    pub textual: bool,
    /// Action kinds kept in the vocabulary (the rest count as "other").
    pub action_kinds: usize,
    /// Dimensions of each textual block after the truncated SVD.
    pub svd_dims: usize,
    /// Seed of the SVD's random projection.
    pub seed: u64,
}

impl Default for FeatureSettings {
    fn default() -> Self {
        FeatureSettings {
            behavioral: true,
            actions: true,
            milestones: true,
            textual: true,
            action_kinds: 24,
            svd_dims: 32,
            seed: 0,
        }
    }
}

/// Keyword families of the milestones; a step matches a family when its action or text contains one
/// of the words (lower case).
const MILESTONES: [(&str, &[&str]); 4] = [
    (
        "run_tests",
        &[
            "pytest",
            "unittest",
            "make test",
            "npm test",
            "cargo test",
            "go test",
            "run_tests",
            "test",
        ],
    ),
    (
        "edit_file",
        &[
            "sed -i",
            "apply_patch",
            "str_replace",
            "edit",
            "write",
            "cat >",
            "echo >",
            "patch",
            "create",
        ],
    ),
    (
        "search_read",
        &[
            "grep", "find ", "ls", "cat ", "head", "tail", "search", "open", "read",
        ],
    ),
    (
        "submit_finish",
        &[
            "submit",
            "finish",
            "task_complete",
            "complete",
            "done",
            "exit",
        ],
    ),
];

/// The kind of an action: its first word (or tool name before a parenthesis), lower case.
pub fn action_kind(action: &str) -> String {
    action
        .split(|c: char| c.is_whitespace() || c == '(')
        .find(|word| !word.is_empty())
        .unwrap_or("")
        .to_lowercase()
}

/// Lower-case alphanumeric words of two characters or more: the tokens of the TF-IDF blocks.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|word| word.chars().count() >= 2)
        .map(str::to_lowercase)
}

/// One TF-IDF block: vocabulary with idf weights and the SVD basis (`basis[token]` is that token's
/// row of V, `dims` long).
#[derive(Debug, Clone, PartialEq)]
struct TextBlock {
    index: HashMap<String, usize>,
    idf: Vec<f64>,
    basis: Vec<Vec<f64>>,
    dims: usize,
}

impl TextBlock {
    /// The largest vocabulary kept per block (by document frequency; words in one document only are
    /// dropped).
    const VOCABULARY: usize = 4000;
    /// Training documents used for the fit, at most (a deterministic sample of prefixes beyond it).
    const DOCUMENTS: usize = 20_000;

    fn fit(documents: &[Vec<String>], dims: usize, seed: u64, block: &str) -> Self {
        let mut df: HashMap<&str, usize> = HashMap::new();
        for doc in documents {
            let mut seen: Vec<&str> = doc.iter().map(String::as_str).collect();
            seen.sort_unstable();
            seen.dedup();
            for word in seen {
                *df.entry(word).or_default() += 1;
            }
        }
        let mut words: Vec<(&str, usize)> = df.into_iter().filter(|&(_, n)| n >= 2).collect();
        // Most frequent first, ties by the word itself, so the vocabulary does not depend on hashing.
        words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        words.truncate(Self::VOCABULARY);
        let n_docs = documents.len().max(1) as f64;
        let index: HashMap<String, usize> = words
            .iter()
            .enumerate()
            .map(|(i, (w, _))| (w.to_string(), i))
            .collect();
        let idf: Vec<f64> = words
            .iter()
            .map(|&(_, n)| ((1.0 + n_docs) / (1.0 + n as f64)).ln() + 1.0)
            .collect();
        let vocabulary = index.len();
        let dims = dims.min(vocabulary);
        let mut block_out = TextBlock {
            index,
            idf,
            basis: vec![vec![0.0; dims]; vocabulary],
            dims,
        };
        if dims == 0 || documents.is_empty() {
            return block_out;
        }
        // The rows of X: l2-normalised tf-idf of each document, sparse.
        let rows: Vec<Vec<(usize, f64)>> = documents
            .iter()
            .map(|doc| block_out.weights(doc.iter().map(String::as_str)))
            .collect();
        block_out.basis = truncated_svd_basis(&rows, vocabulary, dims, seed, block);
        block_out
    }

    /// The l2-normalised tf-idf weights of a document, as (word index, weight).
    fn weights<'a>(&self, words: impl Iterator<Item = &'a str>) -> Vec<(usize, f64)> {
        let mut counts: HashMap<usize, f64> = HashMap::new();
        for word in words {
            if let Some(&i) = self.index.get(word) {
                *counts.entry(i).or_default() += 1.0;
            }
        }
        let mut weights: Vec<(usize, f64)> = counts
            .into_iter()
            .map(|(i, c)| (i, c * self.idf[i]))
            .collect();
        weights.sort_unstable_by_key(|&(i, _)| i);
        let norm = weights.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
        if norm > 0.0 {
            for (_, w) in &mut weights {
                *w /= norm;
            }
        }
        weights
    }

    /// The document's coordinates in the SVD basis.
    fn project<'a>(&self, words: impl Iterator<Item = &'a str>, out: &mut Vec<f64>) {
        let start = out.len();
        out.resize(start + self.dims, 0.0);
        for (i, w) in self.weights(words) {
            for (o, b) in out[start..].iter_mut().zip(&self.basis[i]) {
                *o += w * b;
            }
        }
    }
}

/// The top `dims` right singular vectors of the sparse matrix with `rows` (randomized range finder
/// with two power iterations, Halko et al.), as one row of `dims` per column of the matrix.
/// Deterministic for the seed; signs fixed so that each vector's largest entry is positive.
fn truncated_svd_basis(
    rows: &[Vec<(usize, f64)>],
    columns: usize,
    dims: usize,
    seed: u64,
    block: &str,
) -> Vec<Vec<f64>> {
    let width = (dims + 10).min(columns);
    let mut rng = StreamKey::new(seed, "tfidf-svd").str(block).rng();
    // Standard normal draws by Box–Muller from the seeded stream.
    let mut normal = || {
        let u1 = crate::engine::rules::stats::unit(rng.next_u64()).max(1e-300);
        let u2 = crate::engine::rules::stats::unit(rng.next_u64());
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    };
    let omega = DMatrix::from_fn(columns, width, |_, _| normal());
    let times = |m: &DMatrix<f64>| -> DMatrix<f64> {
        // X · m for X with the sparse rows.
        let mut out = DMatrix::zeros(rows.len(), m.ncols());
        for (r, row) in rows.iter().enumerate() {
            for &(c, w) in row {
                for j in 0..m.ncols() {
                    out[(r, j)] += w * m[(c, j)];
                }
            }
        }
        out
    };
    let transpose_times = |m: &DMatrix<f64>| -> DMatrix<f64> {
        // Xᵀ · m.
        let mut out = DMatrix::zeros(columns, m.ncols());
        for (r, row) in rows.iter().enumerate() {
            for &(c, w) in row {
                for j in 0..m.ncols() {
                    out[(c, j)] += w * m[(r, j)];
                }
            }
        }
        out
    };
    let mut q = times(&omega).qr().q();
    for _ in 0..2 {
        let z = transpose_times(&q).qr().q();
        q = times(&z).qr().q();
    }
    // B = Qᵀ X (width × columns); its right singular vectors are X's.
    let b = transpose_times(&q).transpose();
    let svd = b.svd(false, true);
    let mut basis = vec![vec![0.0; dims]; columns];
    let Some(v_t) = svd.v_t else {
        return basis;
    };
    let mut order: Vec<usize> = (0..svd.singular_values.len()).collect();
    order.sort_by(|&x, &y| svd.singular_values[y].total_cmp(&svd.singular_values[x]));
    for (d, &k) in order.iter().take(dims).enumerate() {
        let row = v_t.row(k);
        let largest = row.iter().copied().fold(
            0.0f64,
            |best, x| if x.abs() > best.abs() { x } else { best },
        );
        let sign = if largest < 0.0 { -1.0 } else { 1.0 };
        for (c, value) in row.iter().enumerate() {
            basis[c][d] = sign * value;
        }
    }
    basis
}

/// The three textual blocks' documents for the prefix ending at step k (0-based `k - 1` = `last`).
fn block_words(steps: &[Step], last: usize) -> [Vec<String>; 3] {
    let [recent, text] = recent_words(&steps[..=last]);
    [words(&steps[..=last], action_of), recent, text]
}

/// The last two blocks alone: the actions and the text of the last three of `steps` (the prefix, or
/// any window that ends where it ends).
fn recent_words(steps: &[Step]) -> [Vec<String>; 2] {
    let window = &steps[steps.len().saturating_sub(RECENT_STEPS)..];
    [
        words(window, action_of),
        words(window, |s| s.text.as_deref()),
    ]
}

/// How many of the last steps the recent blocks read.
const RECENT_STEPS: usize = 3;

fn action_of(step: &Step) -> Option<&str> {
    step.action.as_deref()
}

fn words(steps: &[Step], field: fn(&Step) -> Option<&str>) -> Vec<String> {
    steps
        .iter()
        .filter_map(field)
        .flat_map(|text| tokens(text).collect::<Vec<_>>())
        .collect()
}

/// A fitted featurizer: what it learned on the training fold and which families it emits.
#[derive(Debug, Clone, PartialEq)]
pub struct Featurizer {
    pub settings: FeatureSettings,
    /// The most frequent action kinds of the training fold, most frequent first.
    pub kinds: Vec<String>,
    blocks: Vec<TextBlock>,
}

impl Featurizer {
    /// Learns the vocabularies (and SVD bases) from the training trajectories only.
    pub fn fit(train: &[&Trajectory], settings: FeatureSettings) -> Self {
        let mut kind_counts: HashMap<String, usize> = HashMap::new();
        if settings.actions {
            for step in train.iter().flat_map(|t| &t.steps) {
                if let Some(action) = &step.action {
                    *kind_counts.entry(action_kind(action)).or_default() += 1;
                }
            }
        }
        let mut kinds: Vec<(String, usize)> = kind_counts.into_iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        kinds.truncate(settings.action_kinds);
        let kinds = kinds.into_iter().map(|(k, _)| k).collect();
        let blocks = if settings.textual {
            // Every prefix k = 1 … T−1 of every training trajectory is a document; beyond the cap a
            // deterministic stride keeps the fit's cost bounded.
            let prefixes: Vec<(usize, usize)> = train
                .iter()
                .enumerate()
                .flat_map(|(t, traj)| (0..traj.len().saturating_sub(1)).map(move |k| (t, k)))
                .collect();
            let stride = prefixes.len().div_ceil(TextBlock::DOCUMENTS).max(1);
            let chosen: Vec<(usize, usize)> = prefixes.into_iter().step_by(stride).collect();
            let words: Vec<[Vec<String>; 3]> = chosen
                .par_iter()
                .map(|&(t, k)| block_words(&train[t].steps, k))
                .collect();
            let mut documents: [Vec<Vec<String>>; 3] = Default::default();
            for blocks in words {
                for (docs, words) in documents.iter_mut().zip(blocks) {
                    docs.push(words);
                }
            }
            // The three blocks are fitted in parallel; each is a function of its documents and seed.
            ["actions", "recent_actions", "recent_text"]
                .par_iter()
                .zip(&documents)
                .map(|(name, docs)| TextBlock::fit(docs, settings.svd_dims, settings.seed, name))
                .collect()
        } else {
            Vec::new()
        };
        Featurizer {
            settings,
            kinds,
            blocks,
        }
    }

    /// The name of every feature, in vector order.
    pub fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        if self.settings.behavioral {
            names.extend(
                [
                    "k",
                    "ln_k",
                    "errors",
                    "errors_last5",
                    "steps_since_error",
                    "error_flag_known",
                    "obs_total",
                    "obs_mean",
                    "obs_last",
                    "obs_trend",
                    "tokens_in",
                    "tokens_out",
                    "distinct_actions_last10",
                    "longest_run",
                    "current_run",
                ]
                .map(str::to_string),
            );
        }
        if self.settings.actions {
            for kind in self.kinds.iter().map(String::as_str).chain(["other"]) {
                names.push(format!("share:{kind}"));
            }
            for kind in self.kinds.iter().map(String::as_str).chain(["other"]) {
                names.push(format!("last:{kind}"));
            }
        }
        if self.settings.milestones {
            for (name, _) in MILESTONES {
                names.push(format!("{name}:seen"));
                names.push(format!("{name}:first_share"));
                names.push(format!("{name}:count"));
            }
        }
        for (block, name) in self
            .blocks
            .iter()
            .zip(["actions", "recent_actions", "recent_text"])
        {
            names.extend((0..block.dims).map(|d| format!("{name}:svd{d}")));
        }
        names
    }

    /// The feature vector of every prefix k = 1 … T−1 of `steps` (the last step, whose outcome is
    /// known, is never a prefix), one walk along the steps.
    pub fn prefixes(&self, steps: &[Step]) -> Vec<Vec<f64>> {
        let mut state = PrefixState::default();
        let mut out = Vec::with_capacity(steps.len().saturating_sub(1));
        for k in 0..steps.len().saturating_sub(1) {
            state.push(&steps[k], self);
            let mut vector = Vec::with_capacity(64);
            self.emit(&state, &steps[..=k], &mut vector);
            out.push(vector);
        }
        out
    }

    /// The vector of the prefix of `k` steps (1 ≤ k ≤ steps.len()), reading steps 1 … k only.
    pub fn prefix(&self, steps: &[Step], k: usize) -> Vec<f64> {
        let mut state = PrefixState::default();
        for step in &steps[..k] {
            state.push(step, self);
        }
        let mut vector = Vec::new();
        self.emit(&state, &steps[..k], &mut vector);
        vector
    }

    /// A cursor that featurizes a trajectory one step at a time, as a running one grows.
    pub fn cursor(&self) -> PrefixCursor {
        PrefixCursor {
            state: PrefixState::default(),
            recent: Vec::with_capacity(RECENT_STEPS),
        }
    }

    fn kind_index(&self, action: Option<&str>) -> usize {
        action
            .map(action_kind)
            .and_then(|kind| self.kinds.iter().position(|k| *k == kind))
            .unwrap_or(self.kinds.len())
    }

    /// Appends the features of the prefix whose running state is `state`; `recent` ends at the
    /// prefix's last step and holds at least its last [`RECENT_STEPS`] steps (or all of them).
    fn emit(&self, state: &PrefixState, recent: &[Step], out: &mut Vec<f64>) {
        let last = state.steps - 1;
        let k = state.steps as f64;
        if self.settings.behavioral {
            let obs_mean = if state.obs_seen > 0 {
                state.obs_total / f64::from(state.obs_seen)
            } else {
                0.0
            };
            out.extend([
                k,
                k.ln(),
                f64::from(state.errors),
                state.recent_errors() as f64,
                state.last_error.map_or(k, |at| (last - at) as f64),
                f64::from(state.error_known) / k,
                state.obs_total,
                obs_mean,
                state.obs_last,
                state.obs_last - obs_mean,
                state.tokens_in,
                state.tokens_out,
                state.distinct_recent(),
                f64::from(state.longest_run),
                f64::from(state.current_run),
            ]);
        }
        if self.settings.actions {
            let kinds = self.kinds.len() + 1;
            for kind in 0..kinds {
                out.push(f64::from(state.kind_counts.get(kind).copied().unwrap_or(0)) / k);
            }
            let last_kind = self.kind_index(recent.last().and_then(|s| s.action.as_deref()));
            out.extend((0..kinds).map(|kind| f64::from(u8::from(kind == last_kind))));
        }
        if self.settings.milestones {
            for m in 0..MILESTONES.len() {
                let first = state.milestone_first[m];
                out.push(f64::from(u8::from(first.is_some())));
                out.push(first.map_or(0.0, |at| (at + 1) as f64 / k));
                out.push(f64::from(state.milestone_counts[m]));
            }
        }
        if let [all, recent_block, text] = self.blocks.as_slice() {
            // All actions so far come from the running state (one pass per trajectory, not one per
            // prefix); the recent blocks are three steps long.
            all.project(state.action_words.iter().map(String::as_str), out);
            let [recent_words, text_words] = recent_words(recent);
            recent_block.project(recent_words.iter().map(String::as_str), out);
            text.project(text_words.iter().map(String::as_str), out);
        }
    }
}

/// A fitted featurizer as a saved model stores it: the settings, the action kinds and each textual
/// block's vocabulary in index order with its idf weights and SVD basis (no hash maps, so the file is
/// the same bytes for the same fit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeaturizerFile {
    pub settings: FeatureSettings,
    pub kinds: Vec<String>,
    pub blocks: Vec<TextBlockFile>,
}

/// One TF-IDF block of a [`FeaturizerFile`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBlockFile {
    pub vocabulary: Vec<String>,
    pub idf: Vec<f64>,
    /// `basis[word]`: that word's row of the SVD basis, `dims` long.
    pub basis: Vec<Vec<f64>>,
    pub dims: usize,
}

impl Featurizer {
    pub fn to_file(&self) -> FeaturizerFile {
        FeaturizerFile {
            settings: self.settings,
            kinds: self.kinds.clone(),
            blocks: self
                .blocks
                .iter()
                .map(|block| {
                    let mut vocabulary = vec![String::new(); block.index.len()];
                    for (word, &i) in &block.index {
                        vocabulary[i] = word.clone();
                    }
                    TextBlockFile {
                        vocabulary,
                        idf: block.idf.clone(),
                        basis: block.basis.clone(),
                        dims: block.dims,
                    }
                })
                .collect(),
        }
    }

    /// The featurizer a file describes, after checking that its parts fit together (a file edited
    /// by hand or cut short must not featurize quietly wrong).
    pub fn from_file(file: FeaturizerFile) -> Result<Self, String> {
        let expected_blocks = if file.settings.textual { 3 } else { 0 };
        if file.blocks.len() != expected_blocks {
            return Err(format!(
                "the featurizer has {} textual blocks where its settings ask for {expected_blocks}",
                file.blocks.len()
            ));
        }
        if file.kinds.len() > file.settings.action_kinds {
            return Err(format!(
                "the featurizer lists {} action kinds where its settings keep {}",
                file.kinds.len(),
                file.settings.action_kinds
            ));
        }
        let mut blocks = Vec::with_capacity(file.blocks.len());
        for (b, block) in file.blocks.into_iter().enumerate() {
            let words = block.vocabulary.len();
            if block.idf.len() != words
                || block.basis.len() != words
                || block.basis.iter().any(|row| row.len() != block.dims)
            {
                return Err(format!(
                    "textual block {} does not fit together ({words} words, {} idf weights, {} basis rows of {} dimensions)",
                    b + 1,
                    block.idf.len(),
                    block.basis.len(),
                    block.dims
                ));
            }
            let index: HashMap<String, usize> = block
                .vocabulary
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, i))
                .collect();
            if index.len() != words {
                return Err(format!("textual block {} repeats a word", b + 1));
            }
            blocks.push(TextBlock {
                index,
                idf: block.idf,
                basis: block.basis,
                dims: block.dims,
            });
        }
        Ok(Featurizer {
            settings: file.settings,
            kinds: file.kinds,
            blocks,
        })
    }
}

/// One trajectory featurized step by step: the running state and the last few steps, so that a new
/// step costs one update and one vector, not a walk from step 1. Its vectors are the ones
/// [`Featurizer::prefixes`] gives, bit for bit (tested).
#[derive(Debug)]
pub struct PrefixCursor {
    state: PrefixState,
    recent: Vec<Step>,
}

impl PrefixCursor {
    /// Takes the next step and returns the feature vector of the prefix that ends with it.
    pub fn push(&mut self, featurizer: &Featurizer, step: Step) -> Vec<f64> {
        self.state.push(&step, featurizer);
        if self.recent.len() == RECENT_STEPS {
            self.recent.remove(0);
        }
        self.recent.push(step);
        let mut vector = Vec::with_capacity(64);
        featurizer.emit(&self.state, &self.recent, &mut vector);
        vector
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.state.steps
    }
}

/// What the behavioral, action and milestone families keep while walking a trajectory.
#[derive(Debug, Default)]
struct PrefixState {
    steps: usize,
    errors: u32,
    error_known: u32,
    /// Error flags of the last five steps.
    recent_flags: Vec<bool>,
    last_error: Option<usize>,
    obs_total: f64,
    obs_seen: u32,
    obs_last: f64,
    tokens_in: f64,
    tokens_out: f64,
    /// Action kinds of the last ten steps (vocabulary index).
    recent_kinds: Vec<usize>,
    kind_counts: Vec<u32>,
    longest_run: u32,
    current_run: u32,
    last_action: Option<String>,
    milestone_first: [Option<usize>; 4],
    milestone_counts: [u32; 4],
    /// The words of every action so far (kept only when the textual family is on).
    action_words: Vec<String>,
}

impl PrefixState {
    fn push(&mut self, step: &Step, featurizer: &Featurizer) {
        let at = self.steps;
        self.steps += 1;
        let error = step.is_error == Some(true);
        if step.is_error.is_some() {
            self.error_known += 1;
        }
        if error {
            self.errors += 1;
            self.last_error = Some(at);
        }
        self.recent_flags.push(error);
        if self.recent_flags.len() > 5 {
            self.recent_flags.remove(0);
        }
        if let Some(obs) = step.observation_chars {
            self.obs_total += obs;
            self.obs_seen += 1;
            self.obs_last = obs;
        }
        self.tokens_in += step.tokens_in.unwrap_or(0.0);
        self.tokens_out += step.tokens_out.unwrap_or(0.0);
        let kind = featurizer.kind_index(step.action.as_deref());
        if self.kind_counts.len() <= featurizer.kinds.len() {
            self.kind_counts.resize(featurizer.kinds.len() + 1, 0);
        }
        self.kind_counts[kind] += 1;
        self.recent_kinds.push(kind);
        if self.recent_kinds.len() > 10 {
            self.recent_kinds.remove(0);
        }
        // Runs of one exact action (a stalled agent repeats itself).
        if step.action.is_some() && step.action == self.last_action {
            self.current_run += 1;
        } else {
            self.current_run = 1;
        }
        self.longest_run = self.longest_run.max(self.current_run);
        if featurizer.settings.textual
            && let Some(action) = &step.action
        {
            self.action_words.extend(tokens(action));
        }
        self.last_action = step.action.clone();
        if featurizer.settings.milestones {
            let haystack = format!(
                "{} {}",
                step.action.as_deref().unwrap_or(""),
                step.text.as_deref().unwrap_or("")
            )
            .to_lowercase();
            for (m, (_, words)) in MILESTONES.iter().enumerate() {
                if words.iter().any(|w| haystack.contains(w)) {
                    self.milestone_counts[m] += 1;
                    self.milestone_first[m].get_or_insert(at);
                }
            }
        }
    }

    fn recent_errors(&self) -> usize {
        self.recent_flags.iter().filter(|&&e| e).count()
    }

    /// Share of distinct action kinds among the last ten steps.
    fn distinct_recent(&self) -> f64 {
        if self.recent_kinds.is_empty() {
            return 0.0;
        }
        let mut kinds = self.recent_kinds.clone();
        kinds.sort_unstable();
        kinds.dedup();
        kinds.len() as f64 / self.recent_kinds.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(action: &str, obs: f64, error: Option<bool>, text: &str) -> Step {
        Step {
            action: Some(action.to_string()),
            observation_chars: Some(obs),
            is_error: error,
            text: (!text.is_empty()).then(|| text.to_string()),
            ..Step::default()
        }
    }

    fn trajectory(steps: Vec<Step>, outcome: f64) -> Trajectory {
        Trajectory {
            system: 0,
            task: 0,
            run: "0".to_string(),
            outcome,
            steps,
        }
    }

    fn sample() -> Vec<Trajectory> {
        let a = vec![
            step("ls -la", 120.0, Some(false), "look around"),
            step("cat main.py", 800.0, Some(false), "read the code"),
            step("pytest -q", 300.0, Some(true), "tests fail"),
            step("sed -i s/a/b/ main.py", 10.0, Some(false), "fix the bug"),
            step("pytest -q", 200.0, Some(false), "tests pass"),
            step("submit", 5.0, Some(false), "done"),
        ];
        let b = vec![
            step("ls", 100.0, None, ""),
            step("ls", 100.0, None, ""),
            step("ls", 100.0, None, ""),
            step("grep -r foo .", 4000.0, Some(true), "searching"),
            step("exit", 0.0, None, "give up"),
        ];
        vec![trajectory(a, 1.0), trajectory(b, 0.0)]
    }

    #[test]
    fn no_feature_looks_past_step_k() {
        let data = sample();
        let train: Vec<&Trajectory> = data.iter().collect();
        let settings = FeatureSettings {
            svd_dims: 3,
            ..FeatureSettings::default()
        };
        let featurizer = Featurizer::fit(&train, settings);
        let names = featurizer.names();
        for traj in &data {
            let all = featurizer.prefixes(&traj.steps);
            assert_eq!(all.len(), traj.len() - 1, "prefixes k = 1 … T−1");
            for (k, vector) in all.iter().enumerate() {
                assert_eq!(vector.len(), names.len());
                // The trajectory cut at k + 1 steps gives the same vector, bit for bit.
                let cut = &traj.steps[..=k];
                assert_eq!(vector, &featurizer.prefix(cut, k + 1), "k = {}", k + 1);
                assert_eq!(vector, &featurizer.prefix(&traj.steps, k + 1));
            }
        }
    }

    #[test]
    fn a_cursor_and_a_saved_featurizer_give_the_same_vectors() {
        let data = sample();
        let train: Vec<&Trajectory> = data.iter().collect();
        let featurizer = Featurizer::fit(
            &train,
            FeatureSettings {
                svd_dims: 3,
                ..FeatureSettings::default()
            },
        );
        let json = serde_json::to_string(&featurizer.to_file()).expect("serialize");
        let back =
            Featurizer::from_file(serde_json::from_str(&json).expect("parse")).expect("fits");
        assert_eq!(back, featurizer);
        for traj in &data {
            let mut cursor = back.cursor();
            let stepped: Vec<Vec<f64>> = traj.steps[..traj.len() - 1]
                .iter()
                .map(|s| cursor.push(&back, s.clone()))
                .collect();
            assert_eq!(stepped, featurizer.prefixes(&traj.steps));
            assert_eq!(cursor.steps(), traj.len() - 1);
        }
        let mut broken = featurizer.to_file();
        broken.blocks[1].idf.pop();
        assert!(
            Featurizer::from_file(broken)
                .unwrap_err()
                .contains("textual block 2 does not fit")
        );
    }

    #[test]
    fn behavioral_features_count_what_happened() {
        let data = sample();
        let train: Vec<&Trajectory> = data.iter().collect();
        let featurizer = Featurizer::fit(
            &train,
            FeatureSettings {
                textual: false,
                ..FeatureSettings::default()
            },
        );
        let names = featurizer.names();
        let at =
            |vector: &[f64], name: &str| vector[names.iter().position(|n| n == name).expect(name)];
        // Trajectory b after 4 steps: ls ×3 then grep with an error.
        let v = featurizer.prefix(&data[1].steps, 4);
        assert_eq!(at(&v, "k"), 4.0);
        assert_eq!(at(&v, "errors"), 1.0);
        assert_eq!(at(&v, "steps_since_error"), 0.0);
        assert_eq!(at(&v, "error_flag_known"), 0.25);
        assert_eq!(at(&v, "obs_total"), 4300.0);
        assert_eq!(at(&v, "obs_mean"), 1075.0);
        assert_eq!(at(&v, "longest_run"), 3.0);
        assert_eq!(at(&v, "current_run"), 1.0);
        assert_eq!(at(&v, "distinct_actions_last10"), 0.5);
        assert_eq!(at(&v, "share:ls"), 0.75);
        assert_eq!(at(&v, "last:grep"), 1.0);
        assert_eq!(at(&v, "search_read:seen"), 1.0);
        assert_eq!(at(&v, "search_read:count"), 4.0);
        // Trajectory a after 3 steps: tests ran first at step 3.
        let v = featurizer.prefix(&data[0].steps, 3);
        assert_eq!(at(&v, "run_tests:first_share"), 1.0);
        assert_eq!(at(&v, "submit_finish:seen"), 0.0);
        assert_eq!(at(&v, "steps_since_error"), 0.0);
    }

    #[test]
    fn every_family_can_be_switched_off() {
        let data = sample();
        let train: Vec<&Trajectory> = data.iter().collect();
        let none = Featurizer::fit(
            &train,
            FeatureSettings {
                behavioral: false,
                actions: false,
                milestones: false,
                textual: false,
                ..FeatureSettings::default()
            },
        );
        assert!(none.names().is_empty());
        assert!(none.prefix(&data[0].steps, 2).is_empty());
        let only_text = Featurizer::fit(
            &train,
            FeatureSettings {
                behavioral: false,
                actions: false,
                milestones: false,
                svd_dims: 2,
                ..FeatureSettings::default()
            },
        );
        assert_eq!(
            only_text.names().len(),
            only_text.prefix(&data[0].steps, 2).len()
        );
        assert!(only_text.names().iter().all(|n| n.contains(":svd")));
    }

    #[test]
    fn the_textual_basis_is_learned_from_the_training_fold_only() {
        let data = sample();
        let settings = FeatureSettings {
            svd_dims: 2,
            ..FeatureSettings::default()
        };
        let on_a = Featurizer::fit(&[&data[0]], settings);
        let on_both = Featurizer::fit(&[&data[0], &data[1]], settings);
        // Words only in b ("grep") are outside the vocabulary fitted on a.
        assert!(!on_a.blocks[0].index.contains_key("grep"));
        assert_ne!(on_a.blocks[0].index, on_both.blocks[0].index);
        // The same fold and seed give the same bits.
        assert_eq!(on_a, Featurizer::fit(&[&data[0]], settings));
    }

    #[test]
    fn the_svd_basis_spans_a_rank_two_matrix() {
        // Rows in the span of two orthogonal directions: the basis reproduces every row.
        let rows: Vec<Vec<(usize, f64)>> = (0..30)
            .map(|i| {
                let (a, b) = ((i % 5) as f64, (i % 3) as f64);
                vec![(0, a), (1, a), (2, b), (3, -b)]
            })
            .collect();
        let basis = truncated_svd_basis(&rows, 4, 2, 1, "test");
        for row in &rows {
            let mut dense = [0.0; 4];
            for &(c, w) in row {
                dense[c] = w;
            }
            let coords: Vec<f64> = (0..2)
                .map(|d| (0..4).map(|c| dense[c] * basis[c][d]).sum())
                .collect();
            for c in 0..4 {
                let back: f64 = (0..2).map(|d| coords[d] * basis[c][d]).sum();
                assert!((back - dense[c]).abs() < 1e-9, "{back} vs {}", dense[c]);
            }
        }
    }
}
