//! The CLI's argument parser: `--flag value`, `--flag=value`, standalone flags, repeatable
//! flags, `-` and other positionals, `--` to end the flags, `-h`/`--help` everywhere.

use super::help::Command;
use crate::attempt::AttemptError;
use serde_json::{Map, Value};

/// Flags by name (text, `true`, or an array for repeatable ones) and positionals.
#[derive(Debug, Default)]
pub struct Parsed {
    pub flags: Map<String, Value>,
    pub positionals: Vec<String>,
    pub help: bool,
}

impl Parsed {
    /// A flag's text.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags.get(name).and_then(Value::as_str)
    }

    /// `true` when a standalone flag was given.
    pub fn is_set(&self, name: &str) -> bool {
        self.flags.get(name) == Some(&Value::Bool(true))
    }
}

/// Parses the arguments after the command name.
///
/// # Errors
/// `unknown-flag` for a flag `command` does not take, `missing-value` for a value flag last.
pub fn parse(argv: &[String], command: &Command) -> Result<Parsed, AttemptError> {
    let mut out = Parsed::default();
    let mut rest = argv.iter();
    while let Some(arg) = rest.next() {
        if arg == "-h" || arg == "--help" {
            out.help = true;
            continue;
        }
        if arg == "--" {
            out.positionals.extend(rest.by_ref().cloned());
            break;
        }
        let Some(flag) = arg.strip_prefix("--") else {
            out.positionals.push(arg.clone());
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag, None),
        };
        if inline.is_none() && command.booleans.contains(&name) {
            out.flags.insert(name.to_string(), Value::Bool(true));
            continue;
        }
        let list = command.lists.contains(&name);
        if !list && !command.values.contains(&name) && !command.own_values.contains(&name) {
            return Err(AttemptError::UnknownFlag {
                flag: name.to_string(),
            });
        }
        let value = match inline {
            Some(v) => v.to_string(),
            None => rest
                .next()
                .cloned()
                .ok_or_else(|| AttemptError::MissingValue {
                    flag: name.to_string(),
                })?,
        };
        if list {
            let items = out
                .flags
                .entry(name.to_string())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = items {
                items.push(Value::String(value));
            }
        } else {
            out.flags.insert(name.to_string(), Value::String(value));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::help::command;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn flags_values_lists_and_positionals() {
        let observe = command("observe").unwrap();
        let p = parse(
            &args(&[
                "--status=403",
                "--header",
                "a: 1",
                "--header",
                "b: 2",
                "-",
                "--",
                "--x",
            ]),
            observe,
        )
        .unwrap();
        assert_eq!(p.value("status"), Some("403"));
        assert_eq!(p.flags["header"], serde_json::json!(["a: 1", "b: 2"]));
        assert_eq!(p.positionals, ["-", "--x"]);
        let gate = command("gate").unwrap();
        let p = parse(&args(&["--quiet", "-h"]), gate).unwrap();
        assert!(p.is_set("quiet") && p.help && !p.is_set("verdict"));
    }

    #[test]
    fn unknown_and_valueless_flags_are_refused() {
        let gate = command("gate").unwrap();
        let e = parse(&args(&["--plna", "x"]), gate).unwrap_err();
        assert_eq!(
            (e.code(), e.to_string().as_str()),
            ("unknown-flag", "unknown flag --plna (see --help)")
        );
        let e = parse(&args(&["--plan"]), gate).unwrap_err();
        assert_eq!(e.code(), "missing-value");
        // A standalone flag given a value is not a value flag.
        let e = parse(&args(&["--quiet=yes"]), gate).unwrap_err();
        assert_eq!(e.code(), "unknown-flag");
    }
}
