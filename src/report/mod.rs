//! Reports shared by the CLI and the explorer: each report is computed once into a plain struct
//! (serialisable as JSON) and rendered as text from that struct, so both outputs carry the same numbers.
//! Rendering writes to any `impl Write`, which lets tests print into a `Vec<u8>`.

pub mod early;
pub mod info;
pub mod pair;
pub mod pairs;
pub mod plan;
pub mod proxy;
pub mod replay;
pub mod table;

use std::io::{self, Write};

/// The four renderings of a table-shaped report (`replay`, `proxy`), all from one struct. JSON is the
/// struct itself, pretty-printed with a final newline.
pub trait Render: serde::Serialize {
    fn write_text<W: Write>(&self, out: &mut W, width: usize) -> io::Result<()>;
    fn write_csv<W: Write>(&self, out: &mut W) -> io::Result<()>;
    fn write_markdown<W: Write>(&self, out: &mut W) -> io::Result<()>;

    fn write_json<W: Write>(&self, out: &mut W) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }
}
