//! Why a proxy evaluation cannot run: one enum for selection, protocols, Pace and cancellation, so the
//! CLI maps every kind to exit code 2 and the explorer tells a cancelled job from a failed one.

use crate::dataset::UnknownGroupColumn;

/// The most seeds, splits or resamples an evaluation takes (far more than its figures need).
pub const MOST_REPEATS: u32 = 100_000;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProxyError {
    #[error("proxy predictions need at least 3 systems; the records hold {0}")]
    TooFewSystems(usize),
    #[error("no task has an outcome for every system")]
    NoCompleteTask,
    #[error(transparent)]
    UnknownGroupColumn(#[from] UnknownGroupColumn),
    #[error("method '{0}' is not one of {1}")]
    UnknownMethod(String, String),
    #[error("protocol '{0}' is not one of {1}")]
    UnknownProtocol(String, String),
    /// A protocol needs a system attribute that some system lacks.
    #[error("protocol '{protocol}' needs a '{column}' for every system")]
    MissingAttribute {
        protocol: &'static str,
        column: &'static str,
    },
    /// A protocol has no fold with enough training systems.
    #[error("protocol '{protocol}' needs {need}")]
    TooFewForProtocol {
        protocol: &'static str,
        need: &'static str,
    },
    #[error("--size '{size}' must be between 1 and the {tasks} usable tasks")]
    SizeOutOfRange { size: usize, tasks: usize },
    /// A count setting (seeds, splits, Pace's C, components, resamples) of 0.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// A count setting past what any evaluation needs: its rounds are held in memory at once, so
    /// 4,294,967,295 seeds aborted on an allocation of a terabyte.
    #[error("{0} must be at most {MOST_REPEATS}")]
    TooMany(&'static str),
    /// A share setting outside [0, 1].
    #[error("{setting} '{value}' must be in [0, 1]")]
    ShareOutOfRange { setting: &'static str, value: f64 },
    #[error("--target needs a benchmark column or a group column naming benchmarks")]
    NoBenchmarks,
    #[error("{flag} '{name}' is not a benchmark here; benchmarks: {known}")]
    UnknownBenchmark {
        flag: &'static str,
        name: String,
        known: String,
    },
    #[error("--source must not include the --target benchmark")]
    SourceIsTarget,
    #[error("the target or the source pool has no task every model has")]
    EmptyPool,
    /// The caller asked the computation to stop (a newer explorer job replaced it).
    #[error("cancelled")]
    Cancelled,
}
