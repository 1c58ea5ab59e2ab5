//! Is an `exec:` target's program there? Checked where a target is given (`record`, `serve`,
//! `retry`), so a typo in the path is refused at the door instead of blocking the deferral at
//! its due time. `--no-check` skips it for a target that lives on another ticker's machine.
//!
//! The same causes as a launch that cannot start (`launch-not-found`, `launch-not-executable`),
//! exit 2. The `exec` kind's [`super::Launcher::check_installed`].

use crate::error::{HostError, HostErrorKind};
use std::path::Path;

/// Refuses an `exec:` target's program when it (or its `#!` interpreter) is missing or cannot
/// be executed by this user on this machine.
pub fn check_installed(program: &str) -> Result<(), HostError> {
    check_program(program, "program")?;
    if let Some(interpreter) = interpreter_of(Path::new(program)) {
        check_program(&interpreter, "interpreter (its #! line)").map_err(|e| HostError {
            message: format!("{} of {program}", e.message),
            ..e
        })?;
    }
    Ok(())
}

const HINT: &str =
    "fix the path, or give --no-check if the program lives on the machine that runs tick";

fn check_program(path: &str, what: &str) -> Result<(), HostError> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(HostError::new(
                HostErrorKind::LaunchNotFound,
                format!("the launch {what} {path} does not exist on this machine; {HINT}"),
            ))
        }
        Err(err) => {
            return Err(HostError::new(
                HostErrorKind::LaunchNotExecutable,
                format!("the launch {what} {path} cannot be read ({err}); {HINT}"),
            ))
        }
    };
    let not_a_program = not_a_program(&metadata);
    if not_a_program.is_some() || !executable(path) {
        let kind = not_a_program.unwrap_or("is not executable (chmod +x it)");
        return Err(HostError::new(
            HostErrorKind::LaunchNotExecutable,
            format!("the launch {what} {path} {kind}; {HINT}"),
        ));
    }
    Ok(())
}

/// Why a file cannot be a program: only a regular file can (a FIFO with the x bit would block
/// whoever opens it to read its `#!` line until a writer came).
fn not_a_program(metadata: &std::fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = metadata.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("is a directory")
    } else if t.is_fifo() {
        Some("is a FIFO, not a program")
    } else if t.is_socket() {
        Some("is a socket, not a program")
    } else {
        Some("is a device, not a program")
    }
}

#[cfg(unix)]
fn executable(path: &str) -> bool {
    let Ok(c_path) = std::ffi::CString::new(path) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path; access(2) only reads it.
    unsafe { libc::access(c_path.as_ptr(), libc::X_OK) == 0 }
}

#[cfg(not(unix))]
fn executable(_path: &str) -> bool {
    true
}

/// The interpreter a `#!` line names, when the file starts with one and names an absolute path.
/// Opened without blocking and read only when the open file is a regular file (it may have been
/// swapped for a FIFO since it was checked).
fn interpreter_of(program: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(program)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 256];
    let n = file.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim();
    let interpreter = line.split_whitespace().next()?;
    interpreter
        .starts_with('/')
        .then(|| interpreter.to_string())
}
