//! The open connections of `serve`: a cap on how many, which one to shed when a new one
//! arrives at the cap (the oldest idle one: connected, but no request being handled), and the
//! stop signal at shutdown. A connection is idle while it waits for a request head, however
//! many bytes of it have arrived, so slow or silent clients are shed before working ones. A
//! connection that has sent the right token once is never shed for a newcomer (which may be
//! anyone): at the cap with only such connections idle, the newcomer is refused instead, and
//! they close by themselves after the keep-alive idle time.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;
use tokio::time::Instant;

/// One connection's place in the registry.
pub struct Slot {
    id: u64,
    state: Mutex<SlotState>,
    /// Woken once when the connection must close (shed, or the server stops).
    close: Notify,
}

struct SlotState {
    in_flight: bool,
    closing: bool,
    /// A request on this connection carried the right token.
    proved: bool,
    /// When the connection started waiting for its current request (accept, or the end of the
    /// previous answer on a kept-alive connection): the request's deadline counts from here.
    waiting_since: Instant,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks leaves plain flags behind; keep going.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Slot {
    fn new(id: u64) -> Slot {
        Slot {
            id,
            state: Mutex::new(SlotState {
                in_flight: false,
                closing: false,
                proved: false,
                waiting_since: Instant::now(),
            }),
            close: Notify::new(),
        }
    }

    /// A request head has arrived: marks the connection busy and gives the instant its request
    /// started waiting. `None` if it is closing: the request must not start.
    pub fn begin(&self) -> Option<Instant> {
        let mut state = lock(&self.state);
        if state.closing {
            return None;
        }
        state.in_flight = true;
        Some(state.waiting_since)
    }

    /// The answer is ready: the connection is idle again and waits for its next request.
    pub fn end(&self) {
        let mut state = lock(&self.state);
        state.in_flight = false;
        state.waiting_since = Instant::now();
    }

    /// A request on this connection carried the right token: from now on it is never shed.
    pub fn prove(&self) {
        lock(&self.state).proved = true;
    }

    pub fn in_flight(&self) -> bool {
        lock(&self.state).in_flight
    }

    /// Resolves once the connection is asked to close.
    pub async fn closed(&self) {
        self.close.notified().await;
    }

    /// Asks an idle connection that never proved the token to close; `false` (and nothing
    /// changes) if it is busy or proved.
    fn shed_if_idle(&self) -> bool {
        let mut state = lock(&self.state);
        if state.in_flight || state.closing || state.proved {
            return false;
        }
        state.closing = true;
        self.close.notify_one();
        true
    }

    /// Asks the connection to close: at once if idle, after its answer if busy.
    fn stop(&self) {
        lock(&self.state).closing = true;
        self.close.notify_one();
    }
}

/// All open connections, oldest first.
pub struct Registry {
    cap: usize,
    inner: Mutex<Inner>,
    /// Woken when the last connection leaves after [`Registry::stop`].
    drained: Notify,
}

struct Inner {
    next_id: u64,
    slots: BTreeMap<u64, Arc<Slot>>,
    stopping: bool,
}

/// What happened to a new connection.
pub enum Admission {
    Admitted(Arc<Slot>),
    /// At the cap with every connection busy or proved, or the server is stopping.
    Refused,
}

impl Registry {
    pub fn new(cap: usize) -> Registry {
        Registry {
            cap: cap.max(1),
            inner: Mutex::new(Inner {
                next_id: 0,
                slots: BTreeMap::new(),
                stopping: false,
            }),
            drained: Notify::new(),
        }
    }

    /// Takes a new connection, shedding at the cap the oldest idle one that never proved the
    /// token.
    pub fn admit(&self) -> Admission {
        let mut inner = lock(&self.inner);
        if inner.stopping {
            return Admission::Refused;
        }
        if inner.slots.len() >= self.cap {
            let shed = inner
                .slots
                .values()
                .find(|slot| slot.shed_if_idle())
                .map(|slot| slot.id);
            match shed {
                // Out of the count at once: it serves nothing more and is closing.
                Some(id) => inner.slots.remove(&id),
                None => return Admission::Refused,
            };
        }
        let id = inner.next_id;
        inner.next_id += 1;
        let slot = Arc::new(Slot::new(id));
        inner.slots.insert(id, slot.clone());
        Admission::Admitted(slot)
    }

    /// A connection ended.
    pub fn remove(&self, slot: &Slot) {
        let mut inner = lock(&self.inner);
        inner.slots.remove(&slot.id);
        if inner.stopping && inner.slots.is_empty() {
            self.drained.notify_waiters();
        }
    }

    pub fn len(&self) -> usize {
        lock(&self.inner).slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Refuses new connections and asks every open one to close.
    pub fn stop(&self) {
        let mut inner = lock(&self.inner);
        inner.stopping = true;
        for slot in inner.slots.values() {
            slot.stop();
        }
    }

    /// Resolves when no connection is left (after [`Registry::stop`]).
    pub async fn drained(&self) {
        loop {
            let notified = self.drained.notified();
            if self.is_empty() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admitted(registry: &Registry) -> Arc<Slot> {
        match registry.admit() {
            Admission::Admitted(slot) => slot,
            Admission::Refused => panic!("refused"),
        }
    }

    #[test]
    fn at_the_cap_the_oldest_idle_connection_is_shed() {
        let registry = Registry::new(3);
        let a = admitted(&registry);
        let b = admitted(&registry);
        let c = admitted(&registry);
        assert!(a.begin().is_some(), "a is busy");
        let d = admitted(&registry);
        assert_eq!(registry.len(), 3);
        assert!(
            b.begin().is_none(),
            "b was shed: it may not start a request"
        );
        assert!(c.begin().is_some() && d.begin().is_some());
        assert!(matches!(registry.admit(), Admission::Refused), "all busy");
        a.end();
        let _e = admitted(&registry);
        assert!(a.begin().is_none(), "a, idle again and oldest, was shed");
    }

    #[test]
    fn a_connection_that_proved_the_token_is_never_shed() {
        let registry = Registry::new(2);
        let proved = admitted(&registry);
        assert!(proved.begin().is_some());
        proved.prove();
        proved.end();
        let _silent = admitted(&registry);
        for _ in 0..5 {
            let _newcomer = admitted(&registry);
        }
        assert!(
            proved.begin().is_some(),
            "still open, though the oldest idle"
        );
        proved.end();
        let waiting = admitted(&registry);
        assert!(waiting.begin().is_some(), "a newcomer sheds the other one");
        assert!(
            matches!(registry.admit(), Admission::Refused),
            "one busy, one proved: refused"
        );
    }

    #[test]
    fn stop_refuses_new_connections() {
        let registry = Registry::new(2);
        let a = admitted(&registry);
        registry.stop();
        assert!(matches!(registry.admit(), Admission::Refused));
        assert!(a.begin().is_none());
        registry.remove(&a);
        assert!(registry.is_empty());
    }
}
