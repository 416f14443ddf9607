//! Many clients posting a workload to `/v1/score`, checking every result against
//! `cascade score`'s line for that sample.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::bail;

use super::client::{post, Sent, Terminator};
use super::Workload;

/// How one request ended, for the SIGTERM phase's accounting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Answered,
    NotAccepted,
    Lost,
}

pub struct Load<'a> {
    addr: &'a str,
    work: &'a Workload,
    clients: usize,
    batch: usize,
    retry: bool,
    trigger: Option<(usize, Terminator)>,
}

/// What the clients saw.
#[derive(Default)]
pub struct Report {
    /// Samples in answered (200) requests, and how many of them matched.
    pub samples: usize,
    pub correct: usize,
    /// 429 answers.
    pub rejected: usize,
    pub not_accepted: usize,
    pub lost: usize,
    /// Why the first lost request was lost.
    pub lost_reason: Option<String>,
    pub outcomes: Vec<Outcome>,
    latencies_ms: Vec<f64>,
    pub wall_s: f64,
}

impl Report {
    fn percentile(&self, q: f64) -> f64 {
        let mut v = self.latencies_ms.clone();
        v.sort_by(f64::total_cmp);
        v.get(((v.len().max(1) - 1) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    }
    pub fn p50_ms(&self) -> f64 {
        self.percentile(0.5)
    }
    pub fn p99_ms(&self) -> f64 {
        self.percentile(0.99)
    }
    pub fn check_all_correct(&self, n: usize) -> anyhow::Result<()> {
        if self.samples != n || self.correct != n {
            bail!(
                "{} of {n} samples answered, {} correct",
                self.samples,
                self.correct
            );
        }
        Ok(())
    }
}

impl<'a> Load<'a> {
    pub fn new(addr: &'a str, work: &'a Workload, clients: usize, batch: usize) -> Self {
        Self {
            addr,
            work,
            clients: clients.max(1),
            batch: batch.max(1),
            retry: false,
            trigger: None,
        }
    }

    /// Retry a request refused with 429 (after 5 ms, not the advertised second, to
    /// keep the queue under pressure).
    pub fn retrying(mut self) -> Self {
        self.retry = true;
        self
    }

    /// Fire `terminator` once `samples` samples have been answered.
    pub fn on_answered(mut self, samples: usize, terminator: Terminator) -> Self {
        self.trigger = Some((samples, terminator));
        self
    }

    pub fn run(&self) -> anyhow::Result<Report> {
        let chunks: Vec<&[serde_json::Value]> = self.work.samples.chunks(self.batch).collect();
        let next = AtomicUsize::new(0);
        let answered = AtomicUsize::new(0);
        let fired = AtomicBool::new(false);
        let report = Mutex::new(Report::default());
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..self.clients {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = chunks.get(i) else { break };
                    let outcome = self.send(i, chunk, &report);
                    if outcome == Outcome::Answered {
                        let done = answered.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len();
                        if let Some((at, terminator)) = &self.trigger {
                            if done >= *at && !fired.swap(true, Ordering::Relaxed) {
                                terminator.fire();
                            }
                        }
                    }
                    if outcome != Outcome::Answered && self.trigger.is_some() {
                        // The server is going away: stop sending from this client.
                        break;
                    }
                });
            }
        });
        let mut report = report.into_inner().unwrap_or_else(|p| p.into_inner());
        report.wall_s = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Posts the workload's chunks in turn, round and round, until `stop` is set; how
    /// many samples were answered (the background of the mixed load).
    pub fn repeat_until(&self, stop: &AtomicBool) -> usize {
        let chunks: Vec<&[serde_json::Value]> = self.work.samples.chunks(self.batch).collect();
        let report = Mutex::new(Report::default());
        for i in (0..chunks.len()).cycle() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            self.send(i, chunks[i], &report);
        }
        let report = report.into_inner().unwrap_or_else(|p| p.into_inner());
        report.samples
    }

    /// Sends chunk `i` until it is answered (or refused for good); records it.
    fn send(&self, i: usize, chunk: &[serde_json::Value], report: &Mutex<Report>) -> Outcome {
        let body = serde_json::json!({"env": self.work.env, "samples": chunk}).to_string();
        loop {
            let sent_at = Instant::now();
            let sent = post(self.addr, "/v1/score", &body);
            let ms = sent_at.elapsed().as_secs_f64() * 1e3;
            let mut r = report.lock().unwrap_or_else(|p| p.into_inner());
            let outcome = match sent {
                Sent::Answered { status: 429, .. } => {
                    r.rejected += 1;
                    if self.retry {
                        drop(r);
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    }
                    Outcome::NotAccepted
                }
                Sent::Answered { status: 200, body } => {
                    r.latencies_ms.push(ms);
                    r.samples += chunk.len();
                    r.correct += self.matching(i, &body);
                    Outcome::Answered
                }
                Sent::Answered { status, .. } => {
                    r.lost += 1;
                    r.lost_reason.get_or_insert(format!("status {status}"));
                    Outcome::Lost
                }
                Sent::Broken(reason) => {
                    r.lost += 1;
                    r.lost_reason.get_or_insert(reason);
                    Outcome::Lost
                }
                Sent::NotAccepted => {
                    r.not_accepted += 1;
                    Outcome::NotAccepted
                }
            };
            r.outcomes.push(outcome);
            return outcome;
        }
    }

    /// How many results of chunk `i` equal `cascade score`'s lines, byte for byte.
    fn matching(&self, i: usize, body: &str) -> usize {
        let expected = &self.work.expected[i * self.batch..];
        cascade_server::score::result_lines(body).map_or(0, |lines| {
            lines
                .iter()
                .zip(expected)
                .filter(|(got, want)| **got == want.as_str())
                .count()
        })
    }
}
