//! `deferral-host run` launches each due deferral within a second of its time, through the
//! real binary: 100 deferrals recorded through its port, due at spread times over 20 s, each
//! launching an `exec:` program that writes down when it started.

mod common;

use common::run::{stamping_target, stamps, wait_for, Run};
use common::{now, Host, HOUR};
use std::collections::BTreeMap;
use std::time::Duration;

const N: u64 = 100;

#[test]
fn a_hundred_deferrals_start_none_early_and_99_percent_within_a_second() {
    let host = Host::new();
    let file = host.path("stamps");
    let target = stamping_target(&host, &file);
    // A long follow interval: only the deadlines and the port's notices wake it.
    let run = Run::start(
        &host,
        "run",
        &["--allow-launch", &target, "--follow-interval", "10m"],
    );
    let mut due = BTreeMap::new();
    for i in 0..N {
        // From 3 s to 23 s from now, not on round milliseconds.
        let after = 3000 + i * 200 + (i * 37) % 100;
        let answer = run.record(&target, after, after + HOUR);
        let id = answer["id"].as_str().unwrap().to_string();
        let at = answer["receipt"]["resume_after_ms"].as_u64().unwrap();
        due.insert(id, at);
    }
    let last = *due.values().max().unwrap();
    assert!(now() < last, "recorded before the last is due");
    let seen = wait_for(
        Duration::from_millis(last - now().min(last) + 30_000),
        || {
            let seen = stamps(&file);
            (seen.len() >= N as usize).then_some(seen)
        },
    )
    .unwrap_or_else(|| panic!("{} of {N} launched\n{}", stamps(&file).len(), run.log()));
    assert_eq!(seen.len(), N as usize, "each launched once: {seen:?}");
    let mut late: Vec<i64> = seen
        .iter()
        .map(|(id, at)| *at as i64 - due[id] as i64)
        .collect();
    late.sort_unstable();
    let p99 = late[(late.len() * 99).div_ceil(100) - 1];
    eprintln!(
        "launch minus due: min {} ms, median {} ms, p99 {p99} ms, max {} ms",
        late[0],
        late[late.len() / 2],
        late[late.len() - 1]
    );
    assert!(late[0] >= 0, "launched before its time: {late:?}");
    assert!(p99 <= 1000, "p99 {p99} ms late: {late:?}\n{}", run.log());
}
