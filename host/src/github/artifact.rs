//! Reads a `deferred-receipt` artifact: a zip holding exactly one entry, a file (the receipt).
//! Every entry counts, whatever its kind: a directory, or an entry the reader cannot open
//! (flagged encrypted, an unknown compression method), next to the receipt makes the zip
//! unreadable as an artifact; the receipt is never picked out of a longer zip.
//! Sizes are bounded: the zip by the download limit, the file by [`MAX_RECEIPT_BYTES`] however
//! large the zip says it is.

use std::io::{Cursor, Read};

/// Largest receipt file read from an artifact.
pub const MAX_RECEIPT_BYTES: u64 = 64 * 1024;

/// The text of the one JSON file in the zip, or why it cannot be read.
pub fn receipt_text(zip_bytes: &[u8]) -> Result<String, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip_bytes))
        .map_err(|e| format!("the artifact is not a readable zip: {e}"))?;
    if archive.len() != 1 {
        return Err(format!(
            "the artifact holds {} entries; a deferred-receipt artifact holds exactly one JSON file",
            archive.len()
        ));
    }
    let file = archive
        .by_index(0)
        .map_err(|e| format!("cannot open the file in the artifact: {e}"))?;
    if !file.is_file() {
        return Err(
            "the artifact's one entry is not a file; a deferred-receipt artifact holds exactly one JSON file"
                .to_string(),
        );
    }
    let mut bytes = Vec::new();
    file.take(MAX_RECEIPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file in the artifact: {e}"))?;
    if bytes.len() as u64 > MAX_RECEIPT_BYTES {
        return Err(format!(
            "the receipt file is larger than {MAX_RECEIPT_BYTES} bytes"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "the receipt file is not UTF-8".to_string())
}
