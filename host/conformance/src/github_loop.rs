//! The GitHub loop's part of the store conformance suite ([`deferral_host::store::LoopStore`] and recording
//! once), run against every backend like the rest of [`crate`]:
//! `store_loop_conformance_tests!(make_backend())`.

use crate::{handoff, Backend};
use deferral_host::lifecycle;
use deferral_host::lifecycle::insert::Insertion;
use deferral_host::store::pools::PoolTag;
use deferral_host::store::AttemptStatus;
use deferral_host::store::{
    ArtifactRef, CheckRunRef, CommitRef, Face, RecordKeys, RunRecord, Store, StoreError,
};

/// Runs one check per test function: `store_loop_conformance_tests!(make_backend())`.
#[macro_export]
macro_rules! store_loop_conformance_tests {
    ($backend:expr) => {
        $crate::store_loop_conformance_tests!(@each $backend;
            a_receipt_is_recorded_once,
            racing_records_of_one_receipt_make_one_deferral,
            an_artifact_is_ingested_once,
            issued_receipts_find_their_deferral,
            runs_are_kept_per_attempt,
            successors_form_a_bounded_chain,
            list_answers_are_cached_by_key,
            a_webhook_delivery_is_noted_once,
            a_deferral_keeps_one_commit,
            check_runs_are_kept_by_id);
    };
    (@each $backend:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let backend = $backend;
                $crate::github_loop::$name(&backend);
            }
        )*
    };
}

const HOUR: u64 = 3_600_000;

fn now() -> u64 {
    deferral_host::clock::now_ms()
}

fn record(store: &dyn Store, text: &str, keys: RecordKeys) -> Insertion {
    lifecycle::insert::insert_once(store, text.as_bytes(), "exec:/bin/true", 2, keys, now())
        .expect("record_with succeeds")
}

fn count(store: &dyn Store) -> usize {
    store
        .list(&deferral_host::store::ListQuery::default())
        .unwrap()
        .len()
}

pub fn a_receipt_is_recorded_once(backend: &dyn Backend) {
    let store = backend.connect();
    let text = handoff(now(), 0, HOUR).to_json();
    let Insertion::New(first) = record(&*store, &text, RecordKeys::default()) else {
        panic!("the first record is new");
    };
    match record(&*store, &text, RecordKeys::default()) {
        Insertion::Existing(d) => assert_eq!(d.id, first.deferral.id),
        Insertion::New(_) => panic!("the same receipt made a second deferral"),
    }
    let err = lifecycle::insert::insert_new(&*store, text.as_bytes(), "exec:/bin/true", 2, now())
        .unwrap_err();
    assert_eq!(err.code, "already-recorded");
    assert_eq!(count(&*store), 1);
}

pub fn racing_records_of_one_receipt_make_one_deferral(backend: &dyn Backend) {
    let text = handoff(now(), 0, HOUR).to_json();
    let new = std::sync::atomic::AtomicUsize::new(0);
    let ids = std::sync::Mutex::new(std::collections::BTreeSet::new());
    std::thread::scope(|scope| {
        for _ in 0..6 {
            scope.spawn(|| {
                let store = backend.connect();
                let id = match record(&*store, &text, RecordKeys::default()) {
                    Insertion::New(rec) => {
                        new.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        rec.deferral.id
                    }
                    Insertion::Existing(d) => d.id,
                };
                ids.lock().unwrap().insert(id);
            });
        }
    });
    assert_eq!(new.into_inner(), 1, "exactly one racer records it");
    assert_eq!(ids.into_inner().unwrap().len(), 1, "all answer the same id");
    assert_eq!(count(&*backend.connect()), 1);
}

pub fn an_artifact_is_ingested_once(backend: &dyn Backend) {
    let store = backend.connect();
    let artifact = ArtifactRef {
        artifact_id: 77,
        repo: "o/r".into(),
        run_id: Some(5),
    };
    let keys = RecordKeys {
        artifact: Some(artifact.clone()),
        ..RecordKeys::default()
    };
    let Insertion::New(first) = record(&*store, &handoff(now(), 0, HOUR).to_json(), keys.clone())
    else {
        panic!("new");
    };
    assert_eq!(
        store.find_by_artifact(77).unwrap().as_deref(),
        Some(first.deferral.id.as_str())
    );
    // Another receipt in the same artifact id: still the first deferral.
    let other = handoff(now() + 1, 5, HOUR).to_json();
    match record(&*store, &other, keys) {
        Insertion::Existing(d) => assert_eq!(d.id, first.deferral.id),
        Insertion::New(_) => panic!("one artifact made two deferrals"),
    }
    assert!(!store.add_artifact(&first.deferral.id, &artifact).unwrap());
    // A new artifact (a followed run's) is added once, then known.
    let next = ArtifactRef {
        artifact_id: 78,
        ..artifact
    };
    assert!(store.add_artifact(&first.deferral.id, &next).unwrap());
    assert!(!store.add_artifact(&first.deferral.id, &next).unwrap());
    assert_eq!(
        store.find_by_artifact(78).unwrap().as_deref(),
        Some(first.deferral.id.as_str())
    );
    assert_eq!(count(&*store), 1);
}

pub fn issued_receipts_find_their_deferral(backend: &dyn Backend) {
    let store = backend.connect();
    let text = handoff(now(), 0, HOUR).to_json();
    let Insertion::New(rec) = record(&*store, &text, RecordKeys::default()) else {
        panic!("new");
    };
    let id = rec.deferral.id.clone();
    let claimed = lifecycle::claim::claim(
        &*store,
        &rec.deferral,
        "t",
        now() + HOUR,
        AttemptStatus::Launching,
        now(),
    )
    .unwrap();
    for issued in [text, rec.receipt.to_json(), claimed.receipt_json] {
        let digest = deferral_host::store::github::receipt_digest(&issued).unwrap();
        assert_eq!(
            store.find_by_receipt_digest(&digest).unwrap().as_deref(),
            Some(id.as_str())
        );
    }
    assert_eq!(store.find_by_receipt_digest(&"0".repeat(64)).unwrap(), None);
}

pub fn runs_are_kept_per_attempt(backend: &dyn Backend) {
    let store = backend.connect();
    let Insertion::New(rec) = record(
        &*store,
        &handoff(now(), 0, HOUR).to_json(),
        RecordKeys::default(),
    ) else {
        panic!("new");
    };
    let claimed = lifecycle::claim::claim(
        &*store,
        &rec.deferral,
        "t",
        now() + HOUR,
        AttemptStatus::Dispatching,
        now(),
    )
    .unwrap();
    let mut run = RunRecord {
        deferral_id: rec.deferral.id.clone(),
        attempt: 1,
        run_id: None,
        run_url: None,
        html_url: None,
        workflow: "o/r/w.yml".into(),
        dispatched_ms: now(),
    };
    store.put_run(&run).unwrap();
    assert!(
        store.dispatched(10).unwrap().is_empty(),
        "still dispatching"
    );
    let effects = lifecycle::change::Effects {
        attempt_status: deferral_host::store::Change::Set(AttemptStatus::Dispatched),
        ..Default::default()
    };
    lifecycle::change::note(
        &*store,
        &claimed.deferral,
        "dispatched",
        "dispatched",
        effects,
        now(),
    )
    .unwrap();
    run.run_id = Some(991);
    run.run_url = Some("https://api.github.example/repos/o/r/actions/runs/991".into());
    run.html_url = Some("https://github.example/o/r/actions/runs/991".into());
    store.put_run(&run).unwrap();
    assert_eq!(
        store.run_of(&rec.deferral.id, 1).unwrap(),
        Some(run.clone())
    );
    assert_eq!(store.run_of(&rec.deferral.id, 2).unwrap(), None);
    assert!(store.is_own_run("o/r", 991).unwrap());
    assert!(
        store.is_own_run("O/R", 991).unwrap(),
        "GitHub's names ignore case"
    );
    assert!(
        !store.is_own_run("o/other", 991).unwrap(),
        "another repository's run"
    );
    assert!(!store.is_own_run("o/r", 992).unwrap());
    let pending = store.dispatched(10).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].1, Some(run));
}

pub fn successors_form_a_bounded_chain(backend: &dyn Backend) {
    let store = backend.connect();
    let Insertion::New(first) = record(
        &*store,
        &handoff(now(), 0, HOUR).to_json(),
        RecordKeys {
            pool: Some(PoolTag {
                pool: Some("app-42".into()),
                ..PoolTag::default()
            }),
            ..RecordKeys::default()
        },
    ) else {
        panic!("new");
    };
    let keys = |p: &str| RecordKeys {
        predecessor: Some(p.to_string()),
        artifact_name: Some("next-receipt".into()),
        ..RecordKeys::default()
    };
    let Insertion::New(second) = record(
        &*store,
        &handoff(now() + 1, 1, HOUR).to_json(),
        keys(&first.deferral.id),
    ) else {
        panic!("new");
    };
    let Insertion::New(third) = record(
        &*store,
        &handoff(now() + 2, 2, HOUR).to_json(),
        keys(&second.deferral.id),
    ) else {
        panic!("new");
    };
    let link = store.link(&second.deferral.id).unwrap();
    assert_eq!(
        link.predecessor.as_deref(),
        Some(first.deferral.id.as_str())
    );
    assert_eq!(link.successor.as_deref(), Some(third.deferral.id.as_str()));
    assert_eq!(link.chain, 1);
    assert_eq!(store.link(&third.deferral.id).unwrap().chain, 2);
    assert_eq!(store.link(&first.deferral.id).unwrap().chain, 0);
    // A successor recorded without a pool of its own stays in its predecessor's pool.
    for d in [&second, &third] {
        let (pool, _) = store.pool_of(&d.deferral.id).unwrap().unwrap();
        assert_eq!(pool, "app-42");
    }
    assert_eq!(
        store.artifact_name(&third.deferral.id).unwrap().as_deref(),
        Some("next-receipt")
    );
    assert_eq!(store.artifact_name(&first.deferral.id).unwrap(), None);
    // One successor per deferral: a second one is refused and nothing is written.
    let again = lifecycle::insert::insert_once(
        &*store,
        handoff(now() + 3, 3, HOUR).to_json().as_bytes(),
        "exec:/bin/true",
        2,
        keys(&first.deferral.id),
        now(),
    );
    assert!(
        matches!(&again, Err(e) if e.code == StoreError::Duplicate(String::new()).code()),
        "{again:?}"
    );
    assert_eq!(count(&*store), 3);
}

pub fn list_answers_are_cached_by_key(backend: &dyn Backend) {
    let store = backend.connect();
    assert_eq!(store.cached("k").unwrap(), None);
    store.put_cached("k", "\"e1\"", "{\"a\":1}", now()).unwrap();
    store.put_cached("k", "\"e2\"", "{\"a\":2}", now()).unwrap();
    assert_eq!(
        store.cached("k").unwrap(),
        Some(("\"e2\"".to_string(), "{\"a\":2}".to_string()))
    );
}

/// A webhook delivery's key is new once: two connections (two replicas) noting it at once, and
/// any later redelivery, see it already noted.
pub fn a_webhook_delivery_is_noted_once(backend: &dyn Backend) {
    let (a, b) = (backend.connect(), backend.connect());
    let (first, rerun) = (
        "workflow_run completed 1 7 1",
        "workflow_run completed 1 7 2",
    );
    assert!(a.note_delivery(first, "workflow_run", now()).unwrap());
    assert!(!b.note_delivery(first, "workflow_run", now()).unwrap());
    assert!(!a.note_delivery(first, "workflow_run", now()).unwrap());
    assert!(b.note_delivery(rerun, "workflow_run", now()).unwrap());
    assert!(!a.note_delivery(rerun, "workflow_run", now()).unwrap());
}

/// A deferral's commit is kept once: a second one (another replica taking the same request)
/// changes nothing, and a deferral without one has none.
pub fn a_deferral_keeps_one_commit(backend: &dyn Backend) {
    let (a, b) = (backend.connect(), backend.connect());
    let id = new_deferral(&*a);
    let commit = CommitRef {
        deferral_id: id.clone(),
        repo: "octo/app".into(),
        sha: "0123456789abcdef0123456789abcdef01234567".into(),
        context: "deferral/github-quota".into(),
        face: Face::CheckRun,
    };
    assert_eq!(a.commit_of(&id).unwrap(), None);
    assert!(a.put_commit(&commit).unwrap());
    let other = CommitRef {
        sha: "f".repeat(40),
        ..commit.clone()
    };
    assert!(!b.put_commit(&other).unwrap());
    assert_eq!(b.commit_of(&id).unwrap(), Some(commit));
}

/// A deferral's check runs are kept by id: an update replaces what one shows, the latest is
/// the one written last, and one is found only with its own repository.
pub fn check_runs_are_kept_by_id(backend: &dyn Backend) {
    let (a, b) = (backend.connect(), backend.connect());
    let id = new_deferral(&*a);
    assert_eq!(a.latest_check_run(&id).unwrap(), None);
    let waiting = CheckRunRef {
        check_run_id: 41,
        repo: "octo/app".into(),
        deferral_id: id.clone(),
        state: "deferred".into(),
        completed: true,
        written_ms: 1_000,
    };
    a.put_check_run(&waiting).unwrap();
    let resumed = CheckRunRef {
        check_run_id: 42,
        state: "resumable".into(),
        completed: false,
        written_ms: 2_000,
        ..waiting.clone()
    };
    b.put_check_run(&resumed).unwrap();
    assert_eq!(a.latest_check_run(&id).unwrap(), Some(resumed.clone()));
    let ended = CheckRunRef {
        state: "complete".into(),
        completed: true,
        written_ms: 3_000,
        ..resumed
    };
    a.put_check_run(&ended).unwrap();
    assert_eq!(b.latest_check_run(&id).unwrap(), Some(ended));
    assert_eq!(b.check_run("OCTO/app", 41).unwrap(), Some(waiting));
    assert_eq!(b.check_run("mallory/app", 41).unwrap(), None);
    assert_eq!(b.check_run("octo/app", 43).unwrap(), None);
}

/// A deferral recorded now, waiting (its id).
fn new_deferral(store: &dyn Store) -> String {
    let Insertion::New(rec) = record(
        store,
        &handoff(now(), 0, HOUR).to_json(),
        RecordKeys::default(),
    ) else {
        panic!("a new deferral");
    };
    rec.deferral.id
}
