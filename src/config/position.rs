//! Where a mistake in `invoicedrop.toml` is, and toml's message about it reworded to name the key
//! the way the file writes it (`[seller] building_number: expected a string, found an integer`).

use super::seller::SELLER_KEYS;
use crate::mapping::headers::closest;

/// `:line:column` (both from 1, the column in characters) of a byte offset of `text`.
pub(super) fn location(text: &str, offset: usize) -> String {
    let (line, column) = crate::text::line_column(text, offset);
    format!(":{line}:{column}")
}

/// A key as the file writes it: `[seller] building_number`, `[seller]`, `lookups_dir`.
fn label(keys: &[String]) -> Option<String> {
    match keys {
        [] => None,
        [one] if one == "seller" => Some("[seller]".into()),
        [one] => Some(one.clone()),
        [table, rest @ ..] => Some(format!("[{table}] {}", rest.join("."))),
    }
}

/// The names serde gives types, as a user would call them.
fn plain(expected: &str) -> String {
    expected
        .replace("struct SellerConfig", "a table ([seller] with name = \"...\", ...)")
        .replace("path string", "a string (a folder)")
}

/// toml's message, reworded: what was expected first, then what was found, and for an unknown
/// key of `[seller]`, the closest known one.
fn reword(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        // "integer `1234`", "string \"x\"", "floating point `1.5`": the kind, without the value.
        let cut = [" `", " \""].iter().filter_map(|q| found.find(q)).min();
        let found = cut.map_or(found, |i| &found[..i]);
        let article = if found.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return format!("expected {}, found {article} {found}", plain(expected));
    }
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, _)) = rest.split_once('`')
        && let Some(c) = closest(field, SELLER_KEYS)
    {
        return format!("{message}; did you mean `{c}`?");
    }
    message.to_string()
}

/// The byte offset (when toml gives one) and the message of a toml error: the key, and what
/// was expected.
pub(super) fn describe(e: &toml::de::Error) -> (Option<usize>, String) {
    let offset = e.span().map(|s| s.start);
    let message = reword(e.message());
    let message = match label(&crate::mapping::toml_error_keys(e)) {
        Some(key) => format!("{key}: {message}"),
        None => message,
    };
    (offset, message)
}
