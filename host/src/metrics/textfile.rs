//! Writes a metrics file for node_exporter's textfile collector atomically: the text goes to a
//! temporary file in the same directory (named `.NAME.PID.tmp`, which the collector, reading
//! only `*.prom`, never picks up), is flushed to disk, made 0644 (metrics hold no secret), and
//! renamed over `path`. A reader sees the old file or the new one, never a part.

use crate::error::{HostError, HostErrorKind};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub fn write_atomically(path: &Path, text: &str) -> Result<(), HostError> {
    let failed = |what: &str, err: std::io::Error| {
        HostError::new(
            HostErrorKind::UnwritableMetricsFile,
            format!("cannot {what} the metrics file {}: {err}", path.display()),
        )
    };
    let name = path.file_name().ok_or_else(|| {
        HostError::new(
            HostErrorKind::UnwritableMetricsFile,
            format!("--metrics-file {} names no file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let temp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.set_permissions(std::fs::Permissions::from_mode(0o644))?;
        file.sync_all()
    })();
    if let Err(err) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(failed("write", err));
    }
    std::fs::rename(&temp, path).map_err(|err| {
        let _ = std::fs::remove_file(&temp);
        failed("replace", err)
    })
}
