//! The receipt of a gate request. A job waiting behind an environment has run no gate, so it
//! has no receipt of its own; the host issues one for it, a `deferred-receipt-v1` in the
//! governed-handoff form, built and checked by the core's receipt builder, and records it as
//! any other (DESIGN section 2):
//!
//! * `scope_digest`: the digest of the request's identity (the repository, the run, the
//!   environment, and the attempt and deployment when given; see
//!   [`super::request::GateRequest::identity`]). The receipt names none of them:
//!   only the digest is in it.
//! * `request_digest`: the scope digest with the gate's policy (`resume_by_ms`) and no request.
//! * `plan_digest`: the plan file's digest when the gate's cost is a plan's, else `null`.
//! * `issued_at_ms`: when the job began to wait (`deployment.created_at`, never later than
//!   now), so a redelivery of the same request makes the same receipt; `resume_after_ms` is the
//!   same instant (it may start at once); `resume_by_ms` is `resume-by` later.
//! * `reason`: `graphql-reserve` when the job spends GraphQL points only, else `rest-reserve`.
//!
//! The pool, the cost, the priority and the fairness key are the host's, recorded beside the
//! receipt as for every other deferral; the receipt stays the contract.

use super::config::GateOptions;
use super::request::GateRequest;
use crate::error::{HostError, HostErrorKind};
use crate::store::pools::Resource;
use deferral_core::digest;
use deferral_core::receipt::{Bindings, Reason, Receipt};
use serde_json::json;

fn failed(why: impl std::fmt::Display) -> HostError {
    HostError::new(
        HostErrorKind::InvalidRequest,
        format!("the gate's receipt could not be built: {why}"),
    )
}

/// The scope digest of `request`: what the store and the receipt know it by.
pub fn scope_digest(request: &GateRequest) -> Result<String, HostError> {
    digest::scope_digest(&request.identity()).map_err(failed)
}

/// The receipt of `request` for `gate`, issued at `issued_ms`.
pub fn receipt(
    request: &GateRequest,
    gate: &GateOptions,
    issued_ms: u64,
) -> Result<Receipt, HostError> {
    let scope = scope_digest(request)?;
    let policy = json!({"gate": "environment", "resume_by_ms": gate.resume_by_ms});
    let bindings = Bindings {
        request_digest: digest::request_digest(&scope, &policy, None).map_err(failed)?,
        plan_digest: digest::plan_digest(gate.plan.as_ref()).map_err(failed)?,
        scope_digest: scope,
    };
    let reason = if gate.cost.of(Resource::Rest) == 0 && gate.cost.of(Resource::Graphql) > 0 {
        Reason::GraphqlReserve
    } else {
        Reason::RestReserve
    };
    Receipt::handoff(
        reason,
        issued_ms,
        issued_ms,
        issued_ms.saturating_add(gate.resume_by_ms),
        bindings,
        false,
    )
    .map_err(|e| failed(e.message))
}
