//! A command's input: a file, or standard input for `-`, read up to 1 MiB.

use crate::error::{HostError, HostErrorKind};
use std::io::Read;

/// The bytes of `source` (`-`: standard input), at most 1 MiB; `unreadable-input` when it
/// cannot be read.
pub(super) fn read_input(source: &str) -> Result<Vec<u8>, HostError> {
    let mut bytes = Vec::new();
    let limit = 1 << 20;
    let result = if source == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(source).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    result.map_err(|e| {
        HostError::new(
            HostErrorKind::UnreadableInput,
            format!("cannot read {source}: {e}"),
        )
    })?;
    Ok(bytes)
}
