//! Loading completed records (SPEC §1): the only place polars frames live. Files are read by
//! extension (`read`), their columns checked and typed (`columns`, `records`), then assembled into a
//! plain [`crate::dataset::Dataset`] (`assemble`, `side`). Nothing downstream sees polars.

mod assemble;
mod columns;
pub mod error;
pub mod read;
mod records;
mod side;
pub mod write;

pub use assemble::{LoadOptions, load};
pub use columns::{ColumnMap, KNOWN as KNOWN_COLUMNS};
pub use error::LoadError;
pub use records::parse_date;
pub use side::{Plan, load_plan};
