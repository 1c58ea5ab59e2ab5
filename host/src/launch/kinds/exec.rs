//! The `exec` kind: `exec:PROGRAM [ARG...]`, a local program by absolute path, run directly
//! with its arguments (no shell, no expansion: [`words`] for the quoting, [`exec`] for the
//! run). The ticker waits for it and records how it ended ([`exec_outcome`] reads the exit and
//! the line the process reported: its [`crate::launch::report_file`] first, stdout's last JSON
//! line when there is none). Its door check is that the program is there ([`installed`]).
//! `--allow-launch exec:/path/program` allows that program with any arguments.

use crate::error::HostError;
use crate::launch::attempt::Attempt;
use crate::launch::exec::{self, ExecRequest};
use crate::launch::kind::{invalid, Launcher, Target};
use crate::launch::report_file::{FileRead, Report, ReportFile};
use crate::launch::Launched;
use crate::launch::{exec_outcome, installed, process_group, words};
use deferral_core::digest::sha256_hex;
use std::time::{Duration, Instant};

pub struct Exec;

impl Launcher for Exec {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn form(&self) -> &'static str {
        "exec:/ABSOLUTE/PROGRAM [ARGS]"
    }

    /// The program, then its arguments.
    fn parse(&self, text: &str, rest: &str) -> Result<Vec<String>, HostError> {
        let words = words::split(rest).map_err(|e| invalid(text, e))?;
        let program = words.first().map_or("", String::as_str);
        if !program.starts_with('/') {
            return Err(invalid(
                text,
                format!(
                    "names the program {program:?} by a relative path: give its absolute path \
                     (no PATH lookup), e.g. exec:/usr/local/bin/resume-sync"
                ),
            ));
        }
        Ok(words)
    }

    /// An entry naming only a program allows it with any arguments; one with arguments, exactly
    /// those. Never a prefix: `exec:/opt/resume-` is the program `/opt/resume-` and no other.
    fn allows(&self, entry: &Target, target: &Target) -> bool {
        match entry.parts() {
            [program] => target.parts().first() == Some(program),
            parts => parts == target.parts(),
        }
    }

    fn describe_entry(&self, entry: &Target) -> String {
        match entry.parts() {
            [program] => format!("exec:{program} with any arguments"),
            parts => format!("exactly exec:{}", words::join(parts)),
        }
    }

    fn describe_any(&self) -> String {
        "any exec: program".into()
    }

    fn check_installed(&self, target: &Target) -> Result<(), HostError> {
        installed::check_installed(&target.parts()[0])
    }

    fn launch(&self, target: &Target, run: &Attempt<'_>) -> Launched {
        let (program, args) = (&target.parts()[0], &target.parts()[1..]);
        let lease_ms = run.pass.lease_ms;
        let id = run.id();
        // Kill the process before the lease ends, so a recovering ticker never overlaps it.
        let margin = (lease_ms / 10).min(1000);
        let deadline = Instant::now() + Duration::from_millis(lease_ms.saturating_sub(margin));
        let claimed = run.claimed;
        // A fresh private report file for this attempt (see `report_file`); without one the
        // process still runs, and its stdout is read as before.
        let report_file = match ReportFile::create(id) {
            Ok(file) => Some(file),
            Err(err) => {
                crate::logs::message(
                    "warn",
                    "tick",
                    &format!("no report file for {id}: {err}; its stdout is read instead"),
                );
                None
            }
        };
        let result = exec::run(
            &ExecRequest {
                program,
                args,
                deferral_id: id,
                attempt: run.attempt(),
                wakeup_handle: &claimed.wakeup_handle,
                receipt_json: &claimed.receipt_json,
                receipt_digest: &sha256_hex(claimed.receipt_json.as_bytes()),
                report_file: report_file.as_ref().map(ReportFile::path),
                deadline,
            },
            &mut |pgid| {
                // Recorded before anything is waited for, so a ticker that recovers this lease
                // after we die can end the group (the leader already dies with us).
                let fence = claimed.deferral.fence;
                if let Some(process) = process_group::describe(pgid, fence, run.now_ms()) {
                    if let Err(err) = run.store().record_launch_process(id, &process) {
                        crate::logs::message(
                            "warn",
                            "tick",
                            &format!("could not record the process group of {id}: {err}"),
                        );
                    }
                }
            },
        );
        // The report file first, stdout's last JSON line only when it is absent or empty;
        // the directory goes once read.
        let read = report_file
            .as_ref()
            .map_or(FileRead::Absent, ReportFile::read);
        drop(report_file);
        let report = Report::of(&read, &result.stdout);
        // The line reported teaches the pool and releases the admission (see `pools`).
        crate::pools::observe::attempt_ended(
            run.store(),
            id,
            run.attempt(),
            report.line.as_ref().map_or("", |(_, text)| text.as_str()),
            run.now_ms(),
        );
        run.record_outcome(exec_outcome::outcome_with(program, &result, &report))
    }
}
