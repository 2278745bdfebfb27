//! The zip container of the result workbook, written from parts that are already compressed:
//! the template's parts as rust_xlsxwriter zipped them, and each sheet as its compressed start,
//! its rows (deflated while they were written, [`super::xlsx_sheet`]) and its compressed end.
//! Nothing is compressed twice and nothing is held in memory but the small parts.
//!
//! Plain zip (no zip64), as rust_xlsxwriter writes by default: a part or the archive past 4 GiB
//! is an error (the CSV result holds every row whatever its size).

use std::io::{Read, Write};

/// One part: its name, compression method (0 stored, 8 deflated), the CRC-32 and lengths of its
/// content, and the Unix permissions it is listed with.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) method: u16,
    pub(crate) crc: u32,
    pub(crate) compressed: u64,
    pub(crate) len: u64,
}

/// Made by: Unix (3), zip 2.0; needed: 2.0. Dated 1980-01-01 00:00, as rust_xlsxwriter dates
/// its parts. Listed as `-rw-------`.
const MADE_BY: u16 = (3 << 8) | 20;
const NEEDED: u16 = 20;
const DOS_DATE: u16 = (1 << 5) | 1;
const EXTERNAL: u32 = 0o100_600 << 16;

/// Writes parts one after the other, then the central directory.
pub(crate) struct ZipOut<W: Write> {
    out: W,
    at: u64,
    written: Vec<(Entry, u32)>,
}

fn too_big(what: &str) -> std::io::Error {
    std::io::Error::other(format!(
        "{what} is over 4 GiB, more than a spreadsheet result can hold; use the CSV result"
    ))
}

fn u32_of(n: u64, what: &str) -> std::io::Result<u32> {
    u32::try_from(n).map_err(|_| too_big(what))
}

impl<W: Write> ZipOut<W> {
    pub(crate) fn new(out: W) -> Self {
        ZipOut {
            out,
            at: 0,
            written: Vec::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.at += bytes.len() as u64;
        Ok(())
    }

    /// Start a part: its local header. Its `compressed` bytes must follow, through
    /// [`ZipOut::data`] or [`ZipOut::copy`].
    pub(crate) fn start(&mut self, entry: Entry) -> std::io::Result<()> {
        let offset = u32_of(self.at, "the spreadsheet result")?;
        let name = entry.name.as_bytes();
        let mut h = Vec::with_capacity(30 + name.len());
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&NEEDED.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&entry.method.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&DOS_DATE.to_le_bytes());
        h.extend_from_slice(&entry.crc.to_le_bytes());
        h.extend_from_slice(&u32_of(entry.compressed, &entry.name)?.to_le_bytes());
        h.extend_from_slice(&u32_of(entry.len, &entry.name)?.to_le_bytes());
        h.extend_from_slice(&u16::try_from(name.len()).unwrap_or(u16::MAX).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(name);
        self.put(&h)?;
        self.written.push((entry, offset));
        Ok(())
    }

    /// Some of the current part's compressed bytes.
    pub(crate) fn data(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.put(bytes)
    }

    /// The current part's compressed bytes from a reader.
    pub(crate) fn copy(&mut self, from: &mut impl Read) -> std::io::Result<()> {
        let n = std::io::copy(from, &mut self.out)?;
        self.at += n;
        Ok(())
    }

    /// The central directory and its end record; the writer back.
    pub(crate) fn finish(mut self) -> std::io::Result<W> {
        let start = self.at;
        let written = std::mem::take(&mut self.written);
        for (e, offset) in &written {
            let name = e.name.as_bytes();
            let mut h = Vec::with_capacity(46 + name.len());
            h.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            h.extend_from_slice(&MADE_BY.to_le_bytes());
            h.extend_from_slice(&NEEDED.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(&e.method.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(&DOS_DATE.to_le_bytes());
            h.extend_from_slice(&e.crc.to_le_bytes());
            h.extend_from_slice(&u32_of(e.compressed, &e.name)?.to_le_bytes());
            h.extend_from_slice(&u32_of(e.len, &e.name)?.to_le_bytes());
            h.extend_from_slice(&u16::try_from(name.len()).unwrap_or(u16::MAX).to_le_bytes());
            h.extend_from_slice(&[0; 8]); // extra and comment lengths, disk, internal attributes
            h.extend_from_slice(&EXTERNAL.to_le_bytes());
            h.extend_from_slice(&offset.to_le_bytes());
            h.extend_from_slice(name);
            self.put(&h)?;
        }
        let count = u16::try_from(written.len()).unwrap_or(u16::MAX).to_le_bytes();
        let mut end = Vec::with_capacity(22);
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&[0; 4]); // this disk, the directory's disk
        end.extend_from_slice(&count);
        end.extend_from_slice(&count);
        end.extend_from_slice(&u32_of(self.at - start, "the spreadsheet result")?.to_le_bytes());
        end.extend_from_slice(&u32_of(start, "the spreadsheet result")?.to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes());
        self.put(&end)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::xlsx_sheet::{compressor, deflate};
    use flate2::FlushCompress;

    fn crc(bytes: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(bytes);
        h.finalize()
    }

    #[test]
    fn parts_in_three_deflated_pieces_read_back_whole() -> Result<(), Box<dyn std::error::Error>> {
        let (head, body, tail) = (b"<a>".repeat(10), b"<row/>".repeat(5000), b"</a>".to_vec());
        let mut compressed = Vec::new();
        let mut scratch = Vec::with_capacity(64);
        deflate(
            &mut compressor(),
            &head,
            FlushCompress::Sync,
            &mut compressed,
            &mut scratch,
        )?;
        let mut c = compressor();
        for piece in body.chunks(777) {
            deflate(&mut c, piece, FlushCompress::None, &mut compressed, &mut scratch)?;
        }
        deflate(&mut c, &[], FlushCompress::Sync, &mut compressed, &mut scratch)?;
        deflate(
            &mut compressor(),
            &tail,
            FlushCompress::Finish,
            &mut compressed,
            &mut scratch,
        )?;
        let whole = [head.clone(), body.clone(), tail.clone()].concat();
        let mut zip = ZipOut::new(std::io::Cursor::new(Vec::new()));
        zip.start(Entry {
            name: "stored.txt".into(),
            method: 0,
            crc: crc(b"plain"),
            compressed: 5,
            len: 5,
        })?;
        zip.data(b"plain")?;
        zip.start(Entry {
            name: "xl/sheet.xml".into(),
            method: 8,
            crc: crc(&whole),
            compressed: compressed.len() as u64,
            len: whole.len() as u64,
        })?;
        zip.copy(&mut &compressed[..])?;
        let bytes = zip.finish()?.into_inner();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))?;
        assert_eq!(archive.len(), 2);
        let mut text = String::new();
        archive.by_name("stored.txt")?.read_to_string(&mut text)?;
        assert_eq!(text, "plain");
        let mut read = Vec::new();
        archive.by_name("xl/sheet.xml")?.read_to_end(&mut read)?;
        assert_eq!(read, whole);
        Ok(())
    }
}
