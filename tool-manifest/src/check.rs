//! Rules that need the whole set of tools, not one manifest: every name declared once, and
//! every deprecated tool's `replacement` a tool of the set.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::diagnostic::Diagnostic;
use crate::schema::closest;

/// Where a tool's `name` is declared: what the whole-set checks point at.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeclaredName {
    /// The tool name as written.
    pub name: String,
    /// The manifest file, as given to the loader.
    pub file: PathBuf,
    /// 1-based line of the `name` value.
    pub line: usize,
    /// 1-based column of the `name` value.
    pub column: usize,
}

/// One diagnostic for every name declared again: it points at the later declaration and names
/// the file of the first one. `names` are taken in order (the loader passes them sorted by file).
pub fn duplicate_names(names: &[DeclaredName]) -> Vec<Diagnostic> {
    let mut first: BTreeMap<&str, &DeclaredName> = BTreeMap::new();
    let mut diagnostics = Vec::new();
    for declared in names {
        match first.get(declared.name.as_str()) {
            Some(earlier) => diagnostics.push(Diagnostic::at(
                &declared.file,
                declared.line,
                declared.column,
                format!(
                    "duplicate tool name `{}`, first declared in `{}` at line {}",
                    declared.name,
                    earlier.file.display(),
                    earlier.line
                ),
            )),
            None => {
                first.insert(&declared.name, declared);
            }
        }
    }
    diagnostics
}

/// Where a deprecated tool names its `replacement`: what [`unknown_replacements`] points at.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeclaredReplacement {
    /// The deprecated tool.
    pub tool: String,
    /// The tool it names as its replacement (a valid name of another tool).
    pub replacement: String,
    /// The manifest file, as given to the loader.
    pub file: PathBuf,
    /// 1-based line of the `replacement` value.
    pub line: usize,
    /// 1-based column of the `replacement` value.
    pub column: usize,
}

/// One diagnostic for every `replacement` that names no tool of the set (`names`: every
/// declared name, those of manifests with mistakes included), at the `replacement` value, with
/// the closest name of the set when one is close enough to be a typo.
pub fn unknown_replacements(
    replacements: &[DeclaredReplacement],
    names: &[DeclaredName],
) -> Vec<Diagnostic> {
    let known: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
    replacements
        .iter()
        .filter(|r| !known.contains(&r.replacement.as_str()))
        .map(|r| {
            let others: Vec<&str> = known.iter().copied().filter(|n| *n != r.tool).collect();
            let mut message = format!(
                "unknown tool `{}` in `replacement`, expected the name of a tool of this set",
                r.replacement
            );
            if let Some(close) = closest(&r.replacement, &others) {
                message.push_str(&format!("; did you mean `{close}`?"));
            }
            Diagnostic::at(&r.file, r.line, r.column, message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(name: &str, file: &str, line: usize) -> DeclaredName {
        DeclaredName {
            name: name.to_owned(),
            file: PathBuf::from(file),
            line,
            column: 8,
        }
    }

    #[test]
    fn a_repeated_name_points_at_the_later_declaration() {
        let names = [
            declared("a", "tools/a.toml", 1),
            declared("b", "tools/b.toml", 2),
            declared("a", "tools/c.toml", 3),
            declared("a", "tools/d.toml", 4),
        ];
        let diagnostics = duplicate_names(&names);
        let shown: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "tools/c.toml:3:8: duplicate tool name `a`, first declared in `tools/a.toml` at line 1",
                "tools/d.toml:4:8: duplicate tool name `a`, first declared in `tools/a.toml` at line 1",
            ]
        );
    }

    #[test]
    fn a_replacement_names_a_tool_of_the_set() {
        let names = [
            declared("drawing_create", "tools/drawing_create.toml", 1),
            declared("drawing_line", "tools/drawing_line.toml", 1),
        ];
        let replacement = |name: &str| DeclaredReplacement {
            tool: "drawing_line".to_owned(),
            replacement: name.to_owned(),
            file: PathBuf::from("tools/drawing_line.toml"),
            line: 7,
            column: 15,
        };
        assert!(unknown_replacements(&[replacement("drawing_create")], &names).is_empty());
        let shown: Vec<String> = unknown_replacements(
            &[replacement("drawing_creat"), replacement("pane_create")],
            &names,
        )
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            shown,
            vec![
                "tools/drawing_line.toml:7:15: unknown tool `drawing_creat` in `replacement`, expected the name of a tool of this set; did you mean `drawing_create`?",
                "tools/drawing_line.toml:7:15: unknown tool `pane_create` in `replacement`, expected the name of a tool of this set",
            ]
        );
    }
}
