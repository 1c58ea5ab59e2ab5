//! `GET /healthz` and `GET /readyz`: what a supervisor or a load balancer asks, without the
//! token. `/healthz` answers 200 while the process serves at all; `/readyz` answers 200 when the
//! store answers a read, 503 when it does not (or the port is stopping), so traffic goes to a
//! replica whose store is reachable.

use super::http::Response;
use std::time::Duration;

/// How long `/readyz` waits for the store before answering 503.
pub const READY_WAIT: Duration = Duration::from_secs(5);

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

/// `/healthz`'s answer.
pub fn alive() -> Response {
    Response::json(200, r#"{"alive":true}"#.to_string())
}

/// `/readyz`'s answer: `Ok` when the store answered a read, else why not.
pub fn ready(store: Result<(), String>) -> Response {
    match store {
        Ok(()) => Response::json(200, r#"{"ready":true}"#.to_string()),
        Err(why) => Response::error(503, "not-ready", &why).with_header("Retry-After", "1"),
    }
}
