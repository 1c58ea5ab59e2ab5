//! A verified `deployment_protection_rule` delivery (see `super::webhook` for the signature):
//! its request is taken for the `[[gate]]` table of its repository and environment
//! ([`crate::ops::gate::take`]) on a blocking thread, and the scheduler is told, since the
//! new deferral may be due at once.
//!
//! * `requested` with a gate: 200 `{"delivery","deferral","recorded":true}` the first time,
//!   `{"delivery","deferral","already":true}` after (a redelivery, GitHub asking again);
//! * `requested` without a gate, or another action: 202 `{"ignored": why}` (the job keeps
//!   waiting; another host of the same App may answer it);
//! * a `requested` delivery that lacks what it must have: 400 `invalid-request`.

use super::app::App;
use super::http::Response;
use super::log;
use crate::ops::gate::take::{self, Taken};
use crate::webhook::deployment::{self, GateDelivery};
use crate::webhook::Intake;
use serde_json::json;
use std::sync::Arc;

/// Answers one verified delivery of the event.
pub async fn receive(app: &Arc<App>, intake: &Intake, delivery: &str, body: &[u8]) -> Response {
    let request = match deployment::read(body) {
        Err(why) => return Response::error(400, "invalid-request", &why),
        Ok(GateDelivery::Ignored(why)) => {
            return Response::json(202, json!({"ignored": why}).to_string())
        }
        Ok(GateDelivery::Requested(request)) => *request,
    };
    let Some(gate) = intake.gates().find(&request.repo, &request.environment) else {
        let why = format!(
            "no [[gate]] table names environment {:?} of {}",
            request.environment, request.repo
        );
        log::line(&format!(
            "webhook {delivery:?}: {why}; the job keeps waiting"
        ));
        return Response::json(202, json!({"ignored": why}).to_string());
    };
    let shared = app.clone();
    let taken = tokio::task::spawn_blocking(move || {
        shared
            .stores
            .with(|store| take::take(store, &gate, &request, crate::clock::now_ms()))
    })
    .await;
    let answer = match taken {
        Ok(Ok(Ok(Taken::New { id, late }))) => {
            if let Some(changed) = &app.changed {
                changed();
            }
            log::line(&format!(
                "webhook {delivery:?}: environment gate recorded as deferral {id}{}",
                if late {
                    " (its resume-by had passed: it is rejected)"
                } else {
                    ""
                }
            ));
            json!({"delivery": delivery, "deferral": id, "recorded": true, "late": late})
        }
        Ok(Ok(Ok(Taken::Already { id }))) => {
            json!({"delivery": delivery, "deferral": id, "already": true})
        }
        Ok(Ok(Err(err))) => {
            let status = super::routes::status_of(&err);
            return Response::error(status, &err.code, &err.message);
        }
        Ok(Err(err)) => return Response::error(500, err.code(), &err.to_string()),
        Err(_) => {
            return Response::error(500, "internal", "the handler failed; see the server log")
        }
    };
    Response::json(200, answer.to_string())
}
