//! A resume with a pool (`coordinator-pool`): like a gate, a resume whose preflight says the
//! work may proceed first asks the durable port to admit the plan's cost in the pool
//! (`POST /v1/admissions`). Admitted, it is ready with the admission id. Refused, the pool's
//! window is folded into the fresh rate state and the same preflight runs again, which now
//! defers the work with a new receipt of the same bindings (handed back as any resume's is; a
//! resume retains nothing at the port). A port it cannot ask, or a refusal the preflight does
//! not agree with, stops it with `coordinator-failed`: with a pool no work runs without an
//! admission, whichever command started it.

use super::port::{Port, Told};
use super::view::Finished;
use super::{Attempt, AttemptError};
use crate::step::Step;
use deferral_core::decision::Status;
use deferral_core::pool;
use deferral_core::preflight::{preflight, PreflightInput};
use deferral_core::rate_state::RateRead;
use deferral_protocol::AdmissionAnswer;

impl Attempt<'_> {
    /// A resume's preflight with a durable port: admitted, deferred to the pool, or stopped.
    pub(super) fn resume_through_pool(
        &self,
        port: &Port<'_>,
        mut finished: Finished,
        input: &PreflightInput,
        read: &RateRead,
        ledger: Option<String>,
    ) -> Step {
        let (Some(name), Status::Ready, Some(d)) =
            (port.pool, finished.status, finished.decision.clone())
        else {
            return self.done(&finished, ledger.as_deref());
        };
        let told = Told {
            pool: name,
            cost: pool::cost_of(d.plan.as_ref()),
            rate: pool::rate_of(&d, self.now),
        };
        finished.pool = Some(name.to_string());
        match self.admission(name) {
            None => self.admit_step(port, &told, &d, ledger.as_deref()),
            Some(Err(e)) => self.refused_work(finished, &e),
            Some(Ok(AdmissionAnswer::Admitted { admission: id, .. })) => {
                finished.admission = Some(id);
                self.done(&finished, None)
            }
            Some(Ok(AdmissionAnswer::Refused { reason, window, .. })) => {
                let mut again = input.clone();
                pool::fold(&mut again.fresh.rate, &window, d.clock_offset_ms, self.now);
                let p = preflight(&again);
                if p.status == Status::Ready {
                    let e = AttemptError::AdmissionFailed {
                        pool: name.to_string(),
                        detail: "it refused, yet its window leaves room for the plan above the reserves: the host and the resume disagree".into(),
                    };
                    return self.refused_work(finished, &e);
                }
                let mut deferred = self.finished_resume(p, Some(read));
                deferred.pool = Some(name.to_string());
                deferred.pool_reason = Some(reason);
                self.done(&deferred, None)
            }
        }
    }
}
