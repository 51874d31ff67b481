//! Drawings on panes: `drawings_list`, `drawing_create`, `drawing_update`, `drawing_delete`,
//! `drawings_copy`, `drawings_clear`.

use serde::{Deserialize, Serialize};

use super::Chart;
use super::error::ChartError;
use super::market::LoadedRange;
use super::panes::Pane;
use super::words::word_enum;

word_enum! {
    /// What a drawing is.
    pub enum DrawingKind ("drawing kind") {
        /// A segment between two anchors.
        TrendLine => "trend_line",
        /// A half-line from the first anchor through the second.
        Ray => "ray",
        /// A level at the anchor's price, across the pane.
        HorizontalLine => "horizontal_line",
        /// A line at the anchor's time, across the pane.
        VerticalLine => "vertical_line",
        /// A box with two opposite corners.
        Rectangle => "rectangle",
        /// Retracement levels between two anchors.
        FibonacciRetracement => "fibonacci_retracement",
        /// A label at the anchor; needs `text`.
        Text => "text",
    }
}

impl DrawingKind {
    /// How many anchors the kind takes.
    pub const fn anchor_count(self) -> usize {
        match self {
            DrawingKind::HorizontalLine | DrawingKind::VerticalLine | DrawingKind::Text => 1,
            DrawingKind::TrendLine
            | DrawingKind::Ray
            | DrawingKind::Rectangle
            | DrawingKind::FibonacciRetracement => 2,
        }
    }
}

word_enum! {
    /// How a drawing's line is stroked.
    pub enum LineStyle ("line style") {
        /// A continuous line.
        Solid => "solid",
        /// Dashes.
        Dashed => "dashed",
        /// Dots.
        Dotted => "dotted",
    }
}

/// A point of a drawing: a bar time and a price (also the anchors of the `drawing_create` and
/// `drawing_update` inputs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    /// Unix seconds, inside the pane's loaded bars.
    pub time: i64,
    /// A price (or an indicator value on an indicator pane).
    pub price: f64,
}

/// How a drawing looks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Style {
    /// `#rrggbb`.
    pub color: String,
    /// Line width in pixels.
    pub width: i64,
    /// Stroke.
    pub line_style: LineStyle,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            color: "#2962ff".to_owned(),
            width: 2,
            line_style: LineStyle::Solid,
        }
    }
}

/// A change of style: unset fields keep their value (the `style` of the `drawing_create` and
/// `drawing_update` inputs).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StyleChange {
    /// `#rrggbb`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Line width in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<i64>,
    /// Stroke.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_style: Option<LineStyle>,
}

impl StyleChange {
    fn apply(self, style: &mut Style) {
        if let Some(color) = self.color {
            style.color = color;
        }
        if let Some(width) = self.width {
            style.width = width;
        }
        if let Some(line_style) = self.line_style {
            style.line_style = line_style;
        }
    }
}

/// A drawing on a pane.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drawing {
    /// Stable ID: `d1`, `d2`, ... never reused.
    pub id: String,
    /// The pane it is on.
    pub pane_id: String,
    /// What it is.
    pub kind: DrawingKind,
    /// Its anchors, as many as the kind takes.
    pub anchors: Vec<Anchor>,
    /// How it looks.
    pub style: Style,
    /// Its label (required for `text`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The answer of `drawings_list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawingsList {
    /// The drawings, in creation order.
    pub drawings: Vec<Drawing>,
}

/// The answer of `drawing_delete`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawingDeleted {
    /// The deleted drawing.
    pub deleted: Drawing,
}

/// The answer of `drawings_copy`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawingsCopied {
    /// The new drawings on the target pane, with their new IDs.
    pub copied: Vec<Drawing>,
}

/// The answer of `drawings_clear`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawingsCleared {
    /// The IDs of the removed drawings.
    pub removed: Vec<String>,
}

impl Chart {
    fn drawing_index(&self, drawing_id: &str) -> Result<usize, ChartError> {
        self.drawings
            .iter()
            .position(|d| d.id == drawing_id)
            .ok_or_else(|| ChartError::DrawingNotFound {
                drawing_id: drawing_id.to_owned(),
                pane_id: None,
                valid: self.drawings.iter().map(|d| d.id.clone()).collect(),
            })
    }

    /// Every anchor inside the pane's loaded bars (up to the end of the last bar).
    fn check_anchors(&self, pane: &Pane, anchors: &[Anchor]) -> Result<(), ChartError> {
        let range: LoadedRange = self.pane_range(pane)?;
        let end = range.end(pane.interval);
        match anchors
            .iter()
            .find(|a| a.time < range.first_time || a.time >= end)
        {
            Some(anchor) => Err(range.out_of_range(
                format!("The anchor time {}", pane.interval.format_time(anchor.time)),
                format!(
                    "the {} bars of {} on pane `{}`",
                    pane.interval, pane.symbol, pane.id
                ),
            )),
            None => Ok(()),
        }
    }

    fn next_drawing_id(&mut self) -> String {
        self.next_drawing += 1;
        format!("d{}", self.next_drawing)
    }

    /// `drawings_list`: the drawings of pane `pane_id`, or of every pane.
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`.
    pub fn drawings_list(&self, pane_id: Option<&str>) -> Result<DrawingsList, ChartError> {
        if let Some(pane_id) = pane_id {
            self.pane(pane_id)?;
        }
        let drawings = self
            .drawings
            .iter()
            .filter(|d| pane_id.is_none_or(|p| d.pane_id == p))
            .cloned()
            .collect();
        Ok(DrawingsList { drawings })
    }

    /// `drawing_create`: draws on pane `pane_id`. `style` changes the default style
    /// (`#2962ff`, width 2, solid).
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`; `ANCHOR_COUNT_MISMATCH` when the kind takes another number of anchors;
    /// `TEXT_REQUIRED` for a `text` without text; `DATE_OUT_OF_RANGE` when an anchor lies
    /// outside the pane's loaded bars (the detail names the loaded range).
    pub fn drawing_create(
        &mut self,
        pane_id: &str,
        kind: DrawingKind,
        anchors: Vec<Anchor>,
        style: Option<StyleChange>,
        text: Option<String>,
    ) -> Result<Drawing, ChartError> {
        let pane = self.pane(pane_id)?;
        check_anchor_count(kind, &anchors)?;
        let text = text.filter(|t| !t.trim().is_empty());
        if kind == DrawingKind::Text && text.is_none() {
            return Err(ChartError::TextRequired { kind });
        }
        self.check_anchors(pane, &anchors)?;
        let pane_id = pane.id.clone();
        let mut drawing_style = Style::default();
        if let Some(style) = style {
            style.apply(&mut drawing_style);
        }
        let drawing = Drawing {
            id: self.next_drawing_id(),
            pane_id,
            kind,
            anchors,
            style: drawing_style,
            text,
        };
        self.drawings.push(drawing.clone());
        Ok(drawing)
    }

    /// `drawing_update`: moves a drawing (new anchors), restyles it (unset style fields keep
    /// their value) and/or relabels it.
    ///
    /// # Errors
    /// `DRAWING_NOT_FOUND`; `NOTHING_TO_CHANGE` when nothing is given; `ANCHOR_COUNT_MISMATCH`;
    /// `DATE_OUT_OF_RANGE` when an anchor lies outside its pane's loaded bars.
    pub fn drawing_update(
        &mut self,
        drawing_id: &str,
        anchors: Option<Vec<Anchor>>,
        style: Option<StyleChange>,
        text: Option<String>,
    ) -> Result<Drawing, ChartError> {
        let index = self.drawing_index(drawing_id)?;
        let text = text.filter(|t| !t.trim().is_empty());
        if anchors.is_none() && style.is_none() && text.is_none() {
            return Err(ChartError::NothingToChange {
                fields: &["anchors", "style", "text"],
            });
        }
        let drawing = &self.drawings[index];
        if let Some(anchors) = &anchors {
            check_anchor_count(drawing.kind, anchors)?;
            self.check_anchors(self.pane(&drawing.pane_id)?, anchors)?;
        }
        let drawing = &mut self.drawings[index];
        if let Some(anchors) = anchors {
            drawing.anchors = anchors;
        }
        if let Some(style) = style {
            style.apply(&mut drawing.style);
        }
        if text.is_some() {
            drawing.text = text;
        }
        Ok(drawing.clone())
    }

    /// `drawing_delete`: removes one drawing.
    ///
    /// # Errors
    /// `DRAWING_NOT_FOUND`.
    pub fn drawing_delete(&mut self, drawing_id: &str) -> Result<DrawingDeleted, ChartError> {
        let index = self.drawing_index(drawing_id)?;
        Ok(DrawingDeleted {
            deleted: self.drawings.remove(index),
        })
    }

    /// `drawings_copy`: copies the drawings `drawing_ids` (default: all) of pane `from_pane_id`
    /// onto pane `to_pane_id`, as new drawings with new IDs.
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`; `SAME_PANE` when both panes are the same; `DRAWING_NOT_FOUND` when an ID
    /// is not a drawing of the source pane; `DATE_OUT_OF_RANGE` when an anchor lies outside the
    /// target pane's loaded bars. Nothing is copied on error.
    pub fn drawings_copy(
        &mut self,
        from_pane_id: &str,
        to_pane_id: &str,
        drawing_ids: Option<&[String]>,
    ) -> Result<DrawingsCopied, ChartError> {
        let source = self.pane(from_pane_id)?;
        let target = self.pane(to_pane_id)?;
        if source.id == target.id {
            return Err(ChartError::SamePane {
                pane_id: source.id.clone(),
                others: self
                    .pane_ids()
                    .into_iter()
                    .filter(|p| *p != source.id)
                    .collect(),
            });
        }
        let on_source: Vec<&Drawing> = self
            .drawings
            .iter()
            .filter(|d| d.pane_id == source.id)
            .collect();
        let selected: Vec<Drawing> = match drawing_ids {
            None => on_source.iter().map(|d| (*d).clone()).collect(),
            Some(ids) => ids
                .iter()
                .map(|id| {
                    on_source
                        .iter()
                        .find(|d| d.id == *id)
                        .map(|d| (*d).clone())
                        .ok_or_else(|| ChartError::DrawingNotFound {
                            drawing_id: id.clone(),
                            pane_id: Some(source.id.clone()),
                            valid: on_source.iter().map(|d| d.id.clone()).collect(),
                        })
                })
                .collect::<Result<_, _>>()?,
        };
        for drawing in &selected {
            self.check_anchors(target, &drawing.anchors)?;
        }
        let target_id = target.id.clone();
        let mut copied = Vec::with_capacity(selected.len());
        for drawing in selected {
            let copy = Drawing {
                id: self.next_drawing_id(),
                pane_id: target_id.clone(),
                ..drawing
            };
            self.drawings.push(copy.clone());
            copied.push(copy);
        }
        Ok(DrawingsCopied { copied })
    }

    /// `drawings_clear`: removes every drawing of pane `pane_id`, or of every pane.
    ///
    /// # Errors
    /// `PANE_NOT_FOUND`.
    pub fn drawings_clear(&mut self, pane_id: Option<&str>) -> Result<DrawingsCleared, ChartError> {
        if let Some(pane_id) = pane_id {
            self.pane(pane_id)?;
        }
        let matches = |d: &Drawing| pane_id.is_none_or(|p| d.pane_id == p);
        let removed = self
            .drawings
            .iter()
            .filter(|d| matches(d))
            .map(|d| d.id.clone())
            .collect();
        self.drawings.retain(|d| !matches(d));
        Ok(DrawingsCleared { removed })
    }
}

fn check_anchor_count(kind: DrawingKind, anchors: &[Anchor]) -> Result<(), ChartError> {
    if anchors.len() == kind.anchor_count() {
        Ok(())
    } else {
        Err(ChartError::AnchorCountMismatch {
            kind,
            expected: kind.anchor_count(),
            found: anchors.len(),
        })
    }
}
