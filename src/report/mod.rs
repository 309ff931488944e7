//! Reports shared by the CLI and the explorer: each report is computed once into a plain struct
//! (serialisable as JSON) and rendered as text from that struct, so both outputs carry the same numbers.
//! Rendering writes to any `impl Write`, which lets tests print into a `Vec<u8>`.

pub mod info;
pub mod pair;
pub mod proxy;
pub mod replay;
pub mod table;
