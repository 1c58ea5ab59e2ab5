//! GitHub's webhooks instead of polling (`serve` or `run` with `--github-webhook-secret-file
//! FILE`): GitHub POSTs a signed `workflow_run` delivery to `/v1/github/webhook` when a run
//! completes, and the host follows that run at once instead of at the next poll.
//!
//! * [`signature`]: `X-Hub-Signature-256`, HMAC-SHA256 over the raw body with one of the
//!   secrets, checked in constant time before the body is parsed.
//! * [`payload`]: what a verified delivery asks for (`ping`, a completed run, nothing).
//! * [`worker`]: the thread the server owns that does the work, off the request: a run this
//!   host dispatched has its outcome written from its artifacts
//!   ([`crate::ops::follow::write_run_outcome`], no GET of the run); a run a configured watch
//!   trusts has its `deferred-receipt` ingested ([`crate::ops::ingest::ingest_artifact`]).
//! * [`check_run`]: a check run's button pressed (`requested_action`), which the worker
//!   applies once for a sender GitHub says may write ([`crate::ops::press`]).
//! * [`sweep`]: with a GitHub App, failed deliveries of the last three days redelivered.
//! * the command-line options, and the starting of the worker, are `crate::flags::webhook`'s.
//!
//! The intake itself (HTTP: limit, signature, the run attempt stored once, answer) is
//! `crate::serve::webhook`. Polling stays as the reconciler for what a webhook missed.

pub mod check_run;
pub mod deployment;
pub mod payload;
pub mod signature;
pub mod sweep;
pub mod worker;

use crate::ops::ingest::WatchOptions;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, RwLock};

/// The path GitHub delivers to.
pub const PATH: &str = "/v1/github/webhook";

/// How old a completed run may be for its delivery to be taken: GitHub keeps a delivery for
/// redelivery three days (seven on GitHub Enterprise Server), and a day more allows for the
/// clocks. A delivery whose run's `updated_at` is older can only be a replay: it is ignored
/// without being stored, so a delivery's key need be kept no longer than this for any replay
/// to change nothing.
pub const REPLAY_HORIZON_MS: u64 = 8 * 24 * 3_600_000;

/// What the port's intake holds: the secrets, the watches the worker ingests for, and the
/// worker's queue (see `crate::serve::webhook`). Clones share the secrets and the watches, so
/// `run` replaces both on SIGHUP ([`Intake::replace`]) while the port and the worker run.
#[derive(Clone)]
pub struct Intake {
    secrets: Arc<RwLock<Vec<Vec<u8>>>>,
    watches: Arc<RwLock<Vec<WatchOptions>>>,
    queue: SyncSender<worker::Job>,
    /// The `[[gate]]` tables a `deployment_protection_rule` delivery is taken for.
    gates: crate::ops::gate::Gates,
}

impl Intake {
    /// The intake of a worker that reads `queue` (see [`worker::start`]).
    pub fn new(
        secrets: Vec<Vec<u8>>,
        watches: Vec<WatchOptions>,
        queue: SyncSender<worker::Job>,
    ) -> Intake {
        Intake {
            secrets: Arc::new(RwLock::new(secrets)),
            watches: Arc::new(RwLock::new(watches)),
            queue,
            gates: crate::ops::gate::Gates::default(),
        }
    }

    /// The environment gates, which `run` sets at start and on SIGHUP.
    pub fn gates(&self) -> &crate::ops::gate::Gates {
        &self.gates
    }

    /// Whether `header` signs `body` with one of the secrets ([`signature::verify`]).
    pub fn verify(&self, header: Option<&str>, body: &[u8]) -> bool {
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        signature::verify(&secrets, header, body)
    }

    /// The worker's share of the intake: the watches, not the queue (the worker ends when the
    /// last queue's sender is dropped).
    pub fn watching(&self) -> Watching {
        Watching(self.watches.clone())
    }

    /// The secrets and the watches from now on (SIGHUP): a delivery verified after this call is
    /// verified with `secrets`.
    pub fn replace(&self, secrets: Vec<Vec<u8>>, watches: Vec<WatchOptions>) {
        *self.secrets.write().unwrap_or_else(|e| e.into_inner()) = secrets;
        *self.watches.write().unwrap_or_else(|e| e.into_inner()) = watches;
    }

    /// Queues a verified delivery for the worker; `false` when the queue is full or the worker
    /// has stopped (the reconciler finds the run later).
    pub fn queue(&self, job: worker::Job) -> bool {
        self.queue.try_send(job).is_ok()
    }
}

/// The watches a delivery's run is ingested for, shared with the [`Intake`] that replaces them.
pub struct Watching(Arc<RwLock<Vec<WatchOptions>>>);

impl Watching {
    /// The watches as they are now.
    pub fn now(&self) -> Vec<WatchOptions> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl std::fmt::Debug for Intake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secrets = self.secrets.read().map(|s| s.len()).unwrap_or(0);
        write!(f, "Intake {{ {secrets} secret(s) }}")
    }
}
