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
        let (queue, jobs) = channel();
        let writer = std::thread::Builder::new()
            .name("serve-group-commit".into())
            .spawn(move || write_batches(&*store, &jobs))
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
fn write_batches(store: &dyn Store, jobs: &Receiver<(NewDeferral, Reply)>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let (news, replies): (Vec<NewDeferral>, Vec<Reply>) = batch.into_iter().unzip();
        let mut results = store.insert_batch(&news);
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
