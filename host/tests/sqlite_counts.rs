//! The SQLite store's kept counts (`deferral_counts`, migration 8, kept by triggers) are
//! exactly what a `GROUP BY` over the deferrals gives: after every kind of change the host
//! makes (records, claims, outcomes, cancels, expiries, retries, notes, give-backs), after
//! writes that fail and roll back, after hand edits in SQL, and after the migration back-fills
//! a store an older host left at version 7.

use deferral_core::lifecycle::State;
use deferral_host::lifecycle;
use deferral_host::lifecycle::change::Effects;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::ops;
use deferral_host::retry::{retry, RetryRequest};
use deferral_host::store::sqlite::{IntegrityCheck, SCHEMA_VERSION};
use deferral_host::store::{
    AttemptStatus, Change, NewDeferral, NewReceipt, ResumeWindow, SqliteStore, Store, StoreError,
};
use deferral_host_conformance::{
    distinct_handoff, handoff, UNDO_LAUNCH_KIND_MIGRATION, UNDO_SQLITE_COUNTS_MIGRATION,
};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

const HOUR: u64 = 3_600_000;

type ByState = Vec<(String, u64)>;
type ByCause = Vec<(String, String, u64)>;

fn now() -> u64 {
    deferral_host::clock::now_ms()
}

/// What `GROUP BY` over every row gives, read on the store's own connection.
fn group_by(conn: &Connection) -> (ByState, ByCause) {
    let by_state = conn
        .prepare("SELECT state, COUNT(*) FROM deferrals GROUP BY state ORDER BY state")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let by_cause = conn
        .prepare(
            "SELECT state, cause, COUNT(*) FROM deferrals GROUP BY state, cause \
             ORDER BY state, cause",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (by_state, by_cause)
}

/// What the store answers (from its kept counts), sorted as [`group_by`] sorts.
fn kept(store: &SqliteStore) -> (ByState, ByCause) {
    let mut by_state: ByState = store
        .count_by_state()
        .unwrap()
        .into_iter()
        .map(|(s, n)| (s.as_str().to_string(), n))
        .collect();
    by_state.sort();
    let mut by_cause: ByCause = store
        .count_by_state_cause()
        .unwrap()
        .into_iter()
        .map(|(s, c, n)| (s.as_str().to_string(), c, n))
        .collect();
    by_cause.sort();
    (by_state, by_cause)
}

#[track_caller]
fn assert_exact(store: &SqliteStore, after: &str) {
    assert_eq!(kept(store), group_by(store.connection()), "after {after}");
}

fn rows(conn: &Connection) -> u64 {
    conn.query_row("SELECT COUNT(*) FROM deferrals", [], |r| r.get::<_, i64>(0))
        .unwrap() as u64
}

/// A second connection, as the `sqlite3` shell or another program would open the file.
fn by_hand(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    conn
}

/// Deferrals recorded so far, with their cancellation handles, and a deterministic spread of
/// changes to them.
struct Churn {
    tracked: Vec<(String, String)>,
    seed: u64,
    /// How many changes of each kind were written (not refused), so a test can check that
    /// the run went through every path.
    done: std::collections::BTreeMap<&'static str, u32>,
}

impl Churn {
    fn new(seed: u64) -> Churn {
        Churn {
            tracked: Vec::new(),
            seed,
            done: Default::default(),
        }
    }

    fn next(&mut self) -> u64 {
        self.seed = self
            .seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.seed >> 33
    }

    fn record(&mut self, store: &SqliteStore) {
        let max = 1 + (self.next() % 3) as u32;
        let text = distinct_handoff(now(), 0, HOUR).to_json();
        let rec =
            lifecycle::insert::insert_new(store, text.as_bytes(), "exec:/bin/true", max, now())
                .expect("record");
        self.tracked
            .push((rec.deferral.id.clone(), rec.cancellation_handle));
        *self.done.entry("record").or_default() += 1;
    }

    /// One change, chosen by the spread among those the picked deferral's state allows most
    /// of the time (a refused one must leave the counts as they were too).
    fn step(&mut self, store: &SqliteStore) {
        let action = self.next() % 14;
        if self.tracked.is_empty() || action < 3 {
            return self.record(store);
        }
        let pick = (self.next() as usize) % self.tracked.len();
        let (id, handle) = self.tracked[pick].clone();
        let Some(d) = store.get(&id).unwrap() else {
            return;
        };
        let t = now();
        let (kind, written): (&'static str, bool) = match (action, d.state) {
            (3 | 4, State::Deferred) => {
                let attempt = if action == 3 {
                    AttemptStatus::Launching
                } else {
                    AttemptStatus::Dispatching
                };
                let claimed = lifecycle::claim::claim(store, &d, "churn", t + 60_000, attempt, t);
                ("claim", claimed.is_ok())
            }
            (5..=9, State::Resumable) => {
                let outcome = match action {
                    5 => Outcome::Complete { detail: None },
                    6 => Outcome::Blocked {
                        detail: Some("exit 1".into()),
                    },
                    7 => Outcome::BlockedBecause {
                        cause: "launch-not-found".into(),
                        detail: None,
                    },
                    8 => Outcome::Deferred {
                        receipt: handoff(t, 0, 2 * HOUR).to_json(),
                        detail: None,
                    },
                    _ => Outcome::Returned {
                        detail: "lease expired".into(),
                    },
                };
                let done = lifecycle::outcome::end_attempt(store, &d, outcome, t);
                ("end-attempt", done.is_ok())
            }
            (5, State::Blocked) => {
                let request = RetryRequest {
                    id: &id,
                    handle: &handle,
                    launch: None,
                    max_reentries: None,
                    check_program: false,
                };
                match retry(store, &request, t) {
                    Ok(retried) => {
                        self.tracked.push((retried.deferral.id, handle.clone()));
                        ("retry", true)
                    }
                    Err(_) => ("retry", false),
                }
            }
            (10, State::Resumable) if d.attempt_status == Some(AttemptStatus::Dispatching) => {
                let back = lifecycle::claim::give_back(store, &d, "connect refused".into(), t);
                ("give-back", back.is_ok())
            }
            (10, State::Resumable) => {
                let effects = Effects {
                    attempt_status: Change::Set(AttemptStatus::Dispatched),
                    ..Effects::default()
                };
                let noted =
                    lifecycle::change::note(store, &d, "dispatched", "dispatched", effects, t);
                ("note", noted.is_ok())
            }
            (11, _) => {
                let cancelled = ops::cancel::cancel(store, &id, &handle, t);
                ("cancel", cancelled.is_ok())
            }
            (12, _) => {
                let expired = lifecycle::change::expire(store, &d, t);
                ("expire", expired.is_ok())
            }
            _ => {
                // A stale copy: the compare-and-set refuses it (conflict) and writes nothing.
                let mut stale = d.clone();
                stale.fence = stale.fence.saturating_sub(1);
                let late = lifecycle::change::expire(store, &stale, t);
                ("stale", late.is_ok())
            }
        };
        if written {
            *self.done.entry(kind).or_default() += 1;
        }
    }

    fn run(&mut self, store: &SqliteStore, steps: usize) {
        for i in 0..steps {
            self.step(store);
            assert_exact(store, &format!("step {i}"));
        }
    }
}

/// A deferral ready to insert as `id` (what `record` builds), for the batch and duplicate cases.
fn new_deferral(id: &str, t: u64) -> NewDeferral {
    let digest = |c: char| std::iter::repeat_n(c, 64).collect::<String>();
    let receipt = handoff(t, 0, HOUR)
        .retain(&digest('c'), &digest('d'))
        .unwrap();
    NewDeferral {
        id: id.into(),
        state: State::Deferred,
        reentries: 0,
        max_reentries: 2,
        cause: "recorded".into(),
        launch: "exec:/bin/true".into(),
        window: ResumeWindow {
            reason: "rest-reserve".into(),
            resume_after_ms: t,
            resume_by_ms: t + HOUR,
        },
        wakeup_digest: digest('c'),
        cancellation_digest: digest('d'),
        receipts: vec![NewReceipt::new("retained", receipt.to_json())],
        at_ms: t,
        keys: Default::default(),
    }
}

fn store_at(dir: &tempfile::TempDir) -> (PathBuf, SqliteStore) {
    let path = dir.path().join("host.db");
    let store = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    (path, store)
}

#[test]
fn kept_counts_equal_the_group_by_after_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let (path, store) = store_at(&dir);
    assert_exact(&store, "open");
    assert_eq!(kept(&store), (vec![], vec![]), "a new store counts nothing");
    let mut churn = Churn::new(17);
    churn.run(&store, 600);
    for kind in [
        "record",
        "claim",
        "end-attempt",
        "retry",
        "give-back",
        "note",
        "cancel",
        "expire",
    ] {
        assert!(
            churn.done.get(kind).copied().unwrap_or(0) > 0,
            "the run wrote at least one {kind}: {:?}",
            churn.done
        );
    }
    assert_eq!(churn.done.get("stale"), None, "a stale copy never writes");
    let states = kept(&store).0.len();
    assert!(
        states >= 4,
        "the run left several states: {:?}",
        kept(&store)
    );

    // A batch whose middle item is refused: its savepoint is undone, with what its trigger
    // counted; the others commit and count.
    let t = now();
    let first = churn.tracked[0].0.clone();
    let before = rows(store.connection());
    let results = store.insert_batch(&[
        new_deferral("d-batch-1", t),
        new_deferral(&first, t),
        new_deferral("d-batch-3", t),
    ]);
    assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
    assert_eq!(results[1], Err(StoreError::Duplicate(first.clone())));
    assert_eq!(rows(store.connection()), before + 2);
    assert_exact(&store, "a batch with a refused item");
    // A refused single insert changes nothing.
    assert_eq!(
        store.insert(&new_deferral("d-batch-1", t)).unwrap_err(),
        StoreError::Duplicate("d-batch-1".into())
    );
    assert_exact(&store, "a refused insert");

    // Hand edits through another connection go through the triggers too (foreign keys off,
    // as in the `sqlite3` shell, so that a row can be deleted at all).
    let hand = by_hand(&path);
    hand.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    let edits = [
        "UPDATE deferrals SET cause = 'hand-edit' WHERE id = 'd-batch-1'",
        "UPDATE deferrals SET state = 'cancelled', cause = 'hand-edit' WHERE id = 'd-batch-3'",
        "UPDATE deferrals SET cause = 'bulk-edit' WHERE state = 'complete'",
        "UPDATE deferrals SET updated_ms = updated_ms + 1",
        "UPDATE deferrals SET state = state, cause = cause",
        "INSERT INTO deferrals SELECT * FROM deferrals WHERE id = 'd-batch-1' \
         ON CONFLICT (id) DO UPDATE SET state = 'blocked', cause = 'upserted'",
        "DELETE FROM deferrals WHERE id = 'd-batch-1'",
    ];
    for sql in edits {
        hand.execute(sql, []).unwrap();
        assert_exact(&store, sql);
    }
    // A hand edit rolled back leaves the counts as they were.
    let counted = kept(&store);
    hand.execute_batch(
        "BEGIN; UPDATE deferrals SET state = 'blocked', cause = 'rolled-back'; \
         DELETE FROM deferrals WHERE state = 'cancelled'; ROLLBACK;",
    )
    .unwrap();
    assert_eq!(kept(&store), counted, "a rolled-back edit counts nothing");
    assert_exact(&store, "a rolled-back edit");
    drop(hand);
    churn.tracked.retain(|(id, _)| id != "d-batch-1");
    churn.run(&store, 100);
    store.check_integrity().unwrap();
}

#[test]
fn a_version_7_store_gets_the_counts_of_the_rows_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let (path, store) = store_at(&dir);
    let mut churn = Churn::new(7);
    churn.run(&store, 200);
    drop(store);

    // Back to version 7, as a host before migration 8 left it, and changes made there (no
    // triggers yet): the migration must count the rows, not remember older counts.
    let old = by_hand(&path);
    old.execute_batch(&format!(
        "{UNDO_LAUNCH_KIND_MIGRATION} {UNDO_SQLITE_COUNTS_MIGRATION} PRAGMA user_version = 7;"
    ))
    .unwrap();
    old.execute_batch(
        "UPDATE deferrals SET state = 'cancelled', cause = 'expired' \
           WHERE id IN (SELECT id FROM deferrals WHERE state = 'deferred' LIMIT 3); \
         UPDATE deferrals SET cause = 'older-host' WHERE state = 'complete'; \
         CREATE TEMP TABLE copied AS SELECT * FROM deferrals LIMIT 5; \
         UPDATE copied SET id = 'old-host-' || id; \
         INSERT INTO deferrals SELECT * FROM copied;",
    )
    .unwrap();
    let tables: i64 = old
        .query_row(
            "SELECT COUNT(*) FROM sqlite_schema WHERE name LIKE 'deferral_counts%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0, "version 7 has no counts table and no triggers");
    let expected = group_by(&old);
    let held = rows(&old);
    drop(old);

    let store = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    let version: i64 = store
        .connection()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION, "migrated to the latest");
    assert_eq!(kept(&store), expected, "back-filled from the rows held");
    assert_eq!(
        kept(&store).0.iter().map(|(_, n)| n).sum::<u64>(),
        held,
        "every row counted once"
    );
    assert!(
        expected.1.iter().any(|(_, cause, _)| cause == "older-host"),
        "the edits made at version 7 are in what was counted: {expected:?}"
    );
    // And kept from then on.
    churn.run(&store, 150);
    drop(store);
    let reopened = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    assert_exact(&reopened, "reopening (migrated once, not again)");
}
