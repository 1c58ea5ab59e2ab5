//! `deferral-host run` stops cleanly: on SIGTERM the port takes no more work, a launch that is
//! running finishes, the process exits 0, and every record the port acknowledged is in the store.

mod common;

use common::run::{wait_for, Run};
use common::{script, sq, Host, HOUR};
use deferral_host::store::{ListQuery, Store};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LATER: &str = "workflow-dispatch:octo/app/resume.yml@main";

#[test]
fn sigterm_while_records_arrive_keeps_every_acknowledged_one_and_exits_0() {
    let host = Host::new();
    let mut run = Run::start(&host, "run", &[]);
    let acknowledged = Arc::new(Mutex::new(BTreeSet::new()));
    let refused = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (acknowledged, refused) = (acknowledged.clone(), refused.clone());
            let probe = run.client();
            std::thread::spawn(move || loop {
                // Due in an hour: nothing launches while the records arrive.
                match probe.try_record(LATER, HOUR, 2 * HOUR) {
                    Some((201, answer)) => {
                        let id = answer["id"].as_str().unwrap().to_string();
                        acknowledged.lock().unwrap().insert(id);
                    }
                    Some((503, answer)) => {
                        assert_eq!(answer["error"]["code"], "stopping", "{answer}");
                        refused.store(true, Ordering::SeqCst);
                        return;
                    }
                    Some((status, answer)) => panic!("{status} {answer}"),
                    // Connection refused or cut: the port has stopped.
                    None => {
                        refused.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            })
        })
        .collect();
    wait_for(Duration::from_secs(30), || {
        (acknowledged.lock().unwrap().len() >= 40).then_some(())
    })
    .expect("40 records acknowledged");
    run.signal(libc::SIGTERM);
    for client in clients {
        client.join().unwrap();
    }
    assert!(refused.load(Ordering::SeqCst));
    assert_eq!(
        run.exit_within(Duration::from_secs(30)),
        Some(0),
        "{}",
        run.log()
    );
    let stored: BTreeSet<String> = host
        .open()
        .list(&ListQuery::default())
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    let acknowledged = acknowledged.lock().unwrap();
    let lost: Vec<_> = acknowledged.difference(&stored).collect();
    assert!(lost.is_empty(), "acknowledged but not stored: {lost:?}");
    assert!(acknowledged.len() >= 40);
    assert!(run.log().contains("SIGTERM"), "{}", run.log());
}

#[test]
fn sigterm_during_a_launch_lets_it_finish_then_exits_0() {
    let host = Host::new();
    let (started, release) = (host.path("started"), host.path("release"));
    // Starts, then runs until the test lets it end.
    let target = script(
        &host.path("slow.sh"),
        &format!(
            "touch {}\nwhile [ ! -e {} ]; do sleep 0.05; done\nexit 0",
            sq(&started),
            sq(&release)
        ),
    );
    let (mut run, id) = launched(&host, &target, &started);
    run.signal(libc::SIGTERM);
    // The port stops at once: nothing new is taken while the launch runs.
    wait_for(Duration::from_secs(10), || {
        run.try_call("GET", "/healthz", false, "")
            .is_none()
            .then_some(())
    })
    .expect("the port stopped");
    assert_eq!(run.child.try_wait().unwrap(), None, "waits for the launch");
    std::fs::write(&release, "").unwrap();
    assert_eq!(
        run.exit_within(Duration::from_secs(30)),
        Some(0),
        "{}",
        run.log()
    );
    let d = host.open().get(&id).unwrap().unwrap();
    assert_eq!(
        d.state.as_str(),
        "complete",
        "the launch ended by itself: {d:?}"
    );
}

#[test]
fn a_second_sigterm_stops_at_once_and_the_launch_is_left_to_its_lease() {
    let host = Host::new();
    let started = host.path("started");
    // Runs until killed.
    let target = script(
        &host.path("forever.sh"),
        &format!("touch {}\nwhile :; do sleep 0.05; done", sq(&started)),
    );
    let (mut run, id) = launched(&host, &target, &started);
    run.signal(libc::SIGTERM);
    wait_for(Duration::from_secs(10), || {
        run.log().contains("taking no more work").then_some(())
    })
    .expect("the first SIGTERM seen");
    run.signal(libc::SIGTERM);
    assert_eq!(
        run.exit_within(Duration::from_secs(30)),
        Some(1),
        "{}",
        run.log()
    );
    // Still claimed: the next scheduler recovers it once the lease ends.
    let d = host.open().get(&id).unwrap().unwrap();
    assert_eq!(d.state.as_str(), "resumable", "{d:?}");
    assert!(d.lease_until_ms.is_some());
}

/// `run` started with `target` allowed and one deferral of it recorded due now, once its launch
/// has begun (the script touches `started`).
fn launched(host: &Host, target: &str, started: &std::path::Path) -> (Run, String) {
    let run = Run::start(host, "run", &["--allow-launch", target]);
    let id = run.record(target, 0, HOUR)["id"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for(Duration::from_secs(30), || started.exists().then_some(()))
        .unwrap_or_else(|| panic!("never launched\n{}", run.log()));
    (run, id)
}
