//! The result set name of a file the watcher takes: its own name unless that names a set of an
//! earlier drop, or a set of another name has its artefacts folder, then a time-stamped one.

use anyhow::Context as _;
use chrono::Utc;
use std::path::{Path, PathBuf};

/// A result set name not used by another content, for `claimed` (in `processing`): `X.csv` keeps
/// its name unless `results/X.result.csv` exists from an earlier drop, or a set of another name
/// has its artefacts folder (`a:b.csv`'s `a-b/`, for `a-b.csv`: both are `a-b` made safe), then
/// it is renamed `X.<time>.csv` (`X.<time>-2.csv`, ... when that too is taken).
pub(super) fn unclash(results: &Path, processing: &Path, claimed: PathBuf) -> anyhow::Result<PathBuf> {
    let folders = crate::results::owner::Folders::read(results);
    let taken = |p: &Path| {
        crate::results::result_path(results, p).exists()
            || folders.others(&crate::results::input_stem(p)).next().is_some()
    };
    if !taken(&claimed) {
        return Ok(claimed);
    }
    let name = claimed
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.clone(), String::new()),
    };
    let time = Utc::now().format("%Y%m%dT%H%M%S%3f");
    let renamed = (1..=1000)
        .map(|n| match n {
            1 => format!("{stem}.{time}{ext}"),
            n => format!("{stem}.{time}-{n}{ext}"),
        })
        .map(|name| processing.join(name))
        .find(|p| !taken(p) && !p.exists())
        .with_context(|| format!("no free result set name for {name} in {}", results.display()))?;
    std::fs::rename(&claimed, &renamed).with_context(|| format!("cannot rename {}", claimed.display()))?;
    Ok(renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_whose_set_or_artefacts_folder_is_taken_gets_a_time_stamped_one() {
        let dir = tempfile::tempdir().unwrap();
        let (results, processing) = (dir.path().join("results"), dir.path().join(".processing"));
        std::fs::create_dir_all(&processing).unwrap();
        let claim = |name: &str| {
            let p = processing.join(name);
            std::fs::write(&p, "a\n1\n").unwrap();
            unclash(&results, &processing, p).unwrap()
        };
        // No results folder yet: every name is free.
        assert_eq!(claim("a:b.csv"), processing.join("a:b.csv"));
        std::fs::create_dir_all(&results).unwrap();
        std::fs::write(results.join("a:b.result.csv"), "").unwrap();
        std::fs::write(results.join("a:b.summary.json"), "{}").unwrap();
        assert_eq!(claim("c.csv"), processing.join("c.csv"));
        for name in ["a:b.csv", "a-b.csv", "a?b.csv"] {
            let got = claim(name);
            let got_name = got.file_name().unwrap().to_string_lossy().into_owned();
            let (stem, ext) = name.rsplit_once('.').unwrap();
            assert!(
                got_name.starts_with(&format!("{stem}.")) && got_name.ends_with(&format!(".{ext}")),
                "{name}: {got_name}"
            );
            assert_ne!(got_name, name);
            assert!(got.exists() && !processing.join(name).exists(), "{name}");
            let folder = crate::results::artefacts::folder_name(&crate::results::input_stem(&got));
            assert_ne!(folder, "a-b", "{name}: {got_name}");
        }
    }
}
