//! The accept loop, one task per connection (hyper's HTTP/1.1 with keep-alive), and the path
//! of one request: token, route, body, then the handler on a blocking thread.

use super::app::App;
use super::auth;
use super::connections::{Admission, Registry, Slot};
use super::http::{self, BodyLimits, Request, Response};
use super::log;
use super::routes;
use super::PAGE_WAIT;
use crate::webhook;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The request line and headers together; past this hyper answers 431.
const MAX_HEAD_BYTES: usize = 8 * 1024;
const MAX_HEADERS: usize = 64;

/// Accepts connections until `stop` resolves, then closes idle ones, lets busy ones finish
/// their answer, and returns when none is left or the grace period has passed.
pub async fn run(
    listener: TcpListener,
    app: Arc<App>,
    stop: impl std::future::Future<Output = ()>,
    stop_all: watch::Sender<bool>,
) {
    let registry = Arc::new(Registry::new(app.limits.max_connections));
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => admit(stream, &registry, &app),
                Err(err) => {
                    // Out of descriptors or similar: say so, and give the system a moment.
                    log::line(&format!("accept failed: {err}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    drop(listener);
    let _ = stop_all.send(true);
    registry.stop();
    let open = registry.len();
    if tokio::time::timeout(app.limits.shutdown_grace, registry.drained())
        .await
        .is_err()
    {
        log::line(&format!(
            "{} of {open} connections still open after {} ms; closing them",
            registry.len(),
            app.limits.shutdown_grace.as_millis()
        ));
    }
}

fn admit(stream: TcpStream, registry: &Arc<Registry>, app: &Arc<App>) {
    match registry.admit() {
        Admission::Admitted(slot) => {
            tokio::spawn(connection(stream, slot, registry.clone(), app.clone()));
        }
        Admission::Refused => {
            // Never waits: what the socket buffer takes now is all the client gets.
            let _ = stream.try_write(&busy());
        }
    }
}

async fn connection(stream: TcpStream, slot: Arc<Slot>, registry: Arc<Registry>, app: Arc<App>) {
    let _ = stream.set_nodelay(true);
    let service = {
        let (slot, app) = (slot.clone(), app.clone());
        service_fn(move |request| answer(request, slot.clone(), app.clone()))
    };
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(app.limits.request_timeout)
        .keep_alive(true)
        .title_case_headers(true)
        .max_buf_size(MAX_HEAD_BYTES.max(8192))
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    // `biased`: an answer the connection is writing goes out before a close request is seen.
    let ended = tokio::select! {
        biased;
        ended = conn.as_mut() => Some(ended),
        () = slot.closed() => None,
    };
    match ended {
        Some(Ok(())) => {}
        Some(Err(err)) => log_connection_error(&err),
        None if slot.in_flight() => {
            // Stopping with a request being handled: finish it, then close.
            conn.as_mut().graceful_shutdown();
            if let Err(err) = conn.await {
                log_connection_error(&err);
            }
        }
        // Idle (shed, or stopping): dropping the connection closes it; no answer is lost.
        None => {}
    }
    registry.remove(&slot);
}

/// The answer to a connection refused at the cap (every connection busy), written raw: the
/// connection is closed at once, without hyper.
fn busy() -> Vec<u8> {
    let body = Response::error(503, "busy", "every connection is busy; try again shortly").body;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\nRetry-After: 1\r\nX-Content-Type-Options: nosniff\r\n\r\n{body}\n",
        body.len() + 1
    )
    .into_bytes()
}

fn log_connection_error(err: &hyper::Error) {
    if err.is_timeout() {
        log::line("a request head timed out; connection closed");
    } else if err.is_parse() || err.is_parse_too_large() {
        log::line(&format!("malformed request refused: {err}"));
    }
    // Anything else is a client that went away; not worth a line.
}

/// Handles one request; hyper calls this once its head has arrived.
async fn answer(
    request: hyper::Request<Incoming>,
    slot: Arc<Slot>,
    app: Arc<App>,
) -> Result<hyper::Response<Full<Bytes>>, Infallible> {
    let Some(waiting_since) = slot.begin() else {
        return Ok(http::stopping().into_hyper());
    };
    let (parts, body) = request.into_parts();
    let mut head = Request::from_parts(&parts);
    if let Some(intake) = app.webhook.as_ref().filter(|_| head.path == webhook::PATH) {
        // Signed by GitHub, not sent with the token: its own door (`super::webhook`), and until
        // its signature is checked, its own share of the connections (`super::unsigned`).
        let response = match super::unsigned::admit(&app, &parts) {
            Err(refused) => {
                // Refused before its body: idle while that body is dropped, as below.
                slot.end();
                http::refused_unread(&parts.headers, body, refused).await
            }
            Ok(_share) => {
                let mut stopping = app.stopping.clone();
                let limits = BodyLimits {
                    deadline: waiting_since + app.limits.request_timeout,
                    stopping: async move {
                        let _ = stopping.wait_for(|stop| *stop).await;
                    },
                };
                super::webhook::receive(&app, intake, &parts, body, limits).await
            }
        };
        log::request(parts.method.as_str(), parts.uri.path(), response.status);
        crate::metrics::serve::request(parts.uri.path(), response.status);
        slot.end();
        return Ok(response.into_hyper());
    }
    // The status page also takes the token as a Basic password, for a browser (`super::auth`).
    let page = routes::is_page(&head.path);
    let refused = if super::health::Probe::of(&head.path).is_some() {
        // Health probes need no token: a supervisor asks them.
        super::health::check_method(&head.method)
    } else if auth::admits(head.header("authorization"), &app.token_digest, page) {
        slot.prove();
        routes::check_route(&head.method, &head.path)
    } else {
        Some(auth::refusal(page))
    };
    let response = if let Some(refused) = refused {
        // Refused before its body: while that body is read and dropped the connection counts
        // as idle, so clients without the token can never fill the cap with busy connections.
        slot.end();
        http::refused_unread(&parts.headers, body, refused).await
    } else {
        let mut stopping = app.stopping.clone();
        let limits = BodyLimits {
            deadline: waiting_since + app.limits.request_timeout,
            stopping: async move {
                let _ = stopping.wait_for(|stop| *stop).await;
            },
        };
        match http::read_body(&head.method, &parts.headers, body, limits).await {
            Ok(bytes) => {
                head.body = bytes;
                handle(head, &app).await
            }
            Err(refused) => refused,
        }
    };
    log::request(parts.method.as_str(), parts.uri.path(), response.status);
    crate::metrics::serve::request(parts.uri.path(), response.status);
    slot.end();
    Ok(response.into_hyper())
}

/// Runs the route's handler on a blocking thread with a store connection. The status page
/// first waits (briefly) for one of its own few turns.
async fn handle(request: Request, app: &Arc<App>) -> Response {
    match super::health::Probe::of(&request.path) {
        Some(super::health::Probe::Alive) => return super::health::alive(),
        Some(super::health::Probe::Ready) => return ready(app).await,
        None => {}
    }
    let changes = request.method == "POST";
    let response = handle_with_store(request, app).await;
    if let (true, 200..=299, Some(changed)) = (changes, response.status, &app.changed) {
        changed();
    }
    response
}

/// `/readyz`: a read on a pooled store connection, within [`super::health::READY_WAIT`].
async fn ready(app: &Arc<App>) -> Response {
    if *app.stopping.borrow() {
        return http::stopping();
    }
    let Ok(_permit) = app.handlers.acquire().await else {
        return http::stopping();
    };
    let shared = app.clone();
    let read = tokio::task::spawn_blocking(move || shared.stores.probe());
    let wait = super::health::READY_WAIT;
    super::health::ready(match tokio::time::timeout(wait, read).await {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(err))) => Err(format!("the store does not answer: {err}")),
        Ok(Err(_)) => Err("the store check failed; see the server log".to_string()),
        Err(_) => Err(format!(
            "the store did not answer within {} s",
            wait.as_secs()
        )),
    })
}

/// [`handle`] for every route but the probes.
async fn handle_with_store(request: Request, app: &Arc<App>) -> Response {
    let _page = if routes::is_page(&request.path) {
        match tokio::time::timeout(PAGE_WAIT, app.pages.acquire()).await {
            Ok(Ok(permit)) => Some(permit),
            Ok(Err(_)) => return http::stopping(),
            Err(_) => {
                return Response::error(
                    503,
                    "busy",
                    "the status page is being drawn for others; try again shortly",
                )
                .with_header("Retry-After", "1")
            }
        }
    } else {
        None
    };
    let Ok(_permit) = app.handlers.acquire().await else {
        return http::stopping();
    };
    let shared = app.clone();
    // Dropped with this future when the client goes away: long reads then stop (`crate::abandon`).
    let token = crate::abandon::Token::default();
    let _abandoned = crate::abandon::CancelOnDrop(token.clone());
    let work = tokio::task::spawn_blocking(move || {
        crate::abandon::with(&token, || {
            shared.stores.with(|store| {
                let errors = crate::metrics::serve::store_errors();
                let store = crate::metrics::CountingStore::new(store, errors);
                routes::handle(&store, &shared.policy, &request)
            })
        })
    });
    match work.await {
        Ok(Ok(response)) => response,
        Ok(Err(err)) => {
            crate::metrics::counting_store::count(crate::metrics::serve::store_errors(), &err);
            // No connection to be had: the status its code has (503 for `store-replaced`).
            let err = crate::error::HostError::from(err);
            Response::json(routes::status_of(&err), err.to_json_value().to_string())
        }
        Err(_) => Response::error(500, "internal", "the handler failed; see the server log"),
    }
}
