//! Work whose reader is gone: a request's handler runs on a blocking thread, and when its
//! client goes away the future waiting for it is dropped, which sets the request's [`Token`].
//! Long reads (the pools' forecast, see `pools::forecast`) ask [`cancelled`] as they go and
//! stop early: nobody reads their answer. Outside a request nothing is ever cancelled.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static CURRENT: RefCell<Option<Token>> = const { RefCell::new(None) };
}

/// Set once whoever waits for the work is gone.
#[derive(Debug, Clone, Default)]
pub struct Token(Arc<AtomicBool>);

impl Token {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Cancels its token when dropped: held by the future that waits for the work, so a request
/// dropped with its connection cancels what it started.
pub struct CancelOnDrop(pub Token);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Runs `work` on this thread with `token` as what [`cancelled`] reads.
pub fn with<T>(token: &Token, work: impl FnOnce() -> T) -> T {
    struct Reset(Option<Token>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let before = CURRENT.with(|c| c.borrow_mut().replace(token.clone()));
    let _reset = Reset(before);
    work()
}

/// Whether the work running on this thread was abandoned by its reader.
pub fn cancelled() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(Token::is_cancelled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_waiter_cancels_only_its_own_work() {
        let token = Token::default();
        let guard = CancelOnDrop(token.clone());
        assert!(!cancelled(), "outside a request nothing is cancelled");
        with(&token, || {
            assert!(!cancelled());
            drop(guard);
            assert!(cancelled());
            with(&Token::default(), || {
                assert!(!cancelled(), "another request's")
            });
            assert!(cancelled());
        });
        assert!(!cancelled(), "the thread's next work starts afresh");
    }
}
