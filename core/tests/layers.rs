//! Core's modules read top-down and never back up: each may name (with a
//! `crate::` path, in a `use` or inline) only the modules below it, as
//! [`ALLOWED`] lists them. A new `crate::` path to a module above fails
//! here, with the file that names it; so does a cycle in the table itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of `core/src` (a folder or a file) and the ones it
/// may name, from the top floor down:
///
/// - `service`: the use cases, over everything below;
/// - `engine`: the question engine's stages;
/// - `store`: the metadata database, which keeps the ontology's documents
///   (drafts and versions) and so names the model's types;
/// - `ontology`: the model, validation, YAML, diff and imports (bootstrap
///   reads a warehouse's catalog); it never names the store: editing a
///   draft is a use case (`service::drafts`);
/// - `warehouse`: one module per engine that runs SQL;
/// - `sql` (one object per dialect) and `auth` (credentials, with no
///   store: signing in is a use case, `service::credentials`);
/// - the plain types every floor shares: `project`, `account`, `chat`,
///   `time`; and `demo`, the demo warehouse's generator.
const ALLOWED: &[(&str, &[&str])] = &[
    (
        "service",
        &[
            "engine",
            "store",
            "ontology",
            "warehouse",
            "sql",
            "auth",
            "project",
            "account",
            "chat",
            "time",
            "demo",
        ],
    ),
    (
        "engine",
        &[
            "store",
            "ontology",
            "warehouse",
            "sql",
            "auth",
            "project",
            "account",
            "chat",
            "time",
        ],
    ),
    (
        "store",
        &[
            "ontology", "sql", "auth", "project", "account", "chat", "time",
        ],
    ),
    (
        "ontology",
        &["warehouse", "sql", "project", "account", "time"],
    ),
    ("warehouse", &["sql", "project", "account", "time"]),
    ("sql", &["project"]),
    ("auth", &["account", "time"]),
    ("demo", &[]),
    ("project", &["account", "time"]),
    ("account", &["time"]),
    ("chat", &[]),
    ("time", &[]),
];

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
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
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
        let may = allowed
            .get(module.as_str())
            .unwrap_or_else(|| panic!("{module} (of {relative:?}) is not in ALLOWED"));
        let text = std::fs::read_to_string(file).unwrap();
        for named in named_modules(&text) {
            if named != module && !may.contains(&named.as_str()) {
                upward.push(format!("{} names crate::{named}", relative.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "modules naming one they may not:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_floors_have_no_cycle() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    // Depth-first, with the path walked: a module met again on it closes a cycle.
    fn walk<'a>(
        module: &'a str,
        allowed: &BTreeMap<&'a str, &'a [&'a str]>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(start) = path.iter().position(|m| *m == module) {
            panic!("a cycle: {} -> {module}", path[start..].join(" -> "));
        }
        if !done.insert(module) {
            return;
        }
        path.push(module);
        for below in allowed.get(module).copied().unwrap_or_default() {
            walk(below, allowed, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for module in allowed.keys() {
        walk(module, &allowed, &mut Vec::new(), &mut done);
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
