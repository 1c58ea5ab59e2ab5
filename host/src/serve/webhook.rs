//! `POST /v1/github/webhook` (with `--github-webhook-secret-file`): GitHub's deliveries. No
//! bearer token: the signature is the proof, checked on the raw body before anything parses it.
//!
//! * a body over the webhook's limit (1 MiB by default), a method but POST or a body that is
//!   not `application/json` is refused unread (`super::unsigned`), as is a request past the
//!   webhook's share of the connections;
//! * a missing or wrong `X-Hub-Signature-256`: 401 `bad-signature`, nothing stored, one log
//!   line with the delivery id (never the body);
//! * `ping`: 200; any event but `workflow_run` `completed`: 202, ignored;
//! * `deployment_protection_rule`: an environment gate's request, see `super::deployment`;
//! * `check_run` `requested_action`: a button of a check run pressed, see `super::check_run`;
//! * `workflow_run` `completed`: stored once by what the signature covers, the run's own
//!   identity ([`crate::webhook::payload::CompletedRun::key`]: repository, run, attempt), not by
//!   `X-GitHub-Delivery`, which the signature does not cover. The first time, the run is queued
//!   for the worker ([`crate::webhook::worker`]) and 200 answers at once; GitHub's redelivery,
//!   and a captured delivery replayed under any other id, answer 200 `already` and change
//!   nothing: no row, no place in the queue, no request to GitHub. So the queue only ever holds
//!   distinct runs, and a flood of replays cannot delay a genuine delivery behind it. A run
//!   that completed before [`crate::webhook::REPLAY_HORIZON_MS`] is no delivery GitHub can
//!   still make: 202, ignored, not stored (so the keys need not be kept longer than that).

use super::app::App;
use super::http::{self, BodyLimits, Response};
use super::log;
use crate::webhook::payload::{self, Delivery};
use crate::webhook::worker::{Job, Work};
use crate::webhook::{Intake, REPLAY_HORIZON_MS};
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
    // Read only up to the signature check's need, within the webhook's limit and at its
    // minimum pace (`super::unsigned`, which refused an oversized one from its head).
    let max = app.limits.webhook_max_body;
    let bytes = match http::read_body_up_to(
        "POST",
        &parts.headers,
        body,
        super::unsigned::paced(limits, &parts.headers),
        max,
        &super::unsigned::said(max),
    )
    .await
    {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let delivery = header(parts, "x-github-delivery")
        .unwrap_or_default()
        .to_string();
    let signature = header(parts, "x-hub-signature-256");
    let (verified, bytes) = super::unsigned::verify(app, intake, signature, bytes).await;
    if !verified {
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
    if event == crate::webhook::check_run::EVENT {
        return super::check_run::receive(app, intake, &delivery, &bytes).await;
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
    let now = crate::clock::now_ms();
    if run.completed_before(now.saturating_sub(REPLAY_HORIZON_MS)) {
        let why = format!(
            "run {} completed more than {} days ago: GitHub redelivers nothing that old",
            run.run.id,
            REPLAY_HORIZON_MS / 86_400_000
        );
        return Response::json(202, json!({"ignored": why}).to_string());
    }
    let shared = app.clone();
    let (key, kind) = (run.key(), event.clone());
    let noted = tokio::task::spawn_blocking(move || {
        shared
            .stores
            .with(|store| store.note_delivery(&key, &kind, now))
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
        work: Work::Run(Box::new(run)),
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
