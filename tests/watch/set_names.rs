//! The result set names the watcher gives: a file whose name differs from an earlier drop's only
//! in characters made safe in a folder name (`a:b.csv`, then `a-b.csv`: both `a-b/`) gets a
//! time-stamped set of its own, so the earlier drop's signed XML stays.

use super::support::*;
use super::*;

/// The signed XML files in `results/<folder>/`.
fn xml_in(folder: &Path) -> Vec<String> {
    names(folder).into_iter().filter(|n| n.ends_with(".xml")).collect()
}

#[test]
fn a_file_whose_artefacts_folder_an_earlier_drop_has_gets_a_time_stamped_set() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let _w = Watch::start(d, &env, &[]);
    std::fs::write(d.join("in/a:b.csv"), export(3, "P")).unwrap();
    wait_for(LIMIT, "a:b.csv in done/", || d.join("in/done/a:b.csv").exists());
    let results = d.join("in/results");
    assert_eq!(xml_in(&results.join("a-b")).len(), 3);
    std::fs::write(d.join("in/a-b.csv"), export(4, "Q")).unwrap();
    wait_for(LIMIT, "a-b.csv's drop in done/", || {
        names(&d.join("in/done")).len() == 2
    });
    assert_eq!(server.accepted(), 7);
    all_accepted(&results.join("a:b.result.csv"), 3);
    // The first drop's signed XML, all of it and only it, still in a-b/.
    let first = xml_in(&results.join("a-b"));
    assert_eq!(first.len(), 3, "{first:?}");
    assert!(first.iter().all(|n| n.contains("_P-")), "{first:?}");
    // The second under a time-stamped name, its XML in its own folder.
    let second = names(&d.join("in/done")).into_iter().find(|n| n != "a:b.csv").unwrap();
    assert!(
        second.starts_with("a-b.") && second.ends_with(".csv") && second != "a-b.csv",
        "{second}"
    );
    let stem = second.trim_end_matches(".csv");
    all_accepted(&results.join(format!("{stem}.result.csv")), 4);
    let own = xml_in(&results.join(stem));
    assert_eq!(own.len(), 4, "{own:?}");
    assert!(own.iter().all(|n| n.contains("_Q-")), "{own:?}");
}
