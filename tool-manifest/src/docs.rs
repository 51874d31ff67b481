//! The tool reference docs (temporary minimal version: one title page per tool).

use std::collections::BTreeMap;

use crate::model::ToolSpec;

/// Every docs file, keyed by its path relative to the docs directory.
pub fn render(specs: &[ToolSpec]) -> BTreeMap<String, String> {
    specs
        .iter()
        .map(|spec| (format!("{}.md", spec.name), format!("# {}\n", spec.title)))
        .collect()
}
