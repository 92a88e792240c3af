//! Rows to columns: a small serde `Serializer` that records, for each row
//! (a struct or a map), its fields as `(name, cell)` pairs in the order
//! serde gives them, and gathers them into named columns of cells.
//!
//! This is the glue between the serde rows the project already writes as
//! CSV and Parquet's column writers. A row's fields must be scalars
//! (numbers, text, booleans, unit variants as their names) or null
//! (`None`, unit); nested values (lists, maps, structs inside a row) are
//! an error naming the field, as a table has no place for them.
//!
//! The way back is here too: a [`Cell`] is a serde `Deserializer` of its
//! one value, so a table's typed cells (a Parquet row's values) read into
//! the same row type that wrote them ([`row`]).

use std::collections::HashMap;

use serde::de::{self, value::MapDeserializer, DeserializeOwned, IntoDeserializer};
use serde::ser::{self, Impossible, Serialize};

/// The error type of the serializers: serde's own plain-message error.
type Error = serde::de::value::Error;

/// One value of one row's field.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Cell {
    /// Missing from the row, `None` or unit.
    Null,
    /// A boolean.
    Bool(bool),
    /// An unsigned integer.
    U64(u64),
    /// A signed integer.
    I64(i64),
    /// A floating-point number.
    F64(f64),
    /// Text.
    Str(String),
}

impl Cell {
    /// The value as text, as the CSV writer prints it; null is empty.
    pub(super) fn text(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Bool(v) => v.to_string(),
            Cell::U64(v) => v.to_string(),
            Cell::I64(v) => v.to_string(),
            Cell::F64(v) => v.to_string(),
            Cell::Str(v) => v.clone(),
        }
    }
}

/// One row of `names` and their `cells` (in the same order) as a `T`: the
/// reverse of what [`columns`] does to a row. A field of `T` that the
/// table lacks, or a cell of the wrong type, is an error naming the field.
pub(super) fn row<T: DeserializeOwned>(names: &[String], cells: Vec<Cell>) -> Result<T, Error> {
    T::deserialize(MapDeserializer::new(
        names.iter().map(String::as_str).zip(cells),
    ))
}

impl<'de> de::Deserializer<'de> for Cell {
    type Error = Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Cell::Null => visitor.visit_unit(),
            Cell::Bool(v) => visitor.visit_bool(v),
            Cell::U64(v) => visitor.visit_u64(v),
            Cell::I64(v) => visitor.visit_i64(v),
            Cell::F64(v) => visitor.visit_f64(v),
            Cell::Str(v) => visitor.visit_string(v),
        }
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Cell::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A unit variant, written as its name.
    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Cell::Str(name) => visitor.visit_enum(name.into_deserializer()),
            other => other.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, Error> for Cell {
    type Deserializer = Cell;

    fn into_deserializer(self) -> Cell {
        self
    }
}

/// A named column: one cell per row.
#[derive(Debug)]
pub(super) struct Column {
    /// The field's name.
    pub name: String,
    /// The field's value in each row, [`Cell::Null`] where it is missing.
    pub cells: Vec<Cell>,
}

/// The rows as columns, in the order their fields first appear; when the
/// rows are maps, by name (maps carry no declared order).
pub(super) fn columns<T: Serialize>(rows: &[T]) -> anyhow::Result<Vec<Column>> {
    let mut columns: Vec<Column> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut any_map = false;
    for (n, row) in rows.iter().enumerate() {
        let mut fields = Fields::default();
        row.serialize(&mut fields)
            .map_err(|e| anyhow::anyhow!("row {}: {e}", n + 1))?;
        any_map |= fields.is_map;
        for (name, cell) in fields.cells {
            let i = *index.entry(name.clone()).or_insert_with(|| {
                columns.push(Column {
                    name,
                    cells: vec![Cell::Null; n],
                });
                columns.len() - 1
            });
            columns[i].cells.push(cell);
        }
        for column in &mut columns {
            column.cells.resize(n + 1, Cell::Null);
        }
    }
    if any_map {
        columns.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Ok(columns)
}

/// The serializer of a row: collects its fields.
#[derive(Default)]
struct Fields {
    cells: Vec<(String, Cell)>,
    /// The row was a map (no declared field order).
    is_map: bool,
    /// The key of the map entry being serialised.
    key: Option<String>,
}

fn not_a_row<T>(what: &str) -> Result<T, Error> {
    Err(ser::Error::custom(format!(
        "a row must be a struct or a map, not {what}"
    )))
}

/// The methods of a `Serializer` that reject a value: `$what` names it
/// in the error.
macro_rules! reject {
    ($reject:ident, $what:literal; $($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, Error> {
            $reject($what)
        })*
    };
}

/// Calls `$each` with serde's scalar methods, each with its argument
/// type and the [`Cell`] that holds it.
macro_rules! scalars {
    ($each:ident) => {
        $each!(
            serialize_bool(bool) => Bool,
            serialize_i8(i8) => I64,
            serialize_i16(i16) => I64,
            serialize_i32(i32) => I64,
            serialize_i64(i64) => I64,
            serialize_u8(u8) => U64,
            serialize_u16(u16) => U64,
            serialize_u32(u32) => U64,
            serialize_u64(u64) => U64,
            serialize_f32(f32) => F64,
            serialize_f64(f64) => F64,
            serialize_char(char) => Str,
            serialize_str(&str) => Str,
        );
    };
}

/// The scalar methods of the row serializer: a row is not a scalar.
macro_rules! reject_scalar {
    ($($method:ident($ty:ty) => $cell:ident,)*) => {
        $(fn $method(self, _: $ty) -> Result<(), Error> {
            not_a_row("a single value")
        })*
    };
}

/// The rejections of the shapes neither a row nor a cell may have.
macro_rules! reject_nested {
    ($reject:ident) => {
        reject!($reject, "a list";
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple(usize) -> Self::SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
            serialize_bytes(&[u8]) -> Self::Ok;
        );
        reject!($reject, "a variant with fields";
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
        );
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Error> {
            $reject("a variant with fields")
        }
    };
}

impl ser::Serializer for &mut Fields {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        self.is_map = true;
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    scalars!(reject_scalar);
    reject!(not_a_row, "a single value";
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
    );
    reject_nested!(not_a_row);
}

impl ser::SerializeStruct for &mut Fields {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let cell = field_cell(name, value)?;
        self.cells.push((name.to_string(), cell));
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl ser::SerializeMap for &mut Fields {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        match key.serialize(CellSerializer)? {
            Cell::Str(key) => {
                self.key = Some(key);
                Ok(())
            }
            other => Err(ser::Error::custom(format!(
                "a column name must be text, not {other:?}"
            ))),
        }
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("a map value without a key"))?;
        let cell = field_cell(&key, value)?;
        self.cells.push((key, cell));
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// The cell of the field `name`, its error naming the field.
fn field_cell<T: ?Sized + Serialize>(name: &str, value: &T) -> Result<Cell, Error> {
    value
        .serialize(CellSerializer)
        .map_err(|e| ser::Error::custom(format!("field {name}: {e}")))
}

/// The methods of [`CellSerializer`] that take a scalar as the widest
/// value of its kind (see [`scalars`]).
macro_rules! widen {
    ($($method:ident($ty:ty) => $cell:ident,)*) => {
        $(fn $method(self, v: $ty) -> Result<Cell, Error> {
            Ok(Cell::$cell(v.into()))
        })*
    };
}

/// The serializer of one field's value: a [`Cell`].
struct CellSerializer;

fn not_a_cell<T>(what: &str) -> Result<T, Error> {
    Err(ser::Error::custom(format!(
        "{what} does not fit in a table cell (expected a number, text, a boolean or null)"
    )))
}

impl ser::Serializer for CellSerializer {
    type Ok = Cell;
    type Error = Error;
    type SerializeSeq = Impossible<Cell, Error>;
    type SerializeTuple = Impossible<Cell, Error>;
    type SerializeTupleStruct = Impossible<Cell, Error>;
    type SerializeTupleVariant = Impossible<Cell, Error>;
    type SerializeMap = Impossible<Cell, Error>;
    type SerializeStruct = Impossible<Cell, Error>;
    type SerializeStructVariant = Impossible<Cell, Error>;

    scalars!(widen);
    fn serialize_none(self) -> Result<Cell, Error> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Cell, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, Error> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, Error> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, Error> {
        Ok(Cell::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Cell, Error> {
        value.serialize(self)
    }
    reject!(not_a_cell, "a map or struct";
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
    );
    reject_nested!(not_a_cell);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Serialize)]
    struct Row {
        z: u32,
        a: Option<f64>,
        m: &'static str,
    }

    #[test]
    fn struct_fields_keep_their_order_and_maps_go_by_name() {
        let rows = [
            Row {
                z: 1,
                a: None,
                m: "x",
            },
            Row {
                z: 2,
                a: Some(0.5),
                m: "y",
            },
        ];
        let got = columns(&rows).unwrap();
        let names: Vec<&str> = got.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["z", "a", "m"]);
        assert_eq!(got[0].cells, [Cell::U64(1), Cell::U64(2)]);
        assert_eq!(got[1].cells, [Cell::Null, Cell::F64(0.5)]);
        // Maps: by name; a key missing from a row is a null cell there,
        // including in the rows before it first appears.
        let maps = [json!({"b": 1, "c": -2}), json!({"a": "t", "b": 1.5})];
        let got = columns(&maps).unwrap();
        let names: Vec<&str> = got.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(got[0].cells, [Cell::Null, Cell::Str("t".into())]);
        assert_eq!(got[1].cells, [Cell::U64(1), Cell::F64(1.5)]);
        assert_eq!(got[2].cells, [Cell::I64(-2), Cell::Null]);
    }

    #[test]
    fn nested_values_and_non_rows_are_named_errors() {
        let err = columns(&[json!({"ok": 1}), json!({"ok": 2, "list": [1, 2]})])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "row 2: field list: a list does not fit in a table cell \
             (expected a number, text, a boolean or null)"
        );
        let err = columns(&[json!({"inner": {"x": 1}})])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("field inner: a map or struct does not fit"),
            "{err}"
        );
        let err = columns(&[3.5]).unwrap_err().to_string();
        assert_eq!(
            err,
            "row 1: a row must be a struct or a map, not a single value"
        );
    }
}
