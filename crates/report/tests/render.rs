//! Rendering through the public API: every figure kind, escaping, the table
//! of contents, bad data, and byte-for-byte determinism.

use report::{
    empirical_cdf, render_html, render_svg, BarGroup, Cell, Figure, Line, LineStyle, ReferenceLine,
    Report, Section, Table, VerdictStatus,
};

fn sample_report() -> Report {
    let series: Vec<(f64, f64)> = (0..200)
        .map(|i| (i as f64 * 0.1, (i as f64 * 0.1).sin() + 2.0))
        .collect();
    Report::new("Shallow <buffers> & \"BBR\"", "seed 1 & 2")
        .section(
            Section::new("lines", "Lines <1>")
                .description("first paragraph\n\nsecond <paragraph>")
                .verdict(VerdictStatus::Reproduced, "matches Fig. 3 & 4")
                .figure(
                    Figure::lines(
                        "Goodput <over> time",
                        "time (s)",
                        "goodput (Mbit/s)",
                        vec![
                            Line::new("bbr", series.clone()),
                            Line::new("model", series.clone()).style(LineStyle::Dashed),
                            Line::new("capacity", vec![(0.0, 3.0), (10.0, 1.0), (20.0, 1.0)])
                                .style(LineStyle::Step),
                        ],
                    )
                    .reference(ReferenceLine::horizontal(3.5, "cap"))
                    .reference(ReferenceLine::vertical(10.0, "drop")),
                ),
        )
        .section(
            Section::new("bars", "Bars")
                .verdict(VerdictStatus::Partly, "close")
                .figure(Figure::bars(
                    "Goodput per buffer",
                    "buffer",
                    "goodput (Mbit/s)",
                    ["0.25 BDP", "1 BDP"],
                    vec![
                        BarGroup::new("bbr", vec![30.0, 38.0]).errors(vec![1.0, 0.5]),
                        BarGroup::new("cubic", vec![20.0, 37.0]),
                    ],
                ))
                .figure(
                    Figure::bars(
                        "Retransmissions",
                        "loss",
                        "ratio (%)",
                        ["0 %", "1 %"],
                        vec![BarGroup::new("bbr", vec![0.1, 12.0])],
                    )
                    .log_y(),
                ),
        )
        .section(
            Section::new("cdf", "CDF")
                .verdict(VerdictStatus::Differs, "tail is longer")
                .figure(Figure::cdf(
                    "RTT",
                    "RTT (ms)",
                    vec![
                        ("bbr".into(), vec![50.0, 52.0, 60.0, 51.0]),
                        ("cubic".into(), vec![70.0, 90.0]),
                    ],
                ))
                .table(
                    Table::new("Paper vs ours", ["metric", "paper", "ours"])
                        .row([
                            Cell::text("goodput <Mbit/s>"),
                            Cell::fixed(38.0, 1),
                            Cell::fixed(37.5, 1),
                        ])
                        .row([
                            Cell::text("retransmissions"),
                            Cell::percent(0.06, 1),
                            Cell::from(f64::NAN),
                        ]),
                ),
        )
        .section(Section::new("skipped", "Not run").verdict(VerdictStatus::NotRun, "no traces"))
        .note("goodput: application bytes delivered in order / time")
}

#[test]
fn report_contains_every_section_figure_and_toc_entry() {
    let report = sample_report();
    let html = render_html(&report);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<svg").count(), 4, "one SVG per figure");
    assert_eq!(html.matches("<figure class=\"figure\"").count(), 4);
    assert_eq!(html.matches("class=\"report-section\"").count(), 4);
    for id in ["lines", "bars", "cdf", "skipped"] {
        assert!(
            html.contains(&format!("<a href=\"#{id}\">")),
            "TOC links #{id}"
        );
        assert!(html.contains(&format!("<section id=\"{id}\" class=\"report-section\"")));
    }
    assert!(html.contains("data-figures=\"2\""));
    for slug in ["reproduced", "partly", "differs", "not-run"] {
        assert!(html.contains(&format!("verdict-{slug}")), "badge {slug}");
    }
    assert!(html.contains("4 sections: 1 reproduced, 1 partly reproduced, 1 differs, 1 not run."));
    // Legends and axis labels are text in the SVG.
    for text in [
        "goodput (Mbit/s)",
        "time (s)",
        "bbr",
        "cubic",
        "0.25 BDP",
        "cap",
        "drop",
    ] {
        assert!(html.contains(text), "{text} drawn");
    }
    // No scripts, no external resources.
    assert!(!html.contains("<script"));
    assert!(
        !html.contains("http://")
            || html.matches("http://").count()
                == html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(!html.contains("https://"));
}

#[test]
fn all_text_is_escaped() {
    let html = render_html(&sample_report());
    assert!(html.contains("<title>Shallow &lt;buffers&gt; &amp; &quot;BBR&quot;</title>"));
    assert!(html.contains("<h1>Shallow &lt;buffers&gt; &amp; &quot;BBR&quot;</h1>"));
    assert!(html.contains("Lines &lt;1&gt;"));
    assert!(html.contains("second &lt;paragraph&gt;"));
    assert!(html.contains("matches Fig. 3 &amp; 4"));
    assert!(html.contains("goodput &lt;Mbit/s&gt;"));
    // Inside the SVG too: the accessible title and the drawn title.
    assert!(html.contains("<title>Goodput &lt;over&gt; time</title>"));
    assert!(!html.contains("Goodput <over> time"));
    assert!(!html.contains("<buffers>"));
}

#[test]
fn rendering_is_deterministic() {
    let a = render_html(&sample_report());
    let b = render_html(&sample_report());
    assert_eq!(a, b);
    let demo = report::demo::demo_report();
    assert_eq!(render_html(&demo), render_html(&demo));
}

#[test]
fn nan_and_infinity_are_skipped() {
    let clean = Figure::lines(
        "t",
        "x",
        "y",
        vec![Line::new("a", vec![(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)])],
    );
    let dirty = Figure::lines(
        "t",
        "x",
        "y",
        vec![Line::new(
            "a",
            vec![
                (0.0, 1.0),
                (f64::NAN, 5.0),
                (0.5, f64::INFINITY),
                (1.0, 2.0),
                (2.0, 3.0),
                (3.0, f64::NEG_INFINITY),
            ],
        )],
    );
    let svg = render_svg(&dirty).expect("non-finite points are not an error");
    assert!(
        !svg.contains("NaN") && !svg.contains("inf"),
        "no non-finite coordinate leaks into the SVG"
    );
    // The axes come from finite data only, so the ticks match the clean figure.
    let ticks = |svg: &str| -> Vec<String> {
        svg.lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(ticks(&svg), ticks(&render_svg(&clean).unwrap()));

    let bars = Figure::bars(
        "b",
        "x",
        "y",
        ["a", "b"],
        vec![BarGroup::new("g", vec![f64::NAN, 2.0]).errors(vec![f64::INFINITY, 0.1])],
    );
    let svg = render_svg(&bars).unwrap();
    assert!(!svg.contains("NaN"));
    let cdf = Figure::cdf(
        "c",
        "x",
        vec![("a".into(), vec![1.0, f64::NAN, 2.0, f64::INFINITY])],
    );
    assert!(!render_svg(&cdf).unwrap().contains("NaN"));
    assert_eq!(empirical_cdf(&[f64::NAN, 1.0]), vec![(1.0, 1.0)]);
    // A log axis has no place for zero or negative values: skipped, not fatal.
    let log = Figure::lines(
        "l",
        "x",
        "y",
        vec![Line::new("a", vec![(0.0, 0.0), (1.0, -1.0), (2.0, 10.0)])],
    )
    .log_y();
    assert!(render_svg(&log).unwrap().contains("<svg"));
}

#[test]
fn empty_data_renders_a_no_data_figure() {
    let figures = [
        Figure::lines("empty lines", "x", "y", vec![]),
        Figure::lines("empty line", "x", "y", vec![Line::new("a", vec![])]),
        Figure::lines(
            "all nan",
            "x",
            "y",
            vec![Line::new("a", vec![(f64::NAN, f64::NAN)])],
        ),
        Figure::bars("no categories", "x", "y", Vec::<String>::new(), vec![]),
        Figure::bars(
            "nan bars",
            "x",
            "y",
            ["a"],
            vec![BarGroup::new("g", vec![f64::NAN])],
        ),
        Figure::cdf("empty cdf", "x", vec![]),
        Figure::cdf("empty samples", "x", vec![("a".into(), vec![])]),
        Figure::lines(
            "log of zeros",
            "x",
            "y",
            vec![Line::new("a", vec![(0.0, 0.0)])],
        )
        .log_y(),
    ];
    for figure in &figures {
        let svg = render_svg(figure).unwrap_or_else(|e| panic!("{}: {e}", figure.title));
        assert!(svg.contains("no data"), "{} says no data", figure.title);
        assert!(svg.contains(&figure.title));
    }
    let html =
        render_html(&Report::new("", "").section(Section::new("", "").figure(figures[0].clone())));
    assert!(html.contains("id=\"section-1\""));
    assert!(html.contains("no data"));
    let empty = render_html(&Report::default());
    assert!(empty.contains("This report has no sections."));
}

#[test]
fn single_points_and_constant_series_are_drawn() {
    let figure = Figure::lines(
        "one point",
        "x",
        "y",
        vec![Line::new("a", vec![(1.0, 1.0)])],
    );
    let svg = render_svg(&figure).unwrap();
    assert!(svg.contains("<circle"), "a lone point gets a marker");
    let flat = Figure::lines(
        "flat",
        "x",
        "y",
        vec![Line::new("a", vec![(0.0, 5.0), (1.0, 5.0)])],
    );
    assert!(render_svg(&flat).unwrap().contains("<polyline"));
}

#[test]
fn a_figure_that_cannot_be_drawn_shows_an_error_in_place() {
    let bad = Figure::bars(
        "Broken",
        "x",
        "y",
        ["a", "b"],
        vec![BarGroup::new("g", vec![1.0])],
    );
    let html = render_html(&Report::new("r", "").section(Section::new("s", "S").figure(bad)));
    assert!(html.contains("class=\"figure-error\""));
    assert!(html.contains("bar group"));
}

#[test]
fn large_series_stay_small() {
    let points: Vec<(f64, f64)> = (0..200_000)
        .map(|i| (i as f64, ((i * 31) % 97) as f64))
        .collect();
    let svg = render_svg(&Figure::lines(
        "big",
        "x",
        "y",
        vec![Line::new("a", points)],
    ))
    .unwrap();
    assert!(svg.len() < 200_000, "SVG is {} bytes", svg.len());
}

#[test]
fn svg_is_a_standalone_document() {
    let svg = render_svg(&Figure::lines(
        "t",
        "x",
        "y",
        vec![Line::new("a", vec![(0.0, 1.0), (1.0, 2.0)])],
    ))
    .unwrap();
    assert!(svg.starts_with("<svg "));
    assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("viewBox=\"0 0 640 400\""));
    assert!(svg.trim_end().ends_with("</svg>"));
}

#[test]
fn si_ticks_on_large_values() {
    let figure = Figure::lines(
        "rate",
        "time (s)",
        "rate (bit/s)",
        vec![Line::new("a", vec![(0.0, 0.0), (1.0, 5e7)])],
    );
    let svg = render_svg(&figure).unwrap();
    assert!(
        svg.contains("\n50M\n") || svg.contains("\n40M\n"),
        "SI tick labels"
    );
    assert!(!svg.contains("50000000"));
}
