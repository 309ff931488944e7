//! `pareval watch`: the explorer's live mode (issue 12). It follows outcome files while a harness
//! writes them (`follow`), keeps the live decisions of the tested system against its baselines
//! (`state`, the same function as `decide`), and draws them (`view`); `--replay` plays a completed
//! record through the same screen in plan order (`replay`). `tail` reads appended lines for both the
//! outcome files and the steps files that `steps` scores with a saved early predictor (`early`, the
//! `--early` panel; `halt --follow`).

pub mod early;
pub mod follow;
pub mod state;
pub mod steps;
pub mod tail;
pub mod view;

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};

use follow::{Event, Followed, OutcomeRow};
use state::WatchState;

/// How often followed files are looked at: a new row is on screen within about this long.
pub const POLL: Duration = Duration::from_millis(500);

/// Where rows come from.
pub enum Source {
    /// Files (or folders) a harness is writing, and how its result files are read (the import
    /// choices).
    Follow(Vec<PathBuf>, std::sync::Arc<crate::data::LoadOptions>),
    /// A completed record played in plan order: one planned task (every system's outcome on it) per
    /// beat, `speed` tasks a second.
    Replay {
        /// Rows of each planned task, in plan order.
        tasks: Vec<Vec<OutcomeRow>>,
        speed: f64,
        label: String,
    },
}

/// Why watching could not run.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error(
        "watch needs an interactive terminal; for a one-off answer use `pareval decide` on the same files"
    )]
    NotATerminal,
    #[error("{0}")]
    Input(String),
    #[error("cannot {what}: {source}")]
    Terminal {
        what: &'static str,
        source: io::Error,
    },
}

/// The replay's position and pace.
struct Player {
    tasks: Vec<Vec<OutcomeRow>>,
    next: usize,
    speed: f64,
    paused: bool,
    last: Instant,
    label: String,
}

impl Player {
    /// The rows of the next planned task, as events placed at their plan position.
    fn step(&mut self) -> Vec<Event> {
        let Some(rows) = self.tasks.get(self.next) else {
            return Vec::new();
        };
        self.next += 1;
        let position = self.next as u64;
        rows.iter()
            .map(|row| Event::Row {
                file: self.label.clone(),
                line: position,
                row: row.clone(),
            })
            .collect()
    }

    fn due(&self) -> bool {
        !self.paused
            && self.next < self.tasks.len()
            && self.last.elapsed().as_secs_f64() >= 1.0 / self.speed
    }

    fn describe(&self) -> String {
        format!(
            "replaying {} · task {} of {} · {}x{}",
            self.label,
            self.next,
            self.tasks.len(),
            crate::format::trim_number(self.speed),
            if self.paused { " · paused" } else { "" }
        )
    }
}

/// When the live screen closes by itself (besides q).
pub struct Until<'a> {
    /// Once every pair is decided at every threshold.
    pub decided: bool,
    /// When this says so, asked at every poll (`pareval run --screen`: the harness has ended, or
    /// pareval was interrupted).
    pub stop: Option<&'a mut dyn FnMut() -> bool>,
    /// Whether the writers have ended (`pareval run --screen`: the harness exited), asked before
    /// every poll: a last line without a line end is then read.
    pub writers_ended: Option<&'a dyn Fn() -> bool>,
}

/// Runs the live screen until q (or until `until` says so); `fresh` rebuilds the empty state (a
/// replay's restart). Returns the state as it was when the screen closed.
pub fn run(
    source: Source,
    fresh: &dyn Fn() -> WatchState,
    mut until: Until<'_>,
) -> Result<WatchState, WatchError> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(WatchError::NotATerminal);
    }
    let mut state = fresh();
    let (mut followed, mut player) = match source {
        Source::Follow(paths, options) => (
            Some(Followed::with_options(&paths, options).map_err(WatchError::Input)?),
            None,
        ),
        Source::Replay {
            tasks,
            speed,
            label,
        } => (
            None,
            Some(Player {
                tasks,
                next: 0,
                speed,
                paused: false,
                last: Instant::now(),
                label,
            }),
        ),
    };
    let follow_label = |followed: &Option<Followed>| {
        followed
            .as_ref()
            .map_or(String::new(), |f| format!("following {}", f.describe()))
    };
    // Their default action would end the process at once with the terminal raw in the alternate
    // screen: the loop reads them and leaves the usual way (the caller exits 128 + the signal).
    crate::signals::catch(&crate::signals::SCREEN);
    let mut terminal = ratatui::try_init().map_err(|source| WatchError::Terminal {
        what: "open the terminal",
        source,
    })?;
    // Restores the terminal on every exit path, including errors below.
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            ratatui::restore();
        }
    }
    let _restore = Restore;
    let stop = Arc::new(AtomicBool::new(false));
    let (keys, key_events) = mpsc::channel();
    let input = {
        let stop = stop.clone();
        // Ends when the terminal hangs up too: the key channel closes, and the screen with it.
        std::thread::spawn(move || {
            crate::terminal::forward_events(&stop, |event| match event {
                TermEvent::Key(key) if key.kind != KeyEventKind::Release => keys.send(key).is_ok(),
                _ => true,
            })
        })
    };
    let mut selected = 0usize;
    let mut last_poll = Instant::now() - POLL;
    let mut dirty = true;
    let keys_text_follow = "↑↓ pair  t threshold  q quit";
    let keys_text_replay =
        "space pause  → step  r restart  + - speed  ↑↓ pair  t threshold  q quit";
    loop {
        if crate::signals::received().is_some() {
            break;
        }
        if last_poll.elapsed() >= POLL {
            last_poll = Instant::now();
            if let Some(followed) = &mut followed {
                if until.writers_ended.is_some_and(|ended| ended()) {
                    followed.writers_ended();
                }
                dirty |= state.apply(followed.poll());
                let notices = followed.presence_notices();
                dirty |= !notices.is_empty();
                state.notices.extend(notices);
            }
            dirty |= state.poll_early();
            if until.stop.as_mut().is_some_and(|stop| stop()) {
                break;
            }
        }
        if let Some(player) = &mut player
            && player.due()
        {
            player.last = Instant::now();
            let events = player.step();
            dirty |= state.apply(events);
        }
        if dirty {
            selected = selected.min(state.pairs.len().saturating_sub(1));
            let source = match &player {
                Some(player) => player.describe(),
                None => follow_label(&followed),
            };
            let chrome = view::Chrome {
                source: &source,
                keys: if player.is_some() {
                    keys_text_replay
                } else {
                    keys_text_follow
                },
            };
            terminal
                .draw(|frame| view::draw(frame, &state, selected, &chrome))
                .map_err(|source| WatchError::Terminal {
                    what: "draw",
                    source,
                })?;
            dirty = false;
            if until.decided && state.decided() {
                break;
            }
        }
        let key = match key_events.recv_timeout(Duration::from_millis(50)) {
            Ok(key) => key,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            // The terminal hung up (or could not be read): nobody sees the screen any more.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        dirty = true;
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => break,
            // A Ctrl-C key in raw mode is the user's interrupt: exit 130, as a SIGINT gives.
            _ if ctrl_c => {
                crate::signals::record(libc::SIGINT);
                break;
            }
            KeyCode::Up | KeyCode::Char('k') => selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => selected += 1,
            KeyCode::Char('t') => state.cycle_focus(),
            KeyCode::Char(' ') => {
                if let Some(player) = &mut player {
                    player.paused = !player.paused;
                    player.last = Instant::now();
                }
            }
            KeyCode::Right | KeyCode::Char('.') => {
                if let Some(player) = &mut player {
                    player.paused = true;
                    let events = player.step();
                    state.apply(events);
                }
            }
            KeyCode::Char('r') => {
                if let Some(player) = &mut player {
                    player.next = 0;
                    player.last = Instant::now();
                    state = fresh();
                }
            }
            KeyCode::Char('+') => {
                if let Some(player) = &mut player {
                    player.speed = (player.speed * 2.0).min(1000.0);
                }
            }
            KeyCode::Char('-') => {
                if let Some(player) = &mut player {
                    player.speed = (player.speed / 2.0).max(0.125);
                }
            }
            _ => {}
        }
    }
    stop.store(true, Ordering::Relaxed);
    let _ = input.join();
    Ok(state)
}
