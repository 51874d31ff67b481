//! Validation of numbers is exact where the module docs of `validate` say it is: integers beyond
//! 2^53 against bounds, `const`, `enum` and `multipleOf` by an integer up to 2^53, and decimal
//! multiples such as `0.1`; a `multipleOf` divisor past 2^53 is not (see the docs for why, and
//! for why `serde_json`'s `arbitrary_precision` stays off).

use serde_json::{Value, json};
use toolwright_runtime::validate::InputSchema;

fn valid(schema: Value, value: Value) -> bool {
    InputSchema::compile(&schema)
        .expect("the schema compiles")
        .is_valid(&value)
}

#[test]
fn integers_beyond_2_pow_53_are_compared_exactly() {
    // 2^53 and 2^53 + 1 are the same `f64`: an inexact comparison would confuse them.
    let two_53 = 9_007_199_254_740_992_u64;
    assert!(!valid(json!({"maximum": two_53}), json!(two_53 + 1)));
    assert!(valid(json!({"maximum": two_53 + 1}), json!(two_53 + 1)));
    assert!(!valid(json!({"minimum": two_53 + 1}), json!(two_53)));
    assert!(!valid(
        json!({"exclusiveMaximum": two_53 + 1}),
        json!(two_53 + 1)
    ));
    assert!(valid(
        json!({"exclusiveMaximum": two_53 + 1}),
        json!(two_53)
    ));
    assert!(!valid(json!({"const": two_53 + 1}), json!(two_53)));
    assert!(valid(json!({"const": two_53 + 1}), json!(two_53 + 1)));
    assert!(!valid(json!({"enum": [two_53 + 1]}), json!(two_53)));
    // 2^53 + 1 = 3 × 3002399751580331; 2^53 + 2 is not a multiple of 3.
    assert!(valid(json!({"multipleOf": 3}), json!(two_53 + 1)));
    assert!(!valid(json!({"multipleOf": 3}), json!(two_53 + 2)));
    assert!(valid(json!({"maximum": u64::MAX}), json!(u64::MAX)));
    assert!(!valid(json!({"maximum": u64::MAX - 1}), json!(u64::MAX)));
}

#[test]
fn decimal_multiples_are_exact() {
    for ok in [0.3, 0.7, 1.1, 19.9] {
        assert!(valid(json!({"multipleOf": 0.1}), json!(ok)), "{ok}");
    }
    for not in [0.35, 0.05, 1.01] {
        assert!(!valid(json!({"multipleOf": 0.1}), json!(not)), "{not}");
    }
    assert!(valid(json!({"multipleOf": 0.01}), json!(19.99)));
    assert!(!valid(json!({"multipleOf": 0.01}), json!(19.999)));
}

#[test]
fn multiple_of_is_exact_for_integer_divisors_up_to_2_pow_53_only() {
    let two_53 = 9_007_199_254_740_992_u64;
    // 2^53 - 1 = 6361 × 69431 × 20394401: its multiples past 2^53 are decided exactly.
    let divisor = two_53 - 1;
    assert!(valid(json!({"multipleOf": divisor}), json!(2 * divisor)));
    assert!(!valid(
        json!({"multipleOf": divisor}),
        json!(2 * divisor + 1)
    ));
    assert!(valid(json!({"multipleOf": two_53}), json!(2 * two_53)));
    assert!(!valid(json!({"multipleOf": two_53}), json!(two_53 + 2)));
    assert!(!valid(json!({"multipleOf": 3}), json!(u64::MAX - 1)));
    assert!(valid(json!({"multipleOf": 5}), json!(u64::MAX)));
    // The boundary: `jsonschema` keeps the divisor as an `f64`, which holds no 2^53 + 1. The
    // divisor is read as 2^53 and decided as that number, both ways (the validation docs say
    // so; this test fails, and the docs are to be widened, once a release decides it exactly).
    let past = two_53 + 1;
    assert!(valid(json!({"multipleOf": past}), json!(two_53)));
    assert!(!valid(json!({"multipleOf": past}), json!(past)));
    let schema = InputSchema::compile(&json!({"multipleOf": past})).expect("compiles");
    let report = schema.check(&json!(past)).expect_err("refused").report();
    assert!(
        report.ends_with("/: Expected number to be a multiple of 9007199254740992"),
        "{report}"
    );
}
