//! `POST /v1/deferrals/{id}/retry` `{"handle","launch"?,"max_reentries"?}`: `deferral-host
//! retry` through serve. The handle is the blocked deferral's cancellation handle, in the body
//! as `cancel` takes it; a target given must be one `--allow-launch` allows. Answers 201 with
//! the new deferral's `{"id","retry_of","state","launch","max_reentries","receipt"}`.

use super::Policy;
use crate::clock::now_ms;
use crate::error::HostError;
use crate::ops::retry::RetryRequest;
use crate::serve::http::Response;
use crate::store::Store;

pub(super) fn retry(
    store: &dyn Store,
    policy: &Policy,
    id: &str,
    body: &[u8],
) -> Result<Response, HostError> {
    let body = deferral_protocol::RetryRequest::read(body).map_err(crate::pools::wire::refused)?;
    let launch = body.launch;
    // The target kept or given runs on this host: the operator's policy applies to both.
    let kept;
    let checked = match &launch {
        Some(launch) => launch.as_str(),
        None => {
            kept = crate::lifecycle::change::load(store, id)?.launch;
            kept.as_str()
        }
    };
    policy.launch_policy.check(checked)?;
    let request = RetryRequest {
        id,
        handle: &body.handle,
        launch: launch.as_deref(),
        max_reentries: body.max_reentries,
        check_program: policy.check_programs,
    };
    let retried = crate::ops::retry::retry(store, &request, now_ms())?;
    Ok(Response::json(201, retried.to_json())
        .with_header("Location", format!("/v1/deferrals/{}", retried.deferral.id)))
}
