//! `GET /healthz` and `GET /readyz`: what a supervisor or a load balancer asks, without the
//! token. `/healthz` answers 200 while the process serves at all; `/readyz` answers 200 when the
//! store answers a read, 503 when it does not (or the port is stopping), so traffic goes to a
//! replica whose store is reachable.

use super::http::{self, Response};
use super::server::App;
use std::sync::Arc;
use std::time::Duration;

/// How long `/readyz` waits for the store before answering 503.
const READY_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// `/healthz`: the process is alive and answering.
    Alive,
    /// `/readyz`: the store answers.
    Ready,
}

impl Probe {
    pub fn of(path: &str) -> Option<Probe> {
        match path {
            "/healthz" => Some(Probe::Alive),
            "/readyz" => Some(Probe::Ready),
            _ => None,
        }
    }
}

/// A probe's answer before its body is read: only `GET` is answered.
pub fn check_method(method: &str) -> Option<Response> {
    (method != "GET").then(|| {
        Response::error(405, "method-not-allowed", "this endpoint answers GET only")
            .with_header("Allow", "GET")
    })
}

pub async fn answer(probe: Probe, app: &Arc<App>) -> Response {
    match probe {
        Probe::Alive => Response::json(200, r#"{"alive":true}"#.to_string()),
        Probe::Ready => ready(app).await,
    }
}

async fn ready(app: &Arc<App>) -> Response {
    if *app.stopping.borrow() {
        return http::stopping();
    }
    let Ok(_permit) = app.handlers.acquire().await else {
        return http::stopping();
    };
    let shared = app.clone();
    let read = tokio::task::spawn_blocking(move || shared.stores.probe());
    let why = match tokio::time::timeout(READY_WAIT, read).await {
        Ok(Ok(Ok(()))) => return Response::json(200, r#"{"ready":true}"#.to_string()),
        Ok(Ok(Err(err))) => format!("the store does not answer: {err}"),
        Ok(Err(_)) => "the store check failed; see the server log".to_string(),
        Err(_) => format!("the store did not answer within {} s", READY_WAIT.as_secs()),
    };
    Response::error(503, "not-ready", &why).with_header("Retry-After", "1")
}
