//! The host's side of GitHub: a REST client on a maintained crate and the loop it closes.
//!
//! * [`transport`]: `ureq` with rustls (system and bundled roots), proxies from the environment,
//!   bounded bodies, which failures happened before anything was sent. No credentials.
//! * [`auth`], [`app`]: a token, or a GitHub App's installation tokens (RS256 JWT, exchanged
//!   over the transport alone).
//! * [`client`]: the REST client on the transport: credentials, quota, call counts,
//!   redirects followed by hand without the token to other hosts.
//! * [`quota`]: stop calling for the pass when the reserve is reached or a limit holds.
//! * [`rate_limit`]: `GET /rate_limit`, what is left of the quota the host's credentials spend.
//! * [`dispatch`]: the `workflow-dispatch:` launch, which returns the run.
//! * [`api`]: the few REST calls the loop makes, with ETags.
//! * [`api_version`]: `--github-api-version` (2022-11-28, 2026-03-10) and what differs.
//! * [`artifact`]: read the one JSON file of a `deferred-receipt` artifact zip, bounded.
//! * [`trust`]: which runs' artifacts `watch` ingests (never a fork's; only what was named).
//!
//! The operations that use these calls are the house's (`crate::ops::follow`: dispatched runs
//! to their outcome; `crate::ops::ingest`: `deferred-receipt` artifacts recorded once each),
//! and GitHub's deliveries are taken by `crate::webhook`.
//! * [`options`]: the command-line options that build a client.

pub mod api;
pub mod api_version;
pub mod app;
pub mod artifact;
pub mod auth;
pub mod client;
pub mod conclusion;
pub mod dispatch;
pub mod options;
pub mod quota;
pub mod rate_limit;
pub mod request_kind;
pub mod transport;
pub mod trust;

/// The artifact name a deferring run uploads its receipt under, unless told otherwise.
pub const DEFAULT_ARTIFACT: &str = "deferred-receipt";
