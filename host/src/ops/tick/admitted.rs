//! The launch step of a tick, pool by pool: admission (`pools::admission`) picks which due
//! deferrals fit their pool's window; each admitted one is claimed (the compare-and-set on its
//! state and fence) and launched; the rest are held, listed in the report with their pool and
//! why. An admission that is not used (the claim lost, the launch skipped) is released.

use super::launch_one::{launch, not_ready, planned, Skip};
use super::{Held, Skipped, TickOptions, TickReport, TickStep};
use crate::error::{HostError, HostErrorKind};
use crate::lifecycle;
use crate::pools::admission::{self, AdmissionPass, Admit};
use crate::pools::update::{update, Try};
use crate::store::pools::{Admission, PoolWrite};
use crate::store::Store;

fn how<'a>(
    options: &'a TickOptions,
    skip_kinds: &'a [&'a str],
    limit: usize,
    dry_run: bool,
) -> Admit<'a> {
    Admit {
        options: &options.pools,
        lease_ms: options.lease_ms(),
        skip_kinds,
        limit,
        dry_run,
        hold_only: false,
    }
}

/// The names of the kinds that cannot launch in this pass (their due deferrals are left out).
fn names(not_ready: &[(&'static str, String)]) -> Vec<&'static str> {
    not_ready.iter().map(|(kind, _)| *kind).collect()
}

/// `--dry-run`: what each pool would admit (`launched`) and hold (`held`), writing nothing.
pub(super) fn dry_run(
    store: &dyn Store,
    options: &TickOptions,
    now_ms: &dyn Fn() -> u64,
    report: &mut TickReport,
) -> Result<(), HostError> {
    let skip_kinds = names(&not_ready(&options.pass(store, now_ms), &options.launchers));
    for pool in store.pools_at_work(now_ms())? {
        let pass = admission::admit(
            store,
            &pool,
            &how(options, &skip_kinds, options.limit, true),
            now_ms,
        )?;
        for c in &pass.decision.admit {
            let d = lifecycle::change::load(store, &c.id)?;
            let mut entry = planned(&d, c.attempt);
            entry.pool = Some(pass.pool.clone());
            report.launched.push(entry);
        }
        report.held.extend(Held::of(&pass));
    }
    Ok(())
}

/// The holds as the pass leaves them, written to the pools' rows: a launch that reported in
/// this pass (its last line) lifted its pool's hold and may have replaced the window the pass
/// decided on (an assumed reset an hour away with the real one), so each pool that held decides
/// again, and its hold, not the one from before the launches, is what the report, `status` and
/// the page say (see `pools::hold`). A pool that would now admit is not held (its due
/// deferrals launch at the next pass) and writes no admission here.
fn holds_after(
    store: &dyn Store,
    options: &TickOptions,
    skip_kinds: &[&str],
    now_ms: &dyn Fn() -> u64,
    held: &[Held],
) -> Vec<Held> {
    let mut after = Vec::new();
    for before in held {
        let how = Admit {
            hold_only: true,
            ..how(options, skip_kinds, options.limit, false)
        };
        // A pool another ticker keeps changing: its hold from before the launches stands (the
        // pass did its work; the next one decides again).
        let Ok(pass) = admission::admit(store, &before.pool, &how, now_ms) else {
            after.push(before.clone());
            continue;
        };
        if let Some(mut now) = Held::of(&pass) {
            now.admitted = before.admitted;
            after.push(now);
        }
    }
    after
}

/// Releases an admission that was not used (no attempt ran under it). A pool that keeps
/// changing under every try is left as it is: the admission ends with its window anyway.
fn release(store: &dyn Store, a: &Admission, now: u64) -> Result<(), HostError> {
    let released = update(
        store,
        || {
            let Some(row) = store.pool(&a.pool)? else {
                return Ok(Try::Done(()));
            };
            let mut next = row.clone();
            next.hold_until_ms = None;
            next.hold_reason = None;
            let write = PoolWrite {
                release: vec![a.seq],
                ..PoolWrite::replacing(&row, next, now)
            };
            Ok(Try::write(write, ()))
        },
        || HostError::new(HostErrorKind::PoolBusy, "busy"),
    );
    match released {
        Err(err) if err.kind() != Some(HostErrorKind::PoolBusy) => Err(err),
        _ => Ok(()),
    }
}

/// Admits, claims and launches, pool by pool, at most `options.limit` launches in all.
pub(super) fn launch_admitted(
    store: &dyn Store,
    owner: &str,
    options: &TickOptions,
    now_ms: &dyn Fn() -> u64,
    report: &mut TickReport,
    observe: &mut dyn FnMut(TickStep),
) -> Result<(), HostError> {
    let mut launched = 0;
    let not_ready = not_ready(&options.pass(store, now_ms), &options.launchers);
    let skip_kinds = names(&not_ready);
    for pool in store.pools_at_work(now_ms())? {
        let left = options.limit.saturating_sub(launched);
        if left == 0 {
            break;
        }
        if let (Some(client), Some(read)) = (&options.github, &options.rate_limit) {
            // What is left of the quota, read just before this pool's admission decides on it,
            // once per pass. The pool is at work (work due, or admitted and not released) as
            // listed above: a deferral that became due since is admitted after this read, never
            // by a pool that has not been read (an unread pool meters nothing).
            if read.pool == pool && report.rate_limit.is_none() {
                report.rate_limit = Some(super::rate_limit::learn(store, client, read, now_ms));
            }
        }
        let pass: AdmissionPass = admission::admit(
            store,
            &pool,
            &how(options, &skip_kinds, left, false),
            now_ms,
        )?;
        for c in &pass.decision.admit {
            let unused = |store: &dyn Store| -> Result<(), HostError> {
                match pass
                    .admissions
                    .iter()
                    .find(|a| a.deferral_id.as_deref() == Some(&c.id))
                {
                    Some(a) => release(store, a, now_ms()),
                    None => Ok(()),
                }
            };
            let Ok(d) = lifecycle::change::load(store, &c.id) else {
                unused(store)?;
                continue;
            };
            observe(TickStep::Launching {
                id: &d.id,
                attempt: d.reentries + 1,
            });
            match launch(store, &d, owner, options, now_ms) {
                Ok(Some(mut entry)) => {
                    launched += 1;
                    entry.pool = Some(pass.pool.clone());
                    observe(TickStep::Launched(&entry));
                    report.launched.push(entry);
                }
                Ok(None) => {
                    unused(store)?;
                    observe(TickStep::ClaimedElsewhere { id: &d.id });
                }
                Err(Skip(why)) => {
                    unused(store)?;
                    let entry = Skipped::new(&d.id, why);
                    observe(TickStep::Skipped(&entry));
                    report.skipped.push(entry);
                }
            }
        }
        report.held.extend(Held::of(&pass));
    }
    report.held = holds_after(store, options, &skip_kinds, now_ms, &report.held);
    if !not_ready.is_empty() {
        // One given back or skipped in this pass is in the report already, with its cause.
        let listed: Vec<String> = (report.launched.iter().map(|e| e.id.clone()))
            .chain(report.skipped.iter().map(|e| e.id.clone()))
            .collect();
        for d in store.due(now_ms(), options.limit)? {
            let kind = crate::store::launch_kind(&d.launch);
            let why = not_ready
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, why)| why);
            if let Some(why) = why.filter(|_| !listed.contains(&d.id)) {
                let entry = Skipped::new(&d.id, why.clone());
                observe(TickStep::Skipped(&entry));
                report.skipped.push(entry);
            }
        }
    }
    Ok(())
}
