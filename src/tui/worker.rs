//! The background replay worker: one thread that runs the newest submitted replay, then the newest
//! proxy curve. Submitting a job replaces any job still waiting and cancels the one running (its
//! result is never sent), so the newest settings always win; a proxy alone (the proxy view's keys)
//! replaces the waiting proxy and cancels a running one, and leaves the replay be. Each job carries
//! the generation it was submitted for, and the app drops any result whose generation is not its
//! current one. Dropping the worker cancels, wakes and joins the thread. The worker knows nothing
//! of terminals: it reports through a callback.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::dataset::Dataset;
use crate::engine::rules::TailCache;
use crate::engine::walk::kept_orders::OrderCache;
use crate::engine::walk::replay::{Caches, ReplayOptions, extends, replay};
use crate::engine::{Control, Replay, ReplaySettings};

/// One replay to run.
pub struct Job {
    pub generation: u64,
    pub dataset: Arc<Dataset>,
    pub settings: ReplaySettings,
    /// The proxy curve to compute over the grid after the full replay (None: no proxy).
    pub proxy: Option<ProxyRequest>,
}

/// A proxy curve to compute: its method and protocol, and the proxy generation it answers.
#[derive(Debug, Clone, Copy)]
pub struct ProxyRequest {
    pub generation: u64,
    pub method: crate::proxy::Method,
    pub protocol: crate::proxy::Protocol,
}

/// A proxy curve of a record under replay settings (their group column, budget grid and seed).
struct ProxyJob {
    request: ProxyRequest,
    dataset: Arc<Dataset>,
    settings: ReplaySettings,
}

/// Orders of the quick first pass of a larger job, sent as a labelled preview so a curve appears at
/// once; the full replay follows (unless a newer job replaces it).
pub const PREVIEW_ORDERS: u32 = 20;

/// What the worker reports.
pub enum WorkerEvent {
    /// `preview`: computed with [`PREVIEW_ORDERS`] orders; the full result of this generation follows.
    Finished {
        generation: u64,
        outcome: Result<Arc<Replay>, crate::engine::ReplayError>,
        preview: bool,
    },
    /// The proxy curve of a proxy generation (after the full replay of a job that asked for it).
    ProxyFinished {
        generation: u64,
        outcome: Result<Arc<crate::proxy::ProxyEvaluation>, crate::proxy::ProxyError>,
    },
}

#[derive(Default)]
struct State {
    waiting: Option<Job>,
    running: Option<(u64, Arc<Control>, usize)>,
    /// The newest proxy curve asked for, run once no replay waits; the running one's cancel flag.
    waiting_proxy: Option<ProxyJob>,
    running_proxy: Option<Arc<AtomicBool>>,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

pub struct Worker {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the worker thread; `report` is called from that thread with every finished job.
    pub fn spawn(report: impl Fn(WorkerEvent) + Send + 'static) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let thread_shared = shared.clone();
        let handle = std::thread::Builder::new()
            .name("pareval-replay".to_string())
            .spawn(move || run(&thread_shared, &report))
            .ok();
        Worker { shared, handle }
    }

    /// Queues a job: it replaces a waiting one and cancels the running one, and its proxy (or none)
    /// replaces any proxy asked for before.
    pub fn submit(&self, mut job: Job) {
        if let Ok(mut state) = self.shared.state.lock() {
            if let Some((_, control, _)) = &state.running {
                control.cancel.store(true, Ordering::Relaxed);
            }
            if let Some(cancel) = &state.running_proxy {
                cancel.store(true, Ordering::Relaxed);
            }
            state.waiting_proxy = job.proxy.take().map(|request| ProxyJob {
                request,
                dataset: job.dataset.clone(),
                settings: job.settings.clone(),
            });
            state.waiting = Some(job);
            self.shared.wake.notify_all();
        }
    }

    /// Queues a proxy curve alone, of a record under replay settings: it replaces a waiting proxy
    /// and cancels a running one; a replay running or waiting goes on, and the proxy follows it.
    pub fn submit_proxy(
        &self,
        request: ProxyRequest,
        dataset: Arc<Dataset>,
        settings: ReplaySettings,
    ) {
        if let Ok(mut state) = self.shared.state.lock() {
            if let Some(cancel) = &state.running_proxy {
                cancel.store(true, Ordering::Relaxed);
            }
            state.waiting_proxy = Some(ProxyJob {
                request,
                dataset,
                settings,
            });
            self.shared.wake.notify_all();
        }
    }

    /// (generation, pairs done, pairs in all) of the running job, if any.
    pub fn progress(&self) -> Option<(u64, usize, usize)> {
        let state = self.shared.state.lock().ok()?;
        state.running.as_ref().map(|(generation, control, total)| {
            // The replay's own count once it has prepared its pairs (a budget measure may leave
            // some of the record's out).
            let prepared = control.pairs_total.load(Ordering::Relaxed);
            (
                *generation,
                control.pairs_done.load(Ordering::Relaxed),
                if prepared > 0 { prepared } else { *total },
            )
        })
    }

    /// Whether the worker thread is alive (it could not be spawned only if the system refused a thread).
    pub fn is_running(&self) -> bool {
        self.handle.is_some()
    }
}

fn run(shared: &Shared, report: &dyn Fn(WorkerEvent)) {
    // Bootstrap tails depend only on the count pattern and cut, the bootstrap mode and seed: changing the
    // thresholds, order, preset, rule, cutoff, group column or number of orders reuses them.
    type Signature = (Option<u32>, u64);
    let mut cache: Option<(Signature, Arc<TailCache>)> = None;
    // Task orders serve every job that keeps the order and the pairs (threshold set, budget measure,
    // cutoff, rule, preset): they check their own inputs, so one cache serves the worker's whole life.
    let orders = Arc::new(OrderCache::default());
    // Replays run on their own pool of lower-priority threads: with every core busy, a key press still
    // gets the CPU at once, and when the terminal is idle the replay keeps every core.
    lower_thread_priority();
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("pareval-replay-{i}"))
        .start_handler(|_| lower_thread_priority())
        .build()
        .ok();
    let in_pool = |work: &mut (dyn FnMut() + Send)| match &pool {
        Some(pool) => pool.install(work),
        None => work(),
    };
    // The last full result, kept so that a job asking only for more orders of it walks just those.
    let mut last_full: Option<(Arc<Dataset>, Arc<crate::engine::Replay>)> = None;
    loop {
        let (job, control) = {
            let Ok(mut state) = shared.state.lock() else {
                return;
            };
            while state.waiting.is_none() && state.waiting_proxy.is_none() && !state.shutdown {
                state = match shared.wake.wait(state) {
                    Ok(state) => state,
                    Err(_) => return,
                };
            }
            if state.shutdown {
                return;
            }
            // A replay first; a proxy once no replay waits (it follows the replay it came with).
            let Some(job) = state.waiting.take() else {
                if let Some(proxy) = state.waiting_proxy.take() {
                    let cancel = Arc::new(AtomicBool::new(false));
                    state.running_proxy = Some(cancel.clone());
                    drop(state);
                    run_proxy(&proxy, &cancel, &in_pool, report);
                    if let Ok(mut state) = shared.state.lock() {
                        state.running_proxy = None;
                    }
                }
                continue;
            };
            let control = Arc::new(Control::default());
            let total = job.dataset.directed_pairs().len();
            state.running = Some((job.generation, control.clone(), total));
            (job, control)
        };
        let signature = TailCache::signature(&job.settings);
        let tails = match &cache {
            Some((known, tails)) if *known == signature => tails.clone(),
            _ => {
                let tails = Arc::new(TailCache::default());
                cache = Some((signature, tails.clone()));
                tails
            }
        };
        // The full pass walks only the orders an earlier result of the same settings did not.
        let mut shown: Option<Arc<crate::engine::Replay>> = last_full
            .as_ref()
            .filter(|(dataset, full)| {
                Arc::ptr_eq(dataset, &job.dataset)
                    && extends(&full.prepared.settings, &job.settings)
            })
            .map(|(_, full)| full.clone());
        let caches = Caches {
            tails: Some(tails),
            orders: Some(orders.clone()),
        };
        let mut passes = Vec::new();
        if job.settings.orders > PREVIEW_ORDERS && shown.is_none() {
            passes.push((
                ReplaySettings {
                    orders: PREVIEW_ORDERS,
                    ..job.settings.clone()
                },
                true,
            ));
        }
        passes.push((job.settings.clone(), false));
        for (settings, preview) in passes {
            let mut outcome = Err(crate::engine::ReplayError::Cancelled);
            in_pool(&mut || {
                // A preview skips the unresolved interval; the full pass computes it, walking only
                // the orders the preview (or an earlier full result) did not.
                let options = ReplayOptions {
                    caches: caches.clone(),
                    extend: shown.as_deref(),
                    preview,
                    records: None,
                };
                outcome = replay(&job.dataset, &settings, &control, options);
            });
            match outcome {
                Err(crate::engine::ReplayError::Cancelled) => break,
                Ok(result) => {
                    let result = Arc::new(result);
                    shown = Some(result.clone());
                    if !preview {
                        last_full = Some((job.dataset.clone(), result.clone()));
                    }
                    report(WorkerEvent::Finished {
                        generation: job.generation,
                        outcome: Ok(result),
                        preview,
                    })
                }
                Err(error) => {
                    report(WorkerEvent::Finished {
                        generation: job.generation,
                        outcome: Err(error),
                        preview: false,
                    });
                    break;
                }
            }
            if !preview {
                break;
            }
            // The full pass counts its pairs again.
            control.pairs_done.store(0, Ordering::Relaxed);
        }
        if let Ok(mut state) = shared.state.lock() {
            state.running = None;
        }
    }
}

/// The proxy curve of a job's record and settings: it reads the records, not the replay, so a
/// replay that failed (one system, no pair) still gets its proxy answer. Sent unless cancelled.
fn run_proxy(
    job: &ProxyJob,
    cancel: &AtomicBool,
    in_pool: &dyn Fn(&mut (dyn FnMut() + Send)),
    report: &dyn Fn(WorkerEvent),
) {
    let cancelled = || cancel.load(Ordering::Relaxed);
    let mut curve = Err(crate::proxy::ProxyError::Cancelled);
    in_pool(&mut || {
        curve = crate::proxy::proxy_curve(
            &job.dataset,
            job.settings.group_column.as_deref(),
            job.request.method,
            job.request.protocol,
            &job.settings.grid,
            job.settings.seed,
            &cancelled,
        );
    });
    if !cancelled() {
        report(WorkerEvent::ProxyFinished {
            generation: job.request.generation,
            outcome: curve.map(Arc::new),
        });
    }
}

impl Worker {
    /// Cancels the running job and tells the thread to end.
    fn shut_down(&self) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.shutdown = true;
            state.waiting = None;
            state.waiting_proxy = None;
            if let Some(cancel) = &state.running_proxy {
                cancel.store(true, Ordering::Relaxed);
            }
            if let Some((_, control, _)) = &state.running {
                control.cancel.store(true, Ordering::Relaxed);
            }
            self.shared.wake.notify_all();
        }
    }

    /// Cancels the running job and leaves its thread to end with the process: a job reads its
    /// cancel flag between cases, and one case can take a minute (a bootstrap of a million
    /// resamples at every look), so joining made quitting wait that long after the screen was
    /// gone. The worker writes nothing, so nothing is cut short.
    pub fn leave(mut self) {
        self.shut_down();
        drop(self.handle.take());
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.shut_down();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// Lowers the calling thread's scheduling priority (nice 10), on Linux where each thread has its own.
#[cfg(target_os = "linux")]
fn lower_thread_priority() {
    // SAFETY: setpriority takes plain integers and touches no memory of ours; with PRIO_PROCESS and
    // who = 0, Linux applies it to the calling thread only. Failure leaves the priority as it was.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 10) };
}

#[cfg(not(target_os = "linux"))]
fn lower_thread_priority() {}
