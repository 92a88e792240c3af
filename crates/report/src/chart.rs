//! Figures as standalone SVG, drawn with plotters' SVG backend.
//!
//! plotters lays the chart out; this module adds what a report needs on top:
//! a legend above the plot (never over the data), category labels for bars,
//! reference lines, a "no data" placeholder, clipping to fixed ranges, and
//! thinning of long series so a report stays small.

use std::ops::Range;

use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::colours::{figure_keys, Colours};
use crate::format::{format_si, AxisFormat};
use crate::html::escape;
use crate::model::{Figure, FigureKind, LineStyle, Orientation, Scale};
use crate::ReportError;

/// Colour-blind-safe palette: Okabe & Ito (2008), then Paul Tol's wine,
/// teal, olive and grey, ordered so the first colours are the most
/// distinct on white; then eight darker or more saturated colours (Tol's
/// indigo, purple and green, brown, rose, red, navy, lavender) so that a
/// figure of the whole league (thirteen controllers and the Pareto
/// frontier) gives every series its own colour; yellow, the faintest,
/// comes last. Twenty colours: a figure of up to twenty series never
/// repeats one.
pub const PALETTE: [(u8, u8, u8); 20] = [
    (0x00, 0x72, 0xB2), // blue
    (0xD5, 0x5E, 0x00), // vermillion
    (0x00, 0x9E, 0x73), // bluish green
    (0xE6, 0x9F, 0x00), // orange
    (0xCC, 0x79, 0xA7), // reddish purple
    (0x56, 0xB4, 0xE9), // sky blue
    (0x00, 0x00, 0x00), // black
    (0x88, 0x22, 0x55), // wine
    (0x44, 0xAA, 0x99), // teal
    (0x99, 0x99, 0x33), // olive
    (0x88, 0x88, 0x88), // grey
    (0x33, 0x22, 0x88), // indigo
    (0xAA, 0x44, 0x99), // purple
    (0x11, 0x77, 0x33), // green
    (0x8C, 0x51, 0x0A), // brown
    (0xEE, 0x66, 0x77), // rose
    (0xCC, 0x00, 0x00), // red
    (0x00, 0x22, 0x55), // navy
    (0x99, 0x88, 0xDD), // lavender
    (0xF0, 0xE4, 0x42), // yellow
];

/// Smallest figure size that still leaves room for axes and a legend.
pub const MIN_WIDTH: u32 = 200;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u32 = 150;

const INK: RGBColor = RGBColor(0x21, 0x25, 0x29);
const MUTED: RGBColor = RGBColor(0x55, 0x5b, 0x61);
const GRID: RGBColor = RGBColor(0xe3, 0xe5, 0xe8);
const FAINT_GRID: RGBColor = RGBColor(0xf1, 0xf2, 0xf4);
const REFERENCE: RGBColor = RGBColor(0x6c, 0x72, 0x78);
const FONT: &str = "sans-serif";

const TITLE_PX: f64 = 15.0;
const LEGEND_PX: f64 = 12.5;
const TICK_PX: f64 = 12.0;
const DESC_PX: f64 = 13.0;
const LEGEND_ROW: i32 = 19;
const X_TICKS: usize = 8;
const Y_TICKS: usize = 6;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

mod tree;

/// Renders one figure as a standalone SVG document (an `<svg>` element with
/// an `xmlns`, a `viewBox` and a `<title>`), suitable for inlining in HTML.
///
/// Figures without any finite data render a framed "no data" message instead
/// of failing, so a report always shows where a result is missing.
///
/// # Errors
/// [`ReportError::InvalidSize`] below [`MIN_WIDTH`] x [`MIN_HEIGHT`],
/// [`ReportError::InvalidData`] when bar values or errors do not match the
/// categories, [`ReportError::Drawing`] if plotters fails.
pub fn render_svg(figure: &Figure) -> Result<String, ReportError> {
    render_svg_with(figure, &Colours::default())
}

/// [`render_svg`] with the series colours of a whole report
/// ([`Colours::for_report`]), so a series keeps its colour from figure to
/// figure.
///
/// # Errors
/// As [`render_svg`].
pub fn render_svg_with(figure: &Figure, colours: &Colours) -> Result<String, ReportError> {
    if figure.width < MIN_WIDTH || figure.height < MIN_HEIGHT {
        return Err(ReportError::InvalidSize {
            width: figure.width,
            height: figure.height,
        });
    }
    if let FigureKind::Tree { classes, root } = &figure.kind {
        return tree::render(figure, classes, root, &colours.assign(&figure_keys(figure)));
    }
    let plot = Plot::prepare(figure, &colours.assign(&figure_keys(figure)))?;
    let mut svg = String::new();
    let mut plot_area = None;
    {
        let backend = SVGBackend::with_string(&mut svg, (figure.width, figure.height));
        let root = backend.into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let header = draw_header(&root, figure, &plot.legend)?;
        let (_, body) = root.split_vertically(header);
        if plot.is_empty() {
            draw_no_data(&body)?;
        } else {
            plot_area = Some(draw_chart(&root, &body, figure, &plot)?);
        }
        root.present().map_err(drawing)?;
    }
    Ok(add_title(svg, &figure.title, plot_area))
}

fn drawing<E: std::error::Error + Send + Sync>(
    error: plotters::drawing::DrawingAreaErrorKind<E>,
) -> ReportError {
    ReportError::Drawing(error.to_string())
}

/// The empirical CDF of `samples`: for each distinct finite value `x`, in
/// increasing order, the fraction of finite samples `<= x`. Non-finite samples
/// are ignored; the result is empty when none is finite.
pub fn empirical_cdf(samples: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mut cdf: Vec<(f64, f64)> = Vec::new();
    for (i, &x) in sorted.iter().enumerate() {
        let fraction = (i + 1) as f64 / n;
        match cdf.last_mut() {
            // -0.0 and 0.0 are one value for a reader.
            Some(last) if last.0 == x => last.1 = fraction,
            _ => cdf.push((x, fraction)),
        }
    }
    cdf
}

/// A figure's data after cleaning, in the form the drawing code wants.
struct Plot {
    series: Vec<Series>,
    bars: Option<Bars>,
    legend: Vec<LegendItem>,
    /// Finite data extent before padding: ((x_min, x_max), (y_min, y_max)).
    extent: Option<((f64, f64), (f64, f64))>,
    is_cdf: bool,
}

/// One line, already split into finite runs.
struct Series {
    color: RGBColor,
    dashed: bool,
    /// Mark each point: a measured series of a few points (a sweep over a
    /// few x values), where a line alone hides where the data are.
    markers: bool,
    runs: Vec<Vec<(f64, f64)>>,
}

/// Solid, labelled lines of at most this many points get a marker at each.
const MARKED_POINTS: usize = 12;

struct Bars {
    categories: Vec<String>,
    /// Per group: colour and (value, error) per category.
    groups: Vec<(RGBColor, Vec<(f64, f64)>)>,
}

struct LegendItem {
    label: String,
    color: RGBColor,
    swatch: Swatch,
}

#[derive(Clone, Copy)]
enum Swatch {
    Solid,
    Dashed,
    Box,
}

fn palette(index: usize) -> RGBColor {
    let (r, g, b) = PALETTE[index % PALETTE.len()];
    RGBColor(r, g, b)
}

impl Plot {
    fn prepare(figure: &Figure, colour_index: &[usize]) -> Result<Plot, ReportError> {
        let palette = |i: usize| palette(colour_index.get(i).copied().unwrap_or(i));
        let log = figure.y_scale == Scale::Log;
        // On a log axis, values <= 0 have no position: treat them like NaN.
        let usable_y = |y: f64| y.is_finite() && (!log || y > 0.0);
        let mut plot = Plot {
            series: Vec::new(),
            bars: None,
            legend: Vec::new(),
            extent: None,
            is_cdf: false,
        };
        let mut extent = Extent::default();
        match &figure.kind {
            FigureKind::Lines(lines) => {
                for (i, line) in lines.iter().enumerate() {
                    let color = palette(i);
                    let points = if line.style == LineStyle::Step {
                        to_steps(&line.points)
                    } else {
                        line.points.clone()
                    };
                    let runs = finite_runs(&points, |x, y| x.is_finite() && usable_y(y));
                    runs.iter().flatten().for_each(|&p| extent.add(p));
                    plot.push_series(&line.label, color, line.style, runs);
                }
            }
            FigureKind::Cdf(distributions) => {
                plot.is_cdf = true;
                for (i, (label, samples)) in distributions.iter().enumerate() {
                    let cdf = empirical_cdf(samples);
                    let mut points = Vec::with_capacity(cdf.len() + 1);
                    if let Some(&(x0, _)) = cdf.first() {
                        // The curve rises from 0 at the smallest sample.
                        points.push((x0, 0.0));
                    }
                    points.extend(cdf);
                    let points = to_steps(&points);
                    let runs = finite_runs(&points, |x, y| x.is_finite() && usable_y(y));
                    runs.iter().flatten().for_each(|&p| extent.add(p));
                    // A CDF is a step line: no point markers.
                    plot.push_series(label, palette(i), LineStyle::Step, runs);
                }
            }
            // Drawn by `tree::render`, never through a plot.
            FigureKind::Tree { .. } => {}
            FigureKind::Bars { categories, groups } => {
                let mut cleaned = Vec::new();
                for (i, group) in groups.iter().enumerate() {
                    if group.values.len() != categories.len() {
                        return Err(ReportError::InvalidData(format!(
                            "bar group {:?} has {} values for {} categories",
                            group.label,
                            group.values.len(),
                            categories.len()
                        )));
                    }
                    if let Some(errors) = &group.errors {
                        if errors.len() != group.values.len() {
                            return Err(ReportError::InvalidData(format!(
                                "bar group {:?} has {} errors for {} values",
                                group.label,
                                errors.len(),
                                group.values.len()
                            )));
                        }
                    }
                    let color = palette(i);
                    let mut bars = Vec::with_capacity(categories.len());
                    for (c, &value) in group.values.iter().enumerate() {
                        let error = group
                            .errors
                            .as_ref()
                            .map(|e| e[c].abs())
                            .filter(|e| e.is_finite())
                            .unwrap_or(0.0);
                        if usable_y(value) {
                            extent.add((c as f64, value));
                            extent.add((c as f64 + 1.0, value));
                            if usable_y(value + error) {
                                extent.add((c as f64, value + error));
                            }
                            if usable_y(value - error) {
                                extent.add((c as f64, value - error));
                            }
                            bars.push((value, error));
                        } else {
                            bars.push((f64::NAN, 0.0));
                        }
                    }
                    plot.legend.push(LegendItem {
                        label: group.label.clone(),
                        color,
                        swatch: Swatch::Box,
                    });
                    cleaned.push((color, bars));
                }
                plot.bars = Some(Bars {
                    categories: categories.clone(),
                    groups: cleaned,
                });
            }
        }
        plot.extent = extent.get();
        // An empty chart has nothing to label.
        if plot.is_empty() {
            plot.legend.clear();
        }
        plot.legend.retain(|item| !item.label.trim().is_empty());
        Ok(plot)
    }

    fn push_series(
        &mut self,
        label: &str,
        color: RGBColor,
        style: LineStyle,
        runs: Vec<Vec<(f64, f64)>>,
    ) {
        let dashed = style == LineStyle::Dashed;
        self.legend.push(LegendItem {
            label: label.to_string(),
            color,
            swatch: if dashed {
                Swatch::Dashed
            } else {
                Swatch::Solid
            },
        });
        let points: usize = runs.iter().map(Vec::len).sum();
        let markers = style == LineStyle::Solid && !label.is_empty() && points <= MARKED_POINTS;
        self.series.push(Series {
            color,
            dashed,
            markers,
            runs,
        });
    }

    fn is_empty(&self) -> bool {
        self.extent.is_none()
    }
}

#[derive(Default)]
struct Extent {
    x: Option<(f64, f64)>,
    y: Option<(f64, f64)>,
}

impl Extent {
    fn add(&mut self, (x, y): (f64, f64)) {
        let grow = |range: &mut Option<(f64, f64)>, v: f64| {
            *range = Some(match *range {
                None => (v, v),
                Some((lo, hi)) => (lo.min(v), hi.max(v)),
            });
        };
        grow(&mut self.x, x);
        grow(&mut self.y, y);
    }

    fn get(&self) -> Option<((f64, f64), (f64, f64))> {
        Some((self.x?, self.y?))
    }
}

/// Turns points into a staircase that holds each value until the next x.
fn to_steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut steps = Vec::with_capacity(points.len() * 2);
    for (i, &p) in points.iter().enumerate() {
        if i > 0 {
            let previous_y = points[i - 1].1;
            steps.push((p.0, previous_y));
        }
        steps.push(p);
    }
    steps
}

/// Splits points at every unusable point, so missing data shows as a gap
/// instead of a line drawn across it.
fn finite_runs(points: &[(f64, f64)], usable: impl Fn(f64, f64) -> bool) -> Vec<Vec<(f64, f64)>> {
    let mut runs = Vec::new();
    let mut current = Vec::new();
    for &(x, y) in points {
        if usable(x, y) {
            current.push((x, y));
        } else if !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// Height of the title and legend block, after drawing them.
fn draw_header(root: &Area, figure: &Figure, legend: &[LegendItem]) -> Result<u32, ReportError> {
    let width = figure.width as i32;
    let mut y = 8;
    if !figure.title.trim().is_empty() {
        let style =
            styled_font(TITLE_PX, &INK, FontStyle::Bold).pos(Pos::new(HPos::Center, VPos::Top));
        let title = fit_text(&figure.title, (width - 20) as f64, TITLE_PX * 1.08);
        root.draw(&Text::new(title, (width / 2, y), style))
            .map_err(drawing)?;
        y += 24;
    }
    if legend.is_empty() {
        return Ok(y as u32 + 4);
    }
    // Lay the legend out in centred rows above the plot so it never hides data.
    let swatch = 22;
    let gap = 18;
    let max_row = width - 24;
    let items: Vec<(String, i32)> = legend
        .iter()
        .map(|item| {
            let label = fit_text(&item.label, (max_row - swatch - 6) as f64, LEGEND_PX);
            let w = swatch + 6 + text_width(&label, LEGEND_PX).ceil() as i32;
            (label, w)
        })
        .collect();
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut row_width = 0;
    for (i, (_, w)) in items.iter().enumerate() {
        let needed = if row_width == 0 {
            *w
        } else {
            row_width + gap + w
        };
        if needed > max_row && row_width > 0 {
            rows.push(vec![i]);
            row_width = *w;
        } else {
            rows.last_mut().expect("rows starts non-empty").push(i);
            row_width = needed;
        }
    }
    for row in rows {
        let total: i32 =
            row.iter().map(|&i| items[i].1).sum::<i32>() + gap * (row.len() as i32 - 1);
        let mut x = (width - total) / 2;
        let mid = y + LEGEND_ROW / 2;
        for i in row {
            let item = &legend[i];
            match item.swatch {
                Swatch::Solid => root
                    .draw(&PathElement::new(
                        vec![(x, mid), (x + swatch, mid)],
                        item.color.stroke_width(3),
                    ))
                    .map_err(drawing)?,
                Swatch::Dashed => root
                    .draw(&DashedPathElement::new(
                        vec![(x, mid), (x + swatch, mid)],
                        6,
                        3,
                        item.color.stroke_width(3),
                    ))
                    .map_err(drawing)?,
                Swatch::Box => root
                    .draw(&Rectangle::new(
                        [(x + 5, mid - 6), (x + swatch - 5, mid + 6)],
                        item.color.filled(),
                    ))
                    .map_err(drawing)?,
            }
            let style = font(LEGEND_PX, &INK).pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(items[i].0.clone(), (x + swatch + 6, mid), style))
                .map_err(drawing)?;
            x += items[i].1 + gap;
        }
        y += LEGEND_ROW;
    }
    Ok(y as u32 + 6)
}

fn draw_no_data(body: &Area) -> Result<(), ReportError> {
    let (w, h) = body.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let frame = [(20, 4), (w - 20, h - 16)];
    body.draw(&Rectangle::new(frame, FAINT_GRID.filled()))
        .map_err(drawing)?;
    body.draw(&Rectangle::new(frame, GRID.stroke_width(1)))
        .map_err(drawing)?;
    let style = font(16.0, &MUTED).pos(Pos::new(HPos::Center, VPos::Center));
    body.draw(&Text::new("no data", (w / 2, (h - 12) / 2), style))
        .map_err(drawing)?;
    Ok(())
}

/// Axis ranges and what is needed to map data onto them.
struct Axes {
    x: Range<f64>,
    y: Range<f64>,
    log: bool,
}

impl Axes {
    fn new(figure: &Figure, plot: &Plot) -> Axes {
        let ((mut x0, mut x1), (mut y0, mut y1)) =
            plot.extent.expect("only called for non-empty plots");
        let log = figure.y_scale == Scale::Log;
        let is_bars = plot.bars.is_some();
        // Reference lines belong in view: they are the yardstick for the data.
        for reference in &figure.references {
            let v = reference.at;
            if !v.is_finite()
                || (log && reference.orientation == Orientation::Horizontal && v <= 0.0)
            {
                continue;
            }
            match reference.orientation {
                Orientation::Horizontal => {
                    y0 = y0.min(v);
                    y1 = y1.max(v);
                }
                Orientation::Vertical if !is_bars => {
                    x0 = x0.min(v);
                    x1 = x1.max(v);
                }
                Orientation::Vertical => {}
            }
        }
        let x = if is_bars {
            let n = plot.bars.as_ref().map_or(1, |b| b.categories.len().max(1));
            0.0..n as f64
        } else {
            match figure.x_range.filter(|r| valid_range(*r, false)) {
                Some((lo, hi)) => lo..hi,
                None if plot.is_cdf => {
                    // A CDF rises at its smallest sample: keep that rise off the y axis.
                    let range = widen(x0, x1);
                    let pad = (range.end - range.start) * 0.03;
                    (range.start - pad)..(range.end + pad)
                }
                None => widen(x0, x1),
            }
        };
        let y = match figure.y_range.filter(|r| valid_range(*r, log)) {
            Some((lo, hi)) => lo..hi,
            None if log => {
                let lo = 10f64.powf(y0.log10().floor());
                let mut hi = 10f64.powf(y1.log10().ceil());
                // plotters labels only powers of ten on a log axis: show at
                // least one full decade so there is always a labelled tick.
                if hi <= lo * 1.0001 {
                    hi = lo * 10.0;
                }
                // A hair beyond the decades, or rounding in plotters' tick
                // generator (log10(0.01) = -1.9999…) drops the end labels.
                (lo * 0.999)..(hi * 1.001)
            }
            // Headroom above 1 keeps the curves' plateaus off the frame.
            None if plot.is_cdf => 0.0..1.04,
            None => {
                let (lo, hi) = if is_bars {
                    // Bars grow from zero; anything else misreports ratios.
                    (y0.min(0.0), y1.max(0.0))
                } else if y0 >= 0.0 && y0 <= 0.5 * y1 {
                    (0.0, y1)
                } else {
                    (y0, y1)
                };
                let range = widen(lo, hi);
                let pad = (range.end - range.start) * 0.06;
                let start = if range.start == 0.0 {
                    0.0
                } else {
                    range.start - pad
                };
                let end = if range.end == 0.0 {
                    0.0
                } else {
                    range.end + pad
                };
                start..end
            }
        };
        Axes { x, y, log }
    }

    /// y in the space where the axis is linear, for clipping and thinning.
    fn data_to_axis(&self, y: f64) -> f64 {
        if self.log {
            y.log10()
        } else {
            y
        }
    }

    fn axis_to_data(&self, y: f64) -> f64 {
        if self.log {
            10f64.powf(y)
        } else {
            y
        }
    }
}

fn valid_range((lo, hi): (f64, f64), log: bool) -> bool {
    lo.is_finite() && hi.is_finite() && lo < hi && (!log || lo > 0.0)
}

/// A non-degenerate range: a constant series still gets a visible axis.
fn widen(lo: f64, hi: f64) -> Range<f64> {
    if hi > lo {
        lo..hi
    } else {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - d)..(hi + d)
    }
}

/// The plot's data area in SVG pixels: left, top, right, bottom.
type PlotArea = [i32; 4];

fn draw_chart(
    root: &Area,
    body: &Area,
    figure: &Figure,
    plot: &Plot,
) -> Result<PlotArea, ReportError> {
    let axes = Axes::new(figure, plot);
    let x_format = AxisFormat::new(axes.x.start, axes.x.end, X_TICKS);
    let y_format = AxisFormat::new(axes.y.start, axes.y.end, Y_TICKS);
    let format_y = |v: f64| {
        if axes.log {
            format_si(v)
        } else {
            y_format.format(v)
        }
    };
    // Size the y label area from the widest tick label it will hold.
    let widest = [axes.y.start, axes.y.end, (axes.y.start + axes.y.end) / 2.0]
        .iter()
        .map(|&v| text_width(&format_y(v), TICK_PX))
        .fold(0.0, f64::max);
    let y_area = (widest + 18.0 + if figure.y_label.is_empty() { 0.0 } else { 22.0 }) as u32;
    let category_lines = plot
        .bars
        .as_ref()
        .map_or(0, |bars| category_label_lines(bars, figure));
    let x_area: u32 = 24
        + if figure.x_label.is_empty() { 0 } else { 22 }
        + 14 * category_lines.saturating_sub(1) as u32;

    let mut builder = ChartBuilder::on(body);
    builder
        .margin_left(8)
        .margin_right(22)
        .margin_top(4)
        .margin_bottom(6)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    let labels = Labels {
        x: &|v: &f64| x_format.format(*v),
        y: &|v: &f64| format_y(*v),
    };
    if axes.log {
        let chart = builder
            .build_cartesian_2d(axes.x.clone(), axes.y.clone().log_scale())
            .map_err(drawing)?;
        draw_body(root, chart, figure, plot, &axes, &labels)
    } else {
        let chart = builder
            .build_cartesian_2d(axes.x.clone(), axes.y.clone())
            .map_err(drawing)?;
        draw_body(root, chart, figure, plot, &axes, &labels)
    }
}

struct Labels<'a> {
    x: &'a dyn Fn(&f64) -> String,
    y: &'a dyn Fn(&f64) -> String,
}

type Chart<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Y>>;

fn draw_body<Y>(
    root: &Area,
    mut chart: Chart<'_, '_, Y>,
    figure: &Figure,
    plot: &Plot,
    axes: &Axes,
    labels: &Labels,
) -> Result<PlotArea, ReportError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let is_bars = plot.bars.is_some();
    {
        let mut mesh = chart.configure_mesh();
        mesh.x_labels(if is_bars { 0 } else { X_TICKS })
            .y_labels(Y_TICKS)
            .x_label_formatter(labels.x)
            .y_label_formatter(labels.y)
            .label_style(font(TICK_PX, &MUTED))
            .axis_desc_style(font(DESC_PX, &INK))
            .axis_style(MUTED.stroke_width(1))
            .bold_line_style(GRID.stroke_width(1))
            .light_line_style(FAINT_GRID.stroke_width(1))
            .max_light_lines(if axes.log { 8 } else { 0 });
        if !figure.x_label.is_empty() {
            mesh.x_desc(figure.x_label.as_str());
        }
        if !figure.y_label.is_empty() {
            mesh.y_desc(figure.y_label.as_str());
        }
        if is_bars {
            mesh.disable_x_mesh();
        }
        mesh.draw().map_err(drawing)?;
    }

    let (px_left, px_right) = {
        let left = chart.backend_coord(&(axes.x.start, axes.y.start));
        let right = chart.backend_coord(&(axes.x.end, axes.y.start));
        (left.0, right.0)
    };
    let plot_width = (px_right - px_left).max(1) as usize;

    // Reference lines first, so data is drawn over them; their labels
    // last, on a backing, so data never overprints them.
    let mut reference_labels = Vec::new();
    for reference in &figure.references {
        reference_labels.extend(draw_reference(&mut chart, reference, axes, is_bars)?);
    }

    if let Some(bars) = &plot.bars {
        draw_bars(&mut chart, root, bars, axes, figure)?;
    }
    for series in &plot.series {
        for run in &series.runs {
            for piece in clip_run(run, axes) {
                let piece = thin(&piece, axes, plot_width);
                if piece.len() == 1 {
                    chart
                        .draw_series(std::iter::once(Circle::new(
                            piece[0],
                            3,
                            series.color.filled(),
                        )))
                        .map_err(drawing)?;
                } else if series.dashed {
                    chart
                        .draw_series(DashedLineSeries::new(
                            piece,
                            7,
                            4,
                            series.color.stroke_width(2),
                        ))
                        .map_err(drawing)?;
                } else {
                    if series.markers {
                        chart
                            .draw_series(
                                piece
                                    .iter()
                                    .map(|&p| Circle::new(p, 3, series.color.filled())),
                            )
                            .map_err(drawing)?;
                    }
                    chart
                        .draw_series(LineSeries::new(piece, series.color.stroke_width(2)))
                        .map_err(drawing)?;
                }
            }
        }
    }
    for label in &reference_labels {
        draw_annotation(root, label)?;
    }
    if let Some(note) = outside_note(plot, axes) {
        // Inside the plot's top-left corner, so a fixed range never hides
        // data without saying so; on a backing, as data may pass there.
        let (x, y) = chart.backend_coord(&(axes.x.start, axes.y.end));
        draw_annotation(
            root,
            &Annotation {
                text: note,
                at: (x + 4, y + 2),
                right_aligned: false,
            },
        )?;
    }
    let (x, y) = chart.plotting_area().get_pixel_range();
    Ok([x.start, y.start, x.end, y.end])
}

/// What a fixed axis range leaves out of the data, if anything: "data
/// above 1.5 not shown" and the like.
fn outside_note(plot: &Plot, axes: &Axes) -> Option<String> {
    let ((x0, x1), (y0, y1)) = plot.extent?;
    // Ranges the axes widened themselves never cut data; a hair of
    // tolerance keeps rounding from raising a note.
    let eps = |r: &Range<f64>| (r.end - r.start).abs() * 1e-9;
    let mut parts = Vec::new();
    if y1 > axes.y.end + eps(&axes.y) {
        parts.push(format!("above {}", format_si(axes.y.end)));
    }
    if y0 < axes.y.start - eps(&axes.y) {
        parts.push(format!("below {}", format_si(axes.y.start)));
    }
    if plot.bars.is_none() {
        if x0 < axes.x.start - eps(&axes.x) {
            parts.push(format!("left of x = {}", format_si(axes.x.start)));
        }
        if x1 > axes.x.end + eps(&axes.x) {
            parts.push(format!("right of x = {}", format_si(axes.x.end)));
        }
    }
    (!parts.is_empty()).then(|| format!("data {} not shown", parts.join(", ")))
}

/// Text inside the plot (a reference line's label, a note), placed in
/// pixels: its anchor and which corner of the text sits there.
struct Annotation {
    text: String,
    at: (i32, i32),
    right_aligned: bool,
}

/// Reference labels' font size (px).
const REFERENCE_PX: f64 = 11.5;

/// Draws a reference line and returns where its label goes (drawn after
/// the data by [`draw_annotation`]).
fn draw_reference<Y>(
    chart: &mut Chart<'_, '_, Y>,
    reference: &crate::model::ReferenceLine,
    axes: &Axes,
    is_bars: bool,
) -> Result<Option<Annotation>, ReportError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let v = reference.at;
    let style = REFERENCE.stroke_width(1);
    match reference.orientation {
        Orientation::Horizontal => {
            if !(v.is_finite() && axes.y.start <= v && v <= axes.y.end) {
                return Ok(None);
            }
            chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    vec![(axes.x.start, v), (axes.x.end, v)],
                    6,
                    4,
                    style,
                )))
                .map_err(drawing)?;
            let (x, y) = chart.backend_coord(&(axes.x.end, v));
            Ok(Some(Annotation {
                text: reference.label.clone(),
                at: (x - 4, y - 3),
                right_aligned: true,
            }))
        }
        Orientation::Vertical => {
            if is_bars || !(v.is_finite() && axes.x.start <= v && v <= axes.x.end) {
                return Ok(None);
            }
            chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    vec![(v, axes.y.start), (v, axes.y.end)],
                    6,
                    4,
                    style,
                )))
                .map_err(drawing)?;
            let (x, y) = chart.backend_coord(&(v, axes.y.end));
            Ok(Some(Annotation {
                text: reference.label.clone(),
                at: (x + 4, y + 2),
                right_aligned: false,
            }))
        }
    }
}

/// Text inside the plot over a pale backing, drawn after the data so no
/// series runs through it.
fn draw_annotation(root: &Area, label: &Annotation) -> Result<(), ReportError> {
    if label.text.is_empty() {
        return Ok(());
    }
    // The backing must hold the text whatever the browser's sans-serif:
    // the generous per-glyph estimate plus a margin.
    let width = text_width(&label.text, REFERENCE_PX).ceil() as i32 + 10;
    let height = REFERENCE_PX.ceil() as i32 + 3;
    let (x, y) = label.at;
    let (left, top, pos) = if label.right_aligned {
        (
            x - width + 5,
            y - height + 1,
            Pos::new(HPos::Right, VPos::Bottom),
        )
    } else {
        (x - 5, y - 1, Pos::new(HPos::Left, VPos::Top))
    };
    root.draw(&Rectangle::new(
        [(left, top), (left + width, top + height)],
        WHITE.mix(0.85).filled(),
    ))
    .map_err(drawing)?;
    root.draw(&Text::new(
        label.text.clone(),
        label.at,
        font(REFERENCE_PX, &MUTED).pos(pos),
    ))
    .map_err(drawing)
}

/// How many lines the widest category label needs.
fn category_label_lines(bars: &Bars, figure: &Figure) -> usize {
    let slot = slot_width(bars, figure);
    bars.categories
        .iter()
        .map(|c| wrap(c, slot, TICK_PX).len())
        .max()
        .unwrap_or(1)
        .clamp(1, 2)
}

/// Approximate pixel width of one category, before the chart is laid out.
fn slot_width(bars: &Bars, figure: &Figure) -> f64 {
    (figure.width as f64 - 110.0) / bars.categories.len().max(1) as f64 - 6.0
}

fn draw_bars<Y>(
    chart: &mut Chart<'_, '_, Y>,
    root: &Area,
    bars: &Bars,
    axes: &Axes,
    figure: &Figure,
) -> Result<(), ReportError>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let groups = bars.groups.len().max(1) as f64;
    // 80 % of each category slot holds the bars; the rest separates categories.
    let bar_width = 0.8 / groups;
    // Bars start at zero, or at the bottom of a log axis, clamped into view.
    let clamp = |y: f64| y.clamp(axes.y.start, axes.y.end);
    let base = clamp(if axes.log { axes.y.start } else { 0.0 });
    for (g, (color, values)) in bars.groups.iter().enumerate() {
        let rects = values
            .iter()
            .enumerate()
            .filter(|(_, (v, _))| v.is_finite())
            .map(|(c, &(v, _))| {
                let x0 = c as f64 + 0.1 + g as f64 * bar_width;
                let inset = bar_width * 0.06;
                Rectangle::new(
                    [(x0 + inset, base), (x0 + bar_width - inset, clamp(v))],
                    color.filled(),
                )
            });
        chart.draw_series(rects).map_err(drawing)?;
    }
    // Error bars after all bars so a neighbour never hides one.
    for (g, (_, values)) in bars.groups.iter().enumerate() {
        for (c, &(v, e)) in values.iter().enumerate() {
            if !v.is_finite() || e <= 0.0 {
                continue;
            }
            let xm = c as f64 + 0.1 + (g as f64 + 0.5) * bar_width;
            let cap = bar_width * 0.18;
            let lo = if axes.log && v - e <= 0.0 {
                axes.y.start
            } else {
                clamp(v - e)
            };
            let hi = clamp(v + e);
            let style = INK.stroke_width(1);
            // A whisker the axis range cuts runs off the plot without its
            // cap, so it never reads as ending there (the plot's note says
            // what is not shown).
            let mut whisker = vec![PathElement::new(vec![(xm, lo), (xm, hi)], style)];
            if v - e >= axes.y.start {
                whisker.push(PathElement::new(
                    vec![(xm - cap, lo), (xm + cap, lo)],
                    style,
                ));
            }
            if v + e <= axes.y.end {
                whisker.push(PathElement::new(
                    vec![(xm - cap, hi), (xm + cap, hi)],
                    style,
                ));
            }
            chart.draw_series(whisker).map_err(drawing)?;
        }
    }
    // Category names under each slot, wrapped onto two lines when long.
    let slot = slot_width(bars, figure);
    for (c, name) in bars.categories.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(c as f64 + 0.5, axes.y.start));
        let tick = [(x, y), (x, y + 5)];
        root.draw(&PathElement::new(tick.to_vec(), MUTED.stroke_width(1)))
            .map_err(drawing)?;
        for (i, line) in wrap(name, slot, TICK_PX).into_iter().take(2).enumerate() {
            let style = font(TICK_PX, &MUTED).pos(Pos::new(HPos::Center, VPos::Top));
            root.draw(&Text::new(line, (x, y + 8 + 14 * i as i32), style))
                .map_err(drawing)?;
        }
    }
    Ok(())
}

/// Clips a run to the axes' rectangle (in axis space, where the plotted
/// segments are straight), returning the visible pieces.
fn clip_run(run: &[(f64, f64)], axes: &Axes) -> Vec<Vec<(f64, f64)>> {
    let (x0, x1) = (axes.x.start, axes.x.end);
    let (y0, y1) = (
        axes.data_to_axis(axes.y.start),
        axes.data_to_axis(axes.y.end),
    );
    let inside = |(x, y): (f64, f64)| x0 <= x && x <= x1 && y0 <= y && y <= y1;
    let pts: Vec<(f64, f64)> = run
        .iter()
        .map(|&(x, y)| (x, axes.data_to_axis(y)))
        .collect();
    if pts.iter().all(|&p| inside(p)) {
        return vec![run.to_vec()];
    }
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    let back = |(x, y): (f64, f64)| (x, axes.axis_to_data(y));
    if pts.len() == 1 && inside(pts[0]) {
        return vec![run.to_vec()];
    }
    for pair in pts.windows(2) {
        match clip_segment(pair[0], pair[1], (x0, x1), (y0, y1)) {
            Some((a, b)) => {
                if current.last() != Some(&back(a)) {
                    if !current.is_empty() {
                        pieces.push(std::mem::take(&mut current));
                    }
                    current.push(back(a));
                }
                current.push(back(b));
            }
            None => {
                if !current.is_empty() {
                    pieces.push(std::mem::take(&mut current));
                }
            }
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Liang–Barsky clipping of one segment to a rectangle.
fn clip_segment(
    a: (f64, f64),
    b: (f64, f64),
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0: f64 = 0.0;
    let mut t1: f64 = 1.0;
    for (p, q) in [
        (-dx, a.0 - x0),
        (dx, x1 - a.0),
        (-dy, a.1 - y0),
        (dy, y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: f64| {
        if t == 0.0 {
            a
        } else if t == 1.0 {
            b
        } else {
            (a.0 + t * dx, a.1 + t * dy)
        }
    };
    Some((at(t0), at(t1)))
}

/// Keeps, for each pixel column, the first, lowest, highest and last point:
/// the drawn shape is unchanged but a 100 000-sample series costs a few
/// thousand SVG coordinates. Runs whose x goes backwards are kept whole.
fn thin(run: &[(f64, f64)], axes: &Axes, plot_width: usize) -> Vec<(f64, f64)> {
    if run.len() <= 4 * plot_width || run.windows(2).any(|w| w[1].0 < w[0].0) {
        return run.to_vec();
    }
    let span = axes.x.end - axes.x.start;
    let column = |x: f64| (((x - axes.x.start) / span) * plot_width as f64).floor() as i64;
    let mut out = Vec::with_capacity(4 * plot_width + 4);
    let mut start = 0;
    while start < run.len() {
        let col = column(run[start].0);
        let mut end = start + 1;
        while end < run.len() && column(run[end].0) == col {
            end += 1;
        }
        let bucket = &run[start..end];
        let key = |p: &&(f64, f64)| axes.data_to_axis(p.1);
        let lowest = bucket
            .iter()
            .min_by(|a, b| key(a).total_cmp(&key(b)))
            .expect("non-empty");
        let highest = bucket
            .iter()
            .max_by(|a, b| key(a).total_cmp(&key(b)))
            .expect("non-empty");
        let mut picks = vec![(0, bucket[0])];
        for p in [lowest, highest] {
            let index = bucket
                .iter()
                .position(|q| std::ptr::eq(q, p))
                .expect("from bucket");
            picks.push((index, *p));
        }
        picks.push((bucket.len() - 1, bucket[bucket.len() - 1]));
        picks.sort_by_key(|(i, _)| *i);
        picks.dedup_by_key(|(i, _)| *i);
        out.extend(picks.into_iter().map(|(_, p)| p));
        start = end;
    }
    out
}

fn font(px: f64, color: &'static RGBColor) -> TextStyle<'static> {
    styled_font(px, color, FontStyle::Normal)
}

fn styled_font(px: f64, color: &'static RGBColor, style: FontStyle) -> TextStyle<'static> {
    // The SVG backend writes font-size = size / 1.24, so scale up to get `px`.
    TextStyle::from((FONT, px * 1.24, style).into_font()).color(color)
}

/// Rough width of a text in a sans-serif font: SVG has no text metrics
/// before the browser renders it, and layout only needs to be close.
fn text_width(text: &str, px: f64) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | '(' | ')' => 0.32,
            'm' | 'w' | 'M' | 'W' | '%' => 0.9,
            c if c.is_uppercase() => 0.7,
            _ => 0.58,
        })
        .sum::<f64>()
        * px
}

/// Truncates with an ellipsis so the text fits `max_px`.
fn fit_text(text: &str, max_px: f64, px: f64) -> String {
    if text_width(text, px) <= max_px {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        out.push(c);
        if text_width(&out, px) + px > max_px {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// Word-wraps a label onto lines of at most `max_px`; words longer than a
/// line are truncated.
fn wrap(text: &str, max_px: f64, px: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), px) <= max_px => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.len() > 2 {
        let rest = lines[1..].join(" ");
        lines.truncate(1);
        lines.push(rest);
    }
    lines
        .into_iter()
        .map(|l| fit_text(&l, max_px.max(px * 2.0), px))
        .collect()
}

/// Inserts an accessible `<title>` right after the opening `<svg>` tag.
/// Adds the figure's title to the SVG and, as `data-plot-area="left top
/// right bottom"` on its root, where the data is drawn (the browser check
/// asserts that no text but a backed annotation lies there).
fn add_title(svg: String, title: &str, plot_area: Option<PlotArea>) -> String {
    match svg.find('>') {
        Some(end) if svg.starts_with("<svg") => {
            let mut out = String::with_capacity(svg.len() + title.len() + 64);
            out.push_str(&svg[..end]);
            if let Some([l, t, r, b]) = plot_area {
                out.push_str(&format!(" data-plot-area=\"{l} {t} {r} {b}\""));
            }
            out.push('>');
            out.push_str("\n<title>");
            out.push_str(&escape(title));
            out.push_str("</title>");
            out.push_str(&svg[end + 1..]);
            out
        }
        _ => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BarGroup, Line, ReferenceLine};

    #[test]
    fn cdf_merges_duplicates_and_skips_non_finite() {
        let cdf = empirical_cdf(&[3.0, 1.0, f64::NAN, 2.0, 2.0, f64::INFINITY]);
        assert_eq!(cdf, vec![(1.0, 0.25), (2.0, 0.75), (3.0, 1.0)]);
        assert!(empirical_cdf(&[]).is_empty());
        assert!(empirical_cdf(&[f64::NAN]).is_empty());
    }

    #[test]
    fn steps_hold_values() {
        assert_eq!(
            to_steps(&[(0.0, 1.0), (1.0, 2.0), (2.0, 0.5)]),
            vec![(0.0, 1.0), (1.0, 1.0), (1.0, 2.0), (2.0, 2.0), (2.0, 0.5)]
        );
    }

    #[test]
    fn runs_break_at_nan() {
        let runs = finite_runs(
            &[(0.0, 1.0), (1.0, f64::NAN), (2.0, 2.0), (3.0, 3.0)],
            |x, y| x.is_finite() && y.is_finite(),
        );
        assert_eq!(runs, vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]);
    }

    #[test]
    fn clipping_keeps_the_visible_part() {
        let axes = Axes {
            x: 0.0..10.0,
            y: 0.0..10.0,
            log: false,
        };
        let pieces = clip_run(&[(-5.0, 5.0), (5.0, 5.0), (5.0, 20.0), (6.0, 5.0)], &axes);
        assert_eq!(
            pieces,
            vec![
                vec![(0.0, 5.0), (5.0, 5.0), (5.0, 10.0)],
                vec![(5.0 + 10.0 / 15.0, 10.0), (6.0, 5.0)]
            ]
        );
    }

    #[test]
    fn thinning_bounds_long_series() {
        let axes = Axes {
            x: 0.0..1.0,
            y: -1.0..1.0,
            log: false,
        };
        let run: Vec<(f64, f64)> = (0..100_000)
            .map(|i| {
                (
                    i as f64 / 100_000.0,
                    ((i * 7919) % 1000) as f64 / 500.0 - 1.0,
                )
            })
            .collect();
        let thinned = thin(&run, &axes, 500);
        assert!(thinned.len() <= 4 * 500 + 4, "{}", thinned.len());
        let max = thinned.iter().map(|p| p.1).fold(f64::MIN, f64::max);
        let min = thinned.iter().map(|p| p.1).fold(f64::MAX, f64::min);
        assert_eq!((min, max), (-1.0, 0.998));
    }

    #[test]
    fn log_axis_spans_whole_decades() {
        let figure =
            Figure::bars("t", "x", "y", ["a"], vec![BarGroup::new("g", vec![3.0])]).log_y();
        let plot = Plot::prepare(&figure, &[]).unwrap();
        let axes = Axes::new(&figure, &plot);
        assert!((axes.y.start - 1.0).abs() < 0.01 && (axes.y.end - 10.0).abs() < 0.02);
    }

    #[test]
    fn a_few_measured_points_are_marked_a_dense_line_is_not() {
        let few = Figure::lines(
            "t",
            "x",
            "y",
            vec![Line::new("swept", vec![(1.0, 1.0), (2.0, 3.0), (4.0, 2.0)])],
        );
        let plot = Plot::prepare(&few, &[]).unwrap();
        assert!(plot.series[0].markers);
        assert!(render_svg(&few).unwrap().contains("<circle"));
        let dense: Vec<(f64, f64)> = (0..100).map(|i| (i as f64, i as f64)).collect();
        let many = Figure::lines("t", "x", "y", vec![Line::new("series", dense)]);
        assert!(!Plot::prepare(&many, &[]).unwrap().series[0].markers);
        let model = Figure::lines(
            "t",
            "x",
            "y",
            vec![Line::new("model", vec![(1.0, 1.0), (2.0, 2.0)]).style(LineStyle::Dashed)],
        );
        assert!(!Plot::prepare(&model, &[]).unwrap().series[0].markers);
    }

    #[test]
    fn data_outside_a_fixed_range_is_noted_on_the_plot() {
        let line = || Line::new("q", vec![(0.0, 2.0), (1.0, 0.5)]);
        let cut = Figure::lines("t", "x", "y", vec![line()]).y_range(0.0, 1.5);
        let plot = Plot::prepare(&cut, &[]).unwrap();
        let axes = Axes::new(&cut, &plot);
        assert_eq!(
            outside_note(&plot, &axes).as_deref(),
            Some("data above 1.5 not shown")
        );
        let svg = render_svg(&cut).unwrap();
        assert!(svg.contains("not shown"));
        assert!(
            svg.contains(" data-plot-area=\""),
            "the SVG marks its data area"
        );
        let whole = Figure::lines("t", "x", "y", vec![line()]);
        let plot = Plot::prepare(&whole, &[]).unwrap();
        assert_eq!(outside_note(&plot, &Axes::new(&whole, &plot)), None);
    }

    #[test]
    fn a_whisker_cut_by_the_range_loses_its_cap() {
        let bars = |top: f64| {
            Figure::bars(
                "t",
                "x",
                "y",
                ["a"],
                vec![BarGroup::new("g", vec![1.0]).errors(vec![0.5])],
            )
            .y_range(0.0, top)
        };
        // Whiskers are the only paths in INK.
        let whisker_paths =
            |f: &Figure| render_svg(f).unwrap().matches("stroke=\"#212529\"").count();
        assert_eq!(whisker_paths(&bars(2.0)), 3);
        assert_eq!(
            whisker_paths(&bars(1.2)),
            2,
            "a whisker running past the top has no top cap"
        );
        assert!(render_svg(&bars(1.2)).unwrap().contains("data above"));
    }

    #[test]
    fn references_extend_the_range() {
        let figure = Figure::lines(
            "t",
            "x",
            "y",
            vec![Line::new("a", vec![(0.0, 1.0), (1.0, 2.0)])],
        )
        .reference(ReferenceLine::horizontal(10.0, "cap"));
        let plot = Plot::prepare(&figure, &[]).unwrap();
        let axes = Axes::new(&figure, &plot);
        assert!(axes.y.end >= 10.0);
    }

    #[test]
    fn mismatched_bars_are_an_error() {
        let figure = Figure::bars(
            "t",
            "x",
            "y",
            ["a", "b"],
            vec![BarGroup::new("g", vec![1.0])],
        );
        assert!(matches!(
            render_svg(&figure),
            Err(ReportError::InvalidData(_))
        ));
        let figure = Figure::bars(
            "t",
            "x",
            "y",
            ["a"],
            vec![BarGroup::new("g", vec![1.0]).errors(vec![0.1, 0.2])],
        );
        assert!(matches!(
            render_svg(&figure),
            Err(ReportError::InvalidData(_))
        ));
    }

    #[test]
    fn tiny_figures_are_rejected() {
        let figure = Figure::lines("t", "x", "y", vec![]).size(10, 10);
        assert!(matches!(
            render_svg(&figure),
            Err(ReportError::InvalidSize { .. })
        ));
    }
}
