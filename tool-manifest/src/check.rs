//! Rules that need the whole set of tools, not one manifest.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::diagnostic::Diagnostic;

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
}
