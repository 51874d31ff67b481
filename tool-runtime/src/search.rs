//! TEMPORARY STUB (replaced by the real index before commit).
use toolwright_core::ToolSpec;
#[derive(Debug)]
pub struct ToolIndex { docs: Vec<String> }
impl ToolIndex {
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        ToolIndex { docs: tools.into_iter().map(|t| format!("{} {} {}", t.name.replace('_', " "), t.title, t.description).to_lowercase()).collect() }
    }
    pub fn len(&self) -> usize { self.docs.len() }
    pub fn is_empty(&self) -> bool { self.docs.is_empty() }
    pub fn search(&self, query: &str, limit: usize, admit: impl Fn(usize) -> bool) -> Vec<usize> {
        let words: Vec<String> = query.to_lowercase().split_whitespace().map(str::to_owned).collect();
        let mut scored: Vec<(usize, usize)> = self.docs.iter().enumerate().filter(|(i, _)| admit(*i)).map(|(i, d)| (i, words.iter().filter(|w| d.contains(w.as_str())).count())).filter(|(_, s)| *s > 0).collect();
        scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.into_iter().take(limit).map(|(i, _)| i).collect()
    }
}
