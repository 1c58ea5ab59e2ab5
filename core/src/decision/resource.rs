//! The rate resources a decision checks, as rows of one table: GitHub's bucket name, what a
//! missing window means, the receipt reason and diagnostic when it binds, and where its
//! planned cost, reserve and figures live. The decision walks [`RESOURCES`]; the views in the
//! driver walk it too, so a resource is shown wherever it is checked.
//!
//! A new bucket is a row here, the field its row points at in [`PlanCost`], [`Policy`] and
//! [`Decision`] (their JSON is the contract the vectors pin), and its vectors. A bucket that
//! can bind a deferral also needs a receipt reason: `deferred-receipt-v1` has only
//! `rest-reserve`, `graphql-reserve` and `provider-secondary-limit`, so a third one is a new
//! receipt version, not a row.

use super::{Code, Decision, Policy, Reserve, ResourceFigures};
use crate::plan::PlanCost;
use crate::receipt::Reason;
use crate::signals::{GRAPHQL_RESOURCE, REST_RESOURCE};

/// One checked resource.
pub struct Resource {
    /// GitHub's bucket name (`/rate_limit`'s `resources`, `x-ratelimit-resource`).
    pub name: &'static str,
    /// How people call it in a table (the job summary).
    pub title: &'static str,
    /// How people call it in a sentence or a short column.
    pub short: &'static str,
    /// Without a window of it no decision is made (else it is noted and not checked).
    pub required: bool,
    /// The diagnostic when it has no window and is not required.
    pub missing_code: Code,
    /// The diagnostic when it is at or below its reserve.
    pub below_reserve_code: Code,
    /// The receipt reason when it binds the deferral.
    pub reason: Reason,
    /// Its planned cost.
    pub cost: fn(&PlanCost) -> u64,
    /// Its reserve.
    pub reserve: fn(&Policy) -> Reserve,
    /// Its figures, once checked.
    pub figures: fn(&Decision) -> Option<&ResourceFigures>,
    /// Where its figures go.
    pub figures_mut: fn(&mut Decision) -> &mut Option<ResourceFigures>,
}

/// Every checked resource, in the order they are checked and shown.
pub const RESOURCES: [Resource; 2] = [
    Resource {
        name: REST_RESOURCE,
        title: "REST (core)",
        short: "REST",
        required: true,
        missing_code: Code::MissingRateState,
        below_reserve_code: Code::CoreBelowReserve,
        reason: Reason::RestReserve,
        cost: |c| c.rest,
        reserve: |p| p.rest_reserve,
        figures: |d| d.rest.as_ref(),
        figures_mut: |d| &mut d.rest,
    },
    Resource {
        name: GRAPHQL_RESOURCE,
        title: "GraphQL",
        short: "GraphQL",
        required: false,
        missing_code: Code::GraphqlStateMissing,
        below_reserve_code: Code::GraphqlBelowReserve,
        reason: Reason::GraphqlReserve,
        cost: |c| c.graphql,
        reserve: |p| p.graphql_reserve,
        figures: |d| d.graphql.as_ref(),
        figures_mut: |d| &mut d.graphql,
    },
];

impl Resource {
    /// The figures of every resource the decision checked, with its row.
    pub fn checked(d: &Decision) -> impl Iterator<Item = (&'static Resource, &ResourceFigures)> {
        RESOURCES
            .iter()
            .filter_map(move |r| (r.figures)(d).map(|f| (r, f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_its_own_bucket_with_codes_of_its_name() {
        let mut names: Vec<&str> = RESOURCES.iter().map(|r| r.name).collect();
        names.dedup();
        assert_eq!(names.len(), RESOURCES.len());
        for r in &RESOURCES {
            assert_eq!(
                r.below_reserve_code.as_str(),
                format!("{}-below-reserve", r.name)
            );
            let mut d = Decision::new();
            *(r.figures_mut)(&mut d) = Some(ResourceFigures {
                resource: r.name.into(),
                limit: 1,
                remaining: 1,
                reserve: 0,
                planned_cost: 0,
                reset: 0,
                ok: true,
            });
            assert_eq!((r.figures)(&d).map(|f| f.resource.as_str()), Some(r.name));
            assert_eq!(Resource::checked(&d).count(), 1);
        }
    }
}
