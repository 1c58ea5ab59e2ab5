//! The append-only receipts, for every SQL backend: appended with their SHA-256, read back
//! checked against it (see `store::verify_receipt`).

use super::super::{verify_receipt, NewReceipt, StoreError, StoredReceipt};
use super::{args, query_all, query_opt, rows, to_i64, SqlConn};
use deferral_core::digest::sha256_hex;

/// Appends `receipts` to deferral `id`, in order; the `seq` of the last one (0 for none).
pub fn append(
    conn: &mut dyn SqlConn,
    id: &str,
    receipts: &[NewReceipt],
    at_ms: u64,
) -> Result<u64, StoreError> {
    let mut last = 0;
    for receipt in receipts {
        last = conn.insert_seq(
            "INSERT INTO receipts (deferral_id, kind, receipt, sha256, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            args![
                id,
                &receipt.kind,
                &receipt.text,
                sha256_hex(receipt.text.as_bytes()).as_str(),
                to_i64(at_ms)
            ],
        )?;
    }
    Ok(last)
}

/// Every receipt of `id`, oldest first, each checked.
pub fn all(conn: &mut dyn SqlConn, id: &str) -> Result<Vec<StoredReceipt>, StoreError> {
    let sql = format!(
        "SELECT {} FROM receipts WHERE deferral_id = ?1 ORDER BY seq",
        rows::RECEIPT_COLUMNS
    );
    query_all(conn, &sql, args![id], rows::receipt)?
        .into_iter()
        .map(verify_receipt)
        .collect()
}

/// The current receipt of `id`, checked; `NotFound` when there is none.
pub fn current(conn: &mut dyn SqlConn, id: &str) -> Result<StoredReceipt, StoreError> {
    query_opt(
        conn,
        "SELECT r.seq, r.deferral_id, r.kind, r.receipt, r.sha256, r.created_ms FROM receipts r \
         JOIN deferrals d ON d.id = r.deferral_id AND d.receipt_seq = r.seq WHERE d.id = ?1",
        args![id],
        rows::receipt,
    )?
    .ok_or_else(|| StoreError::NotFound(id.to_string()))
    .and_then(verify_receipt)
}
