//! Signals that ask pareval to end: `kill`, `timeout`, a Ctrl-C outside raw mode, the SIGHUP of a
//! closed terminal. Their default action ends the process at once, which leaves a screen's terminal
//! raw in the alternate screen (the explorer, `watch`) or a harness running in its own process
//! group (`run`). They are caught into one atomic instead, which those loops read to leave the usual
//! way: the terminal restored, the harness ended, and the exit status 128 + the signal's number.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signals a full-screen view ends on.
pub const SCREEN: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGQUIT, libc::SIGHUP];

/// The signals `run` ends its harness on: its own process group does not get them, so pareval must
/// pass the stop on (a SIGHUP too, unless `nohup` set it ignored: see [`catch_unless_ignored`]).
pub const INTERRUPT: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// The last caught signal's number; 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
}

/// Catches `signals` from now on: each is recorded for [`received`] instead of ending the process.
pub fn catch(signals: &[libc::c_int]) {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for &signal in signals {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(signal, handler);
        }
    }
}

/// Catches each of `signals` that is not ignored: a process started under `nohup` (SIGHUP ignored)
/// keeps running when its terminal goes, as the user asked.
pub fn catch_unless_ignored(signals: &[libc::c_int]) {
    for &signal in signals {
        // SAFETY: a zeroed sigaction is a valid out-parameter; a null new action only reads the
        // current one.
        let ignored = unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN
        };
        if !ignored {
            catch(&[signal]);
        }
    }
}

/// The signal's name as `kill -l` gives it (SIGTERM), or its number.
pub fn name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        libc::SIGHUP => "SIGHUP".to_string(),
        libc::SIGQUIT => "SIGQUIT".to_string(),
        other => format!("signal {other}"),
    }
}

/// The signal caught last, if any was.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Records `signal` as if it had been caught: a terminal that went away without a SIGHUP reaching
/// pareval ends a screen as one does.
pub fn record(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
}

/// The exit status of a process ended by `signal`: the shell's convention, 128 + its number.
pub fn exit_status(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}
