//! Tests of [`super`]: start lines, fields, limits, and the plain-line path against the parser.

use super::*;

fn read_all(data: &[u8], delim: u8) -> Vec<(u64, Vec<String>)> {
    let mut r = RecordReader::new(data, delim);
    let mut rec = Record::default();
    let mut out = Vec::new();
    while r.read(&mut rec).ok() == Some(Outcome::Record) {
        let fields = (0..rec.len())
            .map(|i| String::from_utf8_lossy(rec.field(i)).into_owned())
            .collect();
        out.push((rec.line(), fields));
    }
    out
}

fn lines(data: &[u8]) -> Vec<u64> {
    read_all(data, b',').into_iter().map(|(l, _)| l).collect()
}

#[test]
fn start_lines_lf_crlf_blank_and_embedded_newlines() {
    assert_eq!(lines(b"a,b\nc,d\ne,f"), vec![1, 2, 3]);
    assert_eq!(lines(b"a,b\r\nc,d\r\ne,f\r\n"), vec![1, 2, 3]);
    assert_eq!(lines(b"a,b\n\n\nc,d\n"), vec![1, 4]);
    assert_eq!(lines(b"a,b\r\n\r\n\r\nc,d\r\n"), vec![1, 4]);
    assert_eq!(lines(b"\n\na,b\n\"x\ny\",z\nq,r\n"), vec![3, 4, 6]);
    assert_eq!(lines(b"a,b\r\n\"x\r\ny\r\n\",z\r\nq,r\r\n"), vec![1, 2, 5]);
}

#[test]
fn a_lone_carriage_return_ends_a_line() {
    assert_eq!(lines(b"a,b\rc,d\r\re,f\r"), vec![1, 2, 4]);
    assert_eq!(lines(b"a,b\r\nc,d\re,f\n\ng,h"), vec![1, 2, 3, 5]);
    assert_eq!(lines(b"\"x\ry\",z\rq,r"), vec![1, 3]);
    // Cut anywhere by a small buffer, a `\r\n` is still one break.
    for capacity in 1..8 {
        let mut r = RecordReader::new(
            std::io::BufReader::with_capacity(capacity, &b"a\r\nb\r\r\nc\r"[..]),
            b',',
        );
        let mut rec = Record::default();
        let mut starts = Vec::new();
        while r.read(&mut rec).ok() == Some(Outcome::Record) {
            starts.push(rec.line());
        }
        assert_eq!((starts, r.lines_seen()), (vec![1, 2, 4], 4), "buffer of {capacity}");
    }
}

#[test]
fn fields_quotes_and_trailing_delimiters() {
    let recs = read_all(b"a;\"b;c\";\"d \"\"q\"\"\";\n1;2;;\n", b';');
    assert_eq!(recs[0].1, vec!["a", "b;c", "d \"q\"", ""]);
    assert_eq!(recs[1].1, vec!["1", "2", "", ""]);
}

#[test]
fn long_records_grow_the_buffer() {
    let long = "x".repeat(100_000);
    let data = format!("{long},{long}\nb\n");
    let recs = read_all(data.as_bytes(), b',');
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].1[1].len(), 100_000);
    assert_eq!(recs[1], (2, vec!["b".to_owned()]));
}

#[test]
fn too_long_records_are_skipped_with_bounded_memory() {
    let data = format!("a,b\n\"{}\n", "x".repeat(10_000));
    let mut r = RecordReader::new(data.as_bytes(), b',').with_limits(2048, 64);
    let mut rec = Record::default();
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::TooLong));
    assert_eq!(rec.line(), 2);
    assert!(rec.bytes.len() <= 2048);
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::End));

    let data = format!("{}\nok\n", ",".repeat(10_000));
    let mut r = RecordReader::new(data.as_bytes(), b',').with_limits(2048, 64);
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::TooLong));
    assert!(rec.ends.len() <= 64);
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
    assert_eq!((rec.line(), rec.field(0)), (2, &b"ok"[..]));
}

#[test]
fn a_plain_comma_record_is_kept_as_written_without_its_line_end() {
    let data = b"a,b,\r\n\"c\",d\nx,y\"z\ne,f";
    let mut r = RecordReader::new(&data[..], b',');
    let mut rec = Record::default();
    let mut joined = Vec::new();
    while r.read(&mut rec).ok() == Some(Outcome::Record) {
        joined.push(rec.joined().map(|j| String::from_utf8_lossy(j).into_owned()));
    }
    let want = [Some("a,b,"), None, None, Some("e,f")].map(|j| j.map(str::to_owned));
    assert_eq!(joined, want);
    let mut r = RecordReader::new(&b"a;b\n"[..], b';');
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
    assert_eq!(rec.joined(), None, "only `,`-separated records are their result line");
}

proptest::proptest! {
    /// Plain lines split without the parser give what the parser gives: the same fields,
    /// start lines, joined lines and line count, in buffers small enough to cut records.
    #[test]
    fn plain_lines_read_as_the_parser_reads_them(
        data in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'b', b'7', b' ', b',', b';', b'"', b'\r', b'\n', 0xc3, 0xa9]),
            0..300,
        ),
        capacity in 1usize..64,
        delimiter in proptest::sample::select(vec![b',', b';']),
        limits in proptest::option::of((1usize..40, 1usize..8)),
    ) {
        let read = |parser_only: bool| {
            let input = std::io::BufReader::with_capacity(capacity, &data[..]);
            let mut r = RecordReader::new(input, delimiter);
            if let Some((bytes, fields)) = limits {
                r = r.with_limits(bytes, fields);
            }
            if parser_only {
                r = r.parser_only();
            }
            everything(r)
        };
        let plain = read(false);
        // Every byte is read by the end: the line count is the file's.
        let breaks = (0..data.len())
            .filter(|&i| data[i] == b'\r' || (data[i] == b'\n' && (i == 0 || data[i - 1] != b'\r')))
            .count();
        proptest::prop_assert_eq!(plain.1, breaks as u64);
        proptest::prop_assert_eq!(plain, read(true));
    }
}

/// A record as the tests compare it: (outcome, start line, fields, joined line).
type Seen = (Outcome, u64, Vec<Vec<u8>>, Option<Vec<u8>>);

/// Every record as read, then the lines seen.
fn everything<R: BufRead>(mut r: RecordReader<R>) -> (Vec<Seen>, u64) {
    let mut rec = Record::default();
    let mut out = Vec::new();
    loop {
        let outcome = r.read(&mut rec).expect("reading from memory");
        if outcome == Outcome::End {
            return (out, r.lines_seen());
        }
        let fields = (0..rec.len()).map(|i| rec.field(i).to_vec()).collect();
        let (bytes, ends, gap) = rec.text();
        let from_text: Vec<Vec<u8>> = (0..ends.len())
            .map(|i| {
                let start = if i == 0 { 0 } else { ends[i - 1] + i * gap };
                bytes[start..ends[i] + i * gap].to_vec()
            })
            .collect();
        assert_eq!(from_text, fields, "the record's text holds its fields");
        out.push((outcome, rec.line(), fields, rec.joined().map(<[u8]>::to_vec)));
    }
}

#[test]
fn plain_lines_keep_their_fields_in_the_line() {
    let mut r = RecordReader::new(&b"a,,bc,\r\n\r\nd\n\"e\",f\n"[..], b',');
    let mut rec = Record::default();
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
    assert_eq!(rec.text(), (&b"a,,bc,"[..], &[1, 1, 3, 3][..], 1));
    assert_eq!((rec.line(), rec.joined()), (1, Some(&b"a,,bc,"[..])));
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
    assert_eq!(rec.text(), (&b"d"[..], &[1][..], 1));
    assert_eq!(rec.line(), 3);
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
    assert_eq!(
        rec.text(),
        (&b"ef"[..], &[1, 2][..], 0),
        "a quoted record goes through the parser"
    );
    assert_eq!(rec.line(), 4);
    assert_eq!(r.read(&mut rec).ok(), Some(Outcome::End));
    assert_eq!(r.lines_seen(), 4);
}

#[test]
fn eight_bytes_at_a_time_finds_every_delimiter() {
    for len in 0..40 {
        for pattern in [0u64, 0x5555_5555_5555, u64::MAX, 0x8421_0842_1084_2108] {
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    if pattern >> (i % 64) & 1 == 1 {
                        b','
                    } else {
                        [b'a', 0xac, b'-', 0x2d][i % 4]
                    }
                })
                .collect();
            let mut found = Vec::new();
            for_each_byte(&bytes, b',', |at| found.push(at));
            let want: Vec<usize> = (0..len).filter(|&i| bytes[i] == b',').collect();
            assert_eq!(found, want, "{bytes:?}");
        }
    }
}

#[test]
fn empty_input_has_no_records() {
    assert!(lines(b"").is_empty());
    assert!(lines(b"\r\n\n\n").is_empty());
}

#[test]
fn a_quote_never_closed_is_told_from_quotes_that_are() {
    // (input, unclosed flag of each record)
    let cases: &[(&[u8], &[bool])] = &[
        (b"a,b\n1,\"x\n2,y\n3,z\n", &[false, true]),
        (b"a,b\n1,\"x\n2,y", &[false, true]),
        (b"a,b\n1,\"x\ny\"\n2,z\n", &[false, false, false]),
        (b"a,b\n1,\"x \"\"q\"\"\"\n", &[false, false]),
        (b"a,b\n1,\"x \"\"q\"\"\n", &[false, true]),
        (b"a,b\n1,x\"y\n2,z\n", &[false, false, false]),
        (b"a,b\n1,\"x\"", &[false, false]),
    ];
    for (input, want) in cases {
        for delim in [b',', b';'] {
            let data: Vec<u8> = input.iter().map(|&b| if b == b',' { delim } else { b }).collect();
            for capacity in [1, 3, 64] {
                let mut r = RecordReader::new(std::io::BufReader::with_capacity(capacity, data.as_slice()), delim);
                let mut rec = Record::default();
                let mut got = Vec::new();
                while r.read(&mut rec).ok() == Some(Outcome::Record) {
                    got.push(rec.unclosed());
                }
                assert_eq!(
                    &got,
                    want,
                    "{:?} with {:?}, buffer of {capacity}",
                    String::from_utf8_lossy(&data),
                    delim as char
                );
            }
        }
    }
}

#[test]
fn a_last_record_without_line_end_is_told_from_one_with_it() {
    // (input, whether the last record read ran to the end of the input)
    let cases: &[(&[u8], bool)] = &[
        (b"a,b\n1,2", true),
        (b"a,b\n1", true),
        (b"a,b\n1,2\n", false),
        (b"a,b\r\n1,2\r\n", false),
        (b"a,b\r1,2\r", false),
        (b"a,b\n1,2\n\n\r\n", false),
        (b"a,b\n1,\"x", true),
        // A quote never closed takes in the line ends after it: the record runs out all the same.
        (b"a,b\n1,\"x\n", true),
        (b"a,b\n1,\"x\"", true),
        (b"a,b\n1,\"x\"\n", false),
        (b"a,b", true),
    ];
    for &(input, want) in cases {
        for delim in [b',', b';'] {
            let data: Vec<u8> = input.iter().map(|&b| if b == b',' { delim } else { b }).collect();
            for capacity in [1, 3, 64] {
                let mut r = RecordReader::new(std::io::BufReader::with_capacity(capacity, data.as_slice()), delim);
                let mut rec = Record::default();
                while r.read(&mut rec).ok() == Some(Outcome::Record) {}
                assert_eq!(
                    r.ran_out(),
                    want,
                    "{:?} with {:?}, buffer of {capacity}",
                    String::from_utf8_lossy(&data),
                    delim as char
                );
            }
        }
    }
}
