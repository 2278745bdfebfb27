//! Opening a delimited text file: a sample read to decide its encoding and delimiter (and to
//! tell a workbook or an empty file from an export), then its header rows.

use super::*;

/// Reads up to [`SAMPLE_BYTES`]; `true` when that is the whole file.
fn read_sample(f: &mut File) -> io::Result<(Vec<u8>, bool)> {
    let mut sample = Vec::with_capacity(SAMPLE_BYTES);
    f.by_ref().take(SAMPLE_BYTES as u64).read_to_end(&mut sample)?;
    let complete = sample.len() < SAMPLE_BYTES;
    Ok((sample, complete))
}

/// Refuses workbooks saved under a text name.
fn check_not_workbook(file: &str, sample: &[u8]) -> Result<(), IngestError> {
    let detail = if sample.starts_with(b"PK\x03\x04") {
        "it is a zip archive, most likely an .xlsx or .ods workbook with a text name; rename it \
         to .xlsx (or .ods) and try again"
    } else if sample.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        "it is an old-style Excel workbook (.xls) with a text name; rename it to .xls and try again"
    } else {
        return Ok(());
    };
    Err(IngestError::Binary {
        file: file.to_owned(),
        detail: detail.to_owned(),
    })
}

/// For a whole file that is a byte-order mark and nothing else (or only blank lines after it):
/// what it holds, as the empty-file error says it. Read in another encoding (a mapping that
/// names one), its bytes would be a header of odd characters.
pub(super) fn only_bom(bytes: &[u8]) -> Option<String> {
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let (len, name, rest_blank) = if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        (3, "UTF-8", rest.iter().all(|&b| blank(b)).then_some(rest.is_empty()))
    } else if let Some(rest) = bytes.strip_prefix(b"\xff\xfe") {
        let ok = rest.len() % 2 == 0 && rest.chunks(2).all(|c| c[1] == 0 && blank(c[0]));
        (2, "UTF-16", ok.then_some(rest.is_empty()))
    } else if let Some(rest) = bytes.strip_prefix(b"\xfe\xff") {
        let ok = rest.len() % 2 == 0 && rest.chunks(2).all(|c| c[0] == 0 && blank(c[1]));
        (2, "UTF-16", ok.then_some(rest.is_empty()))
    } else {
        return None;
    };
    let nothing_else = rest_blank?;
    Some(format!(
        "it holds only a byte-order mark (the {len} bytes that mark {name} text){}, no header and no rows",
        if nothing_else { "" } else { " and blank lines" }
    ))
}

/// Opens a delimited text file, decides encoding and delimiter, and reads the header rows.
/// `default_delimiter` is used when sniffing finds none (a one-column file).
pub(crate) fn open(
    path: &Path,
    file: Arc<str>,
    opts: &ReadOptions,
    default_delimiter: u8,
) -> Result<OpenedCsv, IngestError> {
    let open_err = |source| IngestError::Open {
        file: file.to_string(),
        source,
    };
    let mut f = File::open(path).map_err(open_err)?;
    let (sample, complete) = read_sample(&mut f).map_err(open_err)?;
    if sample.is_empty() {
        return Err(IngestError::Empty {
            file: file.to_string(),
            detail: "the file has 0 bytes".to_owned(),
        });
    }
    if complete && let Some(detail) = only_bom(&sample) {
        return Err(IngestError::Empty {
            file: file.to_string(),
            detail,
        });
    }
    check_not_workbook(&file, &sample)?;
    let forced = match opts.encoding.as_deref() {
        Some(label) => Some(encoding::encoding_for_label(&file, label)?),
        None => None,
    };
    encoding::check_text(&file, &sample, forced)?;
    let choice = encoding::choose(&sample, complete, forced);
    let mut notes = choice.notes;
    let body = &sample[choice.bom_len..];
    let text: Cow<[u8]> = match choice.encoding {
        TextEncoding::Utf8 { .. } => Cow::Borrowed(body),
        TextEncoding::Decode(enc) => Cow::Owned(enc.decode_without_bom_handling(body).0.into_owned().into_bytes()),
    };
    let header_line = opts.header_row.map_or(1, |n| n.max(1) as u64);
    let delimiter = sniff::choose(
        &text,
        complete,
        header_line,
        opts.delimiter,
        default_delimiter,
        &mut notes,
    );
    f.seek(SeekFrom::Start(choice.bom_len as u64)).map_err(open_err)?;
    let (inner, mode): (Box<dyn Read + Send>, Mode) = match choice.encoding {
        TextEncoding::Utf8 { legacy_fallback } => (
            Box::new(f),
            if legacy_fallback {
                Mode::Utf8Tentative
            } else {
                Mode::Utf8
            },
        ),
        TextEncoding::Decode(enc) => (
            Box::new(
                DecodeReaderBytesBuilder::new()
                    .encoding(Some(enc))
                    .bom_sniffing(false)
                    .build(f),
            ),
            Mode::Decoded,
        ),
    };
    let mut source = CsvSource {
        file,
        records: RecordReader::new(BufReader::with_capacity(READ_BUFFER, inner), delimiter),
        rec: Record::default(),
        mode,
        scratch: String::new(),
        scratch_ends: Vec::new(),
        format: FileFormat::Csv {
            delimiter,
            encoding: choice.name,
        },
        width: 0,
        replaced_rows: 0,
        gaps: Gaps::new(opts.every_row),
        last_blank_line: 0,
        held: None,
        first_replaced_line: 0,
        finished: false,
        notes: Vec::new(),
        header_line: 0,
        last_line: LastLine::default(),
        ragged: false,
    };
    let count = opts.header_rows.max(1);
    let header_rows = source.read_headers(header_line, count, opts.header_row.is_some())?;
    source.gaps.last_end = source.records.lines_seen();
    notes.append(&mut source.notes);
    Ok(OpenedCsv {
        source,
        header_rows,
        notes,
    })
}
