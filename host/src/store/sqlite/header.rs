//! Is an existing file a SQLite database at all? Read before SQLite opens it, so a text file or
//! another program's data given as `--store` is refused for what it is (`foreign-store`), not
//! reported as an I/O failure that reads as transient. An empty file is a store not yet made.

use crate::store::StoreError;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Every SQLite database file starts with these 16 bytes.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// How many of the first bytes a refusal quotes.
const QUOTED: usize = 24;

pub(super) fn check_header(path: &Path) -> Result<(), StoreError> {
    let cannot = |err: std::io::Error| {
        StoreError::Backend(format!("cannot read {}: {err}", path.display()))
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    let mut head = Vec::with_capacity(64);
    (&mut file).take(64).read_to_end(&mut head).map_err(cannot)?;
    if head.is_empty() || head.starts_with(MAGIC) {
        return Ok(());
    }
    Err(StoreError::Foreign(format!(
        "{} is not a SQLite database: {}; deferral-host leaves it as it is (give another --store path)",
        path.display(),
        describe(&head, size)
    )))
}

/// "a 21-byte text file starting \"shopping: eggs...\"" or "a 4096-byte binary file".
fn describe(head: &[u8], size: u64) -> String {
    let text = std::str::from_utf8(head)
        .ok()
        .filter(|t| t.chars().all(|c| !c.is_control() || c == '\n' || c == '\t' || c == '\r'));
    match text {
        Some(text) => {
            let quoted: String = text.chars().take(QUOTED).collect::<String>().escape_debug().to_string();
            let more = if text.chars().count() > QUOTED { "..." } else { "" };
            format!("a {size}-byte text file starting \"{quoted}{more}\"")
        }
        None => format!("a {size}-byte binary file whose first bytes are not SQLite's header"),
    }
}
