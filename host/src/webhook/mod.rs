//! GitHub's webhooks instead of polling (`serve` or `run` with `--github-webhook-secret-file
//! FILE`): GitHub POSTs a signed `workflow_run` delivery to `/v1/github/webhook` when a run
//! completes, and the host follows that run at once instead of at the next poll.
//!
//! * [`signature`]: `X-Hub-Signature-256`, HMAC-SHA256 over the raw body with one of the
//!   secrets, checked in constant time before the body is parsed.
//! * [`payload`]: what a verified delivery asks for (`ping`, a completed run, nothing).
//! * [`worker`]: the thread the server owns that does the work, off the request: a run this
//!   host dispatched is finished from its artifacts ([`crate::ops::follow::finish_run`], no GET of
//!   the run); a run a configured watch trusts has its `deferred-receipt` ingested
//!   ([`crate::ops::ingest::ingest_artifact`]).
//! * [`sweep`]: with a GitHub App, failed deliveries of the last three days redelivered.
//! * the command-line options, and the starting of the worker, are `crate::flags::webhook`'s.
//!
//! The intake itself (HTTP: limit, signature, delivery id stored once, answer) is
//! `crate::serve::webhook`. Polling stays as the reconciler for what a webhook missed.

pub mod payload;
pub mod signature;
pub mod sweep;
pub mod worker;

/// The path GitHub delivers to.
pub const PATH: &str = "/v1/github/webhook";

/// Largest delivery read: GitHub caps payloads at 25 MB and drops larger ones; a
/// `workflow_run` delivery is typically 20-40 KB.
pub const MAX_BODY_BYTES: usize = 25 * 1024 * 1024;

/// What the port's intake holds: the secrets and the worker's queue (see
/// `crate::serve::webhook`).
#[derive(Clone)]
pub struct Intake {
    pub secrets: Vec<Vec<u8>>,
    pub queue: std::sync::mpsc::SyncSender<worker::Job>,
}

impl std::fmt::Debug for Intake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Intake {{ {} secret(s) }}", self.secrets.len())
    }
}
