//! The terminal's input, read on a thread for the explorer and `watch`'s screen: crossterm's events
//! forwarded until told to stop, and the terminal's hang-up noticed. The wait is on the terminal
//! itself, not in crossterm's poll: on a terminal that went away (its window closed, its tmux
//! session killed, no SIGHUP reaching pareval) crossterm's poll spins for ever inside its own loop,
//! a full core, and the screen never ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::event::{self, Event};

/// Why the reading ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputEnded {
    /// `stop` was set.
    Stopped,
    /// The terminal's other end closed: leave as a SIGHUP would make you.
    HungUp,
    /// The receiver is gone, or the terminal could not be read.
    Closed,
}

/// How long one wait on the terminal lasts: how soon `stop`, and crossterm's resize events (which
/// it hears of by signal, not on the terminal), are seen.
const WAIT: Duration = Duration::from_millis(50);

/// Forwards every terminal event to `forward` (which returns false once nobody listens) until
/// `stop` is set, the terminal hangs up or it cannot be read.
pub fn forward_events(stop: &AtomicBool, mut forward: impl FnMut(Event) -> bool) -> InputEnded {
    while !stop.load(Ordering::Relaxed) {
        if hung_up_after_wait(WAIT) {
            return InputEnded::HungUp;
        }
        // Only what crossterm has now: keys typed, and resizes it heard of.
        loop {
            match event::poll(Duration::ZERO) {
                Ok(true) => match event::read() {
                    Ok(event) => {
                        if !forward(event) {
                            return InputEnded::Closed;
                        }
                    }
                    Err(_) => return InputEnded::Closed,
                },
                Ok(false) => break,
                Err(_) => return InputEnded::Closed,
            }
        }
    }
    InputEnded::Stopped
}

/// Waits up to `limit` for input on standard input (the terminal the screens read; both refuse
/// to start without one); true when the terminal has hung up.
fn hung_up_after_wait(limit: Duration) -> bool {
    let mut terminal = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = libc::c_int::try_from(limit.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: one valid pollfd; poll only writes its `revents`.
    let ready = unsafe { libc::poll(&mut terminal, 1, millis) };
    ready > 0 && terminal.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}
