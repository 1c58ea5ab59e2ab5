//! A `check_run` delivery with action `requested_action`: someone pressed a button of a check
//! run this host's App made ([`crate::ops::check_run`]). As GitHub's webhook description
//! `webhook-check-run-requested-action` gives it: `requested_action.identifier`, `check_run`
//! (its `id`, `head_sha`, `external_id`), `repository`, `installation`, `sender` (who pressed).
//!
//! Nothing in it is trusted beyond naming the press: whether the sender may write is asked of
//! GitHub, and the check run is looked up among the host's own ([`crate::ops::press`]).

use serde_json::Value;

/// The event's name in `X-GitHub-Event`.
pub const EVENT: &str = "check_run";

pub use crate::ops::press::Press;

/// What a verified `check_run` delivery asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PressDelivery {
    Pressed(Press),
    /// Another action (`created`, `completed`, `rerequested`): why it is ignored.
    Ignored(String),
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, key| v.get(key))?.as_str()
}

/// Reads a verified `check_run` delivery; `Err` says what a `requested_action` one lacks.
pub fn read(body: &[u8]) -> Result<PressDelivery, String> {
    let (value, action) = super::payload::with_action(body)?;
    if action != "requested_action" {
        return Ok(PressDelivery::Ignored(format!(
            "check_run action {action:?} is not followed"
        )));
    }
    let repo = text(&value, &["repository", "full_name"])
        .filter(|r| crate::launch::github_names::check_repo(r).is_ok())
        .ok_or("repository.full_name is missing or not OWNER/NAME")?
        .to_string();
    let check_run_id = value
        .get("check_run")
        .and_then(|c| c.get("id"))
        .and_then(Value::as_u64)
        .ok_or("check_run.id is missing")?;
    let identifier = text(&value, &["requested_action", "identifier"])
        .filter(|i| !i.is_empty() && i.chars().count() <= 20)
        .ok_or("requested_action.identifier is missing or longer than 20 characters")?
        .to_string();
    let sender = text(&value, &["sender", "login"])
        .filter(|s| {
            !s.is_empty()
                && s.len() <= 100
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_[]".contains(&b))
        })
        .ok_or("sender.login is missing or not a login")?
        .to_string();
    Ok(PressDelivery::Pressed(Press {
        repo,
        repo_id: value
            .get("repository")
            .and_then(|r| r.get("id"))
            .and_then(Value::as_u64),
        check_run_id,
        identifier,
        sender,
        sender_id: value
            .get("sender")
            .and_then(|s| s.get("id"))
            .and_then(Value::as_u64),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pressed() -> Value {
        json!({"action": "requested_action",
            "requested_action": {"identifier": "cancel"},
            "check_run": {"id": 41, "head_sha": "0123456789abcdef0123456789abcdef01234567",
                "external_id": "d-1", "status": "completed", "conclusion": "neutral"},
            "repository": {"id": 4242, "full_name": "octo-org/app"},
            "installation": {"id": 7}, "sender": {"login": "octocat", "id": 583231}})
    }

    #[test]
    fn a_press_is_read_and_known_by_its_run_button_and_sender() {
        let PressDelivery::Pressed(p) = read(pressed().to_string().as_bytes()).unwrap() else {
            panic!("not a press");
        };
        assert_eq!(
            (
                p.repo.as_str(),
                p.check_run_id,
                p.identifier.as_str(),
                p.sender.as_str()
            ),
            ("octo-org/app", 41, "cancel", "octocat")
        );
        let mut other = pressed();
        other["sender"] = json!({"login": "hubot", "id": 2});
        let PressDelivery::Pressed(q) = read(other.to_string().as_bytes()).unwrap() else {
            panic!()
        };
        assert_ne!(p.key(), q.key(), "another sender's press is another press");
    }

    #[test]
    fn other_actions_are_ignored_and_what_a_press_lacks_is_said() {
        assert!(matches!(
            read(br#"{"action":"rerequested"}"#),
            Ok(PressDelivery::Ignored(_))
        ));
        for (key, bad) in [
            ("check_run", json!({})),
            ("requested_action", json!({"identifier": ""})),
            ("sender", json!({"login": "a b"})),
            ("repository", json!({"full_name": "nope"})),
        ] {
            let mut body = pressed();
            body[key] = bad;
            assert!(read(body.to_string().as_bytes()).is_err(), "{key}");
        }
    }
}
