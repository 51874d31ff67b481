//! Bounds on what a call may bring in and what an answer may send back.
//!
//! Tool arguments come from a model, a provider, or anyone who can forge a call. Before anything
//! walks them recursively (schema validation, the approver, deserialization into the typed
//! input), the registry measures them with an explicit stack, in time linear in their size and
//! stopping at the first bound crossed:
//!
//! | limit | default | over it |
//! |---|---|---|
//! | [`Limits::max_depth`] | [`DEFAULT_MAX_DEPTH`] = 64 levels of arrays and objects | `TOOL_INPUT_INVALID`, `/: Expected nesting of at most 64 levels` |
//! | [`Limits::max_argument_bytes`] | [`DEFAULT_MAX_ARGUMENT_BYTES`] = 1 MiB | `TOOL_INPUT_INVALID`, `/: Expected arguments of at most 1048576 bytes` |
//! | [`Limits::max_error_message_bytes`] | [`DEFAULT_MAX_ERROR_MESSAGE_BYTES`] = 4096 | the message is cut at a character boundary and ends in `…` |
//! | [`Limits::max_batch_calls`] | [`DEFAULT_MAX_BATCH_CALLS`] = 10,000 | the calls past the limit are answered `TOOL_NOT_ALLOWED` without running |
//!
//! The size of arguments is counted as one byte per value plus the UTF-8 length of every string
//! and object key: close to, and never more than, the length of their compact JSON text.
//!
//! Set them with [`RegistryBuilder::limits`](crate::RegistryBuilder::limits).
//!
//! A [`Value`] nested deeper than a few thousand levels cannot be built by `serde_json::from_str`
//! (its recursion limit is 128), but it can be built in code or with serde_json's
//! `unbounded_depth` feature. Dropping such a value recurses once per level, like any tree of
//! boxes; [`drop_iteratively`] takes it apart without recursion.

use serde_json::Value;

use crate::envelope::ToolResult;

/// Default [`Limits::max_depth`]: levels of arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Default [`Limits::max_argument_bytes`]: 1 MiB.
pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1 << 20;

/// Default [`Limits::max_error_message_bytes`].
pub const DEFAULT_MAX_ERROR_MESSAGE_BYTES: usize = 4096;

/// Default [`Limits::max_batch_calls`].
pub const DEFAULT_MAX_BATCH_CALLS: usize = 10_000;

/// The smallest accepted [`Limits::max_error_message_bytes`]: room for a code's short message.
pub const MIN_ERROR_MESSAGE_BYTES: usize = 64;

/// Bounds on a registry's inputs and answers. See the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The deepest nesting of arrays and objects tool arguments may have. A scalar is at level
    /// 0, `{}` and `[]` at level 1, `{"a": [1]}` at level 2.
    pub max_depth: usize,
    /// The largest size tool arguments may have (one byte per value plus the UTF-8 length of
    /// every string and key).
    pub max_argument_bytes: usize,
    /// The longest error message an envelope carries, in bytes (at least
    /// [`MIN_ERROR_MESSAGE_BYTES`]).
    pub max_error_message_bytes: usize,
    /// The most calls one message may make; the calls past it are refused, each with its own
    /// result.
    pub max_batch_calls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: DEFAULT_MAX_DEPTH,
            max_argument_bytes: DEFAULT_MAX_ARGUMENT_BYTES,
            max_error_message_bytes: DEFAULT_MAX_ERROR_MESSAGE_BYTES,
            max_batch_calls: DEFAULT_MAX_BATCH_CALLS,
        }
    }
}

/// Why arguments were refused before validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitExceeded {
    /// Nested deeper than [`Limits::max_depth`].
    #[error("/: Expected nesting of at most {limit} levels")]
    Depth {
        /// The limit.
        limit: usize,
    },
    /// Larger than [`Limits::max_argument_bytes`].
    #[error("/: Expected arguments of at most {limit} bytes")]
    Size {
        /// The limit.
        limit: usize,
    },
}

/// What [`measure`] found, up to where it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Measure {
    /// The deepest level of arrays and objects seen.
    depth: usize,
    /// One byte per value plus the UTF-8 length of every string and key seen.
    bytes: usize,
    /// How many values were seen.
    values: usize,
}

/// Measures `value` with an explicit stack (no recursion, whatever the bound), stopping as soon
/// as its depth passes `max_depth` or its size passes `max_bytes` (then the answer is a lower
/// bound that crosses the bound).
fn measure(value: &Value, max_depth: usize, max_bytes: usize) -> Measure {
    let mut found = Measure::default();
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, level)) = stack.pop() {
        found.values += 1;
        found.bytes = found.bytes.saturating_add(1);
        match value {
            Value::String(s) => found.bytes = found.bytes.saturating_add(s.len()),
            Value::Array(items) => {
                let inner = level + 1;
                found.depth = found.depth.max(inner);
                if inner > max_depth {
                    break;
                }
                stack.extend(items.iter().map(|item| (item, inner)));
            }
            Value::Object(map) => {
                let inner = level + 1;
                found.depth = found.depth.max(inner);
                if inner > max_depth {
                    break;
                }
                for (key, item) in map {
                    found.bytes = found.bytes.saturating_add(key.len());
                    stack.push((item, inner));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        if found.bytes > max_bytes {
            break;
        }
    }
    found
}

impl Limits {
    /// Checks tool arguments against [`Limits::max_depth`] and [`Limits::max_argument_bytes`],
    /// without recursion, in time linear in the part of `arguments` it had to look at.
    ///
    /// # Errors
    /// The first bound crossed.
    pub fn check_arguments(&self, arguments: &Value) -> Result<(), LimitExceeded> {
        let found = measure(arguments, self.max_depth, self.max_argument_bytes);
        if found.depth > self.max_depth {
            Err(LimitExceeded::Depth {
                limit: self.max_depth,
            })
        } else if found.bytes > self.max_argument_bytes {
            Err(LimitExceeded::Size {
                limit: self.max_argument_bytes,
            })
        } else {
            Ok(())
        }
    }

    /// The error-message bound in effect ([`Limits::max_error_message_bytes`], at least
    /// [`MIN_ERROR_MESSAGE_BYTES`]).
    pub fn error_message_bytes(&self) -> usize {
        self.max_error_message_bytes.max(MIN_ERROR_MESSAGE_BYTES)
    }

    /// Cuts the message of a failure to [`Limits::error_message_bytes`].
    pub fn bound_result(&self, mut result: ToolResult) -> ToolResult {
        if let ToolResult::Failure { error, .. } = &mut result {
            cut_to_bytes(&mut error.message, self.error_message_bytes());
        }
        result
    }
}

pub(crate) use toolwright_core::text::cut_to_bytes;

/// Drops `value` without recursion: a value nested hundreds of thousands of levels deep would
/// otherwise overflow the stack of the thread that drops it.
pub fn drop_iteratively(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, item)| item)),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::ErrorBody;
    use serde_json::json;

    #[test]
    fn depth_counts_levels_of_containers() {
        assert_eq!(measure(&json!(1), 64, 1000).depth, 0);
        assert_eq!(measure(&json!({}), 64, 1000).depth, 1);
        assert_eq!(measure(&json!({"a": [1]}), 64, 1000).depth, 2);
        assert_eq!(measure(&json!([[], [[{}]]]), 64, 1000).depth, 4);
    }

    #[test]
    fn size_counts_values_strings_and_keys() {
        // 1 (object) + 3 ("key") + 1 (string value) + 5 ("hello") + 1 (null) + 1 (key "n")
        let found = measure(&json!({"key": "hello", "n": null}), 64, 1000);
        assert_eq!(found.bytes, 12);
        assert_eq!(found.values, 3);
        let text = r#"{"key":"hello","n":null}"#;
        assert!(found.bytes <= text.len());
    }

    #[test]
    fn the_size_bound_is_inclusive() {
        let limits = Limits {
            max_argument_bytes: 12,
            ..Limits::default()
        };
        assert_eq!(
            limits.check_arguments(&json!({"key": "hello", "n": null})),
            Ok(())
        );
        assert_eq!(
            limits.check_arguments(&json!({"key": "hello!", "n": null})),
            Err(LimitExceeded::Size { limit: 12 })
        );
    }

    #[test]
    fn measuring_stops_at_the_first_bound() {
        let wide = Value::Array(vec![json!("x"); 10_000]);
        let found = measure(&wide, 64, 100);
        assert!(found.bytes > 100 && found.values < 100, "{found:?}");
    }

    /// A pseudo-random JSON value (deterministic LCG): nested arrays and objects, strings, keys.
    fn random_value(seed: &mut u64, level: usize) -> Value {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (*seed >> 33) % 6;
        let width = ((*seed >> 40) % 4) as usize;
        match pick {
            0 if level < 12 => {
                Value::Array((0..width).map(|_| random_value(seed, level + 1)).collect())
            }
            1 if level < 12 => Value::Object(
                (0..width)
                    .map(|i| {
                        (
                            format!("k{i}{}", "é".repeat(i)),
                            random_value(seed, level + 1),
                        )
                    })
                    .collect(),
            ),
            2 => json!("x".repeat(width * 3)),
            3 => json!(width),
            _ => Value::Null,
        }
    }

    #[test]
    fn measuring_stops_exactly_when_a_bound_is_crossed() {
        let mut seed = 7;
        for _ in 0..2_000 {
            let value = random_value(&mut seed, 0);
            let whole = measure(&value, usize::MAX, usize::MAX);
            for (max_depth, max_bytes) in [(64, 1 << 20), (3, 1 << 20), (64, 20), (1, 5), (0, 0)] {
                let found = measure(&value, max_depth, max_bytes);
                let crosses = whole.depth > max_depth || whole.bytes > max_bytes;
                assert_eq!(
                    found.depth > max_depth || found.bytes > max_bytes,
                    crosses,
                    "{value}"
                );
                if !crosses {
                    assert_eq!(found, whole, "{value}");
                }
            }
        }
    }

    #[test]
    fn deep_values_are_measured_and_dropped_without_recursion() {
        let mut value = json!(0);
        for _ in 0..200_000 {
            value = Value::Array(vec![value]);
        }
        let found = measure(&value, 1_000_000, usize::MAX);
        assert_eq!(found.depth, 200_000);
        assert_eq!(found.values, 200_001);
        let limits = Limits {
            max_depth: 100_000,
            ..Limits::default()
        };
        assert_eq!(
            limits.check_arguments(&value),
            Err(LimitExceeded::Depth { limit: 100_000 })
        );
        drop_iteratively(value);
    }

    #[test]
    fn messages_are_cut_at_character_boundaries() {
        let mut text = "é".repeat(100);
        cut_to_bytes(&mut text, 11);
        assert_eq!(text, "éééé…");
        assert!(text.len() <= 11);
        let mut short = "short".to_owned();
        cut_to_bytes(&mut short, 5);
        assert_eq!(short, "short");
    }

    #[test]
    fn only_failures_are_cut_and_never_below_the_minimum() {
        let limits = Limits {
            max_error_message_bytes: 1,
            ..Limits::default()
        };
        let long = ToolResult::failure(
            ErrorBody::runtime(
                crate::envelope::RuntimeCode::Failed,
                "x".repeat(1000),
                "act",
            ),
            true,
        );
        let cut = limits.bound_result(long);
        let message = &cut.error().expect("failure").message;
        assert_eq!(message.len(), MIN_ERROR_MESSAGE_BYTES);
        assert!(message.ends_with('…'));
        let success = ToolResult::success(json!("y".repeat(1000)), false);
        assert_eq!(limits.bound_result(success.clone()), success);
    }
}
