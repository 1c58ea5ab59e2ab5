//! A gate's place in its pool at the durable port: `coordinator-priority` (a whole number,
//! default 0; within a pool a higher one is admitted first) and `coordinator-fairness-key`
//! (among equal priorities the host takes turns between keys), the CLI's `--coordinator-priority`
//! and `--coordinator-fairness-key`. Checked at the door, before any request, by the host's
//! rules ([`deferral_protocol::Priority`], [`deferral_protocol::FairnessKey`]); sent beside the receipt when the gate defers
//! (`POST /v1/deferrals`), never inside it. Priority 0 (action.yml's default) and no key send
//! what a gate sent before they existed.

use super::{Attempt, AttemptError};
use deferral_protocol::{FairnessKey, Priority};

/// The place in the pool the inputs give; `None` is the host's default.
#[derive(Debug, Clone, Default)]
pub(super) struct Order {
    /// `None` for 0, the default.
    pub(super) priority: Option<Priority>,
    pub(super) fairness_key: Option<FairnessKey>,
}

impl Order {
    /// The first of these inputs given, for `missing-coordinator-url`.
    pub(super) fn first_given(&self) -> Option<&'static str> {
        if self.priority.is_some() {
            Some("coordinator-priority")
        } else {
            self.fairness_key
                .as_ref()
                .map(|_| "coordinator-fairness-key")
        }
    }
}

impl Attempt<'_> {
    /// `coordinator-priority` and `coordinator-fairness-key`, checked.
    pub(super) fn pool_order(&self) -> Result<Order, AttemptError> {
        let priority = match self.input("coordinator-priority") {
            None => None,
            Some(text) => match Priority::parse(text) {
                Err(_) => return Err(AttemptError::InvalidCoordinatorPriority),
                Ok(Priority(0)) => None,
                Ok(p) => Some(p),
            },
        };
        let fairness_key = self
            .input("coordinator-fairness-key")
            .map(FairnessKey::parse)
            .transpose()
            .map_err(|_| AttemptError::InvalidCoordinatorFairnessKey)?;
        Ok(Order {
            priority,
            fairness_key,
        })
    }
}
