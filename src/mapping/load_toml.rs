//! A mapping file's TOML mistakes as load errors: where (the key, with its line and column, or
//! only the line and column of a syntax error), what is wrong, and what to do. toml and serde say
//! "expected ..." in their own words; these say it the way the rest of a mapping's errors do.

use super::MappingError;
use super::compiled::Origin;
use super::headers::closest;

/// A mapping error: `mapping FILE: KEY: PROBLEM` (the problem says what is wrong, then what to do).
pub(super) fn invalid(origin: &Origin, key: impl Into<String>, problem: impl Into<String>) -> MappingError {
    MappingError::Invalid {
        mapping: origin.to_string(),
        key: key.into(),
        problem: problem.into(),
    }
}

/// `line 10, column 22` (both from 1, the column in characters) of a byte offset of `text`.
fn position(text: &str, offset: usize) -> String {
    let (line, column) = crate::text::line_column(text, offset);
    format!("line {line}, column {column}")
}

/// Check the text's TOML syntax (duplicate keys included) before it is read as a mapping.
pub(super) fn syntax(text: &str, origin: &Origin) -> Result<(), MappingError> {
    match toml::de::DeTable::parse(text) {
        Ok(_) => Ok(()),
        Err(e) => Err(syntax_error(text, origin, &e)),
    }
}

fn syntax_error(text: &str, origin: &Origin, e: &toml::de::Error) -> MappingError {
    let span = e.span().filter(|s| s.start <= s.end && text.get(s.clone()).is_some());
    let at = span
        .as_ref()
        .map_or_else(|| "file".to_string(), |s| position(text, s.start));
    if e.message().starts_with("duplicate key")
        && let Some(span) = span
    {
        return duplicate(text, origin, span, &at);
    }
    invalid(
        origin,
        at,
        format!(
            "TOML syntax error: {}; correct the TOML there (one key = value a line, text in double quotes: \
             number = \"Invoice No\"; see mappings/README.md)",
            e.message()
        ),
    )
}

/// A key given twice in one table: its path, where, and where it was given first.
fn duplicate(text: &str, origin: &Origin, span: std::ops::Range<usize>, at: &str) -> MappingError {
    let key = text[span.clone()].trim();
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..span.start];
    if line.trim_start().starts_with('[') {
        return invalid(
            origin,
            format!("[{key}] ({at})"),
            format!("duplicate table: [{key}] is already given above; put its keys under one [{key}]"),
        );
    }
    let (table, table_start) = table_at(text, line_start);
    let parents = inline_parents(line);
    // A field is written `fields."issue_date"`, as the other errors about fields write it.
    let mut path: Vec<String> = table.iter().map(|t| t.to_string()).collect();
    for (i, k) in parents.iter().map(String::as_str).chain([key]).enumerate() {
        let field = i == 0 && table == Some("fields") && !k.starts_with(['"', '\'']);
        path.push(if field { format!("{k:?}") } else { k.to_string() });
    }
    let earlier = if parents.is_empty() {
        first_line_of(text, table_start, line_start, key)
            .map(|n| format!(" on line {n}"))
            .unwrap_or_default()
    } else {
        String::new()
    };
    let within = match (table, parents.last()) {
        (_, Some(p)) => format!(" in {p} = {{ ... }}"),
        (Some(t), None) => format!(" in [{t}]"),
        (None, None) => String::new(),
    };
    invalid(
        origin,
        format!("{} ({at})", path.join(".")),
        format!("duplicate key: {key} is already given{earlier}{within}; keep one of them"),
    )
}

/// The `[table]` (or `[[table]]`) whose keys the line at `before` is among, and where its header
/// line ends (the start of the file when there is none).
fn table_at(text: &str, before: usize) -> (Option<&str>, usize) {
    let mut found = (None, 0);
    let mut start = 0;
    for line in text[..before].split_inclusive('\n') {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('[')
            && let Some(end) = rest.find(']')
        {
            found = (Some(rest[..end].trim_start_matches('[').trim()), start + line.len());
        }
        start += line.len();
    }
    found
}

/// The keys of the inline tables open at the end of `line` (`kind = { map = { "A" = ...` gives
/// `kind`, `map`).
fn inline_parents(line: &str) -> Vec<String> {
    let mut parents = Vec::new();
    let mut segment = String::new();
    let mut pending: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        if let Some(q) = quote {
            segment.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' && q == '"' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                segment.push(c);
            }
            '=' => {
                pending = Some(segment.trim().to_string());
                segment.clear();
            }
            '{' => {
                parents.push(pending.take().unwrap_or_default());
                segment.clear();
            }
            '}' => {
                parents.pop();
                segment.clear();
            }
            ',' => segment.clear(),
            c => segment.push(c),
        }
    }
    parents
}

/// The number of the first line of `text[from..to]` that sets `key` (`key = ...`).
fn first_line_of(text: &str, from: usize, to: usize, key: &str) -> Option<usize> {
    let first = text[..from].matches('\n').count() + 1;
    text[from..to.max(from)].lines().enumerate().find_map(|(i, l)| {
        let rest = l.trim_start().strip_prefix(key)?;
        rest.trim_start().starts_with('=').then_some(first + i)
    })
}

/// A toml error met reading the (syntactically valid) text as a mapping: an unknown key, a
/// missing one, a value of the wrong type. `within` is the key the value read was found at (a
/// field's table, `fields."number"`), empty for the whole file; `text` gives the line and column
/// when toml knows them.
pub(super) fn read_error(origin: &Origin, text: Option<&str>, within: &str, e: &toml::de::Error) -> MappingError {
    let mut path: Vec<String> = if within.is_empty() {
        Vec::new()
    } else {
        vec![within.to_string()]
    };
    path.extend(keys(e));
    let (problem, key) = reword(e.message());
    path.extend(key);
    let at = text
        .zip(e.span())
        .map(|(t, s)| format!(" ({})", position(t, s.start)))
        .unwrap_or_default();
    let key = if path.is_empty() {
        "file".to_string()
    } else {
        path.join(".")
    };
    invalid(origin, format!("{key}{at}"), problem)
}

/// The keys leading to the value a toml error is about (`["input", "header_row"]`). toml says
/// them only in its text, and only when it has no input to quote.
pub(crate) fn keys(e: &toml::de::Error) -> Vec<String> {
    let mut bare = e.clone();
    bare.set_input(None);
    bare.to_string()
        .lines()
        .find_map(|l| l.strip_prefix("in `").and_then(|l| l.strip_suffix('`')))
        .map(|k| k.split('.').map(str::to_string).collect())
        .unwrap_or_default()
}

/// The names `a`, `b` of serde's "one of `a`, `b`" (or "`a`").
fn names(list: &str) -> Vec<&str> {
    list.trim_start_matches("one of ")
        .split(", ")
        .map(|n| n.trim_matches('`'))
        .filter(|n| !n.is_empty())
        .collect()
}

/// What serde names a type, as a mapping's reader would call it.
fn plain(expected: &str) -> String {
    let e = expected.trim();
    if e.starts_with("struct ") || e == "a map" {
        return "a table (key = value pairs, or [section] lines)".into();
    }
    match e {
        "usize" | "u64" | "u32" => "a whole number (1 or more), without quotes".into(),
        "a boolean" => "true or false, without quotes".into(),
        "a string" => "a text in double quotes".into(),
        "a sequence" => "a list in brackets: [\"...\", \"...\"]".into(),
        other => other.to_string(),
    }
}

/// serde's message as what is wrong and what to do, and the key it is about when the message
/// names one that the key path does not hold (an unknown or missing key).
fn reword(message: &str) -> (String, Option<String>) {
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((key, expected)) = rest.split_once('`')
    {
        let valid = names(expected.trim_start_matches(", expected "));
        let problem = if expected.contains("there are no fields") || valid.is_empty() {
            "unknown key; remove it (this table has no keys)".to_string()
        } else {
            let hint = closest(key, valid.iter().copied())
                .map(|c| format!("did you mean {c:?}? "))
                .unwrap_or_default();
            format!("unknown key; {hint}the keys here are {}", valid.join(", "))
        };
        return (problem, Some(key.to_string()));
    }
    if let Some(rest) = message.strip_prefix("missing field `")
        && let Some((key, _)) = rest.split_once('`')
    {
        return (
            format!("missing; add {key} = ... (see mappings/README.md)"),
            Some(key.to_string()),
        );
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((found, expected)) = rest.split_once(", expected ")
        {
            return (format!("{found} is not allowed here; write {}", plain(expected)), None);
        }
    }
    if message.contains("did not match any variant of untagged enum OneOrMany") {
        return (
            "not a text or a list of texts; write \"...\" or [\"...\", \"...\"]".into(),
            None,
        );
    }
    (
        format!("{message}; see mappings/README.md for what this key takes"),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> String {
        crate::mapping::Mapping::from_toml(text, Origin::File("m.toml".into()))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_syntax_error_says_so_with_its_line_and_column() {
        let e = load("[fields]\nnumber = \"No\nissue_date = \"D\"\n");
        assert!(
            e.starts_with("mapping m.toml: line 2, column 13: TOML syntax error: "),
            "{e}"
        );
        assert!(
            !e.contains("expected invalid") && e.contains("; correct the TOML there"),
            "{e}"
        );
    }

    #[test]
    fn a_duplicate_key_is_named_with_where_it_was_first_given() {
        let e = load("[input]\ndelimiter = \";\"\n[fields]\nnumber = \"No\"\nissue_date = \"D\"\nissue_date = \"E\"\n");
        assert_eq!(
            e,
            "mapping m.toml: fields.\"issue_date\" (line 6, column 1): duplicate key: issue_date is already given on \
             line 5 in [fields]; keep one of them"
        );
        let e = load("[fields]\nkind = { column = \"K\", map = { \"A\" = \"invoice\", \"A\" = \"credit_note\" } }\n");
        assert!(
            e.starts_with(
                "mapping m.toml: fields.\"kind\".map.\"A\" (line 2, column 49): duplicate key: \"A\" is already \
                           given in map = { ... }; keep one of them"
            ),
            "{e}"
        );
        let e = load("[input]\n[fields]\n[input]\n");
        assert!(e.contains("[input] (line 3, column 2): duplicate table"), "{e}");
    }

    #[test]
    fn an_unknown_key_is_named_with_the_closest_and_the_valid_ones() {
        let e = load("[input]\ndelimeter = \";\"\n");
        assert_eq!(
            e,
            "mapping m.toml: input.delimeter (line 2, column 1): unknown key; did you mean \"delimiter\"? the keys here \
             are encoding, delimiter, sheet, header_row, header_rows"
        );
        let e = load("[fields]\nnumber = { colum = \"No\" }\n");
        assert!(
            e.starts_with("mapping m.toml: fields.\"number\".colum: unknown key; did you mean \"column\"? the keys here are column, value"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_key_and_a_wrong_type_say_what_to_write() {
        let e = load("[[skip]]\ncolumn = \"Status\"\n");
        assert!(e.starts_with("mapping m.toml: skip.equals"), "{e}");
        assert!(e.contains(": missing; add equals = ..."), "{e}");
        let e = load("[defaults]\ndecimal_comma = \"yes\"\n");
        assert_eq!(
            e,
            "mapping m.toml: defaults.decimal_comma (line 2, column 17): string \"yes\" is not allowed here; write true \
             or false, without quotes"
        );
    }
}
