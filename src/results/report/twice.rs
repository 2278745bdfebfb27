//! Documents issued twice: one seller's number of one kind accepted under two UUIDs in the
//! folder's result sets. The ledger of one state folder never issues a number again, so this is
//! two state folders (two devices) of one seller given the same export, and the authority holds
//! both documents: the most important thing a reconciliation can find.

use super::super::RowStatus;
use super::super::documents::DocumentRecord;
use super::Ctx;
use super::sets::SetFiles;
use std::collections::BTreeMap;

/// The seller's VAT number an issued document's XML file is named with (`VAT_DATE_NUMBER.xml`,
/// the authority's naming), or none.
fn seller_of(xml_file: &str) -> &str {
    let name = xml_file.rsplit(['/', '\\']).next().unwrap_or_default();
    match name.split_once('_') {
        Some((vat, _)) if !vat.is_empty() && vat.bytes().all(|b| b.is_ascii_digit()) => vat,
        _ => "",
    }
}

/// Seller, kind and number.
type Key<'a> = (&'a str, &'a str, &'a str);

/// A `twice` difference on every counted accepted document whose seller, kind and number another
/// counted accepted document of another UUID has (`counted[set][record]`).
pub(super) fn issued_twice(ctx: &mut Ctx<'_>, files: &[SetFiles], counted: &[Vec<bool>]) {
    let mut by_key: BTreeMap<Key<'_>, Vec<(&str, &DocumentRecord)>> = BTreeMap::new();
    for (f, c) in files.iter().zip(counted) {
        for (r, _) in f
            .records
            .iter()
            .flatten()
            .zip(c)
            .filter(|(r, counts)| **counts && r.status == RowStatus::Accepted && !r.uuid.is_empty())
        {
            by_key
                .entry((seller_of(&r.xml_file), r.kind.as_str(), r.document.as_str()))
                .or_default()
                .push((f.name.as_str(), r));
        }
    }
    for ((_, kind, number), issued) in by_key {
        let mut uuids: Vec<&str> = issued.iter().map(|(_, r)| r.uuid.as_str()).collect();
        uuids.sort_unstable();
        uuids.dedup();
        if uuids.len() < 2 {
            continue;
        }
        let each: Vec<String> = issued
            .iter()
            .map(|(set, r)| format!("{} in {set} ({})", r.uuid, r.xml_file))
            .collect();
        for (set, r) in &issued {
            let kind_text = if kind.is_empty() { "document" } else { kind };
            ctx.diff(
                set,
                number,
                &r.issue_date,
                "twice",
                format!(
                    "{number} ({kind_text}) was issued {} times, under {}: the authority holds each. Two state \
                     folders (two devices) of this seller were given it, and neither ledger knew of the other's. \
                     Cancel the extra ones with a credit note naming each (or as the authority advises), and keep \
                     one state folder per seller",
                    uuids.len(),
                    each.join(", ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seller_is_the_xml_files_first_part() {
        assert_eq!(
            seller_of("x/399999999900003_20261110T000000_INV-0102.xml"),
            "399999999900003"
        );
        assert_eq!(
            seller_of("399999999900003_20261110T000000_INV-0102.xml"),
            "399999999900003"
        );
        assert_eq!(seller_of("x/INV_1.xml"), "");
        assert_eq!(seller_of(""), "");
    }
}
