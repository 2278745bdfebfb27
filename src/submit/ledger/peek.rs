//! A look at a ledger file from outside: which device it records, without the lock and without
//! creating or changing anything (the state folder's owner is decided before anything starts).

use super::LedgerError;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::path::Path;
use std::time::Duration;

/// The device a ledger file records, looked at without locking, creating or changing anything
/// (`None` when the file is not there): the remembered onboard_id, else the device onboarded
/// last, else the device of the document written last (a folder used only through
/// `INVOICEDROP_ONBOARD_ID`). A file that holds none of these (no table yet, none filled) records
/// no device.
pub(super) fn recorded_device(path: &Path) -> Result<Option<String>, LedgerError> {
    let open_err = |e: rusqlite::Error| LedgerError::Open {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    match std::fs::metadata(path) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(LedgerError::Open {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
        }
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(open_err)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(open_err)?;
    let has_table = |name: &str| -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
            params![name],
            |r| r.get(0),
        )
    };
    let queries = [
        ("meta", "SELECT value FROM meta WHERE key = 'onboard_id'"),
        (
            "devices",
            "SELECT onboard_id FROM devices ORDER BY onboarded_at DESC LIMIT 1",
        ),
        (
            "documents",
            "SELECT onboard_id FROM documents ORDER BY updated_at DESC LIMIT 1",
        ),
    ];
    for (table, sql) in queries {
        if !has_table(table).map_err(open_err)? {
            continue;
        }
        let id: Option<String> = conn.query_row(sql, [], |r| r.get(0)).optional().map_err(open_err)?;
        if let Some(id) = id.filter(|id| !id.trim().is_empty()) {
            return Ok(Some(id));
        }
    }
    Ok(None)
}
