//! `ask_user`: a question to the person using the chart, answered through the host.

use serde::Serialize;

use super::Chart;
use super::error::ChartError;

/// How the host answers a question: `(question, options) -> answer`. `options` is empty for an
/// open question.
pub type AskUserFn = Box<dyn Fn(&str, &[String]) -> String + Send + Sync>;

/// The answer of `ask_user`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserAnswer {
    /// The question asked.
    pub question: String,
    /// What the user answered.
    pub answer: String,
    /// Whether the answer is one of the offered options (`None` for an open question).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chose_option: Option<bool>,
}

impl Chart {
    /// Installs the host's way of asking the user.
    pub fn set_ask_user(
        &mut self,
        ask: impl Fn(&str, &[String]) -> String + Send + Sync + 'static,
    ) {
        self.ask_user = Some(Box::new(ask));
    }

    /// The chart with the host's way of asking the user installed.
    #[must_use]
    pub fn with_ask_user(
        mut self,
        ask: impl Fn(&str, &[String]) -> String + Send + Sync + 'static,
    ) -> Self {
        self.set_ask_user(ask);
        self
    }

    /// `ask_user`: asks `question`, offering `options` (may be empty), and returns the answer.
    ///
    /// # Errors
    /// `USER_UNAVAILABLE` when the host installed no way of asking.
    pub fn ask_user(&self, question: &str, options: &[String]) -> Result<UserAnswer, ChartError> {
        let ask = self.ask_user.as_ref().ok_or(ChartError::UserUnavailable)?;
        let answer = ask(question, options);
        let chose_option = (!options.is_empty()).then(|| options.contains(&answer));
        Ok(UserAnswer {
            question: question.to_owned(),
            answer,
            chose_option,
        })
    }
}
