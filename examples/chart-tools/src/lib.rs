pub mod chart;
#[cfg(feature = "code-interpreter")]
pub mod interpreter;

/// The generated inputs, error enums and frozen metadata of `tools/*.toml`.
pub mod tools {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}
