//! Waiting for a deadline the store holds (a window's start or end, a lease's end) to pass:
//! the passing of that instant is what such a test is about, so it waits for exactly it, read
//! from the store, instead of sleeping a guessed duration.

use std::time::Duration;

/// Returns once the wall clock is past `at_ms` (milliseconds since the epoch), so a process the
/// test starts next sees the deadline as passed.
pub fn until_past(at_ms: u64) {
    loop {
        let now = super::now();
        if now > at_ms {
            return;
        }
        std::thread::sleep(Duration::from_millis((at_ms - now + 1).min(50)));
    }
}

/// [`until_past`] the `field` (`resume_after_ms`, `resume_by_ms`, `lease_until_ms`) of `id`
/// as `status --json` shows it; panics if the deferral has none.
pub fn until_past_field(host: &super::Host, id: &str, field: &str) {
    let status = host.status(id);
    let at = status[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{id} has no {field}: {status}"));
    until_past(at);
}
