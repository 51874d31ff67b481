//! How an imported tool's manifest is written: each `key = value` line by `toml`.

use serde::Serialize;

/// `{ file = "…" }`: a schema or definition kept in a file of its own.
#[derive(Serialize)]
pub(super) struct FileRef<'a> {
    pub(super) file: &'a str,
}

/// `key = value`, the value written by `toml`.
pub(super) fn entry<T: Serialize + ?Sized>(
    out: &mut String,
    key: &str,
    value: &T,
) -> Result<(), toml::ser::Error> {
    let mut text = String::new();
    value.serialize(toml::ser::ValueSerializer::new(&mut text))?;
    out.push_str(key);
    out.push_str(" = ");
    out.push_str(&text);
    out.push('\n');
    Ok(())
}
