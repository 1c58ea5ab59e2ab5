//! The pools' part of the suite: the pool row's compare-and-set, and several tickers admitting
//! from one pool at once never admitting together more than fits its window.

use super::{distinct_handoff, now, Backend, HOUR};
use deferral_host::lifecycle;
use deferral_host::lifecycle::insert::Insertion;
use deferral_host::pools::admission::{self, Admit};
use deferral_host::pools::PoolOptions;
use deferral_host::store::pools::{
    Cost, Observation, PoolRow, PoolTag, PoolWrite, Resource, Window,
};
use deferral_host::store::{RecordKeys, Store};

const LIMIT: u64 = 45;
const RESERVE: u64 = 5;

fn window(reset_ms: u64, remaining: u64) -> Observation {
    Observation {
        resource: Resource::Rest,
        window: Window {
            limit: LIMIT,
            remaining,
            reserve: RESERVE,
            reset_ms,
        },
        observed_ms: now(),
        source: "conformance".into(),
        deferral_id: None,
    }
}

/// Records `n` due deferrals of cost 10 in pool `pool`, whose gate saw `seen`.
fn record_in(store: &dyn Store, pool: &str, n: usize, seen: &[Observation]) -> Vec<String> {
    (0..n)
        .map(|_| {
            let text = distinct_handoff(now(), 0, HOUR).to_json();
            let keys = RecordKeys {
                pool: Some(PoolTag {
                    pool: Some(pool.into()),
                    cost: Some(Cost::default().with(Resource::Rest, 10)),
                    seen: seen.to_vec(),
                    ..PoolTag::default()
                }),
                ..RecordKeys::default()
            };
            match lifecycle::insert::insert_once(
                store,
                text.as_bytes(),
                "exec:/bin/true",
                2,
                keys,
                now(),
            )
            .unwrap()
            {
                Insertion::New(rec) => rec.deferral.id,
                Insertion::Existing(d) => panic!("recorded twice: {}", d.id),
            }
        })
        .collect()
}

pub fn a_pool_write_is_a_compare_and_set_on_its_version(backend: &dyn Backend) {
    let store = backend.connect();
    // A deferral's planned cost as recorded, and as a later report teaches it.
    let id = record_in(&*store, "p-cost", 1, &[]).remove(0);
    let cost = |rest| Cost::default().with(Resource::Rest, rest);
    assert_eq!(
        store.pool_of(&id).unwrap(),
        Some(("p-cost".to_string(), Some(cost(10))))
    );
    store.set_cost(&id, &cost(7)).unwrap();
    assert_eq!(
        store.pool_of(&id).unwrap(),
        Some(("p-cost".to_string(), Some(cost(7))))
    );
    assert_eq!(
        store.pool("p").unwrap(),
        None,
        "no row before the first write"
    );
    let mut row = PoolRow::empty("p");
    row.observe(&[window(now() + HOUR, 30)]);
    let first = PoolWrite {
        expect_version: 0,
        row: row.clone(),
        admit: Vec::new(),
        release: Vec::new(),
        observations: vec![window(now() + HOUR, 30)],
        at_ms: now(),
    };
    let written = store
        .write_pool(&first)
        .unwrap()
        .expect("the first write creates the row");
    assert_eq!(written.row.version, 1);
    assert_eq!(written.row.window(Resource::Rest).unwrap().remaining, 30);
    assert!(written.admitted.is_empty(), "nothing admitted");
    let ids = record_in(&*store, "p", 1, &[]);
    let mut stale = first.clone();
    stale.row.window_mut(Resource::Rest).unwrap().remaining = 0;
    stale.admit = vec![deferral_host::store::pools::NewAdmission {
        deferral_id: Some(ids[0].clone()),
        attempt: 1,
        cost: Some(Cost::default().with(Resource::Rest, 10)),
        window_reset_ms: now() + HOUR,
        expires_ms: now() + HOUR,
        secret_digest: None,
    }];
    assert_eq!(
        store.write_pool(&stale).unwrap(),
        None,
        "a stale version writes nothing"
    );
    let after = store.pool("p").unwrap().unwrap();
    assert_eq!(
        (
            after.version,
            after.window(Resource::Rest).unwrap().remaining
        ),
        (1, 30),
        "the row is unchanged"
    );
    assert!(
        store.open_admissions("p", now()).unwrap().is_empty(),
        "no admission was written"
    );
    stale.expect_version = 1;
    let written = store
        .write_pool(&stale)
        .unwrap()
        .expect("the current version writes");
    assert_eq!(written.row.version, 2);
    let open = store.open_admissions("p", now()).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(
        written.admitted,
        vec![open[0].seq],
        "the write answers the admission's seq"
    );
    assert_eq!(
        store.admission(open[0].seq).unwrap().as_ref(),
        open.first(),
        "found by its seq"
    );
    assert_eq!(store.admission(open[0].seq + 1000).unwrap(), None);
    assert_eq!(
        store.admission_of(&ids[0], 1, now()).unwrap().as_ref(),
        open.first()
    );
    assert!(
        store
            .pool_candidates("p", now(), &[], 10)
            .unwrap()
            .is_empty(),
        "an admitted deferral is no candidate"
    );
    let release = PoolWrite {
        expect_version: 2,
        row: store.pool("p").unwrap().unwrap(),
        admit: Vec::new(),
        release: vec![open[0].seq],
        observations: Vec::new(),
        at_ms: now(),
    };
    store.write_pool(&release).unwrap().expect("released");
    assert!(store.open_admissions("p", now()).unwrap().is_empty());
    let released = store
        .admission(open[0].seq)
        .unwrap()
        .expect("still found once released");
    assert!(released.released_ms.is_some(), "{released:?}");
    assert_eq!(store.pool_candidates("p", now(), &[], 10).unwrap().len(), 1);
}

pub fn concurrent_tickers_never_admit_more_than_fits_a_window(backend: &dyn Backend) {
    let reset = now() + HOUR;
    {
        let store = backend.connect();
        // 24 jobs of 10 behind a window with 45 left, a reserve of 5: 4 fit.
        record_in(&*store, "shared", 24, &[window(reset, LIMIT)]);
    }
    let options = PoolOptions::default();
    // The tickers start each pass together, so their reads of the pool overlap.
    let tickers = 4;
    let start = std::sync::Barrier::new(tickers);
    let admitted: Vec<usize> = std::thread::scope(|scope| {
        let tickers: Vec<_> = (0..tickers)
            .map(|_| {
                scope.spawn(|| {
                    let store = backend.connect();
                    let how = Admit {
                        options: &options,
                        lease_ms: 60_000,
                        skip_kinds: &[],
                        limit: 1000,
                        dry_run: false,
                        hold_only: false,
                    };
                    let mut mine = 0;
                    for _ in 0..5 {
                        start.wait();
                        let pass = admission::admit(&*store, "shared", &how, &now).unwrap();
                        mine += pass.admissions.len();
                    }
                    mine
                })
            })
            .collect();
        tickers.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let store = backend.connect();
    let open = store.open_admissions("shared", now()).unwrap();
    let cost: u64 = open
        .iter()
        .map(|a| a.cost.unwrap().of(Resource::Rest))
        .sum();
    assert!(
        cost <= LIMIT - RESERVE,
        "admitted {cost} > {} ({admitted:?})",
        LIMIT - RESERVE
    );
    assert_eq!(open.len(), 4, "what fits is admitted: {admitted:?}");
    assert_eq!(
        admitted.iter().sum::<usize>(),
        4,
        "each admission counted once: {admitted:?}"
    );
    let mut ids: Vec<_> = open.iter().map(|a| a.deferral_id.clone()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 4, "no deferral admitted twice");
    let row = store.pool("shared").unwrap().unwrap();
    assert!(
        row.hold_reason
            .as_deref()
            .unwrap_or_default()
            .contains("4 of"),
        "the pool says why the rest wait: {row:?}"
    );
}
