//! Support for code emitted by `#[tool]` and by the generator. Not a public API.
//!
//! The `#[tool]` attribute emits, per tool, a frozen [`ToolMeta`](crate::handler::ToolMeta) and a
//! one-line adapter that hands the arguments and the function to [`call_sync`] or
//! [`call_async`]. Everything else (deserializing the arguments, converting the result, boxing
//! the future) happens here, once, so a crate with many tools compiles little code per tool.
//!
//! The hidden traits below exist for their compile errors: each carries a
//! `#[diagnostic::on_unimplemented]` message that says what a tool function must look like.

use std::collections::BTreeMap;
use std::future::Future;

pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

// What generated code and the macros' expansions name, under one path that the runtime's
// public modules can move around without breaking them.
pub use crate::handler::ToolDef;
pub use crate::tool::{DeclaredError, Failure, ToolError};
pub use toolwright_core::{
    DeprecationMeta, ErrorMeta, ExampleMeta, Mode, Safety, StaticSchema, ToolMeta,
};

use serde::de::{self, DeserializeOwned, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_path_to_error::Segment;
use toolwright_core::dialect::join_pointer;

use crate::handler::{BoxFuture, CallResult, ExclusiveFn, Handler, IntoToolOutput, SharedFn};

/// The input schema of a code-first tool: schemars' draft 2020-12 schema of `T`.
///
/// Everything schemars writes is kept (`type`, `properties`, `required`, `title`,
/// `description` from doc comments, `additionalProperties` from `deny_unknown_fields`, `$defs`
/// for nested types), except the `$schema` key: the dialect is always draft 2020-12.
fn input_schema<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>();
    schema.remove("$schema");
    schema.to_value()
}

/// The input of a tool is deserialized from the validated arguments ([`InputDeserialize`]); a
/// code-first tool's is also described by a schema ([`InputJsonSchema`]). Two traits, so that
/// a type missing one of them is told which.
#[diagnostic::on_unimplemented(
    message = "the input of a tool must derive `Deserialize`, `{Self}` does not",
    label = "the tool's arguments are deserialized into this type",
    note = "add `#[derive(serde::Deserialize)]` to the input type"
)]
pub trait InputDeserialize: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> InputDeserialize for T {}

/// The schema of a code-first tool's input: `JsonSchema` of schemars 1, the version this crate
/// re-exports. A type deriving another major version's `JsonSchema` has a trait of the same
/// name that is not this one; the note says so.
#[diagnostic::on_unimplemented(
    message = "the input of a tool must derive `JsonSchema` (schemars 1), `{Self}` does not",
    label = "the schema of this type is shown to the model",
    note = "add `#[derive(schemars::JsonSchema)]` to the input type",
    note = "the input derives `JsonSchema` of schemars 0.8? this toolkit needs schemars 1: depend on `schemars = \"1\"`"
)]
pub trait InputJsonSchema: schemars::JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: schemars::JsonSchema> InputJsonSchema for T {}

/// Asserts that a manifest-bound tool takes the input struct generated for its manifest.
#[diagnostic::on_unimplemented(
    message = "a manifest-bound tool must take the `Input` generated from its manifest, found `{Self}`",
    label = "expected `{Expected}`",
    note = "the manifest declares the arguments; take `{Expected}` so that its schema and this function cannot drift"
)]
pub trait ManifestInput<Expected> {
    /// The identity.
    fn from_expected(input: Expected) -> Self;
}

impl<T> ManifestInput<T> for T {
    fn from_expected(input: T) -> T {
        input
    }
}

/// The error type of a code-first tool: `ToolError`, or `D` or `Failure<D>` of a
/// [`DeclaredError`] enum `D`, whose codes are then the tool's declared errors. The same
/// shapes as a manifest-bound tool's ([`ManifestError`]), so that every code a tool can
/// return is in its frozen metadata.
///
/// `#[derive(DeclaredError)]` implements it for the enum itself (`D`); there is no blanket
/// implementation over `DeclaredError`, which would be a second candidate for `Failure<X>` and
/// hide the one useful message, that `X` does not declare its codes.
///
/// The notes say what a crate can write for another error type: `From<io::Error> for
/// ToolError`, say, is not one of them (neither type is the crate's).
#[diagnostic::on_unimplemented(
    message = "the error type of a tool must be `ToolError` or an enum of declared codes, `{Self}` is neither",
    label = "a tool returns `Result<T, E>` where `E` is `ToolError`, or `D` or `Failure<D>` of a `#[derive(DeclaredError)]` enum `D`",
    note = "return `Result<T, ToolError>` and convert other errors with `.map_err(ToolError::failed)?` (`TOOL_FAILED` with the error's text)",
    note = "or declare the codes the tool fails with: an enum with `#[derive(DeclaredError)]`, each variant with `#[declared(retryable = ..., recommended_action = \"...\")]`, and fail with it or `Failure<E>`"
)]
pub trait CodeFirstError {
    /// The codes the tool declares.
    const ERRORS: &'static [ErrorMeta];
    /// Converts the error.
    fn into_tool_error(self) -> ToolError;
}

impl CodeFirstError for ToolError {
    const ERRORS: &'static [ErrorMeta] = &[];
    fn into_tool_error(self) -> ToolError {
        self
    }
}

impl<D: DeclaredError> CodeFirstError for Failure<D> {
    const ERRORS: &'static [ErrorMeta] = D::ERRORS;
    fn into_tool_error(self) -> ToolError {
        self.into()
    }
}

/// The error type of a manifest-bound tool: the generated enum `D` or `Failure<D>`.
#[diagnostic::on_unimplemented(
    message = "a manifest-bound tool must fail with the `Error` generated from its manifest, found `{Self}`",
    label = "expected `{D}` or `Failure<{D}>`",
    note = "the manifest's `[[errors]]` are the only codes this tool may return; declare new codes there"
)]
pub trait ManifestError<D> {
    /// Converts the error.
    fn into_tool_error(self) -> ToolError;
}

impl<D: DeclaredError> ManifestError<D> for D {
    fn into_tool_error(self) -> ToolError {
        Failure::new(self).into()
    }
}

impl<D: DeclaredError> ManifestError<D> for Failure<D> {
    fn into_tool_error(self) -> ToolError {
        self.into()
    }
}

/// What a tool function returns: `Result<T, E>`.
#[diagnostic::on_unimplemented(
    message = "a tool must return `Result<T, E>`, found `{Self}`",
    label = "expected `Result<T, E>` where `T: Serialize`",
    note = "`T` is the tool's output (serialized to JSON); `E` its error"
)]
pub trait ToolReturn {
    /// The success type.
    type Output;
    /// The error type.
    type Error;
    /// The result.
    fn into_result(self) -> Result<Self::Output, Self::Error>;
}

impl<T, E> ToolReturn for Result<T, E> {
    type Output = T;
    type Error = E;
    fn into_result(self) -> Result<T, E> {
        self
    }
}

/// The success type of a tool.
#[diagnostic::on_unimplemented(
    message = "the output of a tool must implement `Serialize`, `{Self}` does not",
    label = "a tool returns `Result<T, E>` where `T: Serialize`",
    note = "add `#[derive(serde::Serialize)]` to the output type"
)]
pub trait ToolOutputValue: IntoToolOutput {}

#[diagnostic::do_not_recommend]
impl<T: IntoToolOutput> ToolOutputValue for T {}

/// How a tool's arguments become its typed input. Built once per tool in a `const`, which is
/// where a wrong input type is reported (on the type, once).
#[derive(Debug)]
pub struct InputFns<I> {
    /// The input schema (code-first tools).
    pub schema: fn() -> Value,
    /// Deserializes validated arguments (`I::deserialize(&value)`, no clone).
    pub deserialize: fn(&Value) -> Result<I, ToolError>,
}

/// The input of a code-first tool: any `Deserialize + JsonSchema` type.
pub const fn code_first_input<I: InputDeserialize + InputJsonSchema>() -> InputFns<I> {
    InputFns {
        schema: input_schema::<I>,
        deserialize: deserialize::<I>,
    }
}

/// How a manifest-bound tool's arguments become its typed input (its schema is the manifest's).
#[derive(Debug)]
pub struct BoundInputFns<I> {
    /// Deserializes validated arguments.
    pub deserialize: fn(&Value) -> Result<I, ToolError>,
}

/// The input of a manifest-bound tool: exactly the generated `Input` of its manifest, which
/// only deserializes (its schema is the manifest's, in `META`).
pub const fn manifest_input<I: ManifestInput<E>, E: InputDeserialize>() -> BoundInputFns<I> {
    BoundInputFns {
        deserialize: deserialize_as::<I, E>,
    }
}

/// `args` read as `I`, or the JSON Pointer of the value that failed and why.
fn read<I: DeserializeOwned>(args: &Value) -> Result<I, (String, serde_json::Error)> {
    serde_path_to_error::deserialize(args).map_err(|error| {
        let mut pointer = String::new();
        for segment in error.path().iter() {
            match segment {
                Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
                Segment::Map { key } => pointer = join_pointer(&pointer, key),
                Segment::Enum { variant } => pointer = join_pointer(&pointer, variant),
                Segment::Unknown => {}
            }
        }
        (pointer, error.into_inner())
    })
}

/// `<pointer>: <why>`, the root written `/`.
fn input_error(pointer: &str, error: &serde_json::Error) -> ToolError {
    let at = if pointer.is_empty() { "/" } else { pointer };
    ToolError::Input(format!("{at}: {error}"))
}

/// Deserializes validated arguments; an error (which validation should have made impossible)
/// names the JSON Pointer of the value that failed, as `serde_path_to_error` tracks it.
///
/// The generated types read integers with [`integral`], but a type of the user's (a code-first
/// input, an existing type a generated input uses) reads them as its fields do, so an integral
/// float (`2.0`, `1e2`), which JSON Schema counts as an integer and validation accepts, would
/// fail them. When reading fails, every integral float within `i64` or `u64` is written as that
/// integer and the arguments are read once more: a call that reads as it is costs nothing
/// more, and keeps its numbers as sent.
///
/// When the second reading fails too, its error is reported if the first one was about a float
/// this rewrote (the second then says what is wrong with the number, `integer 300, expected
/// u8`, quoting it as the integer it was read as; or with the next value), the first one
/// otherwise.
fn deserialize<I: DeserializeOwned>(args: &Value) -> Result<I, ToolError> {
    let (pointer, error) = match read(args) {
        Ok(input) => return Ok(input),
        Err(failed) => failed,
    };
    let mut rewritten = args.clone();
    if !integral_floats_to_integers(&mut rewritten) {
        return Err(input_error(&pointer, &error));
    }
    read(&rewritten).map_err(|(again, second)| {
        let first_was_rewritten = args
            .pointer(&pointer)
            .zip(rewritten.pointer(&pointer))
            .is_some_and(|(sent, read)| sent != read);
        if first_was_rewritten {
            input_error(&again, &second)
        } else {
            input_error(&pointer, &error)
        }
    })
}

/// Writes every integral float of `value` within `i64` or `u64` as that integer; whether any
/// was. Written by hand: `serde_json` has no such rewrite. It walks without recursion, with a
/// stack of its own, so that deep arguments cannot exhaust the thread's stack.
fn integral_floats_to_integers(value: &mut Value) -> bool {
    // `i64` and `u64` bounds are powers of two, exact in `f64`.
    const I64_MIN: f64 = -9_223_372_036_854_775_808.0;
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    let mut changed = false;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(number) => {
                let Some(float) = number.as_f64().filter(|_| number.is_f64()) else {
                    continue;
                };
                if float.fract() != 0.0 {
                    continue;
                }
                // Exactly integral and in range: the casts are exact.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let integer = if (I64_MIN..I64_END).contains(&float) {
                    Value::from(float as i64)
                } else if (0.0..U64_END).contains(&float) {
                    Value::from(float as u64)
                } else {
                    continue;
                };
                *value = integer;
                changed = true;
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            Value::Null | Value::Bool(_) | Value::String(_) => {}
        }
    }
    changed
}

/// An integer of the generated code, read from a JSON integer or an integral float (`2.0`,
/// `1e2`: JSON Schema counts them as integers, `serde` does not), alone or inside `Option`,
/// `Vec` and maps. Written here because `serde` has no lenient integer.
pub trait Integral<'de>: Sized {
    /// Reads the value.
    ///
    /// # Errors
    /// A value that is not an integer of this type.
    fn integral<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

/// Reads an integer type for `#[serde(deserialize_with)]`.
///
/// # Errors
/// A value that is not an integer of the field's type.
pub fn integral<'de, D: Deserializer<'de>, T: Integral<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    T::integral(deserializer)
}

/// Reads a present optional field, `null` included, as `Some` (absence is the field's
/// `default`, `None`): the `Option<Option<T>>` of an optional nullable property.
///
/// # Errors
/// As `T`'s `Deserialize`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// [`present`] for a type holding integers.
///
/// # Errors
/// As [`integral`].
pub fn present_integral<'de, D: Deserializer<'de>, T: Integral<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::integral(deserializer).map(Some)
}

/// `T` read by [`Integral`], for the containers.
struct Lenient<T>(T);

impl<'de, T: Integral<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::integral(deserializer).map(Lenient)
    }
}

/// The integer visitor: integers in range, and floats without a fractional part. An integer
/// the schema accepted but the field's type cannot hold (`1e19` for an `i64`) is refused with
/// the type's range, in the words of the validation report (`Expected integer from … to …`).
struct IntegerVisitor<T> {
    /// The least and greatest value of `T`.
    range: (i128, i128),
    of: std::marker::PhantomData<T>,
}

impl<T: TryFrom<i128>> IntegerVisitor<T> {
    fn out_of_range<E: de::Error>(&self) -> E {
        E::custom(format!(
            "Expected integer from {} to {}",
            self.range.0, self.range.1
        ))
    }
}

impl<T: TryFrom<i128>> Visitor<'_> for IntegerVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "an integer of type {}", std::any::type_name::<T>())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_i128(i128::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_i128(i128::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<T, E> {
        T::try_from(v).map_err(|_| self.out_of_range())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        // Exactly integral and within `i128` (whose bounds are powers of two, exact in `f64`).
        if v.fract() == 0.0 && v >= -(2f64.powi(127)) && v < 2f64.powi(127) {
            #[allow(clippy::cast_possible_truncation)]
            self.visit_i128(v as i128)
        } else if v.fract() == 0.0 {
            Err(self.out_of_range())
        } else {
            Err(E::invalid_value(de::Unexpected::Float(v), &self))
        }
    }
}

macro_rules! integral_int {
    ($($t:ty),*) => {$(
        impl<'de> Integral<'de> for $t {
            fn integral<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any(IntegerVisitor::<$t> {
                    range: (i128::from(<$t>::MIN), i128::from(<$t>::MAX)),
                    of: std::marker::PhantomData,
                })
            }
        }
    )*};
}

integral_int!(i64, u64, i128);

impl<'de, T: Integral<'de>> Integral<'de> for Option<T> {
    fn integral<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<Lenient<T>>::deserialize(deserializer).map(|v| v.map(|l| l.0))
    }
}

impl<'de, T: Integral<'de>> Integral<'de> for Vec<T> {
    fn integral<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Lenient<T>>::deserialize(deserializer).map(|v| v.into_iter().map(|l| l.0).collect())
    }
}

impl<'de, T: Integral<'de>> Integral<'de> for BTreeMap<String, T> {
    fn integral<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<String, Lenient<T>>::deserialize(deserializer)
            .map(|m| m.into_iter().map(|(k, l)| (k, l.0)).collect())
    }
}

fn deserialize_as<I: ManifestInput<E>, E: DeserializeOwned>(args: &Value) -> Result<I, ToolError> {
    deserialize::<E>(args).map(I::from_expected)
}

/// How a tool's result becomes a [`CallResult`]. Built once per tool in a `const`, which is
/// where a wrong return type is reported (on the type, once).
#[derive(Debug)]
pub struct ReturnFns<R> {
    /// Converts the result; the tool's declared safety decides `stateChanged`.
    pub finish: fn(R, Safety) -> CallResult,
    /// The codes of the error type, for a code-first tool's metadata (a manifest-bound tool's
    /// are its manifest's: empty here).
    pub errors: &'static [ErrorMeta],
}

/// The return type of a code-first tool: `Result<T, E>`, `T: Serialize`, `E` a
/// [`CodeFirstError`] (whose codes are the tool's declared errors).
pub const fn code_first_return<R>() -> ReturnFns<R>
where
    R: ToolReturn,
    R::Output: ToolOutputValue,
    R::Error: CodeFirstError,
{
    ReturnFns {
        finish: |result, safety| finish(result, safety, CodeFirstError::into_tool_error),
        errors: <R::Error as CodeFirstError>::ERRORS,
    }
}

/// The return type of a manifest-bound tool: `Result<T, D>` or `Result<T, Failure<D>>`, `D`
/// being the generated `Error` of its manifest.
pub const fn manifest_return<R, D>() -> ReturnFns<R>
where
    R: ToolReturn,
    R::Output: ToolOutputValue,
    R::Error: ManifestError<D>,
{
    ReturnFns {
        finish: |result, safety| finish(result, safety, ManifestError::into_tool_error),
        errors: &[],
    }
}

/// The result of a tool, its error converted by `error` (the code-first or the manifest rule).
fn finish<R: ToolReturn>(result: R, safety: Safety, error: fn(R::Error) -> ToolError) -> CallResult
where
    R::Output: IntoToolOutput,
{
    match result.into_result() {
        Ok(output) => output.into_tool_output(safety),
        Err(e) => Err(error(e)),
    }
}

/// Runs a synchronous tool function: deserializes the arguments, calls `f`, converts its result.
/// The returned future is already complete.
// `inline(always)`: each tool's instance is then compiled into the codegen unit of its caller, the
// tool's adapter, instead of one unit that holds every tool's. Its type arguments include the
// adapter's closure, whose debug information records the line it is on, so an edit that moves
// the tools below it changes their instances, and in one shared unit every tool's instance would
// be compiled again (docs/performance.md, "The incremental rebuild after the redesign"). No
// closure inside, for the same reason.
#[inline(always)]
pub fn call_sync<'a, I, R>(
    meta: &'static ToolMeta,
    args: &'a Value,
    input: fn(&Value) -> Result<I, ToolError>,
    finish: fn(R, Safety) -> CallResult,
    f: impl FnOnce(I) -> R,
) -> BoxFuture<'a, CallResult> {
    let result = match input(args) {
        Ok(input) => finish(f(input), meta.safety),
        Err(error) => Err(error),
    };
    Box::pin(std::future::ready(result))
}

/// Runs an `async` tool function: deserializes the arguments (before any future exists), then
/// awaits `f`'s future and converts its result.
pub fn call_async<'a, I, R: 'a, F>(
    meta: &'static ToolMeta,
    args: &'a Value,
    input: fn(&Value) -> Result<I, ToolError>,
    finish: fn(R, Safety) -> CallResult,
    f: impl FnOnce(I) -> F,
) -> BoxFuture<'a, CallResult>
where
    F: Future<Output = R> + Send + 'a,
{
    match input(args) {
        Ok(input) => {
            let future = f(input);
            Box::pin(async move { finish(future.await, meta.safety) })
        }
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

/// The metadata of a code-first tool with its `source`, the path of its function
/// (`crate::module::f`): the `type_name` of `T`, the hidden type `#[tool]` names like the
/// function, next to it. Written into `cell` once. (A `module_path!()` in the tool's `static`
/// would say the same, at the cost of checking every tool after an edit again.)
// `inline(always)` and the work in `located_at`: as for `call_sync`, `T` is declared where the
// tool is, and its instances would otherwise share one codegen unit.
#[inline(always)]
pub fn located<T>(cell: &'static OnceLock<ToolMeta>, meta: &ToolMeta) -> &'static ToolMeta {
    located_at(cell, meta, std::any::type_name::<T>())
}

/// [`located`]'s work, one function for every tool.
fn located_at(
    cell: &'static OnceLock<ToolMeta>,
    meta: &ToolMeta,
    path: &'static str,
) -> &'static ToolMeta {
    cell.get_or_init(|| meta.source(path))
}

/// Builds the [`ToolDef`](ToolDef) of a tool taking `&C` or no context.
pub const fn shared<C>(meta: &'static ToolMeta, f: SharedFn<C>) -> ToolDef<C> {
    ToolDef {
        meta,
        handler: Handler::Shared(f),
    }
}

/// Builds the [`ToolDef`](ToolDef) of a tool taking `&mut C` (sequential, destructive).
pub const fn exclusive<C>(meta: &'static ToolMeta, f: ExclusiveFn<C>) -> ToolDef<C> {
    ToolDef {
        meta,
        handler: Handler::Exclusive(f),
    }
}

/// A `#[tool]` function, seen through the hidden type of the same name that `#[tool]` emits
/// next to it: `tool_def!(f)` is `<f as Tool<_>>::def()`.
///
/// `tool_def!` and `tool_defs!` import the path they are given as `__Tool` next to a glob import
/// of [`not_a_tool`], whose `__Tool` is [`NotATool`]: a glob import is shadowed, namespace by
/// namespace, by a named one. The path of a `#[tool]` function names a type (the hidden one),
/// which shadows `NotATool`; the path of any other function names only a value, so `__Tool` is
/// `NotATool` as a type, and this trait's message is the one error.
#[diagnostic::on_unimplemented(
    message = "this function is not a tool: `tool_def!` and `tool_defs!` take functions with `#[tool(...)]`",
    label = "not a `#[tool]` function",
    note = "add `#[tool(safety = \"...\", mode = \"...\")]` (a code-first tool) or `#[tool(manifest = path::to::tools::name)]` (a tool declared by a manifest) to the function"
)]
pub trait Tool<C> {
    /// The tool's definition: frozen metadata and adapter.
    fn def() -> ToolDef<C>;
}

/// The name of a `#[tool]` function's tool, known at compile time (for `tool_defs!`'s check).
pub trait ToolName {
    /// The tool's name; `None` for [`NotATool`] and for a tool with a mistake (already an error).
    const NAME: Option<&'static str>;
}

/// What `__Tool` is when the path given to `tool_def!` is not a `#[tool]` function (see [`Tool`]).
#[derive(Debug)]
pub struct NotATool;

impl ToolName for NotATool {
    const NAME: Option<&'static str> = None;
}

/// Glob-imported by `tool_def!` and `tool_defs!` (see [`Tool`]).
pub mod not_a_tool {
    pub use super::NotATool as __Tool;
}

/// Text written at compile time into `N` bytes, measuring what does not fit.
///
/// A `const` assertion's panic message can only be a `&str` computed at compile time: a writer
/// first runs with `N = 0` to measure the text ([`Text::len`]), then again with `N` that length.
/// Hand-written because `core::fmt` does not run in `const` code.
#[derive(Debug)]
pub struct Text<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    /// Empty text.
    pub const fn new() -> Self {
        Text {
            bytes: [0; N],
            len: 0,
        }
    }

    /// Appends `text` (the part beyond `N` bytes is only counted).
    pub const fn push(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if self.len < N {
                self.bytes[self.len] = bytes[i];
            }
            self.len += 1;
            i += 1;
        }
    }

    /// The length of everything pushed.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was pushed.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text written (whole `&str`s concatenate into UTF-8; empty when `N` was too small).
    pub const fn as_str(&self) -> &str {
        match std::str::from_utf8(&self.bytes) {
            Ok(text) if self.len == N => text,
            _ => "",
        }
    }
}

impl<const N: usize> Default for Text<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// `parts` concatenated into a [`Text`].
const fn concat<const N: usize>(parts: &[&str]) -> Text<N> {
    let mut text = Text::new();
    let mut i = 0;
    while i < parts.len() {
        text.push(parts[i]);
        i += 1;
    }
    text
}

/// The length of a compile-time message assembled from `parts` (see [`message`]).
pub const fn message_len(parts: &[&str]) -> usize {
    concat::<0>(parts).len()
}

/// Concatenates `parts` at compile time, so a `const` assertion can name a manifest's file
/// (`META.source`) in its panic message. `N` is [`message_len`] of the same parts.
pub const fn message<const N: usize>(parts: &[&str]) -> [u8; N] {
    concat::<N>(parts).bytes
}

/// The text of a [`message`] (whole `&str` parts concatenate into UTF-8).
pub const fn message_str(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => "",
    }
}

/// `tool_defs!`'s check, as the message of its compile error (empty when every declared tool
/// is implemented): the declared tools that are neither `implemented` nor in `except`, each with
/// its manifest, and the names in `except` that are not declared. When a listed function is not
/// a tool (a `None` name), that is the error already, and nothing is added.
pub const fn unimplemented<const N: usize>(
    declared: &[&ToolMeta],
    except: &[&str],
    implemented: &[Option<&str>],
) -> Text<N> {
    let mut text = Text::new();
    let mut i = 0;
    while i < implemented.len() {
        if implemented[i].is_none() {
            return text;
        }
        i += 1;
    }
    let mut missing = 0;
    let mut i = 0;
    while i < declared.len() {
        let meta = declared[i];
        if !contains(except, meta.name) && !contains_some(implemented, meta.name) {
            text.push(if missing == 0 { "" } else { "; " });
            text.push("tool `");
            text.push(meta.name);
            text.push("` is declared in `");
            text.push(meta.source);
            text.push("` but has no implementation in `tool_defs!`");
            missing += 1;
        }
        i += 1;
    }
    if missing > 0 {
        text.push(": add its `#[tool]` function to the list, or its name to `except`");
    }
    let mut i = 0;
    while i < except.len() {
        let mut found = false;
        let mut j = 0;
        while j < declared.len() {
            found |= same(declared[j].name, except[i]);
            j += 1;
        }
        if !found {
            text.push(if text.is_empty() { "" } else { "; " });
            text.push("`except` names `");
            text.push(except[i]);
            text.push("`, which no manifest declares");
        }
        i += 1;
    }
    text
}

const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if same(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

const fn contains_some(names: &[Option<&str>], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if let Some(listed) = names[i]
            && same(listed, name)
        {
            return true;
        }
        i += 1;
    }
    false
}

/// `a == b`, in `const` code (`str`'s `PartialEq` is not `const`).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::{Mode, StaticSchema};

    static PANES_LIST: ToolMeta = ToolMeta::new(
        "panes_list",
        Safety::ReadOnly,
        Mode::Parallel,
        StaticSchema::Json("{}"),
    )
    .source("tools/panes_list.toml");
    static DRAWING_CREATE: ToolMeta = ToolMeta::new(
        "drawing_create",
        Safety::Destructive,
        Mode::Sequential,
        StaticSchema::Json("{}"),
    )
    .source("tools/drawing_create.toml");
    static DECLARED: &[&ToolMeta] = &[&DRAWING_CREATE, &PANES_LIST];

    /// The message of `tool_defs!`'s check.
    fn check(except: &[&str], implemented: &[Option<&str>]) -> String {
        let len = unimplemented::<0>(DECLARED, except, implemented).len();
        // `N` must be a constant: a buffer larger than the text reads as empty, so measure
        // with a fixed size and compare the length.
        let text = unimplemented::<512>(DECLARED, except, implemented);
        assert!(len <= 512, "a short message");
        String::from_utf8_lossy(&text.bytes[..len]).into_owned()
    }

    #[test]
    fn every_declared_tool_listed_or_excepted_passes() {
        assert_eq!(
            check(&[], &[Some("panes_list"), Some("drawing_create")]),
            ""
        );
        assert_eq!(check(&["drawing_create"], &[Some("panes_list")]), "");
        // Code-first tools need no manifest.
        assert_eq!(
            check(
                &[],
                &[
                    Some("drawing_create"),
                    Some("web_search"),
                    Some("panes_list")
                ]
            ),
            ""
        );
    }

    #[test]
    fn each_missing_tool_is_named_with_its_manifest() {
        assert_eq!(
            check(&[], &[Some("panes_list")]),
            "tool `drawing_create` is declared in `tools/drawing_create.toml` but has no \
             implementation in `tool_defs!`: add its `#[tool]` function to the list, or its name to \
             `except`"
        );
        assert_eq!(
            check(&[], &[]),
            "tool `drawing_create` is declared in `tools/drawing_create.toml` but has no \
             implementation in `tool_defs!`; tool `panes_list` is declared in \
             `tools/panes_list.toml` but has no implementation in `tool_defs!`: add its `#[tool]` \
             function to the list, or its name to `except`"
        );
        // A prefix of a name is not the name.
        assert_ne!(check(&[], &[Some("panes"), Some("drawing_create")]), "");
    }

    #[test]
    fn an_excepted_name_must_be_declared() {
        assert_eq!(
            check(
                &["panes_lst"],
                &[Some("panes_list"), Some("drawing_create")]
            ),
            "`except` names `panes_lst`, which no manifest declares"
        );
    }

    #[test]
    fn a_listed_function_that_is_not_a_tool_is_already_the_error() {
        assert_eq!(check(&["nope"], &[None]), "");
    }

    #[test]
    fn text_measures_what_does_not_fit() {
        let mut text = Text::<4>::new();
        text.push("tool");
        assert_eq!((text.len(), text.as_str()), (4, "tool"));
        text.push("s");
        assert_eq!((text.len(), text.as_str()), (5, ""), "too long to be read");
        let parts = ["a", "é", "b"];
        assert_eq!(message_len(&parts), 4);
        assert_eq!(message_str(&message::<4>(&parts)), "aéb");
    }

    use serde_json::json;

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    struct Outer {
        #[serde(rename = "a/b")]
        inner: Vec<Inner>,
    }

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    struct Inner {
        #[serde(deserialize_with = "integral")]
        n: i64,
    }

    fn input_error(args: Value) -> String {
        match deserialize::<Outer>(&args) {
            Err(ToolError::Input(message)) => message,
            other => panic!("an input error: {other:?}"),
        }
    }

    #[test]
    fn a_deserialization_error_names_the_pointer_of_the_value() {
        let message = input_error(json!({"a/b": [{"n": 1}, {"n": "x"}]}));
        assert!(message.starts_with("/a~1b/1/n: "), "{message}");
        let message = input_error(json!({"a/b": [{"n": 2.5}]}));
        assert!(
            message.starts_with("/a~1b/0/n: invalid value: floating point `2.5`"),
            "{message}"
        );
        let message = input_error(json!([]));
        assert!(message.starts_with("/: "), "{message}");
    }

    #[test]
    fn integral_floats_become_the_integers_they_are_up_to_the_ends_of_u64() {
        let mut value = json!({
            "a": [2.0, -9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0],
            "b": {"c": [[1e2]], "d": 18_446_744_073_709_551_616.0},
            "e": [2.5, "2.0", 3, null, true]
        });
        assert!(integral_floats_to_integers(&mut value));
        assert_eq!(
            value,
            json!({
                "a": [2, i64::MIN, 9_223_372_036_854_775_808_u64],
                "b": {"c": [[100]], "d": 18_446_744_073_709_551_616.0},
                "e": [2.5, "2.0", 3, null, true]
            })
        );
        let mut integers = json!({"a": [1, -2], "b": 2.5});
        assert!(
            !integral_floats_to_integers(&mut integers),
            "nothing to rewrite"
        );
    }

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    struct Plain {
        n: u8,
        s: String,
    }

    #[test]
    fn a_code_first_input_reads_integral_floats_and_reports_what_is_still_wrong() {
        let read = |args: Value| match deserialize::<Plain>(&args) {
            Ok(plain) => Ok((plain.n, plain.s)),
            Err(ToolError::Input(message)) => Err(message),
            Err(other) => panic!("an input error: {other:?}"),
        };
        assert_eq!(read(json!({"n": 2.0, "s": "x"})), Ok((2, "x".to_owned())));
        // The float was the first error; the second reading names what is wrong with it.
        assert_eq!(
            read(json!({"n": 300.0, "s": "x"})),
            Err("/n: invalid value: integer `300`, expected u8".to_owned())
        );
        // ... or with the next value.
        assert_eq!(
            read(json!({"n": 2.0, "s": 1})),
            Err("/s: invalid type: integer `1`, expected a string".to_owned())
        );
        // The float is then quoted as the integer it was read as.
        assert_eq!(
            read(json!({"n": 2, "s": 1.0})),
            Err("/s: invalid type: integer `1`, expected a string".to_owned())
        );
        // The float fixed, what the first reading did not reach.
        assert_eq!(
            read(json!({"n": 2.0})),
            Err("/: missing field `s`".to_owned())
        );
        assert_eq!(
            read(json!({"n": 2.5, "s": "x"})),
            Err("/n: invalid type: floating point `2.5`, expected u8".to_owned())
        );
    }

    #[test]
    fn integers_read_integral_floats_in_every_container() {
        let outer = deserialize::<Outer>(&json!({"a/b": [{"n": 2.0}, {"n": 1e2}, {"n": -3}]}))
            .expect("integral floats are integers");
        let numbers: Vec<i64> = outer.inner.iter().map(|i| i.n).collect();
        assert_eq!(numbers, [2, 100, -3]);
        let read = |value: Value| -> Result<Option<Vec<BTreeMap<String, u64>>>, serde_json::Error> {
            integral(value)
        };
        assert_eq!(
            read(json!([{"a": 4.0}])).expect("nested"),
            Some(vec![BTreeMap::from([("a".to_owned(), 4)])])
        );
        assert_eq!(read(json!(null)).expect("null"), None);
        assert!(read(json!([{"a": -1.0}])).is_err(), "-1 is no u64");
        let big: i128 = integral(json!(1e20)).expect("an i128 from an integral float");
        assert_eq!(big, 100_000_000_000_000_000_000);
        let present: Option<Option<i64>> = present_integral(json!(null)).expect("null");
        assert_eq!(present, Some(None));
    }

    #[test]
    fn an_integer_beyond_its_type_names_the_range() {
        let message = |value: Value, read: fn(Value) -> Result<(), serde_json::Error>| {
            read(value).map_or_else(|e| e.to_string(), |()| "read".to_owned())
        };
        let as_i64 = |value: Value| integral::<_, i64>(value).map(|_| ());
        let as_u64 = |value: Value| integral::<_, u64>(value).map(|_| ());
        let i64_range = "Expected integer from -9223372036854775808 to 9223372036854775807";
        assert_eq!(message(json!(1e19), as_i64), i64_range);
        assert_eq!(
            message(json!(10_000_000_000_000_000_000_u64), as_i64),
            i64_range
        );
        assert_eq!(message(json!(-1e40), as_i64), i64_range, "past `i128` too");
        assert_eq!(
            message(json!(-1), as_u64),
            "Expected integer from 0 to 18446744073709551615"
        );
        assert_eq!(
            message(json!(1e39), |v| integral::<_, i128>(v).map(|_| ())),
            "Expected integer from -170141183460469231731687303715884105728 to 170141183460469231731687303715884105727"
        );
        assert!(message(json!(2.5), as_i64).starts_with("invalid value: floating point `2.5`"));
        let message = input_error(json!({"a/b": [{"n": 1e19}]}));
        assert_eq!(message, format!("/a~1b/0/n: {i64_range}"));
    }
}
