//! Drawing a [`FigureKind::Tree`](crate::FigureKind::Tree): leaves spread
//! evenly across the width, each parent centred over its children, one row
//! per level; boxes tinted by class, edges labelled at their midpoints on a
//! backing so no line runs through the text.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    add_title, draw_header, drawing, fit_text, font, palette, styled_font, text_width, Area,
    LegendItem, Swatch, INK, MUTED,
};
use crate::model::{Figure, TreeNode};
use crate::ReportError;

/// Font size of the text in the boxes.
const NODE_PX: f64 = 11.5;
/// Height of one line of text in a box.
const LINE_H: i32 = 15;
/// Widest a box gets.
const MAX_BOX_W: f64 = 190.0;

/// Renders the tree `root` with its class legend; `colour_index` holds
/// each class's palette index (the report-wide colours).
pub(super) fn render(
    figure: &Figure,
    classes: &[String],
    root: &TreeNode,
    colour_index: &[usize],
) -> Result<String, ReportError> {
    let colour = |class: usize| palette(colour_index.get(class).copied().unwrap_or(class));
    let legend: Vec<LegendItem> = classes
        .iter()
        .enumerate()
        .map(|(i, label)| LegendItem {
            label: label.clone(),
            color: colour(i),
            swatch: Swatch::Box,
        })
        .collect();
    let mut svg = String::new();
    {
        let backend = SVGBackend::with_string(&mut svg, (figure.width, figure.height));
        let area = backend.into_drawing_area();
        area.fill(&WHITE).map_err(drawing)?;
        let top = draw_header(&area, figure, &legend)? as i32 + 6;
        let layout = Layout::new(figure, root, top);
        let mut next_leaf = 0;
        layout.draw(&area, root, 0, &mut next_leaf, &colour)?;
        area.present().map_err(drawing)?;
    }
    Ok(add_title(svg, &figure.title, None))
}

/// Where rows and leaf slots fall.
struct Layout {
    left: f64,
    slot: f64,
    top: i32,
    level_h: i32,
    box_w: f64,
}

impl Layout {
    fn new(figure: &Figure, root: &TreeNode, top: i32) -> Layout {
        let leaves = root.leaves().max(1) as f64;
        let left = 10.0;
        let slot = (figure.width as f64 - 2.0 * left) / leaves;
        let tallest = max_lines(root) as i32 * LINE_H + 10;
        let levels = root.depth().max(1) as i32;
        let level_h = ((figure.height as i32 - top - 10 - tallest) / levels).max(tallest + 24);
        Layout {
            left,
            slot,
            top,
            level_h,
            box_w: (slot - 10.0).min(MAX_BOX_W),
        }
    }

    /// Draws `node` and its subtree at `depth`; returns its box's top centre.
    fn draw(
        &self,
        area: &Area,
        node: &TreeNode,
        depth: i32,
        next_leaf: &mut usize,
        colour: &dyn Fn(usize) -> RGBColor,
    ) -> Result<(i32, i32), ReportError> {
        let y = self.top + depth * self.level_h;
        let h = node.lines.len().max(1) as i32 * LINE_H + 10;
        let mut children = Vec::new();
        for (edge, child) in &node.children {
            children.push((edge, self.draw(area, child, depth + 1, next_leaf, colour)?));
        }
        let x = if children.is_empty() {
            let x = self.left + self.slot * (*next_leaf as f64 + 0.5);
            *next_leaf += 1;
            x.round() as i32
        } else {
            (children.first().map_or(0, |(_, c)| c.0) + children.last().map_or(0, |(_, c)| c.0)) / 2
        };
        // A parent box may be as wide as the span over its children.
        let width = if children.is_empty() {
            self.box_w
        } else {
            MAX_BOX_W.max(self.box_w)
        };
        let half = (width / 2.0) as i32;
        for (edge, (cx, cy)) in &children {
            area.draw(&PathElement::new(
                vec![(x, y + h), (*cx, *cy)],
                MUTED.stroke_width(1),
            ))
            .map_err(drawing)?;
            if !edge.is_empty() {
                let (mx, my) = ((x + cx) / 2, (y + h + cy) / 2);
                let w = text_width(edge, NODE_PX).ceil() as i32 + 8;
                area.draw(&Rectangle::new(
                    [(mx - w / 2, my - 8), (mx + w / 2, my + 8)],
                    WHITE.filled(),
                ))
                .map_err(drawing)?;
                area.draw(&Text::new(
                    edge.as_str(),
                    (mx, my),
                    font(NODE_PX, &MUTED).pos(Pos::new(HPos::Center, VPos::Center)),
                ))
                .map_err(drawing)?;
            }
        }
        // On the white figure a translucent fill is the tint; an untinted
        // node needs none.
        let corners = [(x - half, y), (x + half, y + h)];
        if let Some(c) = node.class {
            let fill = colour(c).mix(node.strength.clamp(0.0, 1.0) * 0.85);
            area.draw(&Rectangle::new(corners, fill.filled()))
                .map_err(drawing)?;
        }
        let border = if node.emphasis {
            INK.stroke_width(3)
        } else {
            MUTED.stroke_width(1)
        };
        // As a path: the SVG backend draws a rectangle's outline 1 px wide
        // whatever the style says.
        let (l, t, r, b) = (x - half, y, x + half, y + h);
        area.draw(&PathElement::new(
            vec![(l, t), (r, t), (r, b), (l, b), (l, t)],
            border,
        ))
        .map_err(drawing)?;
        for (i, line) in node.lines.iter().enumerate() {
            let text = fit_text(line, width - 8.0, NODE_PX);
            let style = if i == 0 {
                styled_font(NODE_PX, &INK, FontStyle::Bold)
            } else {
                font(NODE_PX, &INK)
            };
            area.draw(&Text::new(
                text,
                (x, y + 5 + i as i32 * LINE_H + LINE_H / 2),
                style.pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(drawing)?;
        }
        Ok((x, y))
    }
}

fn max_lines(node: &TreeNode) -> usize {
    node.children
        .iter()
        .map(|(_, c)| max_lines(c))
        .max()
        .unwrap_or(0)
        .max(node.lines.len())
}

#[cfg(test)]
mod tests {
    use crate::model::{Figure, TreeNode};
    use crate::render_svg;

    fn tree() -> TreeNode {
        TreeNode::new(vec!["loss <= 0.5%".into(), "n = 8".into()])
            .child("yes", TreeNode::new(vec!["alike".into()]))
            .child(
                "no",
                TreeNode::new(vec!["rate <= 50".into()])
                    .tint(0, 0.5)
                    .child(
                        "yes",
                        TreeNode::new(vec!["BBR +20%".into()])
                            .tint(0, 0.6)
                            .emphasised(),
                    )
                    .child("no", TreeNode::new(vec!["BBRv2 +3%".into()]).tint(1, 0.2)),
            )
    }

    #[test]
    fn a_tree_draws_every_box_edge_and_class() {
        let root = tree();
        assert_eq!((root.leaves(), root.depth()), (3, 2));
        let figure = Figure::tree("which wins", vec!["BBR".into(), "BBRv2".into()], root);
        let svg = render_svg(&figure).unwrap();
        for text in [
            "loss &lt;= 0.5%",
            "BBR +20%",
            "BBRv2 +3%",
            "alike",
            "yes",
            "no",
            "BBRv2",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(
            svg.contains("stroke-width=\"3\""),
            "the emphasised leaf has a heavy border"
        );
        assert!(svg.matches("<polyline").count() >= 4, "four edges");
    }
}
