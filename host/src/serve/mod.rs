//! `deferral-host serve`: the durable port over HTTP (DESIGN section 7), on hyper's HTTP/1.1
//! server and a tokio runtime. Requests are handled concurrently; store work runs on blocking
//! threads with pooled connections, and `record`s are group-committed by one writer thread
//! (see [`group_commit`]). Every change goes through `lifecycle::change`, so the store's
//! compare-and-set settles races between requests, tickers and command-line calls alike.
//!
//! Limits (docs/host-api.md, serve): a deadline for each whole request, a cap on connections that
//! sheds idle ones first (never one that proved the token), 16 KiB bodies, a few status pages
//! at once, and a bounded graceful stop on SIGTERM or SIGINT. GitHub's webhook, which takes no
//! token, has its own share of the connections, its own body limit and a minimum pace
//! ([`unsigned`]; docs/security.md, "The port under hostile clients").

mod app;
mod auth;
mod check_run;
pub mod connections;
mod deployment;
pub mod group_commit;
mod health;
pub mod http;
pub mod log;
pub mod routes;
mod server;
pub mod stores;
pub mod unsigned;
pub mod webhook;

use crate::error::{HostError, HostErrorKind};
use crate::store::StoreUrl;
use deferral_core::digest::sha256_hex;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

pub use routes::Policy;

/// Tokens shorter than this are refused at start: the port guards launches on this host.
pub const MIN_TOKEN_LEN: usize = 16;
/// Handlers running store work at once (and so, at most, open store connections besides the
/// writer's); more requests wait their turn without holding a thread.
const STORE_HANDLERS: usize = 32;
/// Status pages (`GET /`) read and drawn at once; more wait up to [`PAGE_WAIT`] for a turn,
/// then get 503 `busy` with `Retry-After: 1`. Each page reads a bounded number of rows, so
/// this bounds what pages can take of memory and of the store's connections.
pub const PAGE_RENDERS: usize = 4;
/// How long a status page request waits for a turn before 503.
pub const PAGE_WAIT: Duration = Duration::from_secs(2);

/// Connection and time limits; see docs/host-api.md (serve) for why each default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Open connections at most; at the cap, a new one sheds the oldest idle one.
    pub max_connections: usize,
    /// Time from when a connection starts waiting for a request (accept, or the previous
    /// answer) until its head and whole body have arrived; also the keep-alive idle time.
    pub request_timeout: Duration,
    /// After SIGTERM or SIGINT, how long requests being handled may take to finish.
    pub shutdown_grace: Duration,
    /// Webhook requests (no token: unauthenticated until their signature is checked) handled
    /// at once: the rest of the cap stays for token holders.
    pub webhook_connections: usize,
    /// Largest webhook body read; the bodies in memory before their signature is checked are at
    /// most `webhook_connections` times this.
    pub webhook_max_body: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 256,
            request_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(5),
            webhook_connections: unsigned::DEFAULT_CONNECTIONS,
            webhook_max_body: unsigned::DEFAULT_MAX_BODY,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: String,
    pub token: String,
    pub store: StoreUrl,
    pub policy: Policy,
    pub limits: Limits,
    /// GitHub's webhooks at `POST /v1/github/webhook` (`--github-webhook-secret-file`).
    pub webhook: Option<crate::webhook::Intake>,
}

fn listen_failed(listen: &str, err: &std::io::Error) -> HostError {
    HostError::new(
        HostErrorKind::ListenFailed,
        format!("cannot listen on {listen}: {err}"),
    )
}

/// Binds, prints `{"listening":"ADDR"}`, and serves until SIGTERM or SIGINT; then stops within
/// the grace period and exits 0.
pub fn serve(options: ServeOptions) -> Result<(), HostError> {
    let port = Port::bind(options, Hooks::default())?;
    let runtime = runtime()?;
    let writer = port.writer_stopper();
    let served = runtime.block_on(async {
        let stop = stop_signal().map_err(|e| {
            HostError::new(
                HostErrorKind::SignalFailed,
                format!("cannot watch for SIGTERM: {e}"),
            )
        })?;
        // Ready only once the signals are watched: a SIGTERM from now on stops cleanly.
        port.announce();
        port.serve(stop).await
    });
    // Handlers still running after the grace period are abandoned with the runtime; the writer
    // commits what was queued before it stops, so an answered record is always committed.
    runtime.shutdown_timeout(Duration::from_millis(200));
    writer.stop();
    served?;
    log::line("stopped");
    Ok(())
}

/// The async runtime the port runs on: two workers, and blocking threads for the store work.
pub fn runtime() -> Result<tokio::runtime::Runtime, HostError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(STORE_HANDLERS + 4)
        .enable_all()
        .build()
        .map_err(|e| HostError::new(HostErrorKind::RuntimeFailed, e.to_string()))
}

/// What a process that embeds the port (`run`) learns from it.
#[derive(Clone, Default)]
pub struct Hooks {
    /// Called after each request that changed the store (a 2xx answer to a `POST`: a record, a
    /// cancel, an outcome, a release, ...), on the runtime: it must not block.
    pub changed: Option<Arc<dyn Fn() + Send + Sync>>,
}

/// A port bound to its address, with its store connections and group-commit writer started.
pub struct Port {
    listener: std::net::TcpListener,
    addr: std::net::SocketAddr,
    listen: String,
    app: Arc<app::App>,
    stop_all: tokio::sync::watch::Sender<bool>,
}

/// Stops the port's group-commit writer once the runtime is gone (see [`Port::writer_stopper`]).
pub struct WriterStopper(Arc<app::App>);

impl WriterStopper {
    /// Lets the writer commit what is queued, then stops it.
    pub fn stop(self) {
        self.0.stores.stop();
    }
}

impl Port {
    /// Binds `options.listen` and starts the store's writer; serves nothing until [`Port::serve`].
    pub fn bind(options: ServeOptions, hooks: Hooks) -> Result<Port, HostError> {
        let listener = std::net::TcpListener::bind(&options.listen)
            .map_err(|e| listen_failed(&options.listen, &e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| listen_failed(&options.listen, &e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| listen_failed(&options.listen, &e))?;
        if !addr.ip().is_loopback() {
            log::line(&format!(
                "warning: listening on {addr}, not loopback: anyone who can reach it and holds the token can record deferrals; put TLS in front of it"
            ));
        }
        crate::metrics::serve::start();
        let (stop_all, stopping) = tokio::sync::watch::channel(false);
        let app = Arc::new(app::App {
            token_digest: sha256_hex(options.token.as_bytes()),
            policy: options.policy,
            stores: stores::Stores::new(options.store)?,
            limits: options.limits,
            handlers: tokio::sync::Semaphore::new(STORE_HANDLERS),
            pages: tokio::sync::Semaphore::new(PAGE_RENDERS),
            unsigned: tokio::sync::Semaphore::new(options.limits.webhook_connections.max(1)),
            verifying: tokio::sync::Semaphore::new(unsigned::VERIFIERS),
            stopping,
            changed: hooks.changed,
            webhook: options.webhook,
        });
        Ok(Port {
            listener,
            addr,
            listen: options.listen,
            app,
            stop_all,
        })
    }

    /// The address it listens on (the port chosen when `--listen` said port 0).
    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    /// Prints `{"listening":"ADDR"}` on stdout: what a supervisor or a test waits for.
    pub fn announce(&self) {
        println!(
            "{}",
            serde_json::json!({ "listening": self.addr.to_string() })
        );
        let _ = std::io::stdout().flush();
    }

    /// What stops the writer after the runtime is shut down.
    pub fn writer_stopper(&self) -> WriterStopper {
        WriterStopper(self.app.clone())
    }

    /// Serves until `stop` resolves, then stops taking requests (503 `stopping` to those on
    /// open connections, no new connection), lets those being handled finish within the grace
    /// period, and returns. Runs on the runtime of [`runtime`].
    pub async fn serve(self, stop: impl std::future::Future<Output = ()>) -> Result<(), HostError> {
        let listener = tokio::net::TcpListener::from_std(self.listener)
            .map_err(|e| listen_failed(&self.listen, &e))?;
        server::run(listener, self.app, stop, self.stop_all).await;
        Ok(())
    }
}

/// Resolves on the first SIGTERM or SIGINT.
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}
