//! The GitHub Actions runner protocol, in text the shell writes as it is told: masks (printed
//! before anything else), outputs as `name<<DELIMITER` records appended to `GITHUB_OUTPUT`, the
//! step summary appended to `GITHUB_STEP_SUMMARY`. Log lines and annotations are escaped where
//! they are made (`crate::attempt::view`) with the escapes here.

use deferral_core::digest::sha256_hex;

/// `::add-mask::` lines for each secret, one per line of it (the runner matches single lines).
pub fn masks<'a>(secrets: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for secret in secrets {
        for part in secret.split('\n').map(|p| p.trim_end_matches('\r')) {
            if !part.trim().is_empty() {
                out.push_str(&format!("::add-mask::{}\n", escape_data(part)));
            }
        }
    }
    out
}

/// A heredoc delimiter that occurs nowhere in `value`, so the value cannot end its record
/// early. It is derived from the value (no randomness in the core) and checked.
pub fn delimiter_for(name: &str, value: &str) -> String {
    (0u32..)
        .map(|n| {
            let seed = format!("{n}\0{name}\0{value}");
            format!("ghadelimiter_{}", &sha256_hex(seed.as_bytes())[..32])
        })
        .find(|d| !value.contains(d.as_str()))
        .unwrap_or_default()
}

/// One `name<<DELIMITER` / value / `DELIMITER` record: safe for any value.
pub fn output_record(name: &str, value: &str) -> String {
    let delimiter = delimiter_for(name, value);
    format!("{name}<<{delimiter}\n{value}\n{delimiter}\n")
}

/// What setting `outputs` takes: the records to append to `GITHUB_OUTPUT` when the runner
/// names it, else `name=value` lines to print for a person.
pub fn outputs_text(outputs: &[(&str, String)], file: bool) -> String {
    outputs
        .iter()
        .map(|(name, value)| {
            if file {
                output_record(name, value)
            } else {
                format!("{name}={}\n", escape_data(value))
            }
        })
        .collect()
}

/// Escapes workflow-command data: `%`, CR and LF would otherwise end or forge a command.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow-command property value, where `:` and `,` are separators too.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_cannot_end_its_record_or_forge_another() {
        let value = "x\nghadelimiter_0\nstatus<<EOF\nready\nEOF";
        let record = output_record("reason", value);
        let delimiter = record
            .lines()
            .next()
            .unwrap()
            .strip_prefix("reason<<")
            .unwrap();
        assert!(!value.contains(delimiter));
        assert!(delimiter.starts_with("ghadelimiter_") && delimiter.len() == 45);
        assert_ne!(delimiter, delimiter_for("reason", "another value"));
        assert_eq!(
            record,
            format!("reason<<{delimiter}\n{value}\n{delimiter}\n")
        );
    }

    #[test]
    fn outputs_go_to_the_file_as_records_or_to_a_person_as_escaped_lines() {
        let outputs = [
            ("status", "ready".to_string()),
            ("reason", "50%\nx".to_string()),
        ];
        let file = outputs_text(&outputs, true);
        assert_eq!(
            file,
            format!(
                "{}{}",
                output_record("status", "ready"),
                output_record("reason", "50%\nx")
            )
        );
        assert_eq!(
            outputs_text(&outputs, false),
            "status=ready\nreason=50%25%0Ax\n"
        );
    }

    #[test]
    fn masks_cover_each_line_and_escape() {
        assert_eq!(
            masks(["ab\r\ncd", "", "50%"]),
            "::add-mask::ab\n::add-mask::cd\n::add-mask::50%25\n"
        );
    }

    #[test]
    fn workflow_commands_are_escaped() {
        assert_eq!(
            escape_data("50% done\r\n::error::forged"),
            "50%25 done%0D%0A::error::forged"
        );
        assert_eq!(escape_property("x:y,z%"), "x%3Ay%2Cz%25");
    }
}
