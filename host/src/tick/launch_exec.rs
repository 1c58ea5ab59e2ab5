//! The `exec:` launcher of a tick: runs the program of a claimed deferral and records how it
//! ended (`exec_outcome` reads the exit and the last JSON line).

use super::Run;
use crate::exec_outcome;
use crate::launch::exec::{self, ExecRequest};
use crate::launch::process_group;
use deferral_core::digest::sha256_hex;
use serde_json::Value;
use std::time::{Duration, Instant};

pub(super) fn run(run: &Run<'_>, program: &str, args: &[String]) -> Value {
    let lease_ms = run.lease_ms();
    let id = run.id();
    // Kill the process before the lease ends, so a recovering ticker never overlaps it.
    let margin = (lease_ms / 10).min(1000);
    let deadline = Instant::now() + Duration::from_millis(lease_ms.saturating_sub(margin));
    let claimed = run.claimed;
    let result = exec::run(
        &ExecRequest {
            program,
            args,
            deferral_id: id,
            attempt: run.attempt(),
            wakeup_handle: &claimed.wakeup_handle,
            receipt_json: &claimed.receipt_json,
            receipt_digest: &sha256_hex(claimed.receipt_json.as_bytes()),
            deadline,
        },
        &mut |pgid| {
            // Recorded before anything is waited for, so a ticker that recovers this lease
            // after we die can end the group (the leader already dies with us).
            let fence = claimed.deferral.fence;
            if let Some(process) = process_group::describe(pgid, fence, (run.now_ms)()) {
                if let Err(err) = run.store.record_launch_process(id, &process) {
                    crate::logs::message(
                        "warn",
                        "tick",
                        &format!("could not record the process group of {id}: {err}"),
                    );
                }
            }
        },
    );
    // The attempt's last line teaches its pool and releases its admission (see `pools`).
    crate::pools::observe::attempt_ended(
        run.store,
        id,
        run.attempt(),
        &result.stdout,
        (run.now_ms)(),
    );
    run.finish(exec_outcome::outcome(program, &result))
}
