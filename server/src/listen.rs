//! The connection loop: what protects the server from slow and idle clients, and the
//! shutdown that cannot hang.
//!
//! - **Header read and keep-alive idle:** hyper's `header_read_timeout`
//!   ([`ServerConfig::header_timeout`]). hyper arms it whenever the connection waits for
//!   a request head, the first one or the next one on a kept-alive connection, so one
//!   setting bounds both a slowloris head and a silent keep-alive; hyper then closes
//!   the connection.
//! - **Body read:** tower-http's `RequestBodyTimeout` ([`ServerConfig::body_timeout`]):
//!   the body errors, and the extractor answers 408 ([`crate::body`]).
//! - **Connections:** at most [`ServerConfig::max_connections`] are served; one past it
//!   is answered 503 with `Retry-After` and closed at once, before it holds a file
//!   descriptor for long.
//! - **Shutdown:** the listener is closed, uploads still arriving are answered 503
//!   ([`Draining`]), accepted requests are answered, and whatever is left when
//!   [`ServerConfig::drain_timeout`] runs out is dropped, whatever the clients do.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower_http::timeout::RequestBodyTimeout;

use crate::{router, AppState, ServeError};

/// Set once shutdown begins: request bodies still being read are abandoned (503).
#[derive(Clone)]
pub struct Draining(watch::Receiver<bool>);

impl Draining {
    /// Completes when shutdown has begun (never, if the server is dropped first).
    pub async fn started(mut self) {
        if self.0.wait_for(|d| *d).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// What a connection past the cap gets before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 59\r\n\r\n{\"error\":\"too many connections (--max-connections); retry\"}";

/// Serves `state` on `listener` until `shutdown` completes, then drains (module docs).
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let config = &state.config;
    let (drain_tx, drain_rx) = watch::channel(false);
    let app = router(state.clone()).layer(axum::Extension(Draining(drain_rx)));
    let service = TowerToHyperService::new(RequestBodyTimeout::new(app, config.body_timeout));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout);
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(stream);
            state.metrics.add_refused_connection();
            continue;
        };
        let connection = http.serve_connection(TokioIo::new(stream), service.clone());
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection's error (a reset, a header timeout) is the client's business.
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = drain_tx.send(true);
    // Past the deadline, the connections still open are dropped with the runtime.
    let _ = tokio::time::timeout(config.drain_timeout, graceful.shutdown()).await;
    Ok(())
}

/// Out of file descriptors (or a connection reset before it was accepted): wait a
/// little so the loop does not spin, as hyper's and axum's own loops do.
async fn accept_failed(e: &std::io::Error) {
    let transient = matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
    );
    if !transient {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Answers 503 on a connection past the cap and closes it. The reply is far smaller
/// than a fresh socket's send buffer, so one non-blocking write sends it whole.
fn refuse(stream: TcpStream) {
    let _ = stream.try_write(BUSY);
}
