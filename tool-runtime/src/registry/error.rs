//! Why a registry cannot be built: every problem at once.

use std::fmt;

use toolwright_core::{Mode, Safety};

/// One reason a registry cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryProblem {
    /// The name does not fit every provider.
    #[error("tool name `{name}` (`{location}`) is not valid, expected `^[a-z][a-z0-9_]{{0,63}}$`")]
    InvalidName {
        /// The name.
        name: String,
        /// Where the tool was declared.
        location: String,
    },
    /// Two tools share a name.
    #[error("two tools are named `{name}`: `{first}` and `{second}`")]
    DuplicateName {
        /// The shared name.
        name: String,
        /// Where the first was declared.
        first: String,
        /// Where the second was declared.
        second: String,
    },
    /// A tool takes the name of the registry's own tool search (`tool_search`).
    #[error(
        "tool `{name}` (`{location}`) takes the name of the registry's tool search, which finds deferred tools; rename it"
    )]
    ReservedName {
        /// The name.
        name: String,
        /// Where the tool is declared.
        location: String,
    },
    /// A declared manifest tool has no implementation.
    #[error(
        "tool `{name}` is declared in `{location}` but has no implementation; register it with `.tool(...)`"
    )]
    MissingImplementation {
        /// The tool.
        name: String,
        /// Its manifest.
        location: String,
    },
    /// The implementation does not match its declaration.
    #[error(
        "tool `{name}` is declared {declared} in `{declared_location}` but its implementation (`{location}`) is {found}"
    )]
    Drift {
        /// The tool.
        name: String,
        /// What the manifest declares.
        declared: String,
        /// The manifest.
        declared_location: String,
        /// What the implementation says.
        found: String,
        /// The implementation.
        location: String,
    },
    /// A read-only or parallel tool asks for `&mut C`.
    #[error(
        "tool `{name}` is {safety} and {mode} but its handler takes the context exclusively (`&mut C`); only sequential, destructive tools may; take `&C` instead"
    )]
    ExclusiveHandler {
        /// The tool.
        name: String,
        /// Its safety.
        safety: Safety,
        /// Its mode.
        mode: Mode,
    },
    /// The input schema does not compile.
    #[error("the input schema of tool `{name}` (`{location}`) does not compile: {message}")]
    InvalidSchema {
        /// The tool.
        name: String,
        /// Where it was declared.
        location: String,
        /// Why.
        message: String,
    },
    /// Frozen JSON text (a schema or an example) is not JSON.
    #[error("the metadata of tool `{name}` (`{location}`) is not valid JSON: {message}")]
    InvalidMetadata {
        /// The tool.
        name: String,
        /// Where it was declared.
        location: String,
        /// Why.
        message: String,
    },
    /// A time limit names a tool that is not registered.
    #[error("a time limit is set for `{name}`, which is not a registered tool")]
    UnknownTimeout {
        /// The name given.
        name: String,
    },
    /// A time limit of zero.
    #[error("the time limit of `{name}` must be greater than zero")]
    ZeroTimeout {
        /// The tool, or `*` for the default.
        name: String,
    },
    /// An output budget names a tool that is not registered.
    #[error("an output budget is set for `{name}`, which is not a registered tool")]
    UnknownOutputBudget {
        /// The name given.
        name: String,
    },
    /// An upstream server is given for a tool that is not registered.
    #[error("an upstream server is given for `{name}`, which is not a registered tool")]
    UnknownUpstream {
        /// The name given.
        name: String,
    },
    /// An output budget of zero.
    #[error("the output budget of `{name}` must be greater than zero")]
    ZeroOutputBudget {
        /// The tool, or `*` for the default.
        name: String,
    },
    /// The host set a limit above the one the tool declares: a host may only lower it.
    #[error(
        "the {limit} of `{name}` is set to {given}, above the {declared} its declaration (`{location}`) allows; a host may lower a declared limit, never raise it"
    )]
    AboveDeclared {
        /// The tool.
        name: String,
        /// `time limit` or `output budget`.
        limit: String,
        /// What the host set.
        given: String,
        /// What the tool declares.
        declared: String,
        /// Where it is declared.
        location: String,
    },
    /// A deprecated tool's `replacement` is neither registered nor declared: the notice every
    /// export carries would send the model to a tool it cannot call.
    #[error(
        "tool `{name}` (`{location}`) is deprecated in favour of `{replacement}`, which is not a registered or declared tool; register `{replacement}`, or correct the `replacement`{}",
        did_you_mean(close.as_deref())
    )]
    UnknownReplacement {
        /// The deprecated tool.
        name: String,
        /// Where it is declared.
        location: String,
        /// The `replacement` it declares.
        replacement: String,
        /// The registered or declared tool whose name is close enough to be meant.
        close: Option<String>,
    },
}

/// "; did you mean `x`?", when there is a close name.
fn did_you_mean(close: Option<&str>) -> String {
    close.map_or_else(String::new, |close| format!("; did you mean `{close}`?"))
}

impl RegistryProblem {
    pub(super) fn tool_name(&self) -> &str {
        match self {
            RegistryProblem::InvalidName { name, .. }
            | RegistryProblem::DuplicateName { name, .. }
            | RegistryProblem::ReservedName { name, .. }
            | RegistryProblem::MissingImplementation { name, .. }
            | RegistryProblem::Drift { name, .. }
            | RegistryProblem::ExclusiveHandler { name, .. }
            | RegistryProblem::InvalidSchema { name, .. }
            | RegistryProblem::InvalidMetadata { name, .. }
            | RegistryProblem::UnknownTimeout { name }
            | RegistryProblem::ZeroTimeout { name }
            | RegistryProblem::UnknownOutputBudget { name }
            | RegistryProblem::UnknownUpstream { name }
            | RegistryProblem::ZeroOutputBudget { name }
            | RegistryProblem::AboveDeclared { name, .. }
            | RegistryProblem::UnknownReplacement { name, .. } => name,
        }
    }
}

/// Why a registry cannot be built: every problem found, sorted by tool name.
///
/// `Debug` writes the same text as `Display`: a `main` returning `Result<_, RegistryError>`
/// prints the error with `Debug`, and should print the readable problems.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", listed(&self.problems))]
pub struct RegistryError {
    pub(super) problems: Vec<RegistryProblem>,
}

impl RegistryError {
    /// Every problem, sorted by tool name then message.
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

/// One problem alone, or a heading and one line per problem.
fn listed(problems: &[RegistryProblem]) -> String {
    match problems {
        [one] => one.to_string(),
        problems => {
            let mut text = format!(
                "the tool registry cannot be built ({} problems):",
                problems.len()
            );
            for problem in problems {
                text.push_str(&format!("\n- {problem}"));
            }
            text
        }
    }
}

impl fmt::Debug for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
