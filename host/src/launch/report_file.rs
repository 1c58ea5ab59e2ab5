//! The report channel of an `exec:` launch (DESIGN section 10, "A report channel"): before the
//! launch the host makes a fresh directory only its own user can enter (0700) and gives the
//! process `DEFERRAL_REPORT_FILE`, a path inside it. The `deferral` CLI's `gate` and `resume`
//! append their whole JSON line there as well as printing it, so a work script that prints a
//! line of its own last cannot hide it. When the attempt ends the host reads the file first:
//! at most [`MAX_REPORT`] bytes, opened without following a symlink, a regular file only; the
//! last line that reads as a gate or resume line ([`crate::pools::line::parse`]) wins. Only
//! when the file is absent or empty does the host fall back to stdout's last JSON line. The
//! directory is removed once read (or when the launch could not start).

use crate::pools::line::{self, GateLine};
use std::fs::{DirBuilder, File};
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The variable that names the file.
pub const REPORT_ENV: &str = "DEFERRAL_REPORT_FILE";

/// A report file larger than this is not read (a gate line is a few kilobytes).
pub const MAX_REPORT: u64 = 1 << 20;

/// Where the line the host learns from came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    ReportFile,
    Stdout,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::ReportFile => "report-file",
            Source::Stdout => "stdout",
        }
    }
}

/// What the report file held when the attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    /// Not there, or there and empty: stdout's last JSON line is read instead.
    Absent,
    /// The last gate or resume line in it, its text exactly as written.
    Line(String),
    /// There, but not usable (the reason): nothing is read from it, and not from stdout either.
    Unusable(String),
}

/// A fresh private directory holding one attempt's report file; removed when dropped.
#[derive(Debug)]
pub struct ReportFile {
    dir: PathBuf,
    path: PathBuf,
}

impl ReportFile {
    /// Makes the directory `deferral-report-ID-RANDOM` (mode 0700) under `base`; it must not
    /// exist yet, so a directory someone put there first is never used.
    pub fn create_in(base: &Path, deferral_id: &str) -> std::io::Result<ReportFile> {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(|e| std::io::Error::other(e.to_string()))?;
        let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let dir = base.join(format!("deferral-report-{deferral_id}-{suffix}"));
        DirBuilder::new().mode(0o700).create(&dir)?;
        let path = dir.join("report.jsonl");
        Ok(ReportFile { dir, path })
    }

    /// In the system's temporary directory.
    pub fn create(deferral_id: &str) -> std::io::Result<ReportFile> {
        ReportFile::create_in(&std::env::temp_dir(), deferral_id)
    }

    /// The path given to the process.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the file as the attempt left it (see the module docs).
    pub fn read(&self) -> FileRead {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&self.path);
        let file = match file {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FileRead::Absent,
            Err(e) => return FileRead::Unusable(format!("cannot be opened: {e}")),
        };
        read_open(file)
    }
}

impl Drop for ReportFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn read_open(file: File) -> FileRead {
    match file.metadata() {
        Ok(m) if !m.is_file() => return FileRead::Unusable("is not a regular file".into()),
        Ok(m) if m.len() > MAX_REPORT => {
            return FileRead::Unusable(format!("is larger than {MAX_REPORT} bytes"))
        }
        Ok(_) => {}
        Err(e) => return FileRead::Unusable(format!("cannot be read: {e}")),
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_REPORT + 1).read_to_end(&mut bytes) {
        return FileRead::Unusable(format!("cannot be read: {e}"));
    }
    if bytes.len() as u64 > MAX_REPORT {
        return FileRead::Unusable(format!("is larger than {MAX_REPORT} bytes"));
    }
    let text = String::from_utf8_lossy(&bytes);
    if text.trim().is_empty() {
        return FileRead::Absent;
    }
    match last_line(&text) {
        Some(line) => FileRead::Line(line.to_string()),
        None => FileRead::Unusable("holds no valid gate or resume line".into()),
    }
}

/// The last line of `text` that reads as a gate or resume line with valid figures.
fn last_line(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| matches!(line::parse(l), Ok(Some(_))))
}

/// What the host learned from an attempt: the line (if any), where from, and what the file
/// said when it was not used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub line: Option<(Source, String)>,
    /// Why the report file was not used, when it was there but unusable.
    pub unusable: Option<String>,
}

impl Report {
    /// The report file first; stdout's last gate or resume line only when the file is absent
    /// or empty (an unusable file reads as no line at all: the work may have printed its own).
    pub fn of(file: &FileRead, stdout: &str) -> Report {
        match file {
            FileRead::Line(text) => Report {
                line: Some((Source::ReportFile, text.clone())),
                unusable: None,
            },
            FileRead::Unusable(why) => Report {
                line: None,
                unusable: Some(why.clone()),
            },
            FileRead::Absent => Report {
                line: stdout
                    .lines()
                    .rev()
                    .map(str::trim)
                    .find(|l| l.starts_with('{'))
                    .filter(|l| matches!(line::parse(l), Ok(Some(_))))
                    .map(|l| (Source::Stdout, l.to_string())),
                unusable: None,
            },
        }
    }

    /// The line read, parsed.
    pub fn gate_line(&self) -> Option<GateLine> {
        let (_, text) = self.line.as_ref()?;
        line::parse(text).ok().flatten()
    }

    /// What the host read and from where, for the attempt's event: `report-file: resume
    /// ready, rest 45 of 45 (reserve 5) planned 10 reset 1800000000`, or why the file was not
    /// used; `None` when there was nothing to read.
    pub fn summary(&self) -> Option<String> {
        if let Some(why) = &self.unusable {
            return Some(format!("report-file {why}: no report read"));
        }
        let (source, text) = self.line.as_ref()?;
        let parsed = line::parse(text).ok().flatten()?;
        let mode = parsed.mode.as_deref().unwrap_or("gate");
        let mut out = format!("{}: {mode} {}", source.as_str(), parsed.status);
        for (resource, f) in parsed.figures() {
            out.push_str(&format!(
                ", {} {} of {} (reserve {}) planned {} reset {}",
                resource.as_str(),
                f.remaining,
                f.limit,
                f.reserve,
                f.planned_cost,
                f.reset
            ));
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const READY: &str = r#"{"status":"ready","mode":"resume","rest":{"limit":45,"remaining":45,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":true},"graphql":null}"#;
    const GATE: &str = r#"{"status":"ready","mode":"gate","rest":{"limit":45,"remaining":35,"reserve":5,"plannedCost":10,"reset":1800000000,"ok":true},"graphql":null}"#;

    #[test]
    fn the_directory_is_private_fresh_and_removed() {
        let base = tempfile::tempdir().unwrap();
        let report = ReportFile::create_in(base.path(), "d1").unwrap();
        let dir = report.path().parent().unwrap().to_path_buf();
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(report.read(), FileRead::Absent);
        drop(report);
        assert!(!dir.exists());
    }

    #[test]
    fn the_last_valid_line_wins_and_bad_files_are_not_read() {
        let base = tempfile::tempdir().unwrap();
        let report = ReportFile::create_in(base.path(), "d2").unwrap();
        std::fs::write(report.path(), "").unwrap();
        assert_eq!(report.read(), FileRead::Absent, "empty reads as absent");
        let bad = GATE.replace("\"plannedCost\":10", "\"plannedCost\":-1");
        std::fs::write(report.path(), format!("{READY}\n{GATE}\n{bad}\nnoise\n")).unwrap();
        assert_eq!(report.read(), FileRead::Line(GATE.into()));
        std::fs::write(report.path(), "{\"status\":\"complete\"}\n").unwrap();
        assert!(matches!(report.read(), FileRead::Unusable(_)));
        std::fs::remove_file(report.path()).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", report.path()).unwrap();
        assert!(
            matches!(report.read(), FileRead::Unusable(_)),
            "a symlink is not followed"
        );
        std::fs::remove_file(report.path()).unwrap();
        let big = format!("{READY}\n").repeat((MAX_REPORT as usize) / READY.len() + 1);
        std::fs::write(report.path(), big).unwrap();
        assert!(matches!(report.read(), FileRead::Unusable(why) if why.contains("larger")));
    }

    #[test]
    fn stdout_is_read_only_when_the_file_is_absent() {
        let stdout = format!("{READY}\n{{\"status\":\"complete\"}}\n");
        let from_file = Report::of(&FileRead::Line(READY.into()), &stdout);
        assert_eq!(from_file.line, Some((Source::ReportFile, READY.into())));
        assert_eq!(
            from_file.summary().unwrap(),
            "report-file: resume ready, rest 45 of 45 (reserve 5) planned 10 reset 1800000000"
        );
        assert_eq!(
            Report::of(&FileRead::Absent, &stdout).line,
            None,
            "stdout's last JSON line is the work's own: nothing is learned"
        );
        let printed = Report::of(&FileRead::Absent, &format!("{GATE}\n"));
        assert_eq!(printed.line, Some((Source::Stdout, GATE.into())));
        let unusable = Report::of(
            &FileRead::Unusable("is too big".into()),
            &format!("{GATE}\n"),
        );
        assert_eq!(unusable.line, None);
        assert_eq!(
            unusable.summary().unwrap(),
            "report-file is too big: no report read"
        );
    }
}
