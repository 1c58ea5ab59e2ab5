//! A pool that held due deferrals in a pass: [`Held`], as the progress lines read it and the
//! tick report prints it (`{pool, why, until, until_ms, admitted, held, ids}`).

use crate::clock::iso8601;
use crate::pools::admission::AdmissionPass;
use deferral_protocol::tick::HeldPool;

/// One pool's pass that held deferrals.
#[derive(Debug, Clone)]
pub struct Held {
    pub pool: String,
    /// Why the pool holds (its decision's reason).
    pub why: Option<String>,
    /// When the hold ends, when it does.
    pub until_ms: Option<u64>,
    /// How many the pool admitted in the same pass.
    pub admitted: usize,
    /// The held deferrals.
    pub ids: Vec<String>,
}

impl Held {
    /// The pool's pass, when it held any.
    pub fn of(pass: &AdmissionPass) -> Option<Held> {
        let d = &pass.decision;
        if d.held.is_empty() {
            return None;
        }
        Some(Held {
            pool: pass.pool.clone(),
            why: d.reason.clone(),
            until_ms: d.hold_until_ms,
            admitted: d.admit.len(),
            ids: d.held.iter().map(|c| c.id.clone()).collect(),
        })
    }

    /// The tick report's entry.
    pub fn entry(&self) -> HeldPool<'_> {
        HeldPool {
            admitted: self.admitted,
            held: self.ids.len(),
            ids: &self.ids,
            pool: &self.pool,
            until: self.until_ms.map(iso8601),
            until_ms: self.until_ms,
            why: self.why.as_deref(),
        }
    }
}
