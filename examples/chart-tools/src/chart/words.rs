//! Small closed vocabularies (intervals, drawing kinds, setting keys, ...): one spelling each.

use std::fmt;

/// A word that is not one of the accepted spellings of a vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWord {
    /// What was being parsed, e.g. `interval`.
    pub what: &'static str,
    /// The word that was found.
    pub found: String,
    /// The accepted spellings.
    pub accepted: &'static [&'static str],
}

impl fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} `{}`, expected one of ",
            self.what,
            super::error::short(&self.found)
        )?;
        for (i, word) in self.accepted.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{word}`")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownWord {}

/// Declares a fieldless enum with one spelling per variant: `ALL`, `as_str`, `FromStr`,
/// `Display`, and serde as that spelling.
macro_rules! word_enum {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident => $word:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $ty {
            $($(#[$vmeta])* $variant),+
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// Every spelling, in declaration order.
            pub const ACCEPTED: &'static [&'static str] = &[$($word),+];

            /// The one spelling of this value.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $word),+
                }
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::chart::words::UnknownWord;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($word => Ok($ty::$variant),)+
                    _ => Err($crate::chart::words::UnknownWord {
                        what: $what,
                        found: s.to_owned(),
                        accepted: Self::ACCEPTED,
                    }),
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let word = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                word.parse().map_err(::serde::de::Error::custom)
            }
        }
    };
}

pub(crate) use word_enum;
