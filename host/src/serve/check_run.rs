//! A verified `check_run` delivery (see `super::webhook` for the signature): a press of a
//! check run's button is handed to the webhook's worker, which holds the GitHub client that
//! asks whether the sender may write and applies it once ([`crate::ops::press`]); the answer
//! waits for it at most [`WAIT`].
//!
//! * done: 200 `{"deferral", "pressed", "by", ...}`; pressed before (a redelivery, a replay):
//!   200 `{"already": true}`;
//! * not honoured (a sender who may not write, a check run not this host's, a deferral no
//!   longer in a state the button fits): 202 `{"ignored": why}`;
//! * another action: 202 `{"ignored": why}`; a press that lacks what it must have: 400;
//! * the worker's queue full, or GitHub not reachable: 503 (GitHub's redelivery may bring it
//!   again); the worker slower than [`WAIT`]: 202 `{"queued": true}` (it still applies it).

use super::app::App;
use super::http::Response;
use super::log;
use crate::webhook::check_run::{self, PressDelivery};
use crate::webhook::worker::{Job, Work};
use crate::webhook::Intake;
use serde_json::json;
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::time::Duration;

/// How long the answer waits for the worker (GitHub gives a delivery 10 seconds).
pub const WAIT: Duration = Duration::from_secs(8);

/// Answers one verified delivery of the event.
pub async fn receive(_app: &Arc<App>, intake: &Intake, delivery: &str, body: &[u8]) -> Response {
    let press = match check_run::read(body) {
        Err(why) => return Response::error(400, "invalid-request", &why),
        Ok(PressDelivery::Ignored(why)) => {
            return Response::json(202, json!({"ignored": why}).to_string())
        }
        Ok(PressDelivery::Pressed(press)) => press,
    };
    let (answer, pressed) = sync_channel(1);
    let job = Job {
        delivery: delivery.to_string(),
        work: Work::Press(press, answer),
    };
    if !intake.queue(job) {
        log::line(&format!(
            "webhook {delivery:?}: the worker's queue is full or stopped; the press is not applied"
        ));
        return Response::error(
            503,
            "busy",
            "the webhook's worker cannot take the press now",
        );
    }
    let waited = tokio::task::spawn_blocking(move || pressed.recv_timeout(WAIT)).await;
    match waited {
        Ok(Ok(pressed)) => Response::json(pressed.status, pressed.answer.to_string()),
        _ => Response::json(
            202,
            json!({"delivery": delivery, "queued": true}).to_string(),
        ),
    }
}
