//! Pace (SPEC §10, `pace.md`): predict one benchmark's mean score from a small set of instances of
//! *other* benchmarks. On the training models only: a local subset (top C_L instances by |Spearman| with
//! the target mean) and a global subset (top C_G by SVD leverage × |Spearman|), back-filled so that
//! C = C_L + C_G unique instances are used; each subset is embedded in an SVD basis (the held-out model is
//! projected with the pseudo-inverse from its scores on the subset alone), a ridge regression maps the
//! embeddings to the target mean augmented with B bootstrap resamples of the target instances, and the
//! two predictions are combined as λ·ŷ_L + (1 − λ)·ŷ_G. Every hyperparameter is a named setting; the
//! defaults below are fixed values (the paper tunes λ and the split by held-out validation). Linear
//! algebra (the eigen-decomposition behind the SVD basis, the small solves) is nalgebra's.

use nalgebra::DMatrix;
use serde::Serialize;

use super::evaluation::mean_and_sd;
use super::stats::{self, Ridge, solve_spd, spearman};
use super::{ProxyError, ProxyEvaluation, ProxyMatrix, ProxyResult, ProxyRow, SystemPrediction};
use crate::dataset::Dataset;
use crate::engine::streams::StreamKey;

/// Pace's hyperparameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PaceSettings {
    /// Source instances evaluated per new model (C).
    pub size: usize,
    /// Share of C for the local subset (C_L = round(q·C)).
    pub local_share: f64,
    /// Ensemble weight λ of the local prediction.
    pub lambda: f64,
    /// SVD components n_c (capped by the training models and subset size).
    pub components: usize,
    /// Bootstrap resamples B of the target instances.
    pub bootstrap: u32,
    /// Ridge penalty of the embedding regressions.
    pub alpha: f64,
    pub seed: u64,
}

impl Default for PaceSettings {
    fn default() -> Self {
        PaceSettings {
            size: 100,
            local_share: 0.5,
            lambda: 0.5,
            components: 5,
            bootstrap: 50,
            alpha: 1e-3,
            seed: 0,
        }
    }
}

/// Scores of models on source instances (row-major) and each model's target instances.
pub struct PaceData<'a> {
    pub models: usize,
    pub sources: usize,
    /// models × sources.
    pub source: &'a [f64],
    /// models × target instances.
    pub target: &'a [f64],
    pub targets: usize,
}

impl PaceData<'_> {
    fn source_value(&self, model: usize, instance: usize) -> f64 {
        self.source[model * self.sources + instance]
    }

    fn target_mean(&self, model: usize) -> f64 {
        self.target[model * self.targets..(model + 1) * self.targets]
            .iter()
            .sum::<f64>()
            / self.targets as f64
    }
}

/// Eigen-decomposition of a symmetric matrix (n × n, row-major): eigenvalues descending with their unit
/// eigenvectors as columns of the returned matrix (row-major). Eigenvectors are defined up to sign (and,
/// for equal eigenvalues, up to a rotation); nothing downstream depends on either (leverage squares them,
/// the projection and ridge are invariant).
pub fn symmetric_eigen(matrix: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let eigen = DMatrix::from_row_slice(n, n, matrix).symmetric_eigen();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| eigen.eigenvalues[y].total_cmp(&eigen.eigenvalues[x]));
    let values = order.iter().map(|&i| eigen.eigenvalues[i]).collect();
    let sorted = (0..n * n)
        .map(|index| eigen.eigenvectors[(index / n, order[index % n])])
        .collect();
    (values, sorted)
}

/// The right singular vectors of X (rows × cols) for the `components` largest singular values, as a
/// components × cols matrix: V_c = Xᵀu_c / s_c from the eigenvectors u of XXᵀ.
pub fn right_singular_vectors(
    x: &[f64],
    rows: usize,
    cols: usize,
    components: usize,
) -> Vec<Vec<f64>> {
    let mut gram = vec![0.0; rows * rows];
    for a in 0..rows {
        for b in a..rows {
            let dot: f64 = (0..cols).map(|j| x[a * cols + j] * x[b * cols + j]).sum();
            gram[a * rows + b] = dot;
            gram[b * rows + a] = dot;
        }
    }
    let (values, vectors) = symmetric_eigen(&gram, rows);
    (0..components.min(rows))
        .filter(|&c| values[c] > 1e-12)
        .map(|c| {
            let s = values[c].sqrt();
            (0..cols)
                .map(|j| {
                    (0..rows)
                        .map(|i| x[i * cols + j] * vectors[i * rows + c])
                        .sum::<f64>()
                        / s
                })
                .collect()
        })
        .collect()
}

/// Leverage h_i = Σ_c V_ci² of every column.
pub fn leverage(v: &[Vec<f64>], cols: usize) -> Vec<f64> {
    (0..cols)
        .map(|j| v.iter().map(|row| row[j] * row[j]).sum())
        .collect()
}

/// Latent coordinates z of a score vector observed on `columns` only: least squares x ≈ V_colsᵀ z
/// (the pseudo-inverse of V restricted to the observed columns).
fn project(v: &[Vec<f64>], columns: &[usize], scores: &[f64]) -> Vec<f64> {
    let k = v.len();
    let mut normal = vec![0.0; k * k];
    let mut rhs = vec![0.0; k];
    for a in 0..k {
        for b in 0..k {
            normal[a * k + b] = columns.iter().map(|&j| v[a][j] * v[b][j]).sum::<f64>()
                + if a == b { 1e-10 } else { 0.0 };
        }
        rhs[a] = columns.iter().zip(scores).map(|(&j, &x)| v[a][j] * x).sum();
    }
    // Symmetric positive definite by the 1e-10 added to the diagonal.
    solve_spd(&normal, k, &rhs)
}

/// The instances Pace evaluates for new models, fitted on `train`: (local, global), disjoint, together C.
pub fn select_instances(
    data: &PaceData<'_>,
    train: &[usize],
    settings: &PaceSettings,
) -> (Vec<usize>, Vec<usize>, Vec<Vec<f64>>) {
    let size = settings.size.min(data.sources);
    let local_size = ((settings.local_share * size as f64).round() as usize).min(size);
    let means: Vec<f64> = train.iter().map(|&m| data.target_mean(m)).collect();
    let relevance: Vec<f64> = (0..data.sources)
        .map(|i| {
            let column: Vec<f64> = train.iter().map(|&m| data.source_value(m, i)).collect();
            spearman(&column, &means).map_or(0.0, f64::abs)
        })
        .collect();
    let x: Vec<f64> = train
        .iter()
        .flat_map(|&m| (0..data.sources).map(move |i| data.source_value(m, i)))
        .collect();
    let v = right_singular_vectors(
        &x,
        train.len(),
        data.sources,
        settings
            .components
            .min(train.len().saturating_sub(1))
            .max(1),
    );
    let h = leverage(&v, data.sources);
    let ranked = |score: &dyn Fn(usize) -> f64| -> Vec<usize> {
        let mut order: Vec<usize> = (0..data.sources).collect();
        order.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
        order
    };
    let by_relevance = ranked(&|i| relevance[i]);
    let by_global = ranked(&|i| h[i] * relevance[i]);
    // Take the top of each ranking; where they overlap, extend each side past instances already taken,
    // in proportion to the split, until C unique instances are chosen.
    let mut taken = vec![false; data.sources];
    let (mut local, mut global) = (Vec::new(), Vec::new());
    let (mut li, mut gi) = (0, 0);
    while local.len() + global.len() < size && (li < data.sources || gi < data.sources) {
        let want_local =
            local.len() < local_size || global.len() >= size - local_size || gi >= data.sources;
        let (list, cursor, target) = if want_local && li < data.sources {
            (&by_relevance, &mut li, &mut local)
        } else {
            (&by_global, &mut gi, &mut global)
        };
        while *cursor < data.sources && taken[list[*cursor]] {
            *cursor += 1;
        }
        if *cursor < data.sources {
            taken[list[*cursor]] = true;
            target.push(list[*cursor]);
            *cursor += 1;
        }
    }
    (local, global, v)
}

/// Predicts the held-out model's target mean from its scores on the chosen instances only.
pub fn predict(
    data: &PaceData<'_>,
    train: &[usize],
    held_out: usize,
    settings: &PaceSettings,
) -> f64 {
    let (local, global, v_global) = select_instances(data, train, settings);
    let components = settings
        .components
        .min(train.len().saturating_sub(1))
        .max(1);
    // Bootstrap replicates of each training model's target mean: resample target instances.
    let mut rng = StreamKey::new(settings.seed, "pace-bootstrap")
        .u64(held_out as u64)
        .rng();
    let replicates: Vec<Vec<usize>> = (0..settings.bootstrap)
        .map(|_| (0..data.targets).map(|_| rng.below(data.targets)).collect())
        .collect();
    let global_prediction = fit_and_predict(
        data,
        train,
        held_out,
        &v_global,
        &global,
        &replicates,
        settings.alpha,
    );
    let x_local: Vec<f64> = train
        .iter()
        .flat_map(|&m| local.iter().map(move |&i| data.source_value(m, i)))
        .collect();
    let v_local = right_singular_vectors(&x_local, train.len(), local.len(), components);
    // The local basis lives on the local columns only: a view of the data re-indexed 0..|L|.
    let local_scores = restrict(data, &local);
    let local_view = PaceData {
        models: data.models,
        sources: local.len(),
        source: &local_scores,
        target: data.target,
        targets: data.targets,
    };
    let local_positions: Vec<usize> = (0..local.len()).collect();
    let local_prediction = fit_and_predict(
        &local_view,
        train,
        held_out,
        &v_local,
        &local_positions,
        &replicates,
        settings.alpha,
    );
    match (local_prediction, global_prediction) {
        (Some(l), Some(g)) => settings.lambda * l + (1.0 - settings.lambda) * g,
        (Some(l), None) => l,
        (None, Some(g)) => g,
        (None, None) => {
            train.iter().map(|&m| data.target_mean(m)).sum::<f64>() / train.len() as f64
        }
    }
}

/// Embeds every model's scores on `columns` in the basis `v` (the held-out model from those columns alone),
/// fits ridge from the training embeddings to the bootstrap replicates of their target means, and predicts
/// the held-out model. None without a basis or columns.
fn fit_and_predict(
    data: &PaceData<'_>,
    train: &[usize],
    held_out: usize,
    v: &[Vec<f64>],
    columns: &[usize],
    replicates: &[Vec<usize>],
    alpha: f64,
) -> Option<f64> {
    if columns.is_empty() || v.is_empty() {
        return None;
    }
    let embed = |m: usize| -> Vec<f64> {
        let scores: Vec<f64> = columns.iter().map(|&i| data.source_value(m, i)).collect();
        project(v, columns, &scores)
    };
    let mut x = Vec::new();
    let mut y = Vec::new();
    for &m in train {
        let z = embed(m);
        for replicate in replicates {
            x.extend_from_slice(&z);
            y.push(
                replicate
                    .iter()
                    .map(|&t| data.target[m * data.targets + t])
                    .sum::<f64>()
                    / data.targets as f64,
            );
        }
    }
    let ridge = Ridge::fit(&x, y.len(), v.len(), &y, alpha);
    Some(ridge.predict(&embed(held_out)))
}

/// The source scores of every model on `columns`, as a models × |columns| matrix.
fn restrict(data: &PaceData<'_>, columns: &[usize]) -> Vec<f64> {
    (0..data.models)
        .flat_map(|m| columns.iter().map(move |&i| data.source_value(m, i)))
        .collect()
}

/// The random-instance baseline: C random source instances, ridge (α = 1) on their raw scores.
pub fn predict_random(
    data: &PaceData<'_>,
    train: &[usize],
    held_out: usize,
    size: usize,
    seed: u64,
) -> f64 {
    let mut order: Vec<usize> = (0..data.sources).collect();
    let size = size.min(data.sources);
    StreamKey::new(seed, "pace-random")
        .u64(held_out as u64)
        .rng()
        .shuffle_prefix(&mut order, size);
    let columns = &order[..size];
    let x: Vec<f64> = train
        .iter()
        .flat_map(|&m| columns.iter().map(move |&i| data.source_value(m, i)))
        .collect();
    let y: Vec<f64> = train.iter().map(|&m| data.target_mean(m)).collect();
    let ridge = Ridge::fit(&x, train.len(), size, &y, super::RIDGE_ALPHA);
    let row: Vec<f64> = columns
        .iter()
        .map(|&i| data.source_value(held_out, i))
        .collect();
    ridge.predict(&row)
}

/// A cross-benchmark prediction: the benchmark predicted and the pool its instances come from.
#[derive(Debug, Clone, PartialEq)]
pub struct PaceQuestion {
    /// The benchmark whose mean score is predicted.
    pub target: String,
    /// Benchmarks of the source pool (empty: every other benchmark).
    pub sources: Vec<String>,
    /// Source instances per new model (C), one evaluation each.
    pub sizes: Vec<usize>,
    /// Seeds the random-instance baseline is averaged over.
    pub seeds: u32,
}

impl PaceSettings {
    /// Refuses settings that cannot run, rather than raising them silently.
    pub fn validate(&self) -> Result<(), ProxyError> {
        if self.components == 0 {
            return Err(ProxyError::Zero("--pace-components"));
        }
        if self.bootstrap == 0 {
            return Err(ProxyError::Zero("--pace-bootstrap"));
        }
        if self.bootstrap > super::error::MOST_REPEATS {
            return Err(ProxyError::TooMany("--pace-bootstrap"));
        }
        for (setting, value) in [
            ("--pace-local-share", self.local_share),
            ("--pace-lambda", self.lambda),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(ProxyError::ShareOutOfRange { setting, value });
            }
        }
        Ok(())
    }
}

/// The benchmark labels of a record and the benchmark of every task of `matrix`: the `benchmark`
/// column when it names several, else the group column (`group`, already resolved).
fn benchmarks_of_tasks(
    dataset: &Dataset,
    matrix: &ProxyMatrix,
    group: Option<&str>,
) -> Result<(Vec<String>, Vec<u32>), ProxyError> {
    if dataset.benchmarks.len() > 1 {
        let column = ProxyMatrix::new(dataset, Some("benchmark"))?;
        // Group ids index the benchmark group column's (sorted) labels, not the order of appearance.
        let labels = dataset
            .group_column("benchmark")
            .map(|c| c.labels.clone())
            .unwrap_or_default();
        return Ok((labels, column.groups));
    }
    match group.and_then(|g| dataset.group_column(g)) {
        Some(column) => Ok((column.labels.clone(), matrix.groups.clone())),
        None => Err(ProxyError::NoBenchmarks),
    }
}

/// Pace under leave-one-model-out at every C of `question.sizes`, each followed by the random-instance
/// baseline of the same size averaged over seeds: what `pareval proxy --target` reports.
pub fn leave_one_model_out(
    dataset: &Dataset,
    group: Option<&str>,
    question: &PaceQuestion,
    settings: &PaceSettings,
) -> Result<ProxyEvaluation, ProxyError> {
    settings.validate()?;
    if question.seeds == 0 {
        return Err(ProxyError::Zero("--seeds"));
    }
    if question.seeds > super::error::MOST_REPEATS {
        return Err(ProxyError::TooMany("--seeds"));
    }
    if question.sizes.contains(&0) {
        return Err(ProxyError::Zero("--pace-size values"));
    }
    let matrix = ProxyMatrix::new(dataset, group)?;
    let (labels, of_task) = benchmarks_of_tasks(dataset, &matrix, group)?;
    let find = |flag: &'static str, name: &str| {
        labels
            .iter()
            .position(|l| l == name)
            .map(|i| i as u32)
            .ok_or_else(|| ProxyError::UnknownBenchmark {
                flag,
                name: name.to_string(),
                known: labels.join(", "),
            })
    };
    let target_id = find("--target", &question.target)?;
    let sources: Vec<u32> = if question.sources.is_empty() {
        (0..labels.len() as u32)
            .filter(|&b| b != target_id)
            .collect()
    } else {
        question
            .sources
            .iter()
            .map(|s| find("--source", s.trim()))
            .collect::<Result<_, _>>()?
    };
    if sources.contains(&target_id) {
        return Err(ProxyError::SourceIsTarget);
    }
    let source_tasks: Vec<usize> = (0..matrix.n_tasks)
        .filter(|&t| sources.contains(&of_task[t]))
        .collect();
    let target_tasks: Vec<usize> = (0..matrix.n_tasks)
        .filter(|&t| of_task[t] == target_id)
        .collect();
    if source_tasks.is_empty() || target_tasks.is_empty() {
        return Err(ProxyError::EmptyPool);
    }
    let models = matrix.systems.len();
    let (scores, n_tasks) = (&matrix.x, matrix.n_tasks);
    let pick = |tasks: &[usize]| -> Vec<f64> {
        (0..models)
            .flat_map(|m| tasks.iter().map(move |&t| scores[m * n_tasks + t]))
            .collect()
    };
    let (source, target_scores) = (pick(&source_tasks), pick(&target_tasks));
    let data = PaceData {
        models,
        sources: source_tasks.len(),
        source: &source,
        target: &target_scores,
        targets: target_tasks.len(),
    };
    let actual: Vec<f64> = (0..models).map(|m| data.target_mean(m)).collect();
    let others = |m: usize| (0..models).filter(|&o| o != m).collect::<Vec<_>>();
    let mut rows = Vec::new();
    // A C above the pool takes the whole pool (every instance); two such Cs would be one row twice.
    let mut capped = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    for &asked in &question.sizes {
        let size = asked.min(source_tasks.len());
        if size < asked {
            capped.push(asked.to_string());
        }
        if done.contains(&size) {
            continue;
        }
        done.push(size);
        let settings = PaceSettings { size, ..*settings };
        let pace: Vec<f64> = (0..models)
            .map(|m| predict(&data, &others(m), m, &settings))
            .collect();
        let random_runs: Vec<Vec<f64>> = (0..question.seeds)
            .map(|s| {
                (0..models)
                    .map(|m| {
                        predict_random(&data, &others(m), m, size, settings.seed + u64::from(s))
                    })
                    .collect()
            })
            .collect();
        let result_for = |name: &'static str, predicted: &[f64]| -> ProxyResult {
            ProxyResult {
                method: name,
                protocol: "loao",
                budget: None,
                size,
                spearman: stats::spearman(predicted, &actual),
                kendall: stats::kendall_tau_b(predicted, &actual),
                r2: stats::r_squared(predicted, &actual),
                mae_pp: stats::mean_absolute_error(predicted, &actual) * 100.0,
                pair_accuracy: stats::pairwise_accuracy(predicted, &actual),
                subset_mean_spearman: None,
                decision_agreement: Vec::new(),
                task_share: size as f64 / source_tasks.len() as f64,
                cost_share: None,
                rounds: 1,
                folds: models,
                constant_folds: 0,
                empty_folds: 0,
                systems: (0..models)
                    .map(|m| SystemPrediction {
                        system: matrix.systems[m].clone(),
                        predicted: predicted[m],
                        actual: actual[m],
                        subset_mean: f64::NAN,
                    })
                    .collect(),
            }
        };
        rows.push(ProxyRow {
            result: result_for("pace", &pace),
            seeds: None,
            spearman_sd: None,
            mae_pp_sd: None,
        });
        // The random baseline shows the mean prediction per model; its metrics are averaged over seeds
        // (not computed on the averaged prediction).
        let mean_prediction: Vec<f64> = (0..models)
            .map(|m| random_runs.iter().map(|r| r[m]).sum::<f64>() / random_runs.len() as f64)
            .collect();
        let mut random = result_for("random-instances", &mean_prediction);
        let over = |f: &dyn Fn(&[f64]) -> Option<f64>| {
            mean_and_sd(&random_runs.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
        };
        let (spearman, spearman_sd) = over(&|p| stats::spearman(p, &actual));
        let (mae, mae_pp_sd) = over(&|p| Some(stats::mean_absolute_error(p, &actual) * 100.0));
        random.spearman = spearman;
        random.mae_pp = mae.unwrap_or(0.0);
        random.kendall = over(&|p| stats::kendall_tau_b(p, &actual)).0;
        random.r2 = over(&|p| stats::r_squared(p, &actual)).0;
        random.pair_accuracy = over(&|p| stats::pairwise_accuracy(p, &actual)).0;
        rows.push(ProxyRow {
            result: random,
            seeds: Some(question.seeds),
            spearman_sd,
            mae_pp_sd,
        });
    }
    let mut notes: Vec<String> = matrix.coverage_note.iter().cloned().collect();
    if !capped.is_empty() {
        notes.push(format!(
            "--pace-size {} asks more than the {} source instances every model has: read as {}, the whole pool (one row)",
            capped.join(","),
            source_tasks.len(),
            source_tasks.len()
        ));
    }
    let allowed = models.saturating_sub(2).max(1);
    if settings.components > allowed {
        notes.push(format!(
            "--pace-components {} asks more SVD components than the {} training models of each \
             fold allow: at most {allowed} are used",
            settings.components,
            models.saturating_sub(1)
        ));
    }
    Ok(ProxyEvaluation {
        tasks: source_tasks.len(),
        tasks_left_out: matrix.left_out,
        systems: models,
        results: rows,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_eigen_recovers_a_known_decomposition() {
        // [[2, 1], [1, 2]] has eigenvalues 3 and 1 with eigenvectors (1, 1)/√2 and (1, −1)/√2.
        let (values, vectors) = symmetric_eigen(&[2.0, 1.0, 1.0, 2.0], 2);
        assert!((values[0] - 3.0).abs() < 1e-12 && (values[1] - 1.0).abs() < 1e-12);
        assert!((vectors[0].abs() - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        assert!(
            (vectors[0] - vectors[2]).abs() < 1e-12,
            "first eigenvector is (1, 1)/√2 up to sign"
        );
    }

    #[test]
    fn leverage_on_a_matrix_with_known_svd() {
        // X = diag(3, 1) padded with a zero column: V = [[1, 0, 0], [0, 1, 0]] up to sign.
        let x = [3.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let v = right_singular_vectors(&x, 2, 3, 2);
        let h = leverage(&v, 3);
        assert!((h[0] - 1.0).abs() < 1e-12 && (h[1] - 1.0).abs() < 1e-12 && h[2].abs() < 1e-12);
        // With one component only the first column carries leverage.
        let h1 = leverage(&right_singular_vectors(&x, 2, 3, 1), 3);
        assert!((h1[0] - 1.0).abs() < 1e-12 && h1[1].abs() < 1e-12);
    }

    fn synthetic() -> (Vec<f64>, Vec<f64>) {
        // 10 models with ability a_m; 40 source instances and 30 target instances whose pass depends on a_m.
        let ability = |m: usize| m as f64 / 9.0;
        let source: Vec<f64> = (0..10)
            .flat_map(|m| {
                (0..40).map(move |i| {
                    f64::from(u8::from(ability(m) * 40.0 > i as f64 + (i % 3) as f64))
                })
            })
            .collect();
        let target: Vec<f64> = (0..10)
            .flat_map(|m| (0..30).map(move |t| f64::from(u8::from(ability(m) * 30.0 > t as f64))))
            .collect();
        (source, target)
    }

    #[test]
    fn pace_selects_c_unique_instances_and_predicts_a_monotone_target() {
        let (source, target) = synthetic();
        let data = PaceData {
            models: 10,
            sources: 40,
            source: &source,
            target: &target,
            targets: 30,
        };
        let settings = PaceSettings {
            size: 12,
            components: 3,
            bootstrap: 20,
            ..PaceSettings::default()
        };
        let train: Vec<usize> = (0..10).filter(|&m| m != 4).collect();
        let (local, global, _) = select_instances(&data, &train, &settings);
        assert_eq!(local.len() + global.len(), 12);
        assert!(local.iter().all(|i| !global.contains(i)));
        let predicted: Vec<f64> = (0..10)
            .map(|m| {
                let train: Vec<usize> = (0..10).filter(|&o| o != m).collect();
                predict(&data, &train, m, &settings)
            })
            .collect();
        let actual: Vec<f64> = (0..10).map(|m| data.target_mean(m)).collect();
        assert!(
            spearman(&predicted, &actual).unwrap_or(0.0) > 0.9,
            "{predicted:?}"
        );
    }

    #[test]
    fn the_held_out_models_target_never_reaches_the_fit() {
        let (source, mut target) = synthetic();
        let settings = PaceSettings {
            size: 10,
            components: 2,
            bootstrap: 10,
            ..PaceSettings::default()
        };
        let train: Vec<usize> = (0..10).filter(|&m| m != 7).collect();
        let before = predict(
            &PaceData {
                models: 10,
                sources: 40,
                source: &source,
                target: &target,
                targets: 30,
            },
            &train,
            7,
            &settings,
        );
        for t in 0..30 {
            target[7 * 30 + t] = 1.0 - target[7 * 30 + t];
        }
        let after = predict(
            &PaceData {
                models: 10,
                sources: 40,
                source: &source,
                target: &target,
                targets: 30,
            },
            &train,
            7,
            &settings,
        );
        assert_eq!(before, after);
    }
}
