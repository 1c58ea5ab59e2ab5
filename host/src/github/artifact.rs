//! Reads a `deferred-receipt` artifact: a zip holding exactly one entry, a file (the receipt).
//! Every entry counts, whatever its kind: a directory, or an entry the reader cannot open
//! (flagged encrypted, an unknown compression method), next to the receipt makes the zip
//! unreadable as an artifact; the receipt is never picked out of a longer zip.
//! Sizes are bounded: the zip by the download limit, the file by [`MAX_RECEIPT_BYTES`] however
//! large the zip says it is.

use sha2::{Digest, Sha256};
use std::io::{Cursor, Read};

/// Checks the downloaded zip against the artifact's REST `digest` (`sha256:HEX`) before it is
/// opened: a mismatch means the bytes are not the ones uploaded. No digest (an artifact of
/// upload-artifact v3 or older, an older server) or another algorithm: nothing to check.
pub fn check_digest(digest: Option<&str>, zip_bytes: &[u8]) -> Result<(), String> {
    let Some(stated) = digest else { return Ok(()) };
    let Some(hex) = stated.strip_prefix("sha256:") else {
        return Ok(());
    };
    let actual: String = Sha256::digest(zip_bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if hex.eq_ignore_ascii_case(&actual) {
        Ok(())
    } else {
        Err(format!(
            "the downloaded zip's sha256 is {actual}, not the artifact's digest {stated:?}"
        ))
    }
}

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

#[cfg(test)]
mod tests {
    use super::check_digest;

    #[test]
    fn a_digest_is_checked_before_the_zip_is_opened() {
        // sha256("abc"), the FIPS 180-2 example.
        let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(check_digest(Some(abc), b"abc"), Ok(()));
        assert_eq!(
            check_digest(
                Some(&abc.to_uppercase().replace("SHA256", "sha256")),
                b"abc"
            ),
            Ok(())
        );
        let err = check_digest(Some(abc), b"abd").unwrap_err();
        assert!(err.contains("not the artifact's digest"), "{err}");
        assert_eq!(check_digest(None, b"abd"), Ok(()));
        assert_eq!(check_digest(Some("md5:00"), b"abd"), Ok(()));
        assert!(check_digest(Some("sha256:"), b"abd").is_err());
    }
}
