//! Numeric kernels of the proxy module on plain slices: average ranks, Spearman ρ, Kendall τ-b, R²,
//! mean absolute error, pairwise ranking accuracy, and ridge regression with an intercept solved in its
//! dual form (n × n with n training systems, however many tasks are selected; nalgebra's Cholesky).

/// Average ranks (1-based; ties share the mean of their positions).
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &index in &order[i..=j] {
            out[index] = rank;
        }
        i = j + 1;
    }
    out
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    if x.len() < 2 {
        return None;
    }
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Spearman's ρ: Pearson correlation of average ranks (None when a side is constant).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    pearson(&ranks(x), &ranks(y))
}

/// Kendall's τ-b, which corrects for ties on either side (None when a side is constant).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let (mut concordant, mut discordant, mut ties_x, mut ties_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
            if dx == 0.0 && dy == 0.0 {
                continue;
            } else if dx == 0.0 {
                ties_x += 1;
            } else if dy == 0.0 {
                ties_y += 1;
            } else if (dx > 0.0) == (dy > 0.0) {
                concordant += 1;
            } else {
                discordant += 1;
            }
        }
    }
    let base = (concordant + discordant) as f64;
    let denominator = ((base + ties_x as f64) * (base + ties_y as f64)).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// Coefficient of determination of `predicted` for `actual` (None when `actual` is constant).
pub fn r_squared(predicted: &[f64], actual: &[f64]) -> Option<f64> {
    let mean = actual.iter().sum::<f64>() / actual.len() as f64;
    let total: f64 = actual.iter().map(|a| (a - mean).powi(2)).sum();
    let residual: f64 = predicted
        .iter()
        .zip(actual)
        .map(|(p, a)| (a - p).powi(2))
        .sum();
    (total > 0.0).then(|| 1.0 - residual / total)
}

pub fn mean_absolute_error(predicted: &[f64], actual: &[f64]) -> f64 {
    predicted
        .iter()
        .zip(actual)
        .map(|(p, a)| (p - a).abs())
        .sum::<f64>()
        / actual.len().max(1) as f64
}

/// Share of system pairs (with different actual scores) that the prediction orders the same way.
pub fn pairwise_accuracy(predicted: &[f64], actual: &[f64]) -> Option<f64> {
    let (mut agree, mut pairs) = (0u64, 0u64);
    for i in 0..actual.len() {
        for j in i + 1..actual.len() {
            if actual[i] == actual[j] {
                continue;
            }
            pairs += 1;
            if (predicted[i] - predicted[j]) * (actual[i] - actual[j]) > 0.0 {
                agree += 1;
            }
        }
    }
    (pairs > 0).then(|| agree as f64 / pairs as f64)
}

/// Ridge regression with an intercept (the intercept is not penalised), fitted on rows `x` (n × k,
/// row-major) and targets `y`. Solved in the dual: with centred X and y, β = Xᵀ(XXᵀ + αI)⁻¹y, which
/// costs O(n²k + n³) for n training systems.
pub struct Ridge {
    x_mean: Vec<f64>,
    y_mean: f64,
    beta: Vec<f64>,
}

impl Ridge {
    pub fn fit(x: &[f64], n: usize, k: usize, y: &[f64], alpha: f64) -> Ridge {
        let x_mean: Vec<f64> = (0..k)
            .map(|j| (0..n).map(|i| x[i * k + j]).sum::<f64>() / n as f64)
            .collect();
        let y_mean = y.iter().sum::<f64>() / n as f64;
        let centred: Vec<f64> = (0..n * k)
            .map(|index| x[index] - x_mean[index % k])
            .collect();
        let targets: Vec<f64> = y.iter().map(|v| v - y_mean).collect();
        // The same ridge solution two ways: β = (XᵀX + αI)⁻¹ Xᵀy (k × k) or Xᵀ (XXᵀ + αI)⁻¹ y (n × n);
        // the smaller system is solved (Pace fits 5 components on thousands of replicate rows, where
        // the n × n solve took minutes; subset proxies have more columns than training systems).
        let beta = if k < n {
            let mut normal = vec![0.0; k * k];
            for a in 0..k {
                for b in a..k {
                    let dot: f64 = (0..n)
                        .map(|i| centred[i * k + a] * centred[i * k + b])
                        .sum();
                    normal[a * k + b] = dot;
                    normal[b * k + a] = dot;
                }
                normal[a * k + a] += alpha;
            }
            let rhs: Vec<f64> = (0..k)
                .map(|j| (0..n).map(|i| centred[i * k + j] * targets[i]).sum())
                .collect();
            solve_spd(&normal, k, &rhs)
        } else {
            let mut gram = vec![0.0; n * n];
            for a in 0..n {
                for b in a..n {
                    let dot: f64 = (0..k)
                        .map(|j| centred[a * k + j] * centred[b * k + j])
                        .sum();
                    gram[a * n + b] = dot;
                    gram[b * n + a] = dot;
                }
                gram[a * n + a] += alpha;
            }
            let dual = solve_spd(&gram, n, &targets);
            (0..k)
                .map(|j| (0..n).map(|i| centred[i * k + j] * dual[i]).sum())
                .collect()
        };
        Ridge {
            x_mean,
            y_mean,
            beta,
        }
    }

    pub fn predict(&self, row: &[f64]) -> f64 {
        self.y_mean
            + row
                .iter()
                .zip(&self.x_mean)
                .zip(&self.beta)
                .map(|((x, m), b)| (x - m) * b)
                .sum::<f64>()
    }
}

/// Solves A z = b for a symmetric positive definite A (n × n, row-major) by Cholesky; by LU when rounding
/// leaves A indefinite; zeros when it is singular.
pub(super) fn solve_spd(a: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let a = nalgebra::DMatrix::from_row_slice(n, n, a);
    let b = nalgebra::DVector::from_column_slice(b);
    let solution = match a.clone().cholesky() {
        Some(cholesky) => Some(cholesky.solve(&b)),
        None => a.lu().solve(&b),
    };
    solution.map_or_else(|| vec![0.0; n], |z| z.iter().copied().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_primal_and_the_dual_ridge_agree() {
        // 30 rows × 4 columns (the primal is solved) and the same 4 rows × 30 columns transposed
        // shapes (the dual), against the other form computed by hand here.
        let mut rng = crate::engine::streams::StreamKey::new(9, "ridge-forms").rng();
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        for (n, k) in [(30, 4), (4, 30), (12, 12)] {
            let x: Vec<f64> = (0..n * k).map(|_| uniform()).collect();
            let y: Vec<f64> = (0..n).map(|_| uniform()).collect();
            let ridge = Ridge::fit(&x, n, k, &y, 0.7);
            // The dual form, always.
            let mean = |j: usize| (0..n).map(|i| x[i * k + j]).sum::<f64>() / n as f64;
            let c: Vec<f64> = (0..n * k).map(|i| x[i] - mean(i % k)).collect();
            let y_mean = y.iter().sum::<f64>() / n as f64;
            let t: Vec<f64> = y.iter().map(|v| v - y_mean).collect();
            let mut gram = vec![0.0; n * n];
            for a in 0..n {
                for b in 0..n {
                    gram[a * n + b] = (0..k).map(|j| c[a * k + j] * c[b * k + j]).sum::<f64>()
                        + if a == b { 0.7 } else { 0.0 };
                }
            }
            let dual = solve_spd(&gram, n, &t);
            for j in 0..k {
                let beta: f64 = (0..n).map(|i| c[i * k + j] * dual[i]).sum();
                assert!((beta - ridge.beta[j]).abs() < 1e-9, "{n}×{k} column {j}");
            }
        }
    }

    #[test]
    fn small_solves_by_cholesky_then_lu_then_zeros() {
        let close = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(a, b)| (a - b).abs() < 1e-12);
        // Positive definite: 4x + 2y = 2, 2x + 3y = 1.
        assert!(close(
            &solve_spd(&[4.0, 2.0, 2.0, 3.0], 2, &[2.0, 1.0]),
            &[0.5, 0.0]
        ));
        // Indefinite (Cholesky fails), solved by LU: y = 2, x = 3.
        assert!(close(
            &solve_spd(&[0.0, 1.0, 1.0, 0.0], 2, &[2.0, 3.0]),
            &[3.0, 2.0]
        ));
        // Singular: no solution is claimed.
        assert_eq!(solve_spd(&[1.0, 1.0, 1.0, 1.0], 2, &[1.0, 2.0]), [0.0, 0.0]);
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[10.0, 20.0, 20.0, 5.0]), [2.0, 3.5, 3.5, 1.0]);
    }

    #[test]
    fn spearman_and_kendall_with_ties_by_hand() {
        // x = 1,2,2,3 and y = 1,3,2,4: ranks x = 1,2.5,2.5,4, y = 1,3,2,4 → ρ = 4.5/sqrt(4.5·5) = 0.948683.
        let (x, y) = ([1.0, 2.0, 2.0, 3.0], [1.0, 3.0, 2.0, 4.0]);
        assert!((spearman(&x, &y).unwrap() - 4.5 / (4.5f64 * 5.0).sqrt()).abs() < 1e-12);
        // Pairs: 5 concordant, 0 discordant, 1 tied in x only: τ-b = 5/sqrt(6·5) = 0.912871.
        assert!((kendall_tau_b(&x, &y).unwrap() - 5.0 / 30f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]),
            Some(-1.0)
        );
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn r2_mae_and_pair_accuracy_by_hand() {
        let (predicted, actual) = ([0.1, 0.4, 0.35], [0.2, 0.3, 0.4]);
        // mean 0.3; SS_tot = 0.02; SS_res = 0.01 + 0.01 + 0.0025 = 0.0225 → R² = −0.125.
        assert!((r_squared(&predicted, &actual).unwrap() + 0.125).abs() < 1e-12);
        assert!((mean_absolute_error(&predicted, &actual) - 0.25 / 3.0).abs() < 1e-12);
        // Pairs (0,1) and (0,2) agree, (1,2) does not.
        assert!((pairwise_accuracy(&predicted, &actual).unwrap() - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn ridge_on_a_tiny_matrix_by_hand() {
        // One feature x = 0, 1, 2 with y = 1, 3, 5 and α = 1: centred x = −1, 0, 1, y = −2, 0, 2;
        // β = Σxy / (Σx² + α) = 4 / 3; intercept ȳ − β·x̄ = 3 − 4/3.
        let ridge = Ridge::fit(&[0.0, 1.0, 2.0], 3, 1, &[1.0, 3.0, 5.0], 1.0);
        assert!((ridge.predict(&[1.0]) - 3.0).abs() < 1e-12);
        assert!((ridge.predict(&[2.0]) - (3.0 + 4.0 / 3.0)).abs() < 1e-12);
        // Two features, α → 0 recovers the exact fit y = 1 + 2·x1 − x2 (primal and dual agree).
        let x = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0];
        let y: Vec<f64> = (0..5)
            .map(|i| 1.0 + 2.0 * x[2 * i] - x[2 * i + 1])
            .collect();
        let ridge = Ridge::fit(&x, 5, 2, &y, 1e-9);
        assert!((ridge.predict(&[3.0, 2.0]) - 5.0).abs() < 1e-6);
    }
}
