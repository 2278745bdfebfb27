//! Binding a mapping to one file ([`Bound::new`]): every column it reads resolved to an index
//! (an unknown one is an error naming the closest header), its lookup tables loaded, the joined
//! header file indexed by key, and the columns that belong to the document found.

use super::*;
use std::collections::hash_map::Entry;

impl Bound {
    /// Bind a mapping to a file's header rows. `input` names the file for messages; `lookup_dirs`
    /// are the folders where lookup files are searched, in order; `join` is the header file when
    /// the mapping joins one.
    pub fn new(
        mapping: Arc<Mapping>,
        header_rows: &[Vec<String>],
        input: &str,
        lookup_dirs: &[PathBuf],
        join: Option<JoinRows>,
    ) -> Result<Bound, MappingError> {
        let headers = HeaderIndex::new(header_rows);
        // The (header row, column) of each column of the file the mapping finds: what names
        // the columns in messages.
        let matched: std::cell::RefCell<Vec<(usize, usize)>> = std::cell::RefCell::default();
        let width = headers.width();
        let join_headers = join.as_ref().map(|j| HeaderIndex::new(&j.headers));
        let header_cols: Vec<String> = mapping
            .header_columns()
            .iter()
            .map(|c| super::super::headers::normalize(c))
            .collect();
        let missing = |key: &str, column: &str, idx: &HeaderIndex, file: &str| MappingError::MissingColumn {
            input: file.to_string(),
            mapping: mapping.origin.to_string(),
            key: key.to_string(),
            column: column.into(),
            closest: idx.closest(column).map(Into::into),
            hint: None,
        };
        let join_name = join.as_ref().map(|j| j.path.display().to_string()).unwrap_or_default();
        // A column named more than once in the header row that names it: which one is meant?
        let unique = |name: &str, idx: &HeaderIndex, file: &str, key: &str| -> Result<(), MappingError> {
            let named = idx.named(name);
            if named.len() > 1 {
                return Err(MappingError::AmbiguousColumn {
                    input: file.to_string(),
                    mapping: mapping.origin.to_string(),
                    key: key.to_string(),
                    column: name.into(),
                    positions: named.iter().map(|i| i + 1).collect(),
                });
            }
            Ok(())
        };
        let resolve = |names: &[String], optional: bool, key: &str| -> Result<Option<usize>, MappingError> {
            for n in names {
                if header_cols.contains(&super::super::headers::normalize(n)) {
                    if let Some(jh) = &join_headers {
                        if let Some(i) = jh.find(n) {
                            unique(n, jh, &join_name, key)?;
                            return Ok(Some(width + i));
                        }
                        if !optional && names.len() == 1 {
                            return Err(missing(key, n, jh, &join_name));
                        }
                    }
                    continue;
                }
                if let Some((row, i)) = headers.find_at(n) {
                    unique(n, &headers, input, key)?;
                    matched.borrow_mut().push((row, i));
                    return Ok(Some(i));
                }
            }
            if optional {
                Ok(None)
            } else {
                Err(missing(key, &names[0], &headers, input))
            }
        };
        let mut tables = Vec::new();
        let mut table_index = HashMap::new();
        let mut notes = Vec::new();
        let mut side: Vec<SideFile> = Vec::new();
        let mut table_side = Vec::new();
        let mut join_last = None;
        let mut join_blank = Vec::new();
        for (name, spec) in &mapping.lookups {
            match Table::load(name, spec, lookup_dirs, &mapping.origin.to_string())? {
                Some(t) => {
                    table_index.insert(name.clone(), tables.len());
                    table_side.push(t.opened.map(|opened| {
                        side.push(SideFile {
                            what: format!("the lookup table {}", t.file_name()),
                            name: t.file_name(),
                            path: t.path.clone(),
                            opened,
                            lookup: true,
                        });
                        side.len() - 1
                    }));
                    tables.push(t);
                }
                None => {
                    // Does the document's type hang on the buyer's VAT number from this table?
                    notes.push(if crate::mapping::build::decides_type(&mapping, name) {
                        format!(
                            "lookup file {} not found beside the export or the mapping: the buyers' VAT numbers come \
                             from it, so no document whose type they decide is issued ({}, on each); when no buyer \
                             has a VAT number, a {} of the header line {} alone says so",
                            spec.file,
                            crate::mapping::TABLE_MISSING_CODE,
                            spec.file,
                            crate::mapping::build::header_line(&mapping, name, spec)
                        )
                    } else {
                        format!(
                            "lookup file {} not found beside the export or the mapping: its fields are left blank",
                            spec.file
                        )
                    });
                }
            }
        }
        let parts = |parts: &[Part], optional: bool, key: &str| -> Result<Vec<RPart>, MappingError> {
            parts
                .iter()
                .map(|p| match p {
                    Part::Text(t) => Ok(RPart::Text(t.clone())),
                    Part::Column(c) => resolve(std::slice::from_ref(c), optional, key).map(RPart::Col),
                    Part::Columns(names) => resolve(names, optional, key).map(RPart::Col),
                })
                .collect()
        };
        let mut fields = Vec::with_capacity(FIELDS.len());
        for rule in &mapping.fields {
            let Some(rule) = rule else {
                fields.push(None);
                continue;
            };
            let key = format!("fields.{:?}", FIELDS[rule.field].name);
            let rs = match &rule.source {
                Source::Column { names, optional } => {
                    let i = resolve(names, *optional, &key)?;
                    if i.is_none() {
                        notes.push(format!(
                            "column {:?} is not in the file: {} is left blank",
                            names[0], FIELDS[rule.field].name
                        ));
                    }
                    RSource::Column(i)
                }
                Source::Constant(v) => RSource::Constant(v.clone()),
                Source::Template { parts: p, optional } => {
                    let label = p
                        .iter()
                        .map(|p| match p {
                            Part::Text(t) => t.clone(),
                            Part::Column(c) => format!("{{{c}}}"),
                            Part::Columns(names) => format!("{{{}}}", names.join("|")),
                        })
                        .collect::<String>();
                    RSource::Template(parts(p, *optional, &key)?, label.into())
                }
                Source::Lookup { table, key: k, get } => {
                    let key_parts = parts(k, false, &key)?;
                    match table_index.get(table) {
                        Some(&ti) => {
                            let get_idx = tables[ti].column(get, &key, &mapping.origin.to_string())?;
                            let label = format!("{} {get}", tables[ti].file_name());
                            RSource::Lookup {
                                table: Some(ti),
                                key: key_parts,
                                get: get_idx,
                                label: label.into(),
                            }
                        }
                        // An optional table that was not found: its file, for the findings.
                        None => RSource::Lookup {
                            table: None,
                            key: key_parts,
                            get: 0,
                            label: mapping
                                .lookups
                                .iter()
                                .find(|(name, _)| name == table)
                                .map_or("", |(_, l)| l.file.as_str())
                                .into(),
                        },
                    }
                }
                Source::DefaultOnly => RSource::DefaultOnly,
            };
            fields.push(Some(rs));
        }
        let when = mapping
            .fields
            .iter()
            .map(|rule| {
                let Some((rule, w)) = rule.as_ref().and_then(|r| Some((r, r.when.as_ref()?))) else {
                    return Ok(WhenAt::Always);
                };
                let name = FIELDS[rule.field].name;
                let optional = super::super::when::source_optional(&rule.source);
                let key = format!("fields.{name:?}.when.column");
                Ok(match resolve(std::slice::from_ref(&w.column), optional, &key)? {
                    Some(i) => WhenAt::Column(i),
                    None => {
                        // Said once: when the field's own column is missing too, that is said.
                        if !matches!(fields.get(rule.field), Some(Some(RSource::Column(None)))) {
                            notes.push(format!(
                                "column {:?} is not in the file: {name} is left blank",
                                w.column
                            ));
                        }
                        WhenAt::Absent
                    }
                })
            })
            .collect::<Result<Box<[WhenAt]>, MappingError>>()?;
        let skip = mapping
            .skip
            .iter()
            .enumerate()
            .map(|(i, s)| {
                resolve(
                    std::slice::from_ref(&s.column),
                    s.optional,
                    &format!("skip[{i}].column"),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let group_key = match &mapping.group_key {
            Some(k) => resolve(std::slice::from_ref(k), false, "group.key")?,
            None => None,
        };
        let (join_rows, join_parent, join_key, join_path) = match (&mapping.join, join) {
            (Some(spec), Some(j)) => {
                let jh = HeaderIndex::new(&j.headers);
                let key_idx = jh
                    .find(&spec.key)
                    .ok_or_else(|| missing("join.key", &spec.key, &jh, &join_name))?;
                let parent = resolve(std::slice::from_ref(&spec.parent), false, "join.parent")?;
                let mut rows: HashMap<String, Joined> = HashMap::new();
                // The key of the last row, when that row is the first of its key (a later row of
                // a key is never read: its document is not built, see `joined.rs`).
                let mut last = None;
                for r in j.rows {
                    let k = r.get(key_idx).to_text().trimmed().to_string();
                    last = None;
                    if k.is_empty() {
                        join_blank.push(r);
                        continue;
                    }
                    match rows.entry(k) {
                        Entry::Occupied(mut e) => e.get_mut().repeat(r),
                        Entry::Vacant(e) => {
                            last = Some(e.key().clone());
                            e.insert(Joined::new(r));
                        }
                    }
                }
                if let Some(opened) = j.opened {
                    let name = j
                        .path
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    join_last = last.map(|k| (k, side.len()));
                    side.push(SideFile {
                        what: format!("the header file {name}"),
                        name,
                        path: j.path.clone(),
                        opened,
                        lookup: false,
                    });
                }
                (rows, parent, Some(key_idx), Some(j.path))
            }
            (Some(_), None) => {
                return Err(MappingError::Lookup {
                    path: input.to_string(),
                    message: format!("mapping {} needs its header file", mapping.name),
                });
            }
            _ => (HashMap::new(), None, None, None),
        };
        let kind_column = match fields.get(fid!("kind")) {
            Some(Some(RSource::Column(Some(i)))) => Some(*i),
            _ => None,
        };
        let mut bound = Bound {
            mapping,
            headers,
            join_headers,
            join_rows,
            join_blank,
            join_parent,
            join_key,
            join_path,
            fields,
            when,
            skip,
            group_key,
            kind_column,
            tables,
            labels: Vec::new(),
            doc_columns: Box::default(),
            doc_runs: Box::default(),
            notes,
            side,
            join_last,
            table_side,
            side_lookups: Vec::new(),
        };
        bound.headers.label_by(&matched.into_inner());
        let columns = bound.headers.width() + bound.join_headers.as_ref().map_or(0, HeaderIndex::width);
        bound.labels = (0..columns).map(|i| bound.column_name(i).into()).collect();
        bound.doc_columns = bound.find_document_columns();
        bound.doc_runs = super::runs(&bound.doc_columns);
        for (f, src) in bound.fields.iter().enumerate() {
            if let Some(RSource::Lookup { table: Some(ti), .. }) = src
                && bound.table_side.get(*ti).is_some_and(Option::is_some)
                && !bound.side_lookups.iter().any(|(t, _)| t == ti)
            {
                bound.side_lookups.push((*ti, f));
            }
        }
        Ok(bound)
    }

    /// The columns of the file itself (not of a joined header file) read by a document field or
    /// a skip rule and by no line field, in column order, each with the document fields it
    /// feeds (none for a column only a skip rule reads).
    fn find_document_columns(&self) -> Box<[(usize, Box<[FieldId]>)]> {
        let width = self.headers.width();
        let mut doc: Vec<Vec<FieldId>> = vec![Vec::new(); width];
        let mut line = vec![false; width];
        let mut skip = vec![false; width];
        for &i in self.skip.iter().flatten() {
            if let Some(s) = skip.get_mut(i) {
                *s = true;
            }
        }
        for (f, src) in self.fields.iter().enumerate() {
            let cols: Vec<usize> = match src {
                Some(RSource::Column(Some(i))) => vec![*i],
                Some(RSource::Template(parts, _) | RSource::Lookup { key: parts, .. }) => parts
                    .iter()
                    .filter_map(|p| match p {
                        RPart::Col(i) => *i,
                        RPart::Text(_) => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            // A field read only where a column says so depends on that column too.
            let when = match self.when.get(f) {
                Some(WhenAt::Column(i)) if src.is_some() => Some(*i),
                _ => None,
            };
            for i in cols.into_iter().chain(when).filter(|&i| i < width) {
                if FIELDS[f].line {
                    line[i] = true;
                } else if self.maps(f) {
                    doc[i].push(f);
                }
            }
        }
        doc.into_iter()
            .enumerate()
            .filter(|(i, fields)| (!fields.is_empty() || skip[*i]) && !line[*i])
            .map(|(i, fields)| (i, fields.into_boxed_slice()))
            .collect()
    }
}
