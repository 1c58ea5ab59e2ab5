//! The attempt's inputs as given (Action inputs or CLI flags, all text) turned into what the
//! decision needs. Defaults live here and in [`deferral_core::decision::Policy`], nowhere else: a
//! missing or empty input means the default whichever surface started the attempt.

use super::error::AttemptError;
use deferral_core::decision::{Policy, Reserve};
use deferral_core::digest::input_value;
use serde_json::{Map, Value};

/// Every input an attempt reads, by its Action name (CLI flags use the same names).
pub const INPUTS: [&str; 22] = [
    "rest-reserve",
    "graphql-reserve",
    "plan",
    "scope",
    "request",
    "receipt",
    "resume-buffer",
    "resume-window",
    "resume-jitter",
    "fresh-approval",
    "approval",
    "on-deferral",
    "ledger-file",
    "rate-state",
    "wakeup-handle",
    "coordinator-url",
    "coordinator-token",
    "coordinator-launch",
    "coordinator-pool",
    "coordinator-priority",
    "coordinator-fairness-key",
    "coordinator-commit",
];

/// `fresh-approval` when absent: receipts require fresh approval.
pub const DEFAULT_FRESH_APPROVAL: &str = "always";
/// `on-deferral` when absent: the step fails, so no later step mutates by accident.
pub const DEFAULT_ON_DEFERRAL: &str = "fail";

/// The inputs as given; an absent or blank input is `None`.
#[derive(Debug, Clone, Default)]
pub struct RawInputs {
    values: Map<String, Value>,
}

impl RawInputs {
    /// From the attempt's `inputs` object.
    pub fn new(values: Option<&Map<String, Value>>) -> RawInputs {
        RawInputs {
            values: values.cloned().unwrap_or_default(),
        }
    }

    /// The trimmed text of an input, `None` when absent or blank.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    }

    /// `true` when the plan input is a path the shell must read (inline JSON starts with `{`).
    pub fn plan_path(&self) -> Option<&str> {
        self.get("plan").filter(|p| !p.starts_with('{'))
    }
}

/// What the decision needs, parsed from the inputs.
#[derive(Debug, Clone)]
pub struct Options {
    pub policy: Policy,
    pub scope: Value,
    pub request: Option<Value>,
    pub plan: Option<Value>,
    pub fresh_approval_required: bool,
    pub approval_granted: bool,
}

/// Milliseconds of `90` (seconds), `90s`, `15m`, `6h`, `500ms`; `None` when it does not parse.
pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let number: u64 = text[..digits].parse().ok()?;
    let unit = text[digits..].trim_start().to_ascii_lowercase();
    let scale = match unit.as_str() {
        "ms" => 1,
        "" | "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    Some(number * scale)
}

fn duration(raw: &RawInputs, input: &'static str, default: u64) -> Result<u64, AttemptError> {
    raw.get(input).map_or(Ok(default), |text| {
        parse_duration(text).ok_or(AttemptError::InvalidDuration { input })
    })
}

fn reserve(raw: &RawInputs, input: &'static str) -> Result<Reserve, AttemptError> {
    raw.get(input).map_or(Ok(Reserve::default()), |text| {
        Reserve::parse(text).ok_or(AttemptError::InvalidReserve { input })
    })
}

fn choice<'a>(
    raw: &'a RawInputs,
    input: &'static str,
    default: &'a str,
    allowed: &'static [&'static str],
    words: &'static str,
) -> Result<String, AttemptError> {
    let value = raw.get(input).unwrap_or(default).to_ascii_lowercase();
    if allowed.contains(&value.as_str()) {
        Ok(value)
    } else {
        Err(AttemptError::InvalidChoice {
            input,
            allowed: words,
        })
    }
}

/// The default scope: the same API, repository, workflow file (at its ref) and job.
pub fn default_scope(env: &Map<String, Value>) -> Value {
    let var = |name: &str| {
        env.get(name)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(|v| Value::String(v.to_string()))
            .unwrap_or(Value::Null)
    };
    let api = env
        .get("GITHUB_API_URL")
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
        .unwrap_or("https://api.github.com")
        .trim_end_matches('/')
        .to_string();
    deferral_core::json::object(vec![
        ("api", Value::String(api)),
        ("repository", var("GITHUB_REPOSITORY")),
        ("workflow", var("GITHUB_WORKFLOW_REF")),
        ("job", var("GITHUB_JOB")),
    ])
}

/// Parses every input; `plan_text` is the plan file's text when the plan input is a path.
///
/// # Errors
/// The first input that does not parse, as an [`AttemptError`].
pub fn parse(
    raw: &RawInputs,
    env: &Map<String, Value>,
    plan_text: Option<&str>,
) -> Result<Options, AttemptError> {
    let defaults = Policy::default();
    let policy = Policy {
        rest_reserve: reserve(raw, "rest-reserve")?,
        graphql_reserve: reserve(raw, "graphql-reserve")?,
        resume_buffer_ms: duration(raw, "resume-buffer", defaults.resume_buffer_ms)?,
        resume_window_ms: duration(raw, "resume-window", defaults.resume_window_ms)?,
        jitter_max_ms: duration(raw, "resume-jitter", defaults.jitter_max_ms)?,
    };
    let fresh = choice(
        raw,
        "fresh-approval",
        DEFAULT_FRESH_APPROVAL,
        &["always", "never"],
        "always or never",
    )?;
    let approval = choice(
        raw,
        "approval",
        "none",
        &["granted", "none"],
        "granted or none",
    )?;
    choice(
        raw,
        "on-deferral",
        DEFAULT_ON_DEFERRAL,
        &["fail", "succeed"],
        "fail or succeed",
    )?;
    let scope = raw
        .get("scope")
        .map_or_else(|| default_scope(env), input_value);
    let request = raw.get("request").map(input_value);
    let plan = match (raw.get("plan"), raw.plan_path()) {
        (None, _) => None,
        (Some(_), Some(_)) => Some(plan_text.ok_or(AttemptError::MissingFile { input: "plan" })?),
        (Some(inline), None) => Some(inline),
    };
    let plan = match plan {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => Some(v),
            Ok(_) => {
                return Err(AttemptError::InvalidPlan {
                    detail: "a plan must be a JSON object".into(),
                })
            }
            Err(e) => {
                return Err(AttemptError::InvalidPlan {
                    detail: format!("it is not JSON: {e}"),
                })
            }
        },
    };
    for (input, value) in [("scope", Some(&scope)), ("request", request.as_ref())] {
        if let Some(Err(e)) = value.map(deferral_core::jcs::canonicalize) {
            return Err(AttemptError::InvalidBinding {
                input,
                detail: e.to_string(),
            });
        }
    }
    Ok(Options {
        policy,
        scope,
        request,
        plan,
        fresh_approval_required: fresh == "always",
        approval_granted: approval == "granted",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(v: Value) -> RawInputs {
        RawInputs::new(v.as_object())
    }

    #[test]
    fn durations_take_a_number_and_a_unit() {
        for (text, ms) in [
            ("90", Some(90_000)),
            ("90s", Some(90_000)),
            ("15m", Some(900_000)),
            ("15 M", Some(900_000)),
            ("6h", Some(21_600_000)),
            ("500ms", Some(500)),
            ("123456789", Some(123_456_789_000)),
            ("1234567890", None),
            ("", None),
            ("s", None),
            ("1d", None),
            ("-5s", None),
        ] {
            assert_eq!(parse_duration(text), ms, "{text:?}");
        }
    }

    #[test]
    fn words_and_their_defaults() {
        let env = Map::new();
        let o = parse(&raw(json!({})), &env, None).unwrap();
        assert!(o.fresh_approval_required && !o.approval_granted);
        let o = parse(
            &raw(json!({"fresh-approval": "NEVER", "approval": "Granted"})),
            &env,
            None,
        )
        .unwrap();
        assert!(!o.fresh_approval_required && o.approval_granted);
        for (input, code) in [
            ("fresh-approval", "invalid-fresh-approval"),
            ("approval", "invalid-approval"),
            ("on-deferral", "invalid-on-deferral"),
        ] {
            let e = parse(&raw(json!({ input: "maybe" })), &env, None).unwrap_err();
            assert_eq!(e.code(), code);
        }
        let o = parse(&raw(json!({"resume-buffer": "2m"})), &env, None).unwrap();
        assert_eq!(o.policy.resume_buffer_ms, 120_000);
    }

    #[test]
    fn a_plan_is_a_path_unless_it_is_inline_json() {
        assert_eq!(
            raw(json!({"plan": " plan.json "})).plan_path(),
            Some("plan.json")
        );
        assert_eq!(raw(json!({"plan": "{\"rest\":[]}"})).plan_path(), None);
        assert_eq!(raw(json!({"plan": "  "})).plan_path(), None);
        let env = Map::new();
        let o = parse(&raw(json!({"plan": "p.json"})), &env, Some("{\"rest\":[]}")).unwrap();
        assert_eq!(o.plan, Some(json!({"rest": []})));
        let e = parse(&raw(json!({"plan": "p.json"})), &env, None).unwrap_err();
        assert_eq!(e.code(), "missing-file");
    }

    #[test]
    fn the_default_scope_names_api_repository_workflow_and_job() {
        let env = json!({"GITHUB_API_URL": "https://ghe.example/api/v3/", "GITHUB_REPOSITORY": "o/r",
            "GITHUB_WORKFLOW_REF": "", "GITHUB_JOB": "sync"});
        let scope = default_scope(env.as_object().unwrap());
        assert_eq!(
            scope,
            json!({"api": "https://ghe.example/api/v3", "repository": "o/r", "workflow": null, "job": "sync"})
        );
        let scope = default_scope(&Map::new());
        assert_eq!(scope["api"], "https://api.github.com");
        assert_eq!(scope["repository"], Value::Null);
    }
}
