//! The report data model: plain data, built by the caller, rendered by
//! [`crate::render_html`] and [`crate::render_svg`].
//!
//! Every type has public fields so callers can build values with struct
//! literals; the constructors and builder methods are shortcuts for the common
//! cases and fill in sensible defaults.

/// A whole report: a title page, one section per reproduced figure or
/// experiment, and free-form notes at the end (definitions, caveats, versions).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// Main heading, also used as the HTML `<title>`.
    pub title: String,
    /// One line under the title (for instance the commit, seed and date).
    pub subtitle: String,
    /// The sections, in reading order; the table of contents follows this order.
    pub sections: Vec<Section>,
    /// Paragraphs shown at the end under "Notes".
    pub notes: Vec<String>,
    /// Where the results come from, shown under the title as `key: value`
    /// pairs in this order (version, commit, date, command, seeds, ...).
    pub provenance: Vec<(String, String)>,
}

impl Report {
    /// A report with a title and subtitle and nothing else yet.
    pub fn new(title: impl Into<String>, subtitle: impl Into<String>) -> Self {
        Report {
            title: title.into(),
            subtitle: subtitle.into(),
            sections: Vec::new(),
            notes: Vec::new(),
            provenance: Vec::new(),
        }
    }

    /// Appends a provenance entry (builder style).
    pub fn provenance(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.provenance.push((key.into(), value.into()));
        self
    }

    /// Appends a section (builder style).
    pub fn section(mut self, section: Section) -> Self {
        self.sections.push(section);
        self
    }

    /// Appends a note (builder style).
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// One part of a report, typically the reproduction of one paper figure.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Section {
    /// Anchor used by the table of contents (`#id`). Characters other than
    /// ASCII letters, digits, `-` and `_` are replaced by `-`; an empty or
    /// repeated id gets a generated one, so links always resolve.
    pub id: String,
    /// Section heading.
    pub title: String,
    /// What was run and what to look at. Blank lines separate paragraphs.
    pub description: String,
    /// Charts, in order.
    pub figures: Vec<Figure>,
    /// Tables, shown after the figures.
    pub tables: Vec<Table>,
    /// How the result compares with the paper, if assessed.
    pub verdict: Option<Verdict>,
}

impl Section {
    /// A section with an anchor id and a title.
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Self {
        Section {
            id: id.into(),
            title: title.into(),
            ..Section::default()
        }
    }

    /// Sets the description (builder style).
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }

    /// Appends a figure (builder style).
    pub fn figure(mut self, figure: Figure) -> Self {
        self.figures.push(figure);
        self
    }

    /// Appends a table (builder style).
    pub fn table(mut self, table: Table) -> Self {
        self.tables.push(table);
        self
    }

    /// Sets the verdict (builder style).
    pub fn verdict(mut self, status: VerdictStatus, text: impl Into<String>) -> Self {
        self.verdict = Some(Verdict {
            status,
            text: text.into(),
        });
        self
    }
}

/// The outcome of comparing a reproduction with the paper, shown as a coloured
/// badge followed by a one-line explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The badge.
    pub status: VerdictStatus,
    /// One line saying what matches and what does not.
    pub text: String,
}

/// How well a result reproduces the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerdictStatus {
    /// The paper's claim holds in our runs.
    Reproduced,
    /// The trend holds but magnitudes or some conditions differ.
    Partly,
    /// Our results contradict the paper's claim.
    Differs,
    /// The experiment was not run (missing data, unsupported setup).
    NotRun,
}

impl VerdictStatus {
    /// All statuses, in the order used for summaries.
    pub const ALL: [VerdictStatus; 4] = [
        VerdictStatus::Reproduced,
        VerdictStatus::Partly,
        VerdictStatus::Differs,
        VerdictStatus::NotRun,
    ];

    /// The badge text.
    pub fn label(self) -> &'static str {
        match self {
            VerdictStatus::Reproduced => "Reproduced",
            VerdictStatus::Partly => "Partly reproduced",
            VerdictStatus::Differs => "Differs",
            VerdictStatus::NotRun => "Not run",
        }
    }

    /// The CSS class suffix of the badge (`verdict-<slug>`), stable for tests
    /// and style sheets.
    pub fn slug(self) -> &'static str {
        match self {
            VerdictStatus::Reproduced => "reproduced",
            VerdictStatus::Partly => "partly",
            VerdictStatus::Differs => "differs",
            VerdictStatus::NotRun => "not-run",
        }
    }
}

/// A table of results, typically with "paper" and "ours" columns side by side.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Shown above the table.
    pub caption: String,
    /// Column headings; put units here ("goodput (Mbit/s)").
    pub header: Vec<String>,
    /// Rows of cells. Rows shorter than the header are padded with empty cells.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with a caption and column headings and no rows yet.
    pub fn new<S: Into<String>>(
        caption: impl Into<String>,
        header: impl IntoIterator<Item = S>,
    ) -> Self {
        Table {
            caption: caption.into(),
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (builder style).
    pub fn row(mut self, cells: impl IntoIterator<Item = Cell>) -> Self {
        self.rows.push(cells.into_iter().collect());
        self
    }
}

/// One table cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Free text, left-aligned.
    Text(String),
    /// A number, right-aligned and formatted; NaN and infinities show as "—".
    Number {
        /// The value.
        value: f64,
        /// How to print it.
        format: NumberFormat,
        /// Appended after the number with a thin space ("ms", "Mbit/s"); may be empty.
        unit: String,
    },
    /// Nothing (for instance no value in the paper).
    Empty,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Cell::Text(text.into())
    }

    /// A number with an explicit format and no unit.
    pub fn number(value: f64, format: NumberFormat) -> Self {
        Cell::Number {
            value,
            format,
            unit: String::new(),
        }
    }

    /// A number with a fixed number of decimals.
    pub fn fixed(value: f64, decimals: u8) -> Self {
        Cell::number(value, NumberFormat::Fixed(decimals))
    }

    /// A ratio (0.25) printed as a percentage ("25.0 %").
    pub fn percent(value: f64, decimals: u8) -> Self {
        Cell::number(value, NumberFormat::Percent(decimals))
    }

    /// A number with an SI suffix ("12.5 M").
    pub fn si(value: f64) -> Self {
        Cell::number(value, NumberFormat::Si)
    }

    /// Adds a unit to a number cell; other cells are returned unchanged.
    pub fn with_unit(self, new_unit: impl Into<String>) -> Self {
        match self {
            Cell::Number { value, format, .. } => Cell::Number {
                value,
                format,
                unit: new_unit.into(),
            },
            other => other,
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell::Text(text.to_string())
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell::Text(text)
    }
}

impl From<f64> for Cell {
    fn from(value: f64) -> Self {
        Cell::number(value, NumberFormat::Auto)
    }
}

/// How a number is printed in a table cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum NumberFormat {
    /// Up to four significant digits, trailing zeros trimmed.
    #[default]
    Auto,
    /// Exactly this many decimals.
    Fixed(u8),
    /// The value times 100 with this many decimals and a "%" sign.
    Percent(u8),
    /// Three significant digits with an SI suffix (k, M, G, T; m, µ, n).
    Si,
}

/// Default figure width in SVG pixels: two figures side by side fit a laptop screen.
pub const DEFAULT_WIDTH: u32 = 640;
/// Default figure height in SVG pixels.
pub const DEFAULT_HEIGHT: u32 = 400;

/// A chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Drawn above the chart.
    pub title: String,
    /// Horizontal axis label, with its unit ("time (s)").
    pub x_label: String,
    /// Vertical axis label, with its unit ("goodput (Mbit/s)").
    pub y_label: String,
    /// What to draw.
    pub kind: FigureKind,
    /// Width in SVG pixels (at least 200).
    pub width: u32,
    /// Height in SVG pixels (at least 150).
    pub height: u32,
    /// Linear or logarithmic vertical axis. On a log axis values `<= 0` are skipped.
    pub y_scale: Scale,
    /// Fixed horizontal range instead of the data's extent (ignored for bars).
    pub x_range: Option<(f64, f64)>,
    /// Fixed vertical range instead of the data's extent.
    pub y_range: Option<(f64, f64)>,
    /// Reference lines (capacity, BDP, a paper's value); vertical ones are
    /// ignored for bar charts, whose horizontal axis is categorical.
    pub references: Vec<ReferenceLine>,
}

impl Figure {
    /// A figure of the given kind with default size, linear axes and no references.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        kind: FigureKind,
    ) -> Self {
        Figure {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            kind,
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
            y_scale: Scale::Linear,
            x_range: None,
            y_range: None,
            references: Vec::new(),
        }
    }

    /// A line chart (time series, model curves).
    pub fn lines(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        lines: Vec<Line>,
    ) -> Self {
        Figure::new(title, x_label, y_label, FigureKind::Lines(lines))
    }

    /// A decision tree (see [`TreeNode`]), sized to its leaves and levels.
    pub fn tree(title: impl Into<String>, classes: Vec<String>, root: TreeNode) -> Self {
        let width = (root.leaves() as u32 * 150).clamp(DEFAULT_WIDTH, 2000);
        let height = 90 + (root.depth() as u32 + 1) * 100;
        let mut figure = Figure::new(title, "", "", FigureKind::Tree { classes, root });
        figure.width = width;
        figure.height = height;
        figure
    }

    /// A grouped bar chart: one group (series) per entry of `groups`, one bar
    /// of each group per category.
    pub fn bars<S: Into<String>>(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        categories: impl IntoIterator<Item = S>,
        groups: Vec<BarGroup>,
    ) -> Self {
        Figure::new(
            title,
            x_label,
            y_label,
            FigureKind::Bars {
                categories: categories.into_iter().map(Into::into).collect(),
                groups,
            },
        )
    }

    /// Empirical CDFs of samples, one curve per `(label, samples)` pair.
    pub fn cdf(
        title: impl Into<String>,
        x_label: impl Into<String>,
        distributions: Vec<(String, Vec<f64>)>,
    ) -> Self {
        Figure::new(title, x_label, "CDF", FigureKind::Cdf(distributions))
    }

    /// Uses a logarithmic vertical axis (builder style).
    pub fn log_y(mut self) -> Self {
        self.y_scale = Scale::Log;
        self
    }

    /// Sets the size in SVG pixels (builder style).
    pub fn size(mut self, width: u32, height: u32) -> Self {
        self.width = width;
        self.height = height;
        self
    }

    /// Fixes the horizontal range (builder style).
    pub fn x_range(mut self, min: f64, max: f64) -> Self {
        self.x_range = Some((min, max));
        self
    }

    /// Fixes the vertical range (builder style).
    pub fn y_range(mut self, min: f64, max: f64) -> Self {
        self.y_range = Some((min, max));
        self
    }

    /// Adds a reference line (builder style).
    pub fn reference(mut self, line: ReferenceLine) -> Self {
        self.references.push(line);
        self
    }
}

/// What a figure draws.
#[derive(Debug, Clone, PartialEq)]
pub enum FigureKind {
    /// Lines through points: time series, model curves, precomputed CDFs.
    Lines(Vec<Line>),
    /// Grouped bars: for each category (condition), one bar per group (controller).
    Bars {
        /// Category names along the horizontal axis.
        categories: Vec<String>,
        /// The series; each has one value per category.
        groups: Vec<BarGroup>,
    },
    /// Empirical CDFs of raw samples, one step curve per `(label, samples)`;
    /// see [`crate::empirical_cdf`].
    Cdf(Vec<(String, Vec<f64>)>),
    /// A decision tree drawn as boxes joined by labelled edges, each box
    /// tinted in the colour of its class (see [`TreeNode`]).
    Tree {
        /// The classes the nodes are tinted by (the legend), e.g. controllers.
        classes: Vec<String>,
        /// The root.
        root: TreeNode,
    },
}

/// A node of a [`FigureKind::Tree`].
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    /// The text in its box, one entry per line.
    pub lines: Vec<String>,
    /// The class it is tinted by (an index into the figure's classes);
    /// `None` draws it white.
    pub class: Option<usize>,
    /// How strongly it is tinted, 0 (white) to 1 (the class's colour).
    pub strength: f64,
    /// Drawn with a heavy border, to single it out.
    pub emphasis: bool,
    /// Its children, each with the label of the edge leading to it.
    pub children: Vec<(String, TreeNode)>,
}

impl TreeNode {
    /// A white node without children.
    pub fn new(lines: Vec<String>) -> Self {
        TreeNode {
            lines,
            class: None,
            strength: 0.0,
            emphasis: false,
            children: Vec::new(),
        }
    }

    /// Tints it in `class`'s colour at `strength` (builder style).
    pub fn tint(mut self, class: usize, strength: f64) -> Self {
        self.class = Some(class);
        self.strength = strength.clamp(0.0, 1.0);
        self
    }

    /// Gives it a heavy border (builder style).
    pub fn emphasised(mut self) -> Self {
        self.emphasis = true;
        self
    }

    /// Adds a child under an edge labelled `edge` (builder style).
    pub fn child(mut self, edge: impl Into<String>, node: TreeNode) -> Self {
        self.children.push((edge.into(), node));
        self
    }

    /// Leaves under it (itself, if it has no children).
    pub fn leaves(&self) -> usize {
        if self.children.is_empty() {
            1
        } else {
            self.children.iter().map(|(_, c)| c.leaves()).sum()
        }
    }

    /// Levels below it (0 for a leaf).
    pub fn depth(&self) -> usize {
        self.children
            .iter()
            .map(|(_, c)| c.depth() + 1)
            .max()
            .unwrap_or(0)
    }
}

/// One series of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Legend entry; an empty label keeps the line out of the legend.
    pub label: String,
    /// `(x, y)` points in drawing order. Non-finite points are skipped and
    /// break the line, so gaps in the data stay visible.
    pub points: Vec<(f64, f64)>,
    /// How to join the points.
    pub style: LineStyle,
    /// Draw in the colour of this series key instead of the line's own
    /// label's (a whisker or a band drawn in its curve's colour).
    pub colour_key: Option<String>,
}

impl Line {
    /// A solid line.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Line {
            label: label.into(),
            points,
            style: LineStyle::Solid,
            colour_key: None,
        }
    }

    /// Sets the style (builder style).
    pub fn style(mut self, style: LineStyle) -> Self {
        self.style = style;
        self
    }

    /// Draws the line in the colour of the series `key` (builder style).
    pub fn colour_of(mut self, key: impl Into<String>) -> Self {
        self.colour_key = Some(key.into());
        self
    }
}

/// How the points of a [`Line`] are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LineStyle {
    /// Straight segments.
    #[default]
    Solid,
    /// Straight dashed segments, for models and predictions next to measurements.
    Dashed,
    /// Holds each value until the next point (piecewise-constant data such as
    /// a link-capacity schedule or controller state).
    Step,
}

/// One series of a grouped bar chart.
#[derive(Debug, Clone, PartialEq)]
pub struct BarGroup {
    /// Legend entry.
    pub label: String,
    /// One value per category; NaN leaves the bar out.
    pub values: Vec<f64>,
    /// Spread around each value (for instance the standard deviation over
    /// seeds), drawn as an error bar from `value - e` to `value + e`.
    pub errors: Option<Vec<f64>>,
}

impl BarGroup {
    /// A group without error bars.
    pub fn new(label: impl Into<String>, values: Vec<f64>) -> Self {
        BarGroup {
            label: label.into(),
            values,
            errors: None,
        }
    }

    /// Adds error bars (builder style).
    pub fn errors(mut self, errors: Vec<f64>) -> Self {
        self.errors = Some(errors);
        self
    }
}

/// Scale of the vertical axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Scale {
    /// Linear.
    #[default]
    Linear,
    /// Base-10 logarithmic, extended to whole decades.
    Log,
}

/// A labelled horizontal or vertical line across the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceLine {
    /// Which way the line runs.
    pub orientation: Orientation,
    /// Its position: a y value for horizontal lines, an x value for vertical ones.
    pub at: f64,
    /// Written next to the line ("link capacity").
    pub label: String,
}

impl ReferenceLine {
    /// A horizontal line at `y`.
    pub fn horizontal(y: f64, label: impl Into<String>) -> Self {
        ReferenceLine {
            orientation: Orientation::Horizontal,
            at: y,
            label: label.into(),
        }
    }

    /// A vertical line at `x`.
    pub fn vertical(x: f64, label: impl Into<String>) -> Self {
        ReferenceLine {
            orientation: Orientation::Vertical,
            at: x,
            label: label.into(),
        }
    }
}

/// Direction of a [`ReferenceLine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// Constant y.
    Horizontal,
    /// Constant x.
    Vertical,
}
