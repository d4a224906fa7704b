//! Core's modules read top-down and never back up: each may name (with a
//! `crate::` path, in a `use` or inline) only the modules on the floors
//! below its own, as [`FLOORS`] lists them, so no two modules name each
//! other, directly or around a cycle. A new `crate::` path to a module on
//! its own floor or above fails here, with the file that names it.

use std::collections::BTreeSet;
use std::path::Path;

/// The top-level modules of `core/src` (folders or files) by floor, from
/// the top down; a module may name the modules on the floors below its own,
/// none on its own floor or above:
///
/// - `service`: the use cases, over everything below;
/// - `engine`: the question engine's stages;
/// - `store`: the metadata database, which keeps the ontology's documents
///   (drafts and versions) and so names the model's types;
/// - `ontology`: the model, validation, YAML, diff and imports; it never
///   names the store: editing a draft is a use case (`service::drafts`);
/// - `warehouse`: one module per engine that runs SQL; bootstrap (in
///   `ontology`) reads a warehouse's catalog;
/// - `sql` (one object per dialect), `auth` (credentials, with no store:
///   signing in is a use case, `service::credentials`) and `demo` (the
///   demo warehouse's generator);
/// - the plain types every floor shares: `project` over `account` and
///   `chat`, over `time`.
const FLOORS: &[&[&str]] = &[
    &["service"],
    &["engine"],
    &["store"],
    &["ontology"],
    &["warehouse"],
    &["sql", "auth", "demo"],
    &["project"],
    &["account", "chat"],
    &["time"],
];

/// The floor of `module`, counted from the top.
fn floor_of(module: &str) -> Option<usize> {
    FLOORS.iter().position(|floor| floor.contains(&module))
}

/// The top-level module a file under `src` belongs to: its first folder,
/// or its own name.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a path under src");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_owned()
}

/// Every module a file's code names with a `crate::` path, skipping
/// comments: `crate::store::Store` and each of `crate::{engine, store}`.
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(comment) => &line[..comment],
            None => line,
        };
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `cassis_crate::` or the like, not this crate
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for part in group[..end].split(',') {
                    let ident: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !ident.is_empty() {
                        named.insert(ident);
                    }
                }
                continue;
            }
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !ident.is_empty() {
                named.insert(ident);
            }
        }
    }
    named
}

fn rust_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_module_names_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        if module == "lib" {
            continue;
        }
        let floor = floor_of(&module)
            .unwrap_or_else(|| panic!("{module} (of {relative:?}) is on no floor of FLOORS"));
        let text = std::fs::read_to_string(file).unwrap();
        for named in named_modules(&text) {
            let below = floor_of(&named).is_some_and(|other| other > floor);
            if named != module && !below {
                upward.push(format!("{} names crate::{named}", relative.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "modules naming one on their floor or above:\n{}",
        upward.join("\n")
    );
}

#[test]
fn each_module_is_on_one_floor() {
    let mut seen = BTreeSet::new();
    for module in FLOORS.iter().flat_map(|floor| floor.iter()) {
        assert!(seen.insert(module), "{module} is on two floors");
    }
}

#[test]
fn a_path_to_a_module_is_read_in_each_form() {
    let text = "use crate::store::Store;\n\
                use crate::{engine, time::Timestamp};\n\
                let d = crate::project::Dialect::Sqlite; // crate::service in a comment\n\
                // crate::demo\n";
    let named: Vec<String> = named_modules(text).into_iter().collect();
    assert_eq!(named, ["engine", "project", "store", "time"]);
}
