//! The host's operations, each once, in a file of its own (the lifecycle rules they share are
//! [`crate::lifecycle`]): the command line (`cli`), the HTTP
//! routes (`serve`) and `run` read their input, call the operation, and print its typed answer.
//!
//! * [`admit`]: a runner's plan admitted in its pool, or refused with its place and the
//!   pool's window (`POST /v1/admissions`).
//! * [`release`]: a runner's admission released, with what the run saw or as spent
//!   (`POST /v1/admissions/ID/release`); the host's own `GET /rate_limit` reading taught to a
//!   pool (`tick --rate-limit-pool`).
//! * [`record`]: a handoff receipt recorded as a deferral (`record`, `POST /v1/deferrals`).
//! * [`cancel`]: a deferral cancelled with its cancellation handle (`cancel`,
//!   `POST /v1/deferrals/ID/cancel`).
//! * [`claim`]: a launched process proves its attempt with its wake-up handle and learns its
//!   receipt (`POST /v1/deferrals/ID/claim`).
//! * [`report`]: an attempt's outcome, proven with its handle (`report`,
//!   `POST /v1/deferrals/ID/outcome`).
//! * [`resolve`]: a `dispatch-unknown` attempt settled by an operator (`resolve`).
//! * [`retry`]: a blocked deferral started again as a new one (`retry`,
//!   `POST /v1/deferrals/ID/retry`).
//! * [`follow`]: the workflow runs this host dispatched, to their outcomes (the pass's follow
//!   step, and one completed run named by a webhook).
//! * [`ingest`]: `deferred-receipt` artifacts of trusted runs recorded once each (`watch`, `run`'s
//!   watches, and one completed run named by a webhook).
//! * [`gate`]: the environment gate: `deployment_protection_rule` requests recorded, approved
//!   as their launch, rejected when they end unapproved.
//! * [`commit_status`]: a deferral's status on the commit its origin named.
//! * [`check_run`]: the same as a check run, with cancel and retry buttons; [`press`]: a
//!   button pressed.
//! * [`once`]: a call to GitHub made once across replicas (rejections, commit statuses).
//! * [`tick`]: the scheduler's pass, a list of typed entries (`tick`, `run`).
//! * [`prune`]: ended deferrals past the retention removed with their rows, in small batches
//!   (`prune`, `run --retention`).

pub mod admit;
pub mod cancel;
pub mod check_run;
pub mod claim;
pub mod commit_status;
pub mod follow;
pub mod gate;
pub mod ingest;
pub mod once;
pub mod press;
pub mod prune;
pub mod record;
pub mod release;
pub mod report;
pub mod resolve;
pub mod retry;
pub mod tick;
