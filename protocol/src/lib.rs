//! The wire between a runner and the durable host, as one set of types.
//!
//! The driver writes these (the CLI's gate and resume line, the Action's and the library's
//! admission request and release, the cost and rate state beside a receipt it hands to a port)
//! and the host reads them (`record`, an attempt's report, `POST /v1/deferrals`,
//! `POST /v1/admissions` and its release) and answers an admission with [`AdmissionAnswer`].
//! Writing is serde's `Serialize`, in the member order the wire has always had; reading is a
//! checked walk over a parsed `serde_json::Value` ([`Invalid`] says which figure was wrong and
//! with which stable code), so both sides refuse the same input with the same words.
//!
//! Figures are whole numbers from 0 to [`MAX_FIGURE`] (what a JavaScript number holds exactly).
//! Times are epoch milliseconds on the host's clock (`reset_ms`, `observed_ms`) except the line's
//! `reset`, GitHub's epoch seconds.

mod admission;
pub mod answers;
mod cost;
mod fields;
mod line;
mod place;
mod read;
mod record;
mod requests;
mod window;

pub use admission::{AdmissionAnswer, AdmissionRequest, ReleaseAnswer, ReleaseRequest};
pub use cost::Cost;
pub use fields::Fields;
pub use line::{GateLine, LineFigures, LinePlan};
pub use place::{FairnessKey, PoolName, Priority, MAX_KEY_CHARS, MAX_POOL_NAME};
pub use read::{Invalid, Part, Problem};
pub use record::{
    Commit, RecordAnswer, RecordRequest, RetryAnswer, StartForecast, MAX_CONTEXT, RECORD_FIELDS,
};
pub use requests::{CancelRequest, ClaimRequest, OutcomeKind, OutcomeRequest, RetryRequest};
pub use window::{RateState, Window, Windows};

/// The largest figure either side accepts: 2^53 - 1.
pub const MAX_FIGURE: u64 = (1 << 53) - 1;

/// A rate-limited resource a pool keeps a window of, by its name on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Rest,
    Graphql,
}

impl Resource {
    /// In the order the wire writes them.
    pub const ALL: [Resource; 2] = [Resource::Rest, Resource::Graphql];

    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Rest => "rest",
            Resource::Graphql => "graphql",
        }
    }

    pub fn parse(text: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.as_str() == text)
    }
}
