//! The host's operations, each once, in a file of its own: the command line (`cli`), the HTTP
//! routes (`serve`) and `run` read their input, call the operation, and print its typed answer.
//!
//! * [`record`]: a handoff receipt recorded as a deferral (`record`, `POST /v1/deferrals`).
//! * [`cancel`]: a deferral cancelled with its cancellation handle (`cancel`,
//!   `POST /v1/deferrals/ID/cancel`).
//! * [`report`]: an attempt's outcome, proven with its handle (`report`,
//!   `POST /v1/deferrals/ID/outcome`).
//! * [`retry`]: a blocked deferral started again as a new one (`retry`,
//!   `POST /v1/deferrals/ID/retry`).
//! * [`tick`]: the scheduler's pass, a list of typed entries (`tick`, `run`).

pub mod cancel;
pub mod record;
pub mod report;
pub mod retry;
pub mod tick;
