//! Every (state, event) pair of the host state machine, table-driven.

use deferral_core::lifecycle::{transition, Cause, Event, Position, State};

/// The legal transitions (docs/host-store.md, "Lifecycle") with re-entries below the bound.
fn expected(from: State, event: Event) -> Option<(State, Cause)> {
    use {Event as E, State as S};
    Some(match (from, event) {
        (S::Ready, E::Record) => (S::Deferred, Cause::Recorded),
        (S::Deferred, E::Claim) => (S::Resumable, Cause::Claimed),
        (S::Resumable, E::Complete) => (S::Complete, Cause::Completed),
        (S::Resumable, E::Defer) => (S::Deferred, Cause::Deferred),
        (S::Resumable, E::Block) => (S::Blocked, Cause::Blocked),
        (S::Ready | S::Deferred | S::Resumable, E::Cancel) => (S::Cancelled, Cause::Operator),
        (S::Ready | S::Deferred | S::Resumable, E::Expire) => (S::Cancelled, Cause::Expired),
        _ => return None,
    })
}

#[test]
fn every_state_event_pair() {
    let mut legal = 0;
    for from in State::ALL {
        for event in Event::ALL {
            let at = Position {
                state: from,
                reentries: 1,
                max_reentries: 2,
            };
            match (transition(at, event), expected(from, event)) {
                (Ok(step), Some((to, cause))) => {
                    legal += 1;
                    assert_eq!(
                        (step.to.state, step.cause),
                        (to, cause),
                        "{from} + {}",
                        event.as_str()
                    );
                    let reentries = if event == Event::Claim { 2 } else { 1 };
                    assert_eq!(step.to.reentries, reentries);
                }
                (Err(e), None) => {
                    assert_eq!(e.code(), "illegal-transition");
                    assert_eq!(
                        e.to_string(),
                        format!("event {} is not allowed in state {from}", event.as_str())
                    );
                }
                (got, want) => panic!("{from} + {}: got {got:?}, want {want:?}", event.as_str()),
            }
        }
    }
    assert_eq!(legal, 11);
}

#[test]
fn terminal_states_accept_nothing() {
    for from in State::ALL.into_iter().filter(|s| s.is_terminal()) {
        for event in Event::ALL {
            assert!(transition(
                Position {
                    state: from,
                    reentries: 0,
                    max_reentries: 2
                },
                event
            )
            .is_err());
        }
    }
}

#[test]
fn reentry_bound_default_two() {
    let mut at = Position::new(2);
    at = transition(at, Event::Record).unwrap().to;
    // Launch 1 ends deferred again: back to deferred.
    at = transition(at, Event::Claim).unwrap().to;
    assert_eq!(at.reentries, 1);
    at = transition(at, Event::Defer).unwrap().to;
    assert_eq!(at.state, State::Deferred);
    // Launch 2 is the last allowed one: deferred again means blocked, reentry-limit.
    at = transition(at, Event::Claim).unwrap().to;
    let step = transition(at, Event::Defer).unwrap();
    assert_eq!(
        (step.to.state, step.cause),
        (State::Blocked, Cause::ReentryLimit)
    );
    assert_eq!(step.to.reentries, 2);
}

#[test]
fn no_claim_beyond_the_bound_and_zero_bound() {
    let at = Position {
        state: State::Deferred,
        reentries: 2,
        max_reentries: 2,
    };
    assert!(transition(at, Event::Claim).is_err());
    let zero = Position {
        state: State::Deferred,
        reentries: 0,
        max_reentries: 0,
    };
    assert!(transition(zero, Event::Claim).is_err());
    assert_eq!(
        transition(zero, Event::Expire).unwrap().to.state,
        State::Cancelled
    );
}

#[test]
fn names_round_trip() {
    for s in State::ALL {
        assert_eq!(State::parse(s.as_str()), Some(s));
    }
    for e in Event::ALL {
        assert_eq!(Event::parse(e.as_str()), Some(e));
    }
}

#[test]
fn complete_blocked_and_cancelled_are_the_terminal_states() {
    let terminal: Vec<State> = State::ALL.into_iter().filter(|s| s.is_terminal()).collect();
    assert_eq!(
        terminal,
        [State::Complete, State::Blocked, State::Cancelled]
    );
}

#[test]
fn states_and_causes_print_as_the_words_stores_and_outputs_carry() {
    for state in State::ALL {
        assert_eq!(state.to_string(), state.as_str());
        assert_eq!(State::parse(state.as_str()), Some(state));
    }
    let causes = [
        (Cause::Recorded, "recorded"),
        (Cause::Claimed, "claimed"),
        (Cause::Completed, "completed"),
        (Cause::Deferred, "deferred"),
        (Cause::Blocked, "blocked"),
        (Cause::ReentryLimit, "reentry-limit"),
        (Cause::Operator, "operator"),
        (Cause::Expired, "expired"),
    ];
    for (cause, word) in causes {
        assert_eq!(cause.as_str(), word);
    }
}
