//! A rate-limited resource's window as a pool believes it, and a report of one.

/// A rate-limited resource a pool tracks a window of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Resource {
    Rest,
    Graphql,
}

impl Resource {
    pub const ALL: [Resource; 2] = [Resource::Rest, Resource::Graphql];

    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Rest => "rest",
            Resource::Graphql => "graphql",
        }
    }

    pub fn parse(text: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// A planned cost: REST requests, GraphQL points, content-creating requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub rest: u64,
    pub graphql: u64,
    pub content: u64,
}

impl Cost {
    pub fn of(&self, resource: Resource) -> u64 {
        match resource {
            Resource::Rest => self.rest,
            Resource::Graphql => self.graphql,
        }
    }
}

/// One rate state reported for a resource (a gate line, an attempt's last line, a run's
/// artifact): as reported, before the pool decides what to believe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub resource: Resource,
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    /// When the window resets (epoch ms).
    pub reset_ms: u64,
    pub observed_ms: u64,
    /// What reported it: `record ID`, `attempt ID#N`, `watch run N`, ...
    pub source: String,
    /// The deferral it came with, if any.
    pub deferral_id: Option<String>,
}

/// What a pool believes about one resource's window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    pub reset_ms: u64,
    pub observed_ms: u64,
    pub source: String,
}

/// GitHub's primary windows last an hour: a report of a reset further away than this after it
/// was read is believed only this far.
pub const MAX_WINDOW_MS: u64 = 3_600_000;

impl WindowState {
    /// The window after `obs`: a later window replaces an earlier one; within one window the
    /// lowest remaining wins (remaining only falls within a window, so the lowest report is the
    /// newest even when reports arrive out of order); an earlier window's report changes
    /// nothing. A report never raises the pool's limit (a larger one stays evidence only), nor
    /// remaining above the limit, nor a reset past [`MAX_WINDOW_MS`] after it was read.
    pub fn merge(current: Option<&WindowState>, obs: &Observation) -> WindowState {
        let reset_ms = obs
            .reset_ms
            .min(obs.observed_ms.saturating_add(MAX_WINDOW_MS));
        let Some(cur) = current else {
            return WindowState {
                limit: obs.limit,
                remaining: obs.remaining.min(obs.limit),
                reserve: obs.reserve,
                reset_ms,
                observed_ms: obs.observed_ms,
                source: obs.source.clone(),
            };
        };
        let limit = cur.limit.min(obs.limit);
        let mut next = WindowState {
            limit,
            remaining: cur.remaining.min(limit),
            reserve: obs.reserve,
            reset_ms: cur.reset_ms,
            observed_ms: cur.observed_ms.max(obs.observed_ms),
            source: cur.source.clone(),
        };
        if reset_ms > cur.reset_ms {
            next.remaining = obs.remaining.min(limit);
            next.reset_ms = reset_ms;
            next.source = obs.source.clone();
        } else if reset_ms == cur.reset_ms && obs.remaining < cur.remaining {
            next.remaining = obs.remaining.min(limit);
            next.source = obs.source.clone();
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(limit: u64, remaining: u64, reset_ms: u64, source: &str) -> Observation {
        Observation {
            resource: Resource::Rest,
            limit,
            remaining,
            reserve: 5,
            reset_ms,
            observed_ms: 1_000,
            source: source.into(),
            deferral_id: None,
        }
    }

    #[test]
    fn a_later_window_wins_within_one_window_the_lowest_and_the_limit_never_rises() {
        let first = WindowState::merge(None, &obs(45, 30, 10_000, "a"));
        assert_eq!(
            (first.limit, first.remaining, first.reset_ms),
            (45, 30, 10_000)
        );
        let lower = WindowState::merge(Some(&first), &obs(45, 20, 10_000, "b"));
        assert_eq!((lower.remaining, lower.source.as_str()), (20, "b"));
        let late = WindowState::merge(Some(&lower), &obs(45, 40, 10_000, "c"));
        assert_eq!(
            late.remaining, 20,
            "a late report of the same window never raises it"
        );
        let older = WindowState::merge(Some(&lower), &obs(45, 45, 5_000, "d"));
        assert_eq!((older.remaining, older.reset_ms), (20, 10_000));
        let next = WindowState::merge(Some(&lower), &obs(45, 44, 20_000, "e"));
        assert_eq!((next.remaining, next.reset_ms), (44, 20_000));
        let bigger = WindowState::merge(Some(&next), &obs(1_000_000, 999_999, 30_000, "f"));
        assert_eq!(
            (bigger.limit, bigger.remaining),
            (45, 45),
            "a claimed larger window is not believed"
        );
        let far = WindowState::merge(Some(&bigger), &obs(45, 3, u64::MAX / 2, "g"));
        assert_eq!(
            far.reset_ms,
            1_000 + MAX_WINDOW_MS,
            "a reset far away is believed an hour away"
        );
    }
}
