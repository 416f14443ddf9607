//! A `cascade serve` child process and a plain HTTP/1.1 client for it, one connection
//! per request (`Connection: close`), so that a request refused at shutdown (the
//! listener is closed) is told apart from one lost after the server read it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

use anyhow::{bail, Context};

/// A running `cascade serve --addr 127.0.0.1:0 …`.
pub struct Server {
    pub addr: String,
    child: Child,
    /// Taken by [`Server::wait_exit`]; `None` once the server has been waited for.
    stderr: Option<JoinHandle<String>>,
}

/// Sends SIGTERM to the server, from any thread.
#[derive(Clone)]
pub struct Terminator(u32);

impl Terminator {
    pub fn fire(&self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.to_string()])
            .status();
    }
}

/// A bench that fails half-way must not leave its server running.
impl Drop for Server {
    fn drop(&mut self) {
        if self.stderr.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Server {
    pub fn start(exe: &Path, flags: &[&str], dir: &Path) -> anyhow::Result<Self> {
        let mut child = Command::new(exe)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(flags)
            .current_dir(dir)
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start cascade serve")?;
        let mut stderr = BufReader::new(child.stderr.take().context("no stderr")?);
        let mut line = String::new();
        stderr.read_line(&mut line)?;
        let Some(addr) = line
            .trim()
            .strip_prefix("cascade serve: listening on http://")
        else {
            let _ = child.kill();
            bail!("cascade serve did not start: {line}");
        };
        let addr = addr.to_owned();
        let stderr = std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            rest
        });
        Ok(Self {
            addr,
            child,
            stderr: Some(stderr),
        })
    }

    pub fn terminator(&self) -> Terminator {
        Terminator(self.child.id())
    }

    /// SIGTERM, then [`Server::wait_exit`].
    pub fn stop(self) -> anyhow::Result<usize> {
        self.terminator().fire();
        self.wait_exit()
    }

    /// Waits for exit 0; the number of requests the server says it answered.
    pub fn wait_exit(mut self) -> anyhow::Result<usize> {
        let status = self.child.wait()?;
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if !status.success() {
            bail!("cascade serve exited with {status}: {stderr}");
        }
        stderr
            .lines()
            .find_map(|l| {
                l.split_once("answered ")?
                    .1
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
            .with_context(|| format!("cascade serve did not say what it answered: {stderr}"))
    }
}

/// What became of one request.
#[derive(Debug)]
pub enum Sent {
    /// A whole response.
    Answered { status: u16, body: String },
    /// The connection was refused, or closed before any byte of a response: the server
    /// never took the request (it is shutting down).
    NotAccepted,
    /// A response cut short: the server took the request and lost it.
    Broken(String),
}

/// POSTs `body` to `path`.
pub fn post(addr: &str, path: &str, body: &str) -> Sent {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return Sent::NotAccepted;
    };
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .is_err()
    {
        return Sent::NotAccepted;
    }
    let mut reply = Vec::new();
    let read = stream.read_to_end(&mut reply);
    if reply.is_empty() {
        return Sent::NotAccepted;
    }
    if let Err(e) = read {
        return Sent::Broken(e.to_string());
    }
    parse(&reply)
}

fn parse(reply: &[u8]) -> Sent {
    let text = String::from_utf8_lossy(reply);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return Sent::Broken("no end of headers".into());
    };
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let length = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("content-length")
            .then(|| v.trim().parse::<usize>().ok())?
    });
    match length {
        Some(n) if n == body.len() => Sent::Answered {
            status,
            body: body.to_owned(),
        },
        _ => Sent::Broken(format!(
            "a body of {} bytes for Content-Length {length:?}",
            body.len()
        )),
    }
}
