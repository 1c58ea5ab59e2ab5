//! Writes a metrics file for node_exporter's textfile collector atomically, through
//! [`crate::replace_file`]: a new file with a random hidden name (`.NAME.RANDOM.tmp`, which the
//! collector, reading only `*.prom`, never picks up) in the same folder, created exclusively so
//! that a link planted there is never written through, flushed, made 0644 (metrics hold no
//! secret) and renamed over `path`. A reader sees the old file or the new one, never a part.

use crate::error::{HostError, HostErrorKind};
use crate::replace_file::{replace_file, ReplaceError};
use std::path::Path;

pub fn write_atomically(path: &Path, text: &str) -> Result<(), HostError> {
    replace_file(path, text.as_bytes(), 0o644).map_err(|err| {
        let message = match err {
            ReplaceError::NoFileName => format!("--metrics-file {} names no file", path.display()),
            ReplaceError::Io(err) => {
                format!("cannot write the metrics file {}: {err}", path.display())
            }
        };
        HostError::new(HostErrorKind::UnwritableMetricsFile, message)
    })
}
