//! What every connection of the port shares: the token's digest, the launch policy, the
//! store's connections, the limits, the semaphores, the stop signal, the webhook intake.

use super::routes::Policy;
use super::stores::Stores;
use super::Limits;
use std::sync::Arc;
use tokio::sync::{watch, Semaphore};

/// What every connection shares.
pub struct App {
    pub token_digest: String,
    pub policy: Policy,
    pub stores: Stores,
    pub limits: Limits,
    /// Handlers running on blocking threads at once (each holds a store connection).
    pub handlers: Semaphore,
    /// Status pages being read and drawn at once ([`super::PAGE_RENDERS`]).
    pub pages: Semaphore,
    /// The webhook's share of the connections ([`super::Limits::webhook_connections`]): a
    /// webhook request holds one while it is handled.
    pub unsigned: Semaphore,
    /// Webhook signatures checked at once ([`super::unsigned::VERIFIERS`]).
    pub verifying: Semaphore,
    /// Turns `true` when the server stops: body reads give up and answer 503.
    pub stopping: watch::Receiver<bool>,
    /// GitHub's webhooks, when configured (`--github-webhook-secret-file`).
    pub webhook: Option<crate::webhook::Intake>,
    /// Told after each request that changed the store (see [`super::Hooks`]).
    pub changed: Option<Arc<dyn Fn() + Send + Sync>>,
}
