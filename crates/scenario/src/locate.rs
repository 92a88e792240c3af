//! Line numbers for keys, looked up in the scenario file as written.

use toml_edit::{ImDocument, Item, TableLike, Value};

use crate::error::{KeyPath, Seg};

/// Finds where keys are in the original (pre-override) text.
pub(crate) struct Locator {
    doc: Option<ImDocument<String>>,
}

/// A node reached while walking a path.
#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a dyn TableLike),
    Item(&'a Item),
    Value(&'a Value),
}

impl Locator {
    pub(crate) fn new(doc: Option<ImDocument<String>>) -> Locator {
        Locator { doc }
    }

    /// 1-based line of a byte offset in the original text.
    pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
        let offset = offset.min(text.len());
        text.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// 1-based column (in characters) of a byte offset.
    pub(crate) fn column_of_offset(text: &str, offset: usize) -> usize {
        let offset = offset.min(text.len());
        let bytes = &text.as_bytes()[..offset];
        let start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        String::from_utf8_lossy(&bytes[start..]).chars().count() + 1
    }

    /// The line of `path`, or of its deepest part that exists in the file
    /// (so a missing key points at its table). `None` when not even the
    /// first key is in the file.
    pub(crate) fn line(&self, path: &KeyPath) -> Option<usize> {
        let doc = self.doc.as_ref()?;
        let raw = doc.raw();
        let mut node = Node::Table(doc.as_table() as &dyn TableLike);
        let mut best: Option<std::ops::Range<usize>> = None;
        for seg in &path.0 {
            let (span, next) = match (seg, node) {
                (Seg::Key(k), node) => {
                    let table: &dyn TableLike = match node {
                        Node::Table(t) => t,
                        Node::Item(item) => match item.as_table_like() {
                            Some(t) => t,
                            None => break,
                        },
                        Node::Value(Value::InlineTable(t)) => t,
                        Node::Value(_) => break,
                    };
                    match table.get_key_value(k) {
                        Some((key, item)) => (key.span().or_else(|| item.span()), Node::Item(item)),
                        None => break,
                    }
                }
                (Seg::Index(i), Node::Item(Item::ArrayOfTables(aot))) => match aot.get(*i) {
                    Some(t) => (t.span(), Node::Table(t as &dyn TableLike)),
                    None => break,
                },
                (Seg::Index(i), Node::Item(Item::Value(Value::Array(a))))
                | (Seg::Index(i), Node::Value(Value::Array(a))) => match a.get(*i) {
                    Some(v) => (v.span(), Node::Value(v)),
                    None => break,
                },
                (Seg::Index(_), _) => break,
            };
            if span.is_some() {
                best = span;
            }
            node = next;
        }
        best.map(|s| Self::line_of_offset(raw, s.start))
    }
}
