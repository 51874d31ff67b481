//! (filled by the generator work)
