//! The line breaking of the generated Rust: Oppen's pretty-printing algorithm, as prettyplease
//! runs it (margin 89, indent 4, at least 60 columns after an indent), fed directly with text.
//!
//! The generator writes most lines as they are ([`Printer::line`]). A construct whose layout
//! depends on its width (a type, an attribute, an expression) is a *flow*: a sequence of words,
//! breaks and boxes, started at a line's indentation with [`Printer::flow`] and laid out by
//! [`Printer::finish`], which ends the line. Between two lines the state of the algorithm is
//! always the same (everything before a forced line break is printed), so a flow is laid out on
//! its own exactly as it would be inside the whole file.
//!
//! Most flows fit on their line, and then the algorithm prints every word as it comes, with the
//! blank spaces of the breaks: [`Printer::flow_with`] first prints the flow that way, measuring
//! it as the algorithm does, and lays it out only when it turns out not to fit.

use std::collections::VecDeque;
use std::ops::Range;

/// The width of a line, in bytes.
const MARGIN: isize = 89;
/// The indentation of a nested box.
pub(super) const INDENT: isize = 4;
/// The least room a line gets, however deep its indentation.
const MIN_SPACE: isize = 60;
/// The size of what never fits.
const SIZE_INFINITY: isize = 0xffff;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breaks {
    Consistent,
    Inconsistent,
}

/// A place where a line may break: `blank_space` spaces when it does not.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Break {
    pub offset: isize,
    pub blank_space: usize,
    /// Printed before the line break when it breaks (a trailing comma).
    pub pre_break: Option<char>,
    /// Printed after the line break when it breaks.
    pub post_break: &'static str,
    /// Printed instead of the blank space when it does not break.
    pub no_break: Option<char>,
    /// Dropped when it is the last thing in its box.
    pub if_nonempty: bool,
    pub never_break: bool,
}

#[derive(Debug, Clone, Copy)]
enum Token {
    /// A range of [`Printer::text`].
    Text(u32, u32),
    Break(Break),
    Begin {
        offset: isize,
        breaks: Breaks,
    },
    End,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    token: Token,
    size: isize,
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    Fits,
    Broken(usize, Breaks),
}

/// The output file and the state of the line breaking.
#[derive(Debug)]
pub(super) struct Printer {
    out: String,
    /// The text of the words waiting in `buf`.
    text: String,
    /// Tokens scanned but not yet printed; `buf_offset` is the absolute index of the first.
    buf: VecDeque<Entry>,
    buf_offset: usize,
    left_total: isize,
    right_total: isize,
    /// Absolute indices of the tokens in `buf` whose size is not yet known.
    scan_stack: VecDeque<usize>,
    print_stack: Vec<Frame>,
    /// Room left on the current line.
    space: isize,
    indent: usize,
    pending_indentation: usize,
    /// The indentation of the current flow, and of lines written as they are.
    base: usize,
    /// Text that is always the same at an indentation, by key and indentation.
    cache: Vec<(u8, usize, String)>,
    /// The state of a flow printed on one line, when it is tried.
    flat: Option<Flat>,
    /// The memory of [`Flat::boxes`], kept from one flow to the next.
    spare_boxes: Vec<isize>,
}

/// A flow printed on one line as it is built: exactly what the algorithm prints when the whole
/// flow fits on its line, which is known at its end (otherwise it is built again and laid out).
#[derive(Debug)]
struct Flat {
    /// The width so far, counted as the algorithm counts it (words and blank spaces).
    width: isize,
    /// The room on the line.
    space: isize,
    /// The width where each open box began.
    boxes: Vec<isize>,
    /// Blank spaces waiting for the next word.
    pending: usize,
    last: FlatLast,
    /// Something forces a line break: the flow does not stay on one line.
    broken: bool,
}

#[derive(Debug, Clone, Copy)]
enum FlatLast {
    Begin,
    Break {
        blank_space: usize,
        if_nonempty: bool,
        after_begin: bool,
        no_break: bool,
    },
    Other,
}

impl Printer {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Printer {
            out: String::with_capacity(capacity),
            text: String::new(),
            buf: VecDeque::new(),
            buf_offset: 0,
            left_total: 0,
            right_total: 0,
            scan_stack: VecDeque::new(),
            print_stack: Vec::new(),
            space: MARGIN,
            indent: 0,
            pending_indentation: 0,
            base: 0,
            cache: Vec::new(),
            flat: None,
            spare_boxes: Vec::new(),
        }
    }

    pub(super) fn into_string(self) -> String {
        self.out
    }

    /// The indentation of the lines that follow.
    pub(super) fn indent(&mut self, delta: isize) {
        self.base = self.base.saturating_add_signed(delta);
    }

    /// One line, as it is, at the current indentation.
    pub(super) fn line(&mut self, text: &str) {
        self.push_indent(self.base);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// One line made of several pieces, at the current indentation.
    pub(super) fn line_parts(&mut self, parts: &[&str]) {
        self.push_indent(self.base);
        for part in parts {
            self.out.push_str(part);
        }
        self.out.push('\n');
    }

    /// What `write` prints, which depends on nothing but the indentation: printed once per
    /// `key` and indentation, then copied.
    pub(super) fn cached(&mut self, key: u8, write: impl FnOnce(&mut Printer)) {
        let indent = self.base;
        if let Some((_, _, text)) = self
            .cache
            .iter()
            .find(|(k, i, _)| *k == key && *i == indent)
        {
            self.out.push_str(text);
            return;
        }
        let start = self.out.len();
        write(self);
        let text = self.out.get(start..).unwrap_or_default().to_owned();
        self.cache.push((key, indent, text));
    }

    /// An empty line.
    pub(super) fn blank_line(&mut self) {
        self.out.push('\n');
    }

    /// Text written at the end of the output as it is (it must end its line itself).
    pub(super) fn raw(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn push_indent(&mut self, n: usize) {
        push_spaces(&mut self.out, n);
    }

    /// Starts a flow at the beginning of a line at the current indentation, inside a box that
    /// is broken and consistent (an item list, a block, the fields of a struct).
    pub(super) fn flow(&mut self) {
        let indent = self.base;
        self.text.clear();
        self.buf.clear();
        self.scan_stack.clear();
        self.print_stack.clear();
        self.left_total = 0;
        self.right_total = 0;
        self.indent = indent;
        self.pending_indentation = indent;
        self.space = (MARGIN - indent as isize).max(MIN_SPACE);
    }

    /// A flow built by `build`, and its line ended: printed on one line when it fits (the
    /// common case, without the algorithm), else built again and laid out.
    pub(super) fn flow_with(&mut self, mut build: impl FnMut(&mut Printer)) {
        if !self.try_one_line(&mut build) {
            self.flow();
            build(self);
            self.finish();
        }
    }

    /// A flow built by `build` printed on one line and its line ended, when it fits; when it
    /// does not, nothing is printed and the answer is `false`.
    pub(super) fn try_one_line(&mut self, build: impl FnOnce(&mut Printer)) -> bool {
        let start = self.out.len();
        self.push_indent(self.base);
        let mut boxes = std::mem::take(&mut self.spare_boxes);
        boxes.clear();
        self.flat = Some(Flat {
            width: 0,
            space: (MARGIN - self.base as isize).max(MIN_SPACE),
            boxes,
            pending: 0,
            last: FlatLast::Other,
            broken: false,
        });
        build(self);
        let fits = self.flat.take().is_some_and(|flat| {
            let fits = !flat.broken && flat.width <= flat.space;
            self.spare_boxes = flat.boxes;
            fits
        });
        if fits {
            self.out.push('\n');
            return true;
        }
        self.out.truncate(start);
        false
    }

    /// One line at the current indentation, written by `write`.
    pub(super) fn line_with(&mut self, write: impl FnOnce(&mut String)) {
        self.push_indent(self.base);
        write(&mut self.out);
        self.out.push('\n');
    }

    /// Lays out and prints the flow, and ends its line.
    pub(super) fn finish(&mut self) {
        if !self.scan_stack.is_empty() {
            self.check_stack(0);
            self.advance_left();
        }
        self.out.push('\n');
    }

    // -----------------------------------------------------------------------------------------
    // Building a flow (the names of prettyplease's `convenience.rs`)

    #[inline]
    pub(super) fn word(&mut self, word: &str) {
        if let Some(flat) = &mut self.flat {
            if flat.word(&mut self.out, word.len() as isize) {
                self.out.push_str(word);
            }
            return;
        }
        if self.scan_stack.is_empty() {
            self.print_indent();
            self.out.push_str(word);
            self.space -= word.len() as isize;
            return;
        }
        let start = self.text.len();
        self.text.push_str(word);
        let len = word.len() as isize;
        self.push_entry(Entry {
            token: Token::Text(start as u32, self.text.len() as u32),
            size: len,
        });
        self.right_total += len;
        self.check_stream();
    }

    /// A word of at least `min_len` bytes written by `write` (a literal escaped in place).
    pub(super) fn word_with(&mut self, min_len: usize, write: impl FnOnce(&mut String)) {
        if let Some(flat) = &mut self.flat {
            if flat.word(&mut self.out, min_len as isize) {
                let start = self.out.len();
                write(&mut self.out);
                flat.width += (self.out.len() - start) as isize - min_len as isize;
                flat.broken |= flat.width > flat.space;
            }
            return;
        }
        if self.scan_stack.is_empty() {
            self.print_indent();
            let start = self.out.len();
            write(&mut self.out);
            self.space -= (self.out.len() - start) as isize;
            return;
        }
        let start = self.text.len();
        write(&mut self.text);
        let len = (self.text.len() - start) as isize;
        self.push_entry(Entry {
            token: Token::Text(start as u32, self.text.len() as u32),
            size: len,
        });
        self.right_total += len;
        self.check_stream();
    }

    /// Gives up printing the flow on one line (what follows is known to break).
    pub(super) fn will_break(&mut self) {
        if let Some(flat) = &mut self.flat {
            flat.broken = true;
        }
    }

    /// A box whose breaks break independently.
    pub(super) fn ibox(&mut self, offset: isize) {
        self.scan_begin(offset, Breaks::Inconsistent);
    }

    /// A box whose breaks all break or none does.
    pub(super) fn cbox(&mut self, offset: isize) {
        self.scan_begin(offset, Breaks::Consistent);
    }

    pub(super) fn end(&mut self) {
        if let Some(flat) = &mut self.flat {
            flat.end(&mut self.out);
            return;
        }
        self.scan_end();
    }

    pub(super) fn zerobreak(&mut self) {
        self.scan_break(Break::default());
    }

    pub(super) fn space(&mut self) {
        self.scan_break(Break {
            blank_space: 1,
            ..Break::default()
        });
    }

    pub(super) fn nbsp(&mut self) {
        self.word(" ");
    }

    pub(super) fn space_if_nonempty(&mut self) {
        self.scan_break(Break {
            blank_space: 1,
            if_nonempty: true,
            ..Break::default()
        });
    }

    pub(super) fn neverbreak(&mut self) {
        self.scan_break(Break {
            never_break: true,
            ..Break::default()
        });
    }

    pub(super) fn trailing_comma(&mut self, is_last: bool) {
        if is_last {
            self.scan_break(Break {
                pre_break: Some(','),
                ..Break::default()
            });
        } else {
            self.word(",");
            self.space();
        }
    }

    pub(super) fn trailing_comma_or_space(&mut self, is_last: bool) {
        if is_last {
            self.scan_break(Break {
                blank_space: 1,
                pre_break: Some(','),
                ..Break::default()
            });
        } else {
            self.word(",");
            self.space();
        }
    }

    /// Moves the indentation after the last break (or of the last box).
    pub(super) fn offset(&mut self, offset: isize) {
        if self.flat.is_some() {
            return;
        }
        if let Some(Entry {
            token: Token::Break(token),
            ..
        }) = self.buf.back_mut()
        {
            token.offset += offset;
        }
    }

    /// Ends a box that breaks when it is wider than `max`.
    pub(super) fn end_with_max_width(&mut self, max: isize) {
        if let Some(flat) = &mut self.flat {
            if flat
                .boxes
                .last()
                .is_some_and(|&start| flat.width - start > max)
            {
                flat.broken = true;
            }
            flat.end(&mut self.out);
            return;
        }
        let mut depth = 1;
        for &index in self.scan_stack.iter().rev() {
            let Some(entry) = index
                .checked_sub(self.buf_offset)
                .and_then(|i| self.buf.get(i))
            else {
                break;
            };
            match entry.token {
                Token::Begin { .. } => {
                    depth -= 1;
                    if depth == 0 {
                        if entry.size < 0 && entry.size + self.right_total > max {
                            let start = self.text.len() as u32;
                            self.push_entry(Entry {
                                token: Token::Text(start, start),
                                size: SIZE_INFINITY,
                            });
                            self.right_total += SIZE_INFINITY;
                        }
                        break;
                    }
                }
                Token::End => depth += 1,
                Token::Break(_) | Token::Text(..) => {}
            }
        }
        self.scan_end();
    }

    pub(super) fn scan_break(&mut self, token: Break) {
        if let Some(flat) = &mut self.flat {
            flat.scan_break(&mut self.out, token);
            return;
        }
        if self.scan_stack.is_empty() {
            self.left_total = 1;
            self.right_total = 1;
            self.buf.clear();
        } else {
            self.check_stack(0);
        }
        let index = self.push_entry(Entry {
            token: Token::Break(token),
            size: -self.right_total,
        });
        self.scan_stack.push_back(index);
        self.right_total += token.blank_space as isize;
    }

    // -----------------------------------------------------------------------------------------
    // The algorithm (prettyplease's `algorithm.rs`)

    fn push_entry(&mut self, entry: Entry) -> usize {
        let index = self.buf_offset + self.buf.len();
        self.buf.push_back(entry);
        index
    }

    fn entry_mut(&mut self, index: usize) -> Option<&mut Entry> {
        self.buf.get_mut(index.checked_sub(self.buf_offset)?)
    }

    fn scan_begin(&mut self, offset: isize, breaks: Breaks) {
        if let Some(flat) = &mut self.flat {
            flat.boxes.push(flat.width);
            flat.last = FlatLast::Begin;
            return;
        }
        if self.scan_stack.is_empty() {
            self.left_total = 1;
            self.right_total = 1;
            self.buf.clear();
        }
        let index = self.push_entry(Entry {
            token: Token::Begin { offset, breaks },
            size: -self.right_total,
        });
        self.scan_stack.push_back(index);
    }

    fn scan_end(&mut self) {
        if self.scan_stack.is_empty() {
            self.print_end();
            return;
        }
        if let Some(Entry {
            token: Token::Break(token),
            ..
        }) = self.buf.back().copied()
        {
            let len = self.buf.len();
            if len >= 2
                && let Some(Entry {
                    token: Token::Begin { .. },
                    ..
                }) = self.buf.get(len - 2)
            {
                self.buf.pop_back();
                self.buf.pop_back();
                self.scan_stack.pop_back();
                self.scan_stack.pop_back();
                self.right_total -= token.blank_space as isize;
                return;
            }
            if token.if_nonempty {
                self.buf.pop_back();
                self.scan_stack.pop_back();
                self.right_total -= token.blank_space as isize;
            }
        }
        let index = self.push_entry(Entry {
            token: Token::End,
            size: -1,
        });
        self.scan_stack.push_back(index);
    }

    fn check_stream(&mut self) {
        while self.right_total - self.left_total > self.space {
            if self.scan_stack.front() == Some(&self.buf_offset) {
                self.scan_stack.pop_front();
                if let Some(first) = self.buf.front_mut() {
                    first.size = SIZE_INFINITY;
                }
            }
            self.advance_left();
            if self.buf.is_empty() {
                break;
            }
        }
    }

    fn advance_left(&mut self) {
        while let Some(&left) = self.buf.front() {
            if left.size < 0 {
                break;
            }
            self.buf.pop_front();
            self.buf_offset += 1;
            match left.token {
                Token::Text(start, end) => {
                    self.left_total += left.size;
                    self.print_text(start as usize..end as usize);
                }
                Token::Break(token) => {
                    self.left_total += token.blank_space as isize;
                    self.print_break(token, left.size);
                }
                Token::Begin { offset, breaks } => self.print_begin(offset, breaks, left.size),
                Token::End => self.print_end(),
            }
        }
    }

    fn check_stack(&mut self, mut depth: usize) {
        let right_total = self.right_total;
        while let Some(&index) = self.scan_stack.back() {
            let Some(entry) = self.entry_mut(index) else {
                break;
            };
            match entry.token {
                Token::Begin { .. } => {
                    if depth == 0 {
                        break;
                    }
                    entry.size += right_total;
                    self.scan_stack.pop_back();
                    depth -= 1;
                }
                Token::End => {
                    entry.size = 1;
                    self.scan_stack.pop_back();
                    depth += 1;
                }
                Token::Break(_) => {
                    entry.size += right_total;
                    self.scan_stack.pop_back();
                    if depth == 0 {
                        break;
                    }
                }
                Token::Text(..) => break,
            }
        }
    }

    fn print_begin(&mut self, offset: isize, breaks: Breaks, size: isize) {
        if size > self.space {
            self.print_stack.push(Frame::Broken(self.indent, breaks));
            self.indent = self.indent.saturating_add_signed(offset);
        } else {
            self.print_stack.push(Frame::Fits);
        }
    }

    fn print_end(&mut self) {
        if let Some(Frame::Broken(indent, _)) = self.print_stack.pop() {
            self.indent = indent;
        }
    }

    fn print_break(&mut self, token: Break, size: isize) {
        // Outside every box of the flow: the enclosing box, broken and consistent.
        let top = self
            .print_stack
            .last()
            .copied()
            .unwrap_or(Frame::Broken(self.base, Breaks::Consistent));
        let fits = token.never_break
            || match top {
                Frame::Fits => true,
                Frame::Broken(_, Breaks::Consistent) => false,
                Frame::Broken(_, Breaks::Inconsistent) => size <= self.space,
            };
        if fits {
            self.pending_indentation += token.blank_space;
            self.space -= token.blank_space as isize;
            if let Some(no_break) = token.no_break {
                self.out.push(no_break);
                self.space -= no_break.len_utf8() as isize;
            }
        } else {
            if let Some(pre_break) = token.pre_break {
                self.print_indent();
                self.out.push(pre_break);
            }
            self.out.push('\n');
            let indent = self.indent as isize + token.offset;
            self.pending_indentation = usize::try_from(indent).unwrap_or(0);
            self.space = (MARGIN - indent).max(MIN_SPACE);
            if !token.post_break.is_empty() {
                self.print_indent();
                self.out.push_str(token.post_break);
                self.space -= token.post_break.len() as isize;
            }
        }
    }

    fn print_text(&mut self, range: Range<usize>) {
        self.print_indent();
        if let Some(text) = self.text.get(range) {
            self.out.push_str(text);
            self.space -= text.len() as isize;
        }
    }

    fn print_indent(&mut self) {
        let n = std::mem::take(&mut self.pending_indentation);
        self.push_indent(n);
    }
}

impl Flat {
    /// Before a word of `len` bytes: the blank spaces waiting. Whether to write the word: not
    /// when the line is already known to break.
    #[inline]
    fn word(&mut self, out: &mut String, len: isize) -> bool {
        self.last = FlatLast::Other;
        self.width += len;
        self.broken |= self.width > self.space;
        if self.broken {
            return false;
        }
        if self.pending > 0 {
            push_spaces(out, std::mem::take(&mut self.pending));
        }
        true
    }

    fn scan_break(&mut self, out: &mut String, token: Break) {
        if self.boxes.is_empty() && !token.never_break {
            // Outside every box of the flow: the enclosing box breaks it.
            self.broken = true;
        }
        if let Some(no_break) = token.no_break {
            out.push(no_break);
        }
        self.pending += token.blank_space;
        self.width += token.blank_space as isize;
        self.last = FlatLast::Break {
            blank_space: token.blank_space,
            if_nonempty: token.if_nonempty,
            after_begin: matches!(self.last, FlatLast::Begin),
            no_break: token.no_break.is_some(),
        };
    }

    /// The end of a box; a break right before it is dropped when the algorithm drops it.
    fn end(&mut self, out: &mut String) {
        if let FlatLast::Break {
            blank_space,
            if_nonempty,
            after_begin,
            no_break,
        } = self.last
            && (after_begin || if_nonempty)
        {
            self.pending -= blank_space;
            self.width -= blank_space as isize;
            if no_break {
                out.pop();
            }
        }
        self.boxes.pop();
        self.last = FlatLast::Other;
    }
}

/// `n` spaces.
fn push_spaces(out: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let chunk = n.min(SPACES.len());
        out.push_str(SPACES.get(..chunk).unwrap_or_default());
        n -= chunk;
    }
}
