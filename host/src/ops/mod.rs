//! The host's operations, each once, in a file of its own: the command line (`cli`), the HTTP
//! routes (`serve`) and `run` read their input, call the operation, and print its typed answer.
//!
//! * [`record`]: a handoff receipt recorded as a deferral (`record`, `POST /v1/deferrals`).
//! * [`cancel`]: a deferral cancelled with its cancellation handle (`cancel`,
//!   `POST /v1/deferrals/ID/cancel`).
//! * [`retry`]: a blocked deferral started again as a new one (`retry`,
//!   `POST /v1/deferrals/ID/retry`).

pub mod cancel;
pub mod record;
pub mod retry;
