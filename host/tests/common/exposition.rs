//! A strict reader of Prometheus' text format (0.0.4) as the host writes it, for the metrics
//! tests: every line is `# HELP NAME TEXT`, `# TYPE NAME gauge|counter`, or a sample
//! `NAME{LABEL="VALUE",...} NUMBER` of a family declared above it; anything else panics.
//! When `promtool` (Debian `prometheus`) is installed, its own parser checks the text too.

use std::collections::BTreeMap;

#[derive(Debug)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

#[derive(Debug, Default)]
pub struct Exposition {
    /// Family name -> type.
    pub families: BTreeMap<String, String>,
    pub samples: Vec<Sample>,
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn labels(text: &str, line: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if text.is_empty() {
        return out;
    }
    for pair in text.split(',') {
        let (name, value) = pair
            .split_once('=')
            .unwrap_or_else(|| panic!("label {pair:?} in {line:?}"));
        assert!(is_name(name), "label name {name:?} in {line:?}");
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("unquoted label value in {line:?}"));
        assert!(!value.contains(['"', '\\', '\n']), "{line:?}");
        assert!(
            out.insert(name.to_string(), value.to_string()).is_none(),
            "{line:?}"
        );
    }
    out
}

pub fn parse(text: &str) -> Exposition {
    let mut exposition = Exposition::default();
    let mut helped = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or_else(|| panic!("{line:?}"));
            assert!(is_name(name) && !help.is_empty(), "{line:?}");
            helped.push(name.to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or_else(|| panic!("{line:?}"));
            assert!(
                helped.last().map(String::as_str) == Some(name),
                "TYPE without HELP: {line:?}"
            );
            assert!(["gauge", "counter"].contains(&kind), "{line:?}");
            assert!(
                exposition
                    .families
                    .insert(name.to_string(), kind.to_string())
                    .is_none(),
                "{line:?}"
            );
            continue;
        }
        assert!(!line.starts_with('#'), "unexpected comment {line:?}");
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line:?}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("value in {line:?}"));
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => (
                name,
                labels(
                    rest.strip_suffix('}').unwrap_or_else(|| panic!("{line:?}")),
                    line,
                ),
            ),
            None => (series, BTreeMap::new()),
        };
        assert!(
            exposition.families.contains_key(name),
            "sample of an undeclared family: {line:?}"
        );
        exposition.samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    if let Some(verdict) = promtool(text) {
        verdict.unwrap_or_else(|why| panic!("promtool check metrics: {why}\n{text}"));
    }
    exposition
}

/// `promtool check metrics` on `text`: `None` when promtool is not installed.
fn promtool(text: &str) -> Option<Result<(), String>> {
    use std::io::Write;
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(
            std::env::var("DEFERRAL_REQUIRE_PROMETHEUS").as_deref() != Ok("1"),
            "DEFERRAL_REQUIRE_PROMETHEUS=1 but promtool (Debian prometheus) does not run"
        );
        return None;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    })
}

impl Exposition {
    /// The one sample of `name` with exactly these labels.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let want: BTreeMap<String, String> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let found: Vec<_> = self
            .samples
            .iter()
            .filter(|s| s.name == name && s.labels == want)
            .collect();
        assert!(found.len() <= 1, "{name} {labels:?} twice");
        found.first().map(|s| s.value)
    }
}
