//! `claim`: a launched process proves it holds the current attempt's wake-up handle
//! (`POST /v1/deferrals/ID/claim`) and learns the retained receipt it was launched with. The
//! scheduler's own claim of a due deferral is [`crate::lifecycle::claim`].

use crate::error::{HostError, HostErrorKind};
use crate::handle::handle_matches;
use crate::lifecycle::change::load;
use crate::store::{Deferral, Store};
use deferral_core::lifecycle::State;

/// What a fresh process learns when it proves its claim: the attempt it is and the retained
/// receipt it was launched with.
#[derive(Debug, Clone)]
pub struct ClaimProof {
    pub deferral: Deferral,
    pub receipt_json: String,
}

/// A fresh process proves it holds the current attempt's wake-up handle (DESIGN section 6,
/// step 2: "reacquire and verify the claim"). Reads only: the attempt already belongs to the
/// launch that the ticker claimed, so nothing is written and the ticker's fence stays valid.
pub fn verify_claim(
    store: &dyn Store,
    id: &str,
    wakeup_handle: &str,
    now_ms: u64,
) -> Result<ClaimProof, HostError> {
    let deferral = load(store, id)?;
    if deferral.state != State::Resumable {
        return Err(HostError::new(
            HostErrorKind::NotResumable,
            format!(
                "deferral {id} is {}: no attempt is in progress",
                deferral.state.as_str()
            ),
        ));
    }
    let matches = deferral
        .wakeup_digest
        .as_deref()
        .is_some_and(|d| handle_matches(wakeup_handle, d));
    if !matches {
        return Err(HostError::new(
            HostErrorKind::WrongHandle,
            "the handle does not match the current attempt's wake-up digest",
        ));
    }
    if deferral.lease_until_ms.is_some_and(|until| until < now_ms) {
        return Err(HostError::new(
            HostErrorKind::LeaseExpired,
            "the attempt's lease has ended; the next tick recovers it",
        ));
    }
    let receipt_json = store.current_receipt(&deferral.id)?.text;
    Ok(ClaimProof {
        deferral,
        receipt_json,
    })
}
