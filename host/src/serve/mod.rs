//! `deferral-host serve`: the durable port over HTTP (DESIGN section 7). A fixed pool of worker
//! threads, each with its own store connection (SQLite or PostgreSQL), answers one request per connection; every
//! change goes through the coordinator, so the store's compare-and-set settles races between
//! workers, tickers and command-line calls alike.

pub mod http;
pub mod routes;

use crate::error::HostError;
use crate::store::{IntegrityCheck, Store, StoreUrl};
use deferral_core::digest::{constant_time_eq, sha256_hex};
use http::{Request, Response};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

pub use routes::Policy;

/// Worker threads: enough for a few concurrent runs; SQLite serialises the writes anyway, and
/// PostgreSQL replicas scale out by running more `serve` processes.
const WORKERS: usize = 4;
/// A client gets this long to send its request and read the answer.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Tokens shorter than this are refused at start: the port guards launches on this host.
pub const MIN_TOKEN_LEN: usize = 16;

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: String,
    pub token: String,
    pub store: StoreUrl,
    pub policy: Policy,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// SIGTERM and SIGINT set a flag the accept loop checks; in-flight requests still finish.
fn install_signal_handlers() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe; the
        // sigaction struct is zeroed and fully initialised before the call.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Waits up to `ms` for a connection to accept; `false` on timeout or a signal.
fn readable(listener: &TcpListener, ms: i32) -> bool {
    let mut fd = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd on a descriptor the listener owns for the whole call.
    unsafe { libc::poll(&mut fd, 1, ms) > 0 }
}

/// Checks `Authorization: Bearer TOKEN`. Both sides are hashed first so the comparison is
/// constant-time over equal lengths and leaks nothing about the token's length.
fn authorized(request: &Request, token_digest: &str) -> bool {
    let Some(value) = request.header("authorization") else {
        return false;
    };
    let Some((scheme, given)) = value.split_once(' ') else {
        return false;
    };
    scheme.eq_ignore_ascii_case("bearer")
        && constant_time_eq(&sha256_hex(given.trim().as_bytes()), token_digest)
}

fn unauthorized() -> Response {
    Response::error(
        401,
        "unauthorized",
        "send Authorization: Bearer <the serve token>",
    )
    .with_header("WWW-Authenticate", "Bearer")
}

fn serve_connection(mut stream: TcpStream, store: &dyn Store, policy: &Policy, token_digest: &str) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut line = String::new();
    let response = match http::read_request(&mut stream, |req| {
        line = format!("{} {}", req.method, req.path);
        if !authorized(req, token_digest) {
            return Some(unauthorized());
        }
        routes::check_route(&req.method, &req.path)
    }) {
        Ok(request) => routes::handle(store, policy, &request),
        Err(response) => response,
    };
    // One line per request for the operator's log; bodies (handles, receipts) and the token
    // never appear in it.
    eprintln!("deferral-host serve: {line} {}", response.status);
    http::write_response(&mut stream, &response);
}

/// Binds, prints `{"listening":"ADDR"}`, and serves until SIGTERM or SIGINT.
pub fn serve(options: ServeOptions) -> Result<(), HostError> {
    let listener = TcpListener::bind(&options.listen).map_err(|e| {
        HostError::failure(
            "listen-failed",
            format!("cannot listen on {}: {e}", options.listen),
        )
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| HostError::failure("listen-failed", e.to_string()))?;
    if !addr.ip().is_loopback() {
        eprintln!(
            "deferral-host serve: warning: listening on {addr}, not loopback: anyone who can reach it and holds the token can record deferrals; put TLS in front of it"
        );
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| HostError::failure("listen-failed", e.to_string()))?;
    let mut stores = Vec::with_capacity(WORKERS);
    for _ in 0..WORKERS {
        // The caller opened the store once with the chosen integrity check and migrations.
        stores.push(options.store.open(IntegrityCheck::Off)?);
    }
    install_signal_handlers();
    let token_digest = Arc::new(sha256_hex(options.token.as_bytes()));
    let policy = Arc::new(options.policy);
    let (sender, receiver) = mpsc::sync_channel::<TcpStream>(64);
    let receiver = Arc::new(Mutex::new(receiver));
    let workers: Vec<_> = stores
        .into_iter()
        .map(|store| {
            let (receiver, policy, digest) =
                (receiver.clone(), policy.clone(), token_digest.clone());
            std::thread::spawn(move || loop {
                let next = receiver.lock().map(|r| r.recv());
                let Ok(Ok(stream)) = next else { break };
                serve_connection(stream, &*store, &policy, &digest);
            })
        })
        .collect();

    println!("{}", serde_json::json!({ "listening": addr.to_string() }));
    let _ = std::io::stdout().flush();
    while !STOP.load(Ordering::SeqCst) {
        if !readable(&listener, 200) {
            continue;
        }
        match listener.accept() {
            Ok((stream, _)) => {
                if sender.send(stream).is_err() {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => eprintln!("deferral-host serve: accept failed: {e}"),
        }
    }
    // Stop taking connections, let the workers finish what they hold, then exit 0.
    drop(listener);
    drop(sender);
    for worker in workers {
        let _ = worker.join();
    }
    eprintln!("deferral-host serve: stopped");
    Ok(())
}
