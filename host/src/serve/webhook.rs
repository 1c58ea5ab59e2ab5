//! `POST /v1/github/webhook` (with `--github-webhook-secret-file`): GitHub's deliveries. No
//! bearer token: the signature is the proof, checked on the raw body before anything parses it.
//!
//! * a body over 25 MiB (GitHub's own cap) is refused with 413, unread;
//! * a missing or wrong `X-Hub-Signature-256`: 401 `bad-signature`, nothing stored, one log
//!   line with the delivery id (never the body);
//! * `ping`: 200; any event but `workflow_run` `completed`: 202, ignored;
//! * `deployment_protection_rule`: an environment gate's request, see `super::deployment`;
//! * `workflow_run` `completed`: its `X-GitHub-Delivery` is stored once; the first time, the
//!   run is queued for the worker ([`crate::webhook::worker`]) and 200 answers at once;
//!   a redelivery answers 200 `already` and changes nothing.

use super::app::App;
use super::http::{self, BodyLimits, Response};
use super::log;
use crate::webhook::payload::{self, Delivery};
use crate::webhook::worker::Job;
use crate::webhook::{Intake, MAX_BODY_BYTES};
use hyper::body::Incoming;
use hyper::http::request::Parts;
use serde_json::json;
use std::sync::Arc;

fn header<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Answers one delivery.
pub async fn receive<S: std::future::Future>(
    app: &Arc<App>,
    intake: &Intake,
    parts: &Parts,
    body: Incoming,
    limits: BodyLimits<S>,
) -> Response {
    if parts.method != hyper::Method::POST {
        let answer = Response::error(405, "method-not-allowed", "this endpoint answers POST only")
            .with_header("Allow", "POST");
        return http::refused_unread(&parts.headers, body, answer).await;
    }
    let bytes = match http::read_body_up_to(
        "POST",
        &parts.headers,
        body,
        limits,
        MAX_BODY_BYTES,
        "25 MiB",
    )
    .await
    {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let delivery = header(parts, "x-github-delivery")
        .unwrap_or_default()
        .to_string();
    if !intake.verify(header(parts, "x-hub-signature-256"), &bytes) {
        log::line(&format!(
            "webhook delivery {delivery:?} refused: X-Hub-Signature-256 missing or not made with a configured secret"
        ));
        return Response::error(
            401,
            "bad-signature",
            "X-Hub-Signature-256 is missing or does not match the webhook's secret",
        );
    }
    let event = header(parts, "x-github-event")
        .unwrap_or_default()
        .to_string();
    if event == crate::webhook::deployment::EVENT {
        return super::deployment::receive(app, intake, &delivery, &bytes).await;
    }
    let run = match payload::read(&event, &bytes) {
        Err(why) => return Response::error(400, "invalid-request", &why),
        Ok(Delivery::Ping) => return Response::json(200, json!({"pong": true}).to_string()),
        Ok(Delivery::Ignored(why)) => {
            return Response::json(202, json!({"ignored": why}).to_string())
        }
        Ok(Delivery::Completed(run)) => *run,
    };
    if delivery.is_empty() || delivery.len() > 100 {
        return Response::error(
            400,
            "invalid-request",
            "X-GitHub-Delivery is missing or too long",
        );
    }
    let shared = app.clone();
    let (id, kind) = (delivery.clone(), event.clone());
    let noted = tokio::task::spawn_blocking(move || {
        shared
            .stores
            .with(|store| store.note_delivery(&id, &kind, crate::clock::now_ms()))
    })
    .await;
    match noted {
        Ok(Ok(Ok(true))) => {}
        Ok(Ok(Ok(false))) => {
            return Response::json(
                200,
                json!({"delivery": delivery, "already": true}).to_string(),
            )
        }
        Ok(Ok(Err(err)) | Err(err)) => return Response::error(500, err.code(), &err.to_string()),
        Err(_) => {
            return Response::error(500, "internal", "the handler failed; see the server log")
        }
    }
    let run_id = run.run.id;
    let job = Job {
        delivery: delivery.clone(),
        run,
    };
    let queued = intake.queue(job);
    if !queued {
        log::line(&format!(
            "webhook {delivery}: the worker's queue is full or stopped; run {run_id} is left to tick"
        ));
    }
    Response::json(
        200,
        json!({"delivery": delivery, "queued": queued, "run_id": run_id}).to_string(),
    )
}
