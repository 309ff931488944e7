//! The code base's shape, read from `src/` as text: every module's imports (`use` trees and inline
//! `crate::`/`super::`/`self::` paths outside comments, strings and `#[cfg(test)]` items) form a graph
//! that must have no circle, and inside the engine no import may run up its parts
//! (`settings`/`streams` < `rules/` < `walk/` < `live` < the engine's own `mod.rs`). A folder's
//! `mod.rs` is its children's shared namespace: a child naming its own folder is not counted as an
//! import, the folder naming a child is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every module of `src/` by its path (`engine/rules/anytime` → ["engine", "rules", "anytime"]).
fn modules(root: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read src").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .expect("under src")
                .with_extension("");
            let mut module: Module = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// The text with comments, string and char literals blanked and `#[cfg(test)]` items removed.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    remove_test_items(&out)
}

/// Removes every item marked `#[cfg(test)]` (up to its closing brace or semicolon).
fn remove_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (offset, c) in after.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = offset + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = offset + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The full paths of a `use` tree (`a::{b::c, d}` → a::b::c, a::d), `self` items folded into
/// their prefix.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    // `a as b` keeps `a`: the renames are marked before the spaces go.
    let tree = tree
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" as ", "@");
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    expand(&tree, &mut Vec::new(), &mut out);
    out
}

fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    // Split at top-level commas.
    let mut depth = 0;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        let part = part.split('@').next().unwrap_or(part);
        match part.find("::{") {
            Some(at) if part.ends_with('}') => {
                let head: Vec<String> = part[..at].split("::").map(str::to_string).collect();
                let depth_before = prefix.len();
                prefix.extend(head);
                expand(&part[at + 3..part.len() - 1], prefix, out);
                prefix.truncate(depth_before);
            }
            _ => {
                let mut path = prefix.clone();
                path.extend(
                    part.split("::")
                        .filter(|s| *s != "self" || prefix.is_empty())
                        .map(str::to_string),
                );
                out.push(path);
            }
        }
    }
}

/// The module paths one file's code refers to: its `use` trees, then inline `crate::`, `super::`
/// and `self::` paths.
fn references(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut text = code;
    // `use` statements (also `pub use`, `pub(crate) use`), read as trees.
    while let Some(at) = find_use(text) {
        rest.push_str(&text[..at]);
        let after = &text[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        paths.extend(use_paths(&after[..end]));
        text = &after[(end + 1).min(after.len())..];
    }
    rest.push_str(text);
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':';
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| starts_word && chars[i..].iter().take(h.len()).copied().eq(h.chars()));
        if let Some(head) = head {
            let mut j = i + head.len();
            let mut path = vec![head.trim_end_matches(':').to_string()];
            loop {
                let start = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                if j == start {
                    break;
                }
                path.push(chars[start..j].iter().collect());
                if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                    j += 2;
                } else {
                    break;
                }
            }
            paths.push(path);
            i = j;
        } else {
            i += 1;
        }
    }
    paths
}

/// Where the next `use ` keyword starts (not inside a word).
fn find_use(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find("use ") {
        let at = from + at;
        let before = text[..at].chars().next_back();
        if before.is_none_or(|c| !is_ident(c)) {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// The module a path names: the longest prefix that is a module, resolved from module `from`
/// (`is_dir_module`: a folder's `mod.rs`, whose relative paths may name its child modules).
fn resolve(
    path: &[String],
    from: &Module,
    is_dir_module: bool,
    all: &BTreeMap<Module, PathBuf>,
) -> Option<Module> {
    // `super` is the parent of the module itself, whether it is a file or a folder's `mod.rs`.
    let mut base: Module = from.clone();
    let mut segments = path.iter().peekable();
    let absolute: Module = match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
            segments.cloned().collect()
        }
        Some("self") => {
            segments.next();
            let mut p = from.clone();
            p.extend(segments.cloned());
            p
        }
        Some("super") => {
            while segments.peek().map(|s| s.as_str()) == Some("super") {
                segments.next();
                base.pop();
            }
            let mut p = base.clone();
            p.extend(segments.cloned());
            p
        }
        // A relative path names a child module of a directory module (`use widgets::{…}`), else
        // another crate.
        _ => {
            let mut p = if is_dir_module {
                from.clone()
            } else {
                return None;
            };
            p.extend(segments.cloned());
            p
        }
    };
    (1..=absolute.len())
        .rev()
        .map(|n| absolute[..n].to_vec())
        .find(|prefix| all.contains_key(prefix))
}

fn import_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = modules(&root);
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, path) in &all {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let is_dir_module = matches!(name.as_deref(), Some("mod" | "lib" | "main"));
        let code = code_of(&std::fs::read_to_string(path).expect("read a module"));
        let targets = graph.entry(module.clone()).or_default();
        for reference in references(&code) {
            // A folder's `mod.rs` is its children's namespace (the vocabulary they share, e.g. an
            // importer's row type): a child naming it is not an import between parts, while the
            // folder naming a child is.
            if let Some(target) = resolve(&reference, module, is_dir_module, &all)
                && &target != module
                && !module.starts_with(&target)
            {
                targets.insert(target);
            }
        }
    }
    graph
}

/// The circles of the graph (strongly connected components of more than one module).
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    // Kosaraju: finish order on the graph, then components on the reversed graph.
    let nodes: Vec<&Module> = graph.keys().collect();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for &start in &nodes {
        if seen.contains(start) {
            continue;
        }
        let mut stack = vec![(start, false)];
        while let Some((node, done)) = stack.pop() {
            if done {
                order.push(node);
                continue;
            }
            if !seen.insert(node) {
                continue;
            }
            stack.push((node, true));
            for next in graph.get(node).into_iter().flatten() {
                if !seen.contains(next) {
                    stack.push((next, false));
                }
            }
        }
    }
    let mut reversed: BTreeMap<&Module, Vec<&Module>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            reversed.entry(to).or_default().push(from);
        }
    }
    let mut assigned = BTreeSet::new();
    let mut found = Vec::new();
    for &start in order.iter().rev() {
        if assigned.contains(start) {
            continue;
        }
        let mut component = Vec::new();
        let mut stack = vec![start];
        assigned.insert(start);
        while let Some(node) = stack.pop() {
            component.push(node.join("/"));
            for &prev in reversed.get(node).into_iter().flatten() {
                if assigned.insert(prev) {
                    stack.push(prev);
                }
            }
        }
        if component.len() > 1 {
            component.sort();
            found.push(component);
        }
    }
    found
}

/// The engine's part of a module, bottom up, or None outside the engine.
fn engine_layer(module: &Module) -> Option<usize> {
    if module.first().map(String::as_str) != Some("engine") {
        return None;
    }
    Some(match module.get(1).map(String::as_str) {
        Some("settings" | "streams") => 0,
        Some("rules") => 1,
        Some("walk") => 2,
        Some("live") => 3,
        None => 4,
        Some(other) => panic!("engine/{other} is in no part of the engine: add it to a folder"),
    })
}

#[test]
fn no_module_imports_in_a_circle() {
    let graph = import_graph();
    assert!(graph.len() > 100, "the graph read {} modules", graph.len());
    // The reader sees imports: a known one is in the graph.
    let replay = graph
        .get(&vec![
            "engine".to_string(),
            "walk".to_string(),
            "replay".to_string(),
        ])
        .expect("engine/walk/replay");
    assert!(replay.contains(&vec![
        "engine".to_string(),
        "walk".to_string(),
        "prepared".to_string()
    ]));
    assert_eq!(circles(&graph), Vec::<Vec<String>>::new());
}

#[test]
fn no_engine_import_runs_up_its_parts() {
    let graph = import_graph();
    let mut upward = Vec::new();
    for (from, targets) in &graph {
        let Some(layer) = engine_layer(from) else {
            continue;
        };
        for to in targets {
            if let Some(target) = engine_layer(to)
                && target > layer
            {
                upward.push(format!("{} → {}", from.join("/"), to.join("/")));
            }
        }
    }
    assert_eq!(upward, Vec::<String>::new());
}

#[test]
fn the_reader_finds_circles_and_upward_imports() {
    // Two modules that import each other, one through a `use` tree and one inline.
    let all: BTreeMap<Module, PathBuf> = [
        (vec!["a".to_string()], PathBuf::from("a.rs")),
        (vec!["b".to_string()], PathBuf::from("b.rs")),
    ]
    .into_iter()
    .collect();
    let a = references(&code_of("use crate::{b::{self, Thing}, c};\nfn f() {}"));
    let b = references(&code_of(
        "// crate::zzz\nfn g() { crate::a::f(); let s = \"crate::c\"; }",
    ));
    let resolved = |refs: &[Vec<String>], from: &str| -> BTreeSet<Module> {
        refs.iter()
            .filter_map(|r| resolve(r, &vec![from.to_string()], false, &all))
            .collect()
    };
    let mut graph = BTreeMap::new();
    graph.insert(vec!["a".to_string()], resolved(&a, "a"));
    graph.insert(vec!["b".to_string()], resolved(&b, "b"));
    assert_eq!(
        circles(&graph),
        vec![vec!["a".to_string(), "b".to_string()]]
    );
    // Test items are not the code base's shape.
    let tests = references(&code_of(
        "#[cfg(test)]\nmod tests { use crate::a; }\nuse crate::b;",
    ));
    assert_eq!(tests, vec![vec!["crate".to_string(), "b".to_string()]]);
    assert_eq!(
        engine_layer(&vec![
            "engine".to_string(),
            "rules".to_string(),
            "x".to_string()
        ]),
        Some(1)
    );
}
