//! Classification trees (CART with Gini impurity), the kind scikit-learn's
//! `DecisionTreeClassifier` fits: what Drucker et al. drew as their Fig. 1.
//!
//! Written here rather than taken from a crate: linfa-trees 0.8, the
//! maintained Rust one, finds no split in nodes where scikit-learn does (on
//! the bbr2 suite's grid it stops at the root's no-loss child, whose 54
//! samples split cleanly on bandwidth), so its trees cannot stand for the
//! paper's. The rule is scikit-learn's, with one difference: a split that
//! does not lower the impurity is not made (scikit-learn makes it when the
//! improvement is zero), so a node whose samples all agree is a leaf.
//!
//! Splits: for every feature, every midpoint between consecutive distinct
//! values; the one with the lowest weighted Gini impurity of the two sides
//! wins, the first feature and the lowest threshold on ties. Samples with
//! `value <= threshold` go left.

/// A fitted tree node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The samples (indices into the training rows) that reach it.
    pub samples: Vec<usize>,
    /// Samples per class.
    pub counts: Vec<usize>,
    /// Its split and children, or `None` for a leaf.
    pub split: Option<Split>,
}

/// How an inner node divides its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    /// The feature's column.
    pub feature: usize,
    /// Samples with `value <= threshold` go left, the others right.
    pub threshold: f64,
    /// The `<=` side.
    pub left: Box<Node>,
    /// The `>` side.
    pub right: Box<Node>,
}

impl Node {
    /// The class most of its samples have (the lowest on ties).
    pub fn prediction(&self) -> usize {
        let best = self.counts.iter().max().copied().unwrap_or(0);
        self.counts.iter().position(|&c| c == best).unwrap_or(0)
    }

    /// Levels below it (0 for a leaf).
    pub fn depth(&self) -> usize {
        self.split
            .as_ref()
            .map_or(0, |s| 1 + s.left.depth().max(s.right.depth()))
    }
}

/// Fits a tree to `rows` (one feature vector per sample) with `labels`
/// (classes `0..classes`), at most `max_depth` levels below the root.
///
/// # Panics
/// If `rows` and `labels` differ in length or a label is not below
/// `classes` (the caller builds both).
pub fn fit(rows: &[Vec<f64>], labels: &[usize], classes: usize, max_depth: usize) -> Node {
    assert_eq!(rows.len(), labels.len(), "one label per row");
    assert!(
        labels.iter().all(|&l| l < classes),
        "labels below {classes}"
    );
    grow(rows, labels, classes, (0..rows.len()).collect(), max_depth)
}

fn grow(
    rows: &[Vec<f64>],
    labels: &[usize],
    classes: usize,
    samples: Vec<usize>,
    depth_left: usize,
) -> Node {
    let counts = class_counts(labels, classes, &samples);
    let impurity = gini(&counts);
    let split = if depth_left == 0 || impurity == 0.0 {
        None
    } else {
        best_split(rows, labels, classes, &samples)
            .filter(|&(_, _, children)| children < impurity - 1e-12)
    };
    let split = split.map(|(feature, threshold, _)| {
        let (left, right): (Vec<usize>, Vec<usize>) = samples
            .iter()
            .partition(|&&i| rows[i][feature] <= threshold);
        Split {
            feature,
            threshold,
            left: Box::new(grow(rows, labels, classes, left, depth_left - 1)),
            right: Box::new(grow(rows, labels, classes, right, depth_left - 1)),
        }
    });
    Node {
        samples,
        counts,
        split,
    }
}

fn class_counts(labels: &[usize], classes: usize, samples: &[usize]) -> Vec<usize> {
    let mut counts = vec![0; classes];
    for &i in samples {
        counts[labels[i]] += 1;
    }
    counts
}

/// Gini impurity of a node with these class counts.
fn gini(counts: &[usize]) -> f64 {
    let n: usize = counts.iter().sum();
    if n == 0 {
        return 0.0;
    }
    1.0 - counts
        .iter()
        .map(|&c| (c as f64 / n as f64).powi(2))
        .sum::<f64>()
}

/// The best `(feature, threshold, weighted child impurity)`, if any
/// feature takes two values among `samples`.
// `feature` indexes a column of every row, not one row: a range is clearest.
#[allow(clippy::needless_range_loop)]
fn best_split(
    rows: &[Vec<f64>],
    labels: &[usize],
    classes: usize,
    samples: &[usize],
) -> Option<(usize, f64, f64)> {
    let n = samples.len() as f64;
    let features = rows.first().map_or(0, Vec::len);
    let mut best: Option<(usize, f64, f64)> = None;
    for feature in 0..features {
        let mut sorted: Vec<usize> = samples.to_vec();
        sorted.sort_by(|&a, &b| rows[a][feature].total_cmp(&rows[b][feature]));
        let mut left = vec![0; classes];
        let mut right = class_counts(labels, classes, samples);
        for k in 0..sorted.len().saturating_sub(1) {
            let i = sorted[k];
            left[labels[i]] += 1;
            right[labels[i]] -= 1;
            let (here, next) = (rows[i][feature], rows[sorted[k + 1]][feature]);
            if here == next {
                continue;
            }
            let weight = (k + 1) as f64 / n;
            let children = weight * gini(&left) + (1.0 - weight) * gini(&right);
            if best.is_none_or(|(_, _, b)| children < b - 1e-12) {
                best = Some((feature, (here + next) / 2.0, children));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_split_is_found_and_pure_nodes_stop() {
        // Class 1 exactly when feature 1 > 5; feature 0 is noise.
        let rows: Vec<Vec<f64>> = (0..20)
            .map(|i| vec![(i * 7 % 3) as f64, i as f64 / 2.0])
            .collect();
        let labels: Vec<usize> = rows.iter().map(|r| usize::from(r[1] > 5.0)).collect();
        let tree = fit(&rows, &labels, 2, 4);
        let split = tree.split.as_ref().expect("a split");
        assert_eq!((split.feature, split.threshold), (1, 5.25));
        assert_eq!(split.left.counts, vec![11, 0]);
        assert_eq!(split.right.counts, vec![0, 9]);
        assert!(split.left.split.is_none() && split.right.split.is_none());
        assert_eq!(tree.depth(), 1);
    }

    #[test]
    fn depth_is_bounded_and_predictions_are_the_majority() {
        // XOR of two features needs two levels; one level cannot separate it.
        let rows = vec![
            vec![0.0, 0.0],
            vec![0.0, 1.0],
            vec![1.0, 0.0],
            vec![1.0, 1.0],
            vec![1.0, 1.0],
        ];
        let labels = vec![0, 1, 1, 0, 0];
        let shallow = fit(&rows, &labels, 2, 1);
        assert!(shallow.depth() <= 1);
        let deep = fit(&rows, &labels, 2, 3);
        assert_eq!(deep.depth(), 2);
        assert_eq!(deep.prediction(), 0);
        let leaves_pure = |node: &Node| -> bool {
            fn walk(n: &Node) -> bool {
                match &n.split {
                    None => n.counts.iter().filter(|&&c| c > 0).count() <= 1,
                    Some(s) => walk(&s.left) && walk(&s.right),
                }
            }
            walk(node)
        };
        assert!(leaves_pure(&deep));
    }

    /// The bbr2 suite's grid (tests/data/fig1-grid-samples.csv): the top
    /// of the tree is scikit-learn's on the same samples
    /// (`DecisionTreeClassifier(max_depth=4)`: loss <= 0.5, then bandwidth
    /// <= 55 without loss and BDP <= 0.03 with loss).
    #[test]
    fn the_grids_tree_begins_as_scikit_learns() {
        let text = include_str!("../tests/data/fig1-grid-samples.csv");
        let (mut rows, mut labels) = (Vec::new(), Vec::new());
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            // The file's columns: loss, rate, RTT, buffer, BDP, label.
            rows.push(vec![v[0], v[1], v[2], v[4], v[3]]);
            labels.push(v[5] as usize);
        }
        assert_eq!(rows.len(), 162);
        let tree = fit(&rows, &labels, 2, 4);
        let root = tree.split.as_ref().unwrap();
        assert_eq!((root.feature, root.threshold), (0, 0.5));
        let left = root.left.split.as_ref().unwrap();
        assert_eq!((left.feature, left.threshold), (1, 55.0));
        let right = root.right.split.as_ref().unwrap();
        assert_eq!((right.feature, right.threshold), (3, 0.03125));
        assert_eq!(root.left.counts, vec![24, 30]);
    }

    #[test]
    fn constant_features_make_a_leaf() {
        let rows = vec![vec![1.0]; 6];
        let labels = vec![0, 1, 0, 1, 0, 0];
        let tree = fit(&rows, &labels, 2, 4);
        assert!(tree.split.is_none());
        assert_eq!(tree.counts, vec![4, 2]);
    }
}
