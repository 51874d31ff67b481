//! What a change is: its kind (one word per row of SPEC section 9's table, and a few more the
//! table implies), its severity, and the parties it reaches.

use serde::Serialize;
use serde_json::Value;

use crate::dialect::Dialect;
use crate::manifest::Location;

/// Serialized as their words.
macro_rules! serialized_as_words {
    ($($ty:ty),+) => {$(
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    )+};
}

serialized_as_words!(Severity, Party, Kind);

toolwright_core::word_enum! {
    /// How much a change matters, worst first in [`Ord`] (`Error < Warning < Info`, so that a
    /// sort puts errors first).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Severity {
        /// Breaks a client, a model's prompt, or grants or withdraws a permission.
        Error => "error",
        /// May break someone; a person should look.
        Warning => "warning",
        /// Breaks no one.
        Info => "info",
    }
}

toolwright_core::word_enum! {
    /// Who a change reaches (SPEC section 9: a published definition is a contract with three
    /// parties).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Party {
        /// Code that calls the tool: typed SDKs, hosts, parsers of its output.
        Client => "client",
        /// Prompts, skills and cached definitions that name the tool or its arguments.
        Model => "model",
        /// Permission decisions: auto-approval of read-only tools, plan and ask modes, read-only
        /// runs, parallel scheduling.
        Policy => "policy",
    }
}

/// What a change does to the set of valid instances of a schema (or to a declaration): the
/// severity of a schema change follows from it and from the schema's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Some instance valid before is invalid after.
    Narrows,
    /// Some instance invalid before is valid after, and none valid before is invalid after.
    Widens,
    /// Neither: a declaration, a text, a tool added or removed.
    Neutral,
}

toolwright_core::word_enum! {
    /// The kind of a change; its word is what `--format json` prints and what a `[diff]` table
    /// names.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Kind {
        ToolRemoved => "tool-removed",
        ToolRenamed => "tool-renamed",
        ToolAdded => "tool-added",
        SafetyLoosened => "safety-loosened",
        SafetyTightened => "safety-tightened",
        ModeSequentialToParallel => "mode-sequential-to-parallel",
        ModeParallelToSequential => "mode-parallel-to-sequential",
        IdempotentChanged => "idempotent-changed",
        OpenWorldChanged => "open-world-changed",
        /// A hint whose value means nothing for the tool (idempotency of a read-only tool).
        AnnotationNoop => "annotation-noop",
        TitleChanged => "title-changed",
        DescriptionChanged => "description-changed",
        CategoryChanged => "category-changed",
        TimeoutChanged => "timeout-changed",
        OutputBudgetChanged => "output-budget-changed",
        /// The declared deferral (`defer_loading`): when the tool is loaded, not what it is.
        DeferLoadingChanged => "defer-loading-changed",
        ErrorCodeRemoved => "error-code-removed",
        ErrorCodeRenamed => "error-code-renamed",
        ErrorCodeAdded => "error-code-added",
        RetryableFlipped => "retryable-flipped",
        ErrorTextChanged => "error-text-changed",
        RequiredAdded => "required-added",
        OptionalToRequired => "optional-to-required",
        RequiredToOptional => "required-to-optional",
        PropertyAdded => "property-added",
        PropertyRemoved => "property-removed",
        TypeNarrowed => "type-narrowed",
        TypeWidened => "type-widened",
        EnumAdded => "enum-added",
        EnumRemoved => "enum-removed",
        EnumValueAdded => "enum-value-added",
        EnumValueRemoved => "enum-value-removed",
        BoundTightened => "bound-tightened",
        BoundLoosened => "bound-loosened",
        PatternChanged => "pattern-changed",
        PatternRemoved => "pattern-removed",
        FormatChanged => "format-changed",
        AdditionalPropertiesClosed => "additionalProperties-closed",
        AdditionalPropertiesOpened => "additionalProperties-opened",
        DependencyAdded => "dependency-added",
        DependencyRemoved => "dependency-removed",
        CompositionNarrowed => "composition-narrowed",
        CompositionWidened => "composition-widened",
        DefaultChanged => "default-changed",
        OutputSchemaAdded => "output-schema-added",
        OutputSchemaRemoved => "output-schema-removed",
        OutputPropertyAdded => "output-property-added",
        OutputPropertyRemoved => "output-property-removed",
        OutputTypeNarrowed => "output-type-narrowed",
        OutputTypeWidened => "output-type-widened",
        OutputEnumValueAdded => "output-enum-value-added",
        OutputEnumValueRemoved => "output-enum-value-removed",
        /// Any other change of an output schema that lets more instances through.
        OutputWidened => "output-widened",
        /// Any other change of an output schema that lets fewer instances through.
        OutputNarrowed => "output-narrowed",
        /// A provider's export changed while the canonical definition did not.
        ExportChanged => "export-changed",
        /// A change whose effect on the valid instances could not be decided.
        Undecided => "undecided",
        ToolDeprecated => "tool-deprecated",
        DeprecationChanged => "deprecation-changed",
        /// A breaking change of a tool whose declared `version` kept its major number.
        MajorVersionNotBumped => "major-version-not-bumped",
        /// Another field of a definition (an MCP `Tool`'s `icons`, `_meta`, …).
        OtherFieldChanged => "other-field-changed",
    }
}

impl Kind {
    /// The default severity (SPEC section 9's table).
    pub const fn default_severity(self) -> Severity {
        use Kind::*;
        match self {
            ToolRemoved
            | ToolRenamed
            | SafetyLoosened
            | SafetyTightened
            | ModeSequentialToParallel
            | ErrorCodeRemoved
            | ErrorCodeRenamed
            | RetryableFlipped
            | RequiredAdded
            | OptionalToRequired
            | TypeNarrowed
            | EnumAdded
            | EnumValueRemoved
            | BoundTightened
            | PatternChanged
            | AdditionalPropertiesClosed
            | DependencyAdded
            | CompositionNarrowed
            | OutputSchemaRemoved
            | OutputPropertyRemoved
            | OutputTypeWidened
            | OutputEnumValueAdded
            | OutputWidened
            | ExportChanged
            | MajorVersionNotBumped => Severity::Error,
            IdempotentChanged | OpenWorldChanged | TitleChanged | DescriptionChanged
            | TimeoutChanged | OutputBudgetChanged | ErrorTextChanged | PropertyRemoved
            | FormatChanged | DefaultChanged | Undecided | DeprecationChanged => Severity::Warning,
            ToolAdded
            | ModeParallelToSequential
            | AnnotationNoop
            | CategoryChanged
            | DeferLoadingChanged
            | ErrorCodeAdded
            | RequiredToOptional
            | PropertyAdded
            | TypeWidened
            | EnumRemoved
            | EnumValueAdded
            | BoundLoosened
            | PatternRemoved
            | AdditionalPropertiesOpened
            | DependencyRemoved
            | CompositionWidened
            | OutputSchemaAdded
            | OutputPropertyAdded
            | OutputTypeNarrowed
            | OutputEnumValueRemoved
            | OutputNarrowed
            | ToolDeprecated
            | OtherFieldChanged => Severity::Info,
        }
    }

    /// Who the change reaches.
    pub const fn parties(self) -> &'static [Party] {
        use Kind::*;
        use Party::*;
        match self {
            ToolRemoved | ToolRenamed => &[Client, Model, Policy],
            ToolAdded => &[Model, Policy],
            SafetyLoosened
            | SafetyTightened
            | ModeSequentialToParallel
            | ModeParallelToSequential
            | IdempotentChanged
            | OpenWorldChanged
            | AnnotationNoop => &[Policy],
            TitleChanged | DescriptionChanged | CategoryChanged | DeferLoadingChanged => &[Model],
            TimeoutChanged | OutputBudgetChanged => &[Client, Policy],
            ErrorCodeRemoved | ErrorCodeRenamed | ErrorCodeAdded | RetryableFlipped
            | ErrorTextChanged => &[Client, Model],
            OutputSchemaAdded
            | OutputSchemaRemoved
            | OutputPropertyAdded
            | OutputPropertyRemoved
            | OutputTypeNarrowed
            | OutputTypeWidened
            | OutputEnumValueAdded
            | OutputEnumValueRemoved
            | OutputWidened
            | OutputNarrowed
            | ExportChanged
            | OtherFieldChanged => &[Client],
            ToolDeprecated | DeprecationChanged => &[Client, Model],
            MajorVersionNotBumped => &[Client, Model, Policy],
            _ => &[Client, Model],
        }
    }

    /// The kind of the same change in an output schema, where the severities turn around: a
    /// client reading the output breaks when it gets what it did not expect (widening), not
    /// when it gets less variety (narrowing).
    pub(crate) const fn in_output(self, effect: Effect) -> Kind {
        use Kind::*;
        match (self, effect) {
            (PropertyAdded, _) => OutputPropertyAdded,
            (PropertyRemoved, _) => OutputPropertyRemoved,
            (TypeNarrowed, _) => OutputTypeNarrowed,
            (TypeWidened, _) => OutputTypeWidened,
            (EnumValueAdded, _) => OutputEnumValueAdded,
            (EnumValueRemoved, _) => OutputEnumValueRemoved,
            (
                TitleChanged | DescriptionChanged | DefaultChanged | Undecided | FormatChanged
                | OtherFieldChanged,
                _,
            ) => self,
            (_, Effect::Widens) => OutputWidened,
            (_, Effect::Narrows) => OutputNarrowed,
            (_, Effect::Neutral) => self,
        }
    }
}

/// Why a change's severity is not its kind's default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Adjustment {
    /// The `[diff]` table's `severity` gave the kind another severity.
    Severity {
        /// What it would have been.
        default: Severity,
    },
    /// The `[diff]` table's `accept` accepted this change of this tool.
    Accepted {
        /// What it would have been.
        default: Severity,
        /// The reason the acceptance gives.
        reason: String,
    },
}

/// One change between two versions of a tool set.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// The tool (its new name when it was renamed).
    pub tool: String,
    /// Where in the tool, as a JSON Pointer into its MCP `Tool` object (`/inputSchema/...`,
    /// `/annotations/readOnlyHint`; `/mode`, `/errors/<CODE>`, `/timeout` for what only a
    /// manifest declares); `""` is the whole tool. Inside a schema it is the path after local
    /// `$ref`s are inlined.
    pub pointer: String,
    /// What changed.
    pub kind: Kind,
    /// How much it matters, after the `[diff]` policy.
    pub severity: Severity,
    /// Who it reaches.
    pub parties: &'static [Party],
    /// The change in words.
    pub message: String,
    /// The value before, where there is one to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Value>,
    /// The value after, where there is one to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Value>,
    /// An instance (of the schema at `pointer`) valid before and invalid after: the proof of a
    /// narrowing found by trying instances.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Value>,
    /// The provider whose export changed by itself ([`Kind::ExportChanged`]).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "dialect_word"
    )]
    pub provider: Option<Dialect>,
    /// Why the severity is not the kind's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjusted: Option<Adjustment>,
    /// Where the change is written: a manifest (or its schema file) and a line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

impl Change {
    /// A change of `kind` with its default severity and parties.
    pub(crate) fn new(
        tool: &str,
        pointer: impl Into<String>,
        kind: Kind,
        message: impl Into<String>,
    ) -> Change {
        Change {
            tool: tool.to_owned(),
            pointer: pointer.into(),
            kind,
            severity: kind.default_severity(),
            parties: kind.parties(),
            message: message.into(),
            from: None,
            to: None,
            witness: None,
            provider: None,
            adjusted: None,
            location: None,
        }
    }

    pub(crate) fn values(mut self, from: Option<Value>, to: Option<Value>) -> Change {
        self.from = from;
        self.to = to;
        self
    }

    pub(crate) fn severity(mut self, severity: Severity) -> Change {
        self.severity = severity;
        self
    }
}

fn dialect_word<S: serde::Serializer>(d: &Option<Dialect>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_str(d.as_str()),
        None => s.serialize_none(),
    }
}
