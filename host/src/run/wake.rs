//! What wakes `run`'s scheduler: a notice (a change through the port, another replica's
//! `NOTIFY`, a signal) or the next deadline, whichever comes first. The scheduler sleeps on a
//! condition variable until then; notices only set flags, so any number of them while a pass
//! runs make one more pass, not one each.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The notices taken at one wake.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Notices {
    /// Something changed in the store: look for due work now.
    pub changed: bool,
    /// SIGHUP: read the configuration again.
    pub reload: bool,
    /// SIGTERM or SIGINT: stop taking work.
    pub stop: bool,
}

#[derive(Default)]
pub struct Wake {
    notices: Mutex<Notices>,
    bell: Condvar,
}

impl Wake {
    fn ring(&self, set: impl FnOnce(&mut Notices)) {
        if let Ok(mut notices) = self.notices.lock() {
            set(&mut notices);
        }
        self.bell.notify_all();
    }

    pub fn changed(&self) {
        self.ring(|n| n.changed = true);
    }

    pub fn reload(&self) {
        self.ring(|n| n.reload = true);
    }

    pub fn stop(&self) {
        self.ring(|n| n.stop = true);
    }

    pub fn is_stopping(&self) -> bool {
        self.notices.lock().map_or(true, |n| n.stop)
    }

    /// Waits until a notice comes or `timeout` passes; takes the notices (a stop stays set).
    pub fn wait(&self, timeout: Duration) -> Notices {
        let deadline = Instant::now() + timeout;
        let Ok(mut notices) = self.notices.lock() else {
            return Notices {
                stop: true,
                ..Notices::default()
            };
        };
        while *notices == Notices::default() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match self.bell.wait_timeout(notices, left) {
                Ok((guard, _)) => notices = guard,
                Err(_) => {
                    return Notices {
                        stop: true,
                        ..Notices::default()
                    }
                }
            }
        }
        let taken = *notices;
        *notices = Notices {
            stop: taken.stop,
            ..Notices::default()
        };
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_notice_ends_the_wait_and_is_taken_once() {
        let wake = Arc::new(Wake::default());
        let other = wake.clone();
        let ringer = std::thread::spawn(move || other.changed());
        let taken = wake.wait(Duration::from_secs(30));
        ringer.join().unwrap();
        assert!(taken.changed, "{taken:?}");
        assert_eq!(
            wake.wait(Duration::ZERO),
            Notices::default(),
            "taken already"
        );
    }

    #[test]
    fn a_stop_stays() {
        let wake = Wake::default();
        wake.stop();
        assert!(wake.wait(Duration::ZERO).stop);
        assert!(wake.wait(Duration::ZERO).stop);
        assert!(wake.is_stopping());
    }
}
