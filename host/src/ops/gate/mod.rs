//! The environment gate (DESIGN section 11): a job whose `environment:` has this host's GitHub
//! App as its custom deployment protection rule waits in its run, without a runner, until the
//! host approves it; the host approves it when the pool its `[[gate]]` table names has room,
//! decided by the same ledger, fairness, priorities and forecast as every other deferral.
//!
//! * [`config`]: the `[[gate]]` tables of `run --config`.
//! * [`take`]: a `deployment_protection_rule` request recorded once as a deferral, with the
//!   receipt the host issues for it ([`receipt`]).
//! * the approval is the deferral's launch: the `environment-gate` launcher kind
//!   ([`crate::launch::kinds::approval`]), through its `decide`.
//! * [`request`]: what the host keeps of a job waiting behind a gate.
//! * [`settle`]: a gate deferral that ended unapproved is rejected once, with why.
//! * [`progress`]: a job that starts to wait gets one progress comment saying why it waits.

pub mod config;
pub mod progress;
pub mod receipt;
pub mod request;
pub mod settle;
pub mod take;

pub use config::{GateConfig, GateOptions, Gates};
