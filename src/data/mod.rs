//! Files in and out, and the only place polars frames live. Completed records (SPEC §1) are read by
//! extension (`read`), their columns checked and typed (`columns`, `records`), then assembled into a
//! plain [`crate::dataset::Dataset`] (`assemble`, `side`); simulated records and decision records are
//! written (`write`). Nothing outside this module sees polars.

mod assemble;
mod columns;
pub(crate) mod damaged;
pub mod declared_runs;
pub mod error;
pub mod halts;
mod hold_runs;
pub mod import;
mod options;
pub mod read;
mod records;
mod side;
pub mod task_list;
pub mod trajectories;
pub mod write;

pub use assemble::{LoadOptions, load};
pub use columns::{ColumnMap, ColumnMapError, KNOWN as KNOWN_COLUMNS, MappingProblem};
pub use declared_runs::DeclaredRuns;
pub use error::LoadError;
pub use records::{parse_date, run_key};
pub use side::{Plan, load_plan};
