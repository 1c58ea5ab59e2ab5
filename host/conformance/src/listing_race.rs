//! A claim made while another connection lists due work still finds its row: the listing
//! (`Store::due`, a tick's plan and report) must not hide due rows from the claim
//! (`Store::claim_next_due`). On PostgreSQL the listing once locked what it listed
//! (`FOR UPDATE SKIP LOCKED`), so a claim at that moment skipped every due row and found
//! nothing, and racing tickers now and then launched nothing in a pass.

use super::{now, record_at, Backend, HOUR};
use deferral_host::lifecycle;
use deferral_host::store::{AttemptStatus, NextDue};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub fn a_claim_is_not_hidden_by_a_concurrent_due_listing(backend: &dyn Backend) {
    let count = 40;
    let store = backend.connect();
    let t = now();
    for _ in 0..count {
        record_at(&*store, t, 0, HOUR, 2);
    }
    let (stop, listings) = (AtomicBool::new(false), AtomicU64::new(0));
    let (mut claimed, mut found_nothing) = (0, 0);
    std::thread::scope(|scope| {
        let lister = scope.spawn(|| {
            let other = backend.connect();
            while !stop.load(Ordering::Relaxed) {
                other.due(t, 1000).expect("due lists");
                listings.fetch_add(1, Ordering::Relaxed);
            }
        });
        // Claims start once the listing runs, and race it from then on.
        while listings.load(Ordering::Relaxed) == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let next = NextDue {
            now_ms: t,
            ..Default::default()
        };
        for _ in 0..count {
            match lifecycle::claim::claim_next(
                &*store,
                &next,
                "tester",
                60_000,
                &|_| AttemptStatus::Launching,
                t,
            ) {
                Ok(Some(_)) => claimed += 1,
                Ok(None) => found_nothing += 1,
                Err(failure) => panic!("claim_next failed: {:?}", failure.error),
            }
        }
        stop.store(true, Ordering::Relaxed);
        lister.join().unwrap();
    });
    assert_eq!(
        (claimed, found_nothing),
        (count, 0),
        "every claim finds a due row while another connection lists due work ({} listings ran alongside)",
        listings.load(Ordering::Relaxed)
    );
}
