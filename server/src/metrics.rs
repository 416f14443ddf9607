//! Counters for `GET /metrics`, in Prometheus text format (version 0.0.4): requests by
//! route, env and status; samples scored per env, and of those the ones that could not
//! be scored (`cascade_samples_failed_total`, apart from zeros); refusals by status; the queue's depth
//! and capacity; and a latency histogram per env. One middleware records every request
//! ([`record`]), so a route cannot forget to.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::AppState;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The environment a response was for, set by the route so the middleware can label
/// it (`-` for routes without one).
#[derive(Debug, Clone)]
pub struct EnvLabel(pub String);

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct Counters {
    /// (route, env, status) → requests.
    requests: BTreeMap<(String, String, u16), u64>,
    /// env → samples scored.
    samples: BTreeMap<String, u64>,
    /// env → samples that could not be scored (`details.failed`), apart from zeros.
    failed: BTreeMap<String, u64>,
    /// (env, status) → refused requests (4xx and 5xx).
    rejects: BTreeMap<(String, u16), u64>,
    /// env → latency of its answered requests.
    latency: BTreeMap<String, Histogram>,
}

/// Everything `/metrics` reports, behind one lock (updates are a few map operations).
#[derive(Default)]
pub struct Metrics {
    counters: Mutex<Counters>,
    /// Connections answered 503 past `--max-connections`.
    refused_connections: AtomicU64,
}

impl Metrics {
    fn with<R>(&self, f: impl FnOnce(&mut Counters) -> R) -> R {
        // A panic while holding this lock leaves plain counters; keep counting.
        f(&mut self.counters.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// A connection past `--max-connections` was refused.
    pub fn add_refused_connection(&self) {
        self.refused_connections.fetch_add(1, Ordering::Relaxed);
    }

    /// Connections refused so far.
    pub fn refused_connections(&self) -> u64 {
        self.refused_connections.load(Ordering::Relaxed)
    }

    /// `n` samples of `env` were scored.
    pub fn add_samples(&self, env: &str, n: usize) {
        self.with(|c| *c.samples.entry(env.to_owned()).or_default() += n as u64);
    }

    /// `n` samples of `env` could not be scored (a scorer failure, not a reward 0).
    pub fn add_failed(&self, env: &str, n: usize) {
        if n > 0 {
            self.with(|c| *c.failed.entry(env.to_owned()).or_default() += n as u64);
        }
    }

    /// Requests answered with a success status, `/health` and `/metrics` aside: what
    /// `cascade serve` reports when it has drained.
    pub fn answered(&self) -> u64 {
        self.with(|c| {
            c.requests
                .iter()
                .filter(|((route, _, status), _)| {
                    *status < 400 && route != "/health" && route != "/metrics"
                })
                .map(|(_, n)| n)
                .sum()
        })
    }

    fn observe(&self, route: &str, env: &str, status: u16, seconds: f64) {
        self.with(|c| {
            *c.requests
                .entry((route.to_owned(), env.to_owned(), status))
                .or_default() += 1;
            if status >= 400 {
                *c.rejects.entry((env.to_owned(), status)).or_default() += 1;
                return;
            }
            let h = c.latency.entry(env.to_owned()).or_default();
            h.count += 1;
            h.sum += seconds;
            for (bound, n) in BUCKETS.iter().zip(h.counts.iter_mut()) {
                if seconds <= *bound {
                    *n += 1;
                }
            }
        });
    }

    /// The Prometheus text exposition, with the queue gauges given.
    pub fn render(&self, queue_depth: usize, queue_capacity: usize) -> String {
        let mut out = String::new();
        self.with(|c| {
            family(&mut out, "cascade_requests_total", "counter", "HTTP requests answered.");
            for ((route, env, status), n) in &c.requests {
                let _ = writeln!(out, "cascade_requests_total{{route=\"{route}\",env=\"{env}\",status=\"{status}\"}} {n}");
            }
            family(&mut out, "cascade_samples_total", "counter", "Samples scored.");
            for (env, n) in &c.samples {
                let _ = writeln!(out, "cascade_samples_total{{env=\"{env}\"}} {n}");
            }
            family(&mut out, "cascade_samples_failed_total", "counter", "Samples that could not be scored (reward null or details.failed), among those scored; not zeros.");
            for (env, n) in &c.failed {
                let _ = writeln!(out, "cascade_samples_failed_total{{env=\"{env}\"}} {n}");
            }
            family(&mut out, "cascade_rejects_total", "counter", "Requests refused (4xx) or failed (5xx), by status.");
            for ((env, status), n) in &c.rejects {
                let _ = writeln!(out, "cascade_rejects_total{{env=\"{env}\",status=\"{status}\"}} {n}");
            }
            family(&mut out, "cascade_request_duration_seconds", "histogram", "Latency of answered requests.");
            for (env, h) in &c.latency {
                histogram(&mut out, env, h);
            }
        });
        family(
            &mut out,
            "cascade_queue_depth",
            "gauge",
            "Accepted samples not yet scored.",
        );
        let _ = writeln!(out, "cascade_queue_depth {queue_depth}");
        family(
            &mut out,
            "cascade_queue_capacity",
            "gauge",
            "The admission bound (--max-queue), in samples.",
        );
        let _ = writeln!(out, "cascade_queue_capacity {queue_capacity}");
        out
    }
}

/// The counters of the server's protections: samples skipped for clients that had
/// gone, and connections refused past the cap.
pub fn render_protection(cancelled_samples: u64, refused_connections: u64) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "cascade_cancelled_samples_total",
        "counter",
        "Accepted samples not scored because their client disconnected first.",
    );
    let _ = writeln!(out, "cascade_cancelled_samples_total {cancelled_samples}");
    family(
        &mut out,
        "cascade_refused_connections_total",
        "counter",
        "Connections answered 503 past --max-connections.",
    );
    let _ = writeln!(
        out,
        "cascade_refused_connections_total {refused_connections}"
    );
    out
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn histogram(out: &mut String, env: &str, h: &Histogram) {
    let name = "cascade_request_duration_seconds";
    for (bound, n) in BUCKETS.iter().zip(h.counts) {
        let _ = writeln!(out, "{name}_bucket{{env=\"{env}\",le=\"{bound}\"}} {n}");
    }
    let _ = writeln!(
        out,
        "{name}_bucket{{env=\"{env}\",le=\"+Inf\"}} {}",
        h.count
    );
    let _ = writeln!(out, "{name}_sum{{env=\"{env}\"}} {}", h.sum);
    let _ = writeln!(out, "{name}_count{{env=\"{env}\"}} {}", h.count);
}

/// Middleware: times every request and counts it under its route pattern and the
/// [`EnvLabel`] its handler set.
pub async fn record(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    let env = response
        .extensions()
        .get::<EnvLabel>()
        .map_or("-", |e| e.0.as_str());
    state.metrics.observe(
        &route,
        env,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}
