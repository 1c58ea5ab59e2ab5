//! What a file that SQLite says is not a database is instead, for the refusal
//! (`foreign-store`): a text file or another program's data given as `--store` is named for
//! what it is, not reported as an I/O failure that reads as transient.
//!
//! The file is read only after SQLite refused it: opening and closing a descriptor of a
//! database file would drop every POSIX lock this process holds on it through SQLite's other
//! connections (as `serve` holds), so a store is never read this way.

use crate::store::StoreError;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// How many of the first bytes a refusal quotes.
const QUOTED: usize = 24;

/// The refusal of `path`, which SQLite found is not a database.
pub(super) fn not_a_database(path: &Path) -> StoreError {
    let mut head = Vec::with_capacity(64);
    let size = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .and_then(|file| {
            let size = file.metadata()?.len();
            file.take(64).read_to_end(&mut head)?;
            Ok(size)
        });
    let what = match size {
        Ok(size) => describe(&head, size),
        Err(err) => format!("a file that cannot be read ({err})"),
    };
    StoreError::Foreign(format!(
        "{} is not a SQLite database: {what}; deferral-host leaves it as it is (give another --store path)",
        path.display()
    ))
}

/// "a 21-byte text file starting \"shopping: eggs...\"" or "a 4096-byte binary file".
fn describe(head: &[u8], size: u64) -> String {
    let text = std::str::from_utf8(head).ok().filter(|t| {
        t.chars()
            .all(|c| !c.is_control() || c == '\n' || c == '\t' || c == '\r')
    });
    match text {
        Some(text) => {
            let quoted: String = text
                .chars()
                .take(QUOTED)
                .collect::<String>()
                .escape_debug()
                .to_string();
            let more = if text.chars().count() > QUOTED {
                "..."
            } else {
                ""
            };
            format!("a {size}-byte text file starting \"{quoted}{more}\"")
        }
        None => format!("a {size}-byte binary file whose first bytes are not SQLite's header"),
    }
}
