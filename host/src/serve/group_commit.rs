//! Group commit for `serve`'s records: one writer thread owns a store connection and commits,
//! in one transaction (one fsync), every insert waiting when it starts a batch. Each caller
//! blocks until its own item's result is known, so no request is answered before its record is
//! committed, and an item that fails (a duplicate id) fails alone.
//!
//! Nothing waits on purpose to fill a batch: while one commit runs, the next requests queue,
//! and the next batch takes them all. One client alone gets one commit per record, as before.

use crate::store::{Deferral, NewDeferral, Store, StoreError};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Mutex;
use std::thread::JoinHandle;

/// The most items one transaction takes; more wait for the next one.
const MAX_BATCH: usize = 256;

type Reply = SyncSender<Result<Deferral, StoreError>>;

/// The handle callers use; [`GroupCommit::stop`] ends the writer after the queued items.
pub struct GroupCommit {
    queue: Mutex<Option<Sender<(NewDeferral, Reply)>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl GroupCommit {
    /// Starts the writer thread on `store` (a connection of its own).
    pub fn start(store: Box<dyn Store + Send>) -> GroupCommit {
        GroupCommit::start_with(move |news| store.insert_batch(news))
    }

    /// Starts the writer thread with `commit` as the way a batch is written.
    fn start_with<C>(commit: C) -> GroupCommit
    where
        C: FnMut(&[NewDeferral]) -> Vec<Result<Deferral, StoreError>> + Send + 'static,
    {
        let (queue, jobs) = channel();
        let writer = std::thread::Builder::new()
            .name("serve-group-commit".into())
            .spawn(move || write_batches(commit, &jobs))
            .expect("spawn the group-commit thread");
        GroupCommit {
            queue: Mutex::new(Some(queue)),
            writer: Mutex::new(Some(writer)),
        }
    }

    /// Queues `new` and blocks until the batch holding it is committed (or failed).
    pub fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        let stopped = || StoreError::Backend("the server is stopping; nothing was recorded".into());
        let queue = self
            .queue
            .lock()
            .map_err(|_| stopped())?
            .as_ref()
            .cloned()
            .ok_or_else(stopped)?;
        let (reply, answer) = sync_channel(1);
        queue.send((new.clone(), reply)).map_err(|_| stopped())?;
        drop(queue);
        answer.recv().map_err(|_| {
            StoreError::Backend(
                "the writer stopped before answering; the record may be lost".into(),
            )
        })?
    }

    /// Takes no more items, lets the writer commit what is queued, and waits for it.
    pub fn stop(&self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
        let writer = self.writer.lock().ok().and_then(|mut w| w.take());
        if let Some(writer) = writer {
            let _ = writer.join();
        }
    }
}

/// The writer's loop: wait for one item, take every other one already queued, commit them
/// together, answer each. Ends when every sender is gone and the queue is empty.
fn write_batches<C>(mut commit: C, jobs: &Receiver<(NewDeferral, Reply)>)
where
    C: FnMut(&[NewDeferral]) -> Vec<Result<Deferral, StoreError>>,
{
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let (news, replies): (Vec<NewDeferral>, Vec<Reply>) = batch.into_iter().unzip();
        let mut results = commit(&news);
        // A store must answer once per item; if it did not, no item may be taken as committed.
        if results.len() != news.len() {
            let err = StoreError::Backend(format!(
                "the store answered {} results for {} items",
                results.len(),
                news.len()
            ));
            results = news.iter().map(|_| Err(err.clone())).collect();
        }
        for (reply, result) in replies.into_iter().zip(results) {
            let _ = reply.send(result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ResumeWindow;
    use deferral_core::lifecycle::State;
    use std::sync::{Arc, Barrier};
    use std::time::Duration;

    fn new(id: &str) -> NewDeferral {
        NewDeferral {
            id: id.to_string(),
            state: State::Deferred,
            reentries: 0,
            max_reentries: 2,
            cause: "recorded".into(),
            launch: "exec:/bin/true".into(),
            window: ResumeWindow {
                reason: "rest-reserve".into(),
                resume_after_ms: 0,
                resume_by_ms: 1,
            },
            wakeup_digest: String::new(),
            cancellation_digest: String::new(),
            receipts: Vec::new(),
            at_ms: 0,
            keys: Default::default(),
        }
    }

    /// Each item's answer names its id (as `NotFound`, which needs no full row), so the test
    /// sees that every caller gets its own item's result; ids ending in `-bad` fail alone.
    fn answer(news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        news.iter()
            .map(|n| {
                if n.id.ends_with("-bad") {
                    Err(StoreError::Duplicate(n.id.clone()))
                } else {
                    Err(StoreError::NotFound(n.id.clone()))
                }
            })
            .collect()
    }

    #[test]
    fn concurrent_inserts_share_a_commit_and_each_gets_its_own_answer() {
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let seen = sizes.clone();
        let writer = Arc::new(GroupCommit::start_with(move |news| {
            seen.lock().unwrap().push(news.len());
            // A slow commit (an fsync): the others queue meanwhile.
            std::thread::sleep(Duration::from_millis(30));
            answer(news)
        }));
        let start = Arc::new(Barrier::new(8));
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let (writer, start) = (writer.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    (0..4)
                        .map(|i| {
                            let id = if (t, i) == (3, 2) {
                                format!("d-{t}-{i}-bad")
                            } else {
                                format!("d-{t}-{i}")
                            };
                            (id.clone(), writer.insert(&new(&id)))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for thread in threads {
            for (id, result) in thread.join().unwrap() {
                let want = if id.ends_with("-bad") {
                    StoreError::Duplicate(id.clone())
                } else {
                    StoreError::NotFound(id.clone())
                };
                assert_eq!(result.unwrap_err(), want);
            }
        }
        writer.stop();
        let sizes = sizes.lock().unwrap().clone();
        assert_eq!(sizes.iter().sum::<usize>(), 32, "every item committed once");
        assert!(
            sizes.len() < 32 && sizes.iter().any(|&n| n > 1),
            "waiting items share a commit: {sizes:?}"
        );
        let refused = writer.insert(&new("d-late"));
        assert!(matches!(refused, Err(StoreError::Backend(_))), "stopped");
    }

    #[test]
    fn a_store_that_answers_too_few_results_fails_the_whole_batch() {
        let writer = GroupCommit::start_with(|news| answer(&news[..news.len() - 1]));
        assert!(matches!(
            writer.insert(&new("d-1")),
            Err(StoreError::Backend(_))
        ));
        writer.stop();
    }
}
