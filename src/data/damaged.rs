//! Reading a file with a third-party reader that may panic on damaged input: polars' Parquet
//! reader does on some corrupt metadata (a thrift field, a struct's child lengths, a page range),
//! where it should return an error. [`unless_damaged`] turns such a panic into the file's
//! [`LoadError`], exit code 2, without the panic's message on stderr.

use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::error::LoadError;

/// Guarded reads in progress: while any is, a panic is caught and reported as the file's error, so
/// the default hook's "thread … panicked" is not printed (polars may panic on one of its own
/// threads, which then hands the panic to the reading thread, so a thread-local flag would miss
/// it).
static GUARDED: AtomicUsize = AtomicUsize::new(0);
static QUIET_HOOK: Once = Once::new();

/// Runs `read`; a panic inside it becomes "{file}: {what} is damaged (…)".
pub fn unless_damaged<T>(
    file: &str,
    what: &str,
    read: impl FnOnce() -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    QUIET_HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.load(Ordering::SeqCst) == 0 {
                default(info);
            }
        }));
    });
    GUARDED.fetch_add(1, Ordering::SeqCst);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    GUARDED.fetch_sub(1, Ordering::SeqCst);
    result.unwrap_or_else(|panic| {
        let detail = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("the reader stopped");
        let detail: String = detail.chars().take(120).collect();
        Err(LoadError::new(
            file,
            format!("{what} is damaged: its reader could not make sense of it ({detail})"),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_file_s_error_and_other_results_pass_through() {
        let damaged: Result<u32, LoadError> =
            unless_damaged("f.parquet", "the Parquet file", || {
                panic!("thrift bool field")
            });
        assert_eq!(
            damaged.expect_err("damaged").to_string(),
            "f.parquet: the Parquet file is damaged: its reader could not make sense of it (thrift bool field)"
        );
        assert_eq!(unless_damaged("f", "x", || Ok(3)).expect("fine"), 3);
        let refused: Result<u32, LoadError> =
            unless_damaged("f", "x", || Err(LoadError::new("f", "bad")));
        assert_eq!(refused.expect_err("error").to_string(), "f: bad");
    }
}
