//! Reads a `deferred-receipt` artifact: a zip holding exactly one JSON file (the receipt).
//! Sizes are bounded: the zip by the download limit, the file by [`MAX_RECEIPT_BYTES`] however
//! large the zip says it is.

use std::io::{Cursor, Read};

/// Largest receipt file read from an artifact.
pub const MAX_RECEIPT_BYTES: u64 = 64 * 1024;

/// The text of the one JSON file in the zip, or why it cannot be read.
pub fn receipt_text(zip_bytes: &[u8]) -> Result<String, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip_bytes))
        .map_err(|e| format!("the artifact is not a readable zip: {e}"))?;
    let files: Vec<usize> = (0..archive.len())
        .filter(|&i| archive.by_index(i).is_ok_and(|f| f.is_file()))
        .collect();
    let [index] = files[..] else {
        return Err(format!(
            "the artifact holds {} files; a deferred-receipt artifact holds exactly one JSON file",
            files.len()
        ));
    };
    let file = archive
        .by_index(index)
        .map_err(|e| format!("cannot open the file in the artifact: {e}"))?;
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
