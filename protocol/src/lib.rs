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
mod per_resource;
mod place;
mod read;
mod record;
mod requests;
pub mod tick;
mod window;

pub use admission::{AdmissionAnswer, AdmissionRequest, ReleaseAnswer, ReleaseRequest};
pub use cost::Cost;
pub use fields::Fields;
pub use line::{GateLine, LineFigures, LinePlan};
pub use per_resource::PerResource;
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
///
/// This is the one list of resources: every type that keeps something per resource keeps it in
/// a [`PerResource`] and walks [`Resource::ALL`], and every name (the wire's, GitHub's bucket,
/// the words for people, the store's rows) is one of the methods below. A new resource is a
/// variant here and an arm in each method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Rest,
    Graphql,
}

impl Resource {
    /// In the order the wire writes them (and the order of the variants).
    pub const ALL: [Resource; 2] = [Resource::Rest, Resource::Graphql];

    /// How many there are.
    pub const COUNT: usize = Resource::ALL.len();

    /// Its name on the wire (`cost.rest`, `rate.graphql`), in the store's rows and in words.
    pub const fn as_str(self) -> &'static str {
        match self {
            Resource::Rest => "rest",
            Resource::Graphql => "graphql",
        }
    }

    /// GitHub's name of its bucket (`GET /rate_limit`'s `resources`, `x-ratelimit-resource`).
    pub const fn bucket(self) -> &'static str {
        match self {
            Resource::Rest => "core",
            Resource::Graphql => "graphql",
        }
    }

    /// How people call it in a heading (`REST left`).
    pub const fn title(self) -> &'static str {
        match self {
            Resource::Rest => "REST",
            Resource::Graphql => "GraphQL",
        }
    }

    /// What its window counts, for people (`REST`, `GraphQL points`).
    pub const fn units(self) -> &'static str {
        match self {
            Resource::Rest => "REST",
            Resource::Graphql => "GraphQL points",
        }
    }

    /// Its place in [`Resource::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn parse(text: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// The resource of GitHub's bucket `name` (`None`: one no pool meters).
    pub fn of_bucket(name: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.bucket() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resource_is_at_its_index_with_its_own_names() {
        for (i, r) in Resource::ALL.into_iter().enumerate() {
            assert_eq!(r.index(), i);
            assert_eq!(Resource::parse(r.as_str()), Some(r));
            assert_eq!(Resource::of_bucket(r.bucket()), Some(r));
        }
    }
}
