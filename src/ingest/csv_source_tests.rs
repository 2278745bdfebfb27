//! Tests of `csv_source.rs`.
use super::open::only_bom;

#[test]
fn a_byte_order_mark_alone_is_said_as_such() {
    let utf8 = "it holds only a byte-order mark (the 3 bytes that mark UTF-8 text)";
    assert_eq!(
        only_bom(b"\xef\xbb\xbf"),
        Some(format!("{utf8}, no header and no rows"))
    );
    assert_eq!(
        only_bom(b"\xef\xbb\xbf \r\n\t\n"),
        Some(format!("{utf8} and blank lines, no header and no rows"))
    );
    assert!(only_bom(b"\xfe\xff\0\n").is_some_and(|d| d.contains("UTF-16 text) and blank lines")));
    assert_eq!(only_bom(b"\xef\xbb\xbfa"), None);
    assert_eq!(only_bom(b"\xff\xfea\0"), None);
    assert_eq!(only_bom(b"\xff\xfe\n"), None, "an odd byte is not UTF-16 text");
    assert_eq!(only_bom(b" \n"), None);
}
