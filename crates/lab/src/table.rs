//! Tables on disk: the time series of a run and the results table of a
//! sweep, as CSV or as Parquet.
//!
//! Parquet (zstd-compressed, columns typed as the rows' fields are) is the
//! default for time series, which it makes about ten times smaller than
//! CSV; CSV stays available (`--series-format csv`) for tools that want
//! text. The results table is written as both: `results.csv` is what a
//! spreadsheet or `bbrlab report` reads, `results.parquet` what pandas,
//! polars and DuckDB load with typed columns. Readers here accept either
//! format, so stores written by older versions (CSV only) still read.
//!
//! Parquet goes through the `parquet` crate's own column API, without
//! Arrow: the `cells` submodule turns the serde rows into named columns of scalar
//! cells, each column gets one Parquet type from its values, and
//! `SerializedFileWriter` writes them as one row group. The files have
//! the shape the Arrow writer (serde_arrow tracing the rows) gave them
//! before: the same column order, physical and logical types and
//! nullability, zstd level 3, so files written before and after read
//! alike (tests/data holds two of the old files). They lack only the
//! `ARROW:schema` metadata, so pyarrow reads text columns as `string`
//! where it read `large_string`. Reading goes row by row through the
//! crate's record API: [`read_rows`] turns each row's typed values back
//! into the serde row type that wrote them (the `cells` glue run in
//! reverse), and [`read_records`] prints each value as the CSV writer
//! prints it, for readers that want text.
//! Dropping Arrow (arrow-array, arrow-cast, arrow-select, arrow-ipc, ...,
//! serde_arrow) cut the first build's CPU time by a third (docs/BENCHMARKS.md).

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use anyhow::Context;
use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::record::Field;
use parquet::schema::types::Type;
use serde::de::DeserializeOwned;
use serde::Serialize;

use cells::{Cell, Column};

mod cells;

/// The format of a table file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet, zstd-compressed, typed columns.
    #[default]
    Parquet,
    /// Comma-separated text with a header row.
    Csv,
}

impl Format {
    /// Both formats, the default first: the order readers look for files in.
    pub const ALL: [Format; 2] = [Format::Parquet, Format::Csv];

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.extension())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s.to_ascii_lowercase().as_str() {
            "parquet" => Ok(Format::Parquet),
            "csv" => Ok(Format::Csv),
            _ => Err(format!(
                "unknown table format {s:?} (expected parquet or csv)"
            )),
        }
    }
}

/// Writes `rows` to `dir`/`stem`.`format`, returning the path.
pub fn write<T: Serialize>(
    dir: &Path,
    stem: &str,
    format: Format,
    rows: impl Iterator<Item = T>,
) -> anyhow::Result<PathBuf> {
    let path = dir.join(format!("{stem}.{}", format.extension()));
    let written = match format {
        Format::Csv => write_csv(&path, rows),
        Format::Parquet => write_parquet(&path, &rows.collect::<Vec<_>>()),
    };
    written.with_context(|| format!("cannot write {}", path.display()))?;
    // A file of the other format left by an earlier run into the same
    // directory would be read in place of this one: remove it.
    for other in Format::ALL.iter().filter(|&&f| f != format) {
        let stale = dir.join(format!("{stem}.{}", other.extension()));
        if stale.is_file() {
            std::fs::remove_file(&stale)
                .with_context(|| format!("cannot remove the stale {}", stale.display()))?;
        }
    }
    Ok(path)
}

fn write_csv<T: Serialize>(path: &Path, rows: impl Iterator<Item = T>) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    for row in rows {
        w.serialize(row)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes `rows` as one zstd-compressed Parquet file; its columns are
/// the rows' fields, typed from the values (integers stay integers; a
/// column of mixed integers and floats becomes floats; a field missing
/// or null in some rows is nullable).
pub fn write_parquet<T: Serialize>(path: &Path, rows: &[T]) -> anyhow::Result<()> {
    write_parquet_in_order(path, rows, &[])
}

/// [`write_parquet`] with the columns named in `order` first, in that
/// order (rows serialised as maps would otherwise come out by name).
pub fn write_parquet_in_order<T: Serialize>(
    path: &Path,
    rows: &[T],
    order: &[&str],
) -> anyhow::Result<()> {
    let mut columns = cells::columns(rows)?;
    let rank = |c: &Column| {
        order
            .iter()
            .position(|n| *n == c.name)
            .unwrap_or(order.len())
    };
    columns.sort_by_key(rank);
    let kinds = columns
        .iter()
        .map(|c| Kind::of(c).with_context(|| format!("column {}", c.name)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let fields = columns
        .iter()
        .zip(&kinds)
        .map(|(c, kind)| kind.field(c).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    // The root's name is the one the Arrow writer gave it, so files
    // written before and after read with the same schema.
    let schema = Type::group_type_builder("arrow_schema")
        .with_fields(fields)
        .build()?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
        .build();
    let file = File::create(path)?;
    let mut writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(properties))?;
    if !rows.is_empty() {
        let mut group = writer.next_row_group()?;
        for (column, kind) in columns.iter().zip(&kinds) {
            let mut out = group
                .next_column()?
                .context("the schema has fewer columns than the rows")?;
            kind.write(column, &mut out)
                .with_context(|| format!("column {}", column.name))?;
            out.close()?;
        }
        group.close()?;
    }
    writer.close()?;
    Ok(())
}

/// A column's Parquet type, chosen from its cells as the Arrow writer
/// (through serde_arrow's tracing) chose it before: each value type
/// alone keeps its type; integers and floats together are floats;
/// signed and unsigned integers together are signed; a column with no
/// values at all is of the Null type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// No values: INT32 with the Null (unknown) logical type.
    Null,
    /// BOOLEAN.
    Bool,
    /// INT64, unsigned logical type.
    U64,
    /// INT64, signed.
    I64,
    /// DOUBLE.
    F64,
    /// BYTE_ARRAY, string logical type.
    Str,
}

impl Kind {
    /// The kind that holds every value of `column`.
    fn of(column: &Column) -> anyhow::Result<Kind> {
        let mut kind = Kind::Null;
        for cell in &column.cells {
            let this = match cell {
                Cell::Null => continue,
                Cell::Bool(_) => Kind::Bool,
                Cell::U64(_) => Kind::U64,
                Cell::I64(_) => Kind::I64,
                Cell::F64(_) => Kind::F64,
                Cell::Str(_) => Kind::Str,
            };
            kind = match (kind, this) {
                (a, b) if a == b => a,
                (Kind::Null, b) => b,
                (Kind::U64, Kind::I64) | (Kind::I64, Kind::U64) => Kind::I64,
                (Kind::U64 | Kind::I64 | Kind::F64, Kind::U64 | Kind::I64 | Kind::F64) => Kind::F64,
                (a, b) => anyhow::bail!(
                    "mixes {} and {} values (expected one type, or integers and floats)",
                    a.name(),
                    b.name()
                ),
            };
        }
        Ok(kind)
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::U64 | Kind::I64 => "integer",
            Kind::F64 => "float",
            Kind::Str => "text",
        }
    }

    /// The schema field of `column`: optional if any cell is null.
    fn field(self, column: &Column) -> parquet::errors::Result<Type> {
        let (physical, logical) = match self {
            Kind::Null => (PhysicalType::INT32, Some(LogicalType::Unknown)),
            Kind::Bool => (PhysicalType::BOOLEAN, None),
            Kind::U64 => (
                PhysicalType::INT64,
                Some(LogicalType::Integer {
                    bit_width: 64,
                    is_signed: false,
                }),
            ),
            Kind::I64 => (PhysicalType::INT64, None),
            Kind::F64 => (PhysicalType::DOUBLE, None),
            Kind::Str => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
        };
        let nullable = column.cells.contains(&Cell::Null);
        Type::primitive_type_builder(&column.name, physical)
            .with_repetition(if nullable {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            })
            .with_logical_type(logical)
            .build()
    }

    /// Writes `column`'s cells: the values that are not null, and a
    /// definition level per row (1 present, 0 null) if it is optional.
    fn write(self, column: &Column, out: &mut SerializedColumnWriter<'_>) -> anyhow::Result<()> {
        let nullable = column.cells.contains(&Cell::Null);
        let levels: Vec<i16> = column
            .cells
            .iter()
            .map(|c| i16::from(*c != Cell::Null))
            .collect();
        let levels = nullable.then_some(levels.as_slice());
        let present = column.cells.iter().filter(|c| **c != Cell::Null);
        match self {
            Kind::Null => {
                out.typed::<Int32Type>().write_batch(&[], levels, None)?;
            }
            Kind::Bool => {
                let values: Vec<bool> = present.map(|c| matches!(c, Cell::Bool(true))).collect();
                out.typed::<BoolType>().write_batch(&values, levels, None)?;
            }
            Kind::U64 | Kind::I64 => {
                let values = present
                    .map(|c| match *c {
                        // Unsigned columns store the bits of the u64.
                        Cell::U64(v) if self == Kind::U64 => Ok(v as i64),
                        Cell::U64(v) => i64::try_from(v).map_err(|_| {
                            anyhow::anyhow!("{v} does not fit a signed 64-bit integer")
                        }),
                        Cell::I64(v) => Ok(v),
                        _ => unreachable!("an integer column holds integers"),
                    })
                    .collect::<anyhow::Result<Vec<i64>>>()?;
                out.typed::<Int64Type>()
                    .write_batch(&values, levels, None)?;
            }
            Kind::F64 => {
                let values: Vec<f64> = present
                    .map(|c| match *c {
                        Cell::U64(v) => v as f64,
                        Cell::I64(v) => v as f64,
                        Cell::F64(v) => v,
                        _ => unreachable!("a float column holds numbers"),
                    })
                    .collect();
                out.typed::<DoubleType>()
                    .write_batch(&values, levels, None)?;
            }
            Kind::Str => {
                let values: Vec<ByteArray> = present
                    .map(|c| match c {
                        Cell::Str(s) => ByteArray::from(s.as_str()),
                        _ => unreachable!("a text column holds text"),
                    })
                    .collect();
                out.typed::<ByteArrayType>()
                    .write_batch(&values, levels, None)?;
            }
        }
        Ok(())
    }
}

/// The file `dir`/`stem` is stored in, Parquet or CSV, if either exists.
pub fn find(dir: &Path, stem: &str) -> Option<PathBuf> {
    Format::ALL
        .iter()
        .map(|f| dir.join(format!("{stem}.{}", f.extension())))
        .find(|p| p.is_file())
}

/// Reads a table file (by its extension: `.parquet` or `.csv`) as text
/// records, the header first, so one reader serves both formats. A cell
/// that is null in Parquet reads as empty text, as in CSV.
pub fn read_records(path: &Path) -> anyhow::Result<Vec<csv::StringRecord>> {
    let read = if path.extension().is_some_and(|e| e == "parquet") {
        read_parquet(path)
    } else {
        read_csv(path)
    };
    read.with_context(|| format!("cannot read {}", path.display()))
}

fn read_csv(path: &Path) -> anyhow::Result<Vec<csv::StringRecord>> {
    let mut reader = csv::Reader::from_path(path)?;
    let mut rows = vec![reader.headers()?.clone()];
    for (i, row) in reader.records().enumerate() {
        rows.push(row.with_context(|| format!("line {}", i + 2))?);
    }
    Ok(rows)
}

fn read_parquet(path: &Path) -> anyhow::Result<Vec<csv::StringRecord>> {
    let (names, cells) = read_parquet_cells(path)?;
    let mut rows = vec![names.iter().collect::<csv::StringRecord>()];
    rows.extend(
        cells
            .into_iter()
            .map(|row| row.iter().map(Cell::text).collect::<csv::StringRecord>()),
    );
    Ok(rows)
}

/// Reads a table file (by its extension: `.parquet` or `.csv`) as rows of
/// type `T`, the type that wrote it: CSV through csv's serde reader,
/// Parquet through its typed values (numbers are not printed and parsed
/// again). A row that does not fit `T` (a missing column, a cell of the
/// wrong type, a short CSV line) is an error naming the file and the row:
/// its line in CSV, its row (from 1) in Parquet.
pub fn read_rows<T: DeserializeOwned>(path: &Path) -> anyhow::Result<Vec<T>> {
    let read = if path.extension().is_some_and(|e| e == "parquet") {
        read_parquet_cells(path).and_then(|(names, rows)| {
            rows.into_iter()
                .enumerate()
                .map(|(n, row)| {
                    cells::row(&names, row).map_err(|e| anyhow::anyhow!("row {}: {e}", n + 1))
                })
                .collect()
        })
    } else {
        csv::Reader::from_path(path)
            .map_err(anyhow::Error::from)
            .and_then(|mut reader| {
                reader
                    .deserialize()
                    .enumerate()
                    .map(|(i, row)| row.with_context(|| format!("line {}", i + 2)))
                    .collect()
            })
    };
    read.with_context(|| format!("cannot read {}", path.display()))
}

/// A Parquet table's column names and its rows of typed cells.
fn read_parquet_cells(path: &Path) -> anyhow::Result<(Vec<String>, Vec<Vec<Cell>>)> {
    let file = File::open(path)?;
    let reader = SerializedFileReader::new(file).context("not a Parquet file")?;
    let schema = reader.metadata().file_metadata().schema();
    if let Some(nested) = schema.get_fields().iter().find(|f| f.is_group()) {
        anyhow::bail!(
            "column {}: unsupported nested column (expected numbers, text or booleans)",
            nested.name()
        );
    }
    let names = schema
        .get_fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let mut rows = Vec::new();
    for (n, row) in reader.get_row_iter(None)?.enumerate() {
        let row = row.with_context(|| format!("row {}", n + 1))?;
        let cells = row
            .get_column_iter()
            .map(|(name, value)| field_cell(value).with_context(|| format!("column {name}")))
            .collect::<anyhow::Result<Vec<Cell>>>()?;
        rows.push(cells);
    }
    Ok((names, rows))
}

/// A Parquet value as a cell of its type; a 32-bit float is widened
/// (through its shortest text, so that it prints as the CSV writer printed
/// it).
fn field_cell(value: &Field) -> anyhow::Result<Cell> {
    Ok(match value {
        Field::Null => Cell::Null,
        Field::Bool(v) => Cell::Bool(*v),
        Field::Double(v) => Cell::F64(*v),
        Field::Float(v) => Cell::F64(v.to_string().parse()?),
        Field::Long(v) => Cell::I64(*v),
        Field::Int(v) => Cell::I64((*v).into()),
        Field::Short(v) => Cell::I64((*v).into()),
        Field::Byte(v) => Cell::I64((*v).into()),
        Field::ULong(v) => Cell::U64(*v),
        Field::UInt(v) => Cell::U64((*v).into()),
        Field::UShort(v) => Cell::U64((*v).into()),
        Field::UByte(v) => Cell::U64((*v).into()),
        Field::Str(v) => Cell::Str(v.clone()),
        other => anyhow::bail!("unsupported value {other} (expected numbers, text or booleans)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Serialize, serde::Deserialize)]
    struct Row {
        t_s: f64,
        flow: usize,
        mode: std::borrow::Cow<'static, str>,
        cwnd: u64,
        rate: f64,
    }

    fn rows() -> Vec<Row> {
        (0..500)
            .map(|i| Row {
                t_s: i as f64 * 0.01,
                flow: i % 2,
                mode: if i < 100 { "startup" } else { "probe_bw" }.into(),
                cwnd: 14_600 + i as u64,
                rate: if i == 3 {
                    f64::NAN
                } else {
                    1e7 / (i as f64 + 1.0)
                },
            })
            .collect()
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bbrlab-table-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn both_formats_read_back_the_same_values() {
        let dir = temp("roundtrip");
        let csv =
            read_records(&write(&dir, "s", Format::Csv, rows().into_iter()).unwrap()).unwrap();
        let parquet =
            read_records(&write(&dir, "s", Format::Parquet, rows().into_iter()).unwrap()).unwrap();
        assert_eq!(csv.len(), 501);
        assert_eq!(csv[0], parquet[0], "same header");
        for (a, b) in csv.iter().zip(&parquet).skip(1) {
            for (x, y) in a.iter().zip(b.iter()) {
                match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) => assert!(x == y || (x.is_nan() && y.is_nan()), "{x} vs {y}"),
                    _ => assert_eq!(x, y),
                }
            }
        }
        // Writing one format removes the other's file, so a reader never
        // takes a stale one.
        assert!(!dir.join("s.csv").exists());
        assert_eq!(find(&dir, "s").unwrap().extension().unwrap(), "parquet");
        assert_eq!(find(&dir, "absent"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Startup,
        ProbeBw,
    }

    /// The cell types `Row` lacks: a unit variant, a signed integer, an
    /// optional text, a boolean (under another name).
    #[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Other {
        mode: Mode,
        delta: i64,
        note: Option<String>,
        #[serde(rename = "ok")]
        app_limited: bool,
    }

    #[test]
    fn typed_rows_read_back_as_written_from_both_formats() {
        let dir = temp("typed");
        let others: Vec<Other> = (0..50)
            .map(|i| Other {
                mode: if i < 10 { Mode::Startup } else { Mode::ProbeBw },
                delta: 5 - i,
                note: (i % 4 == 0).then(|| format!("n{i}")),
                app_limited: i % 2 == 0,
            })
            .collect();
        for format in Format::ALL {
            let path = write(&dir, "o", format, others.iter()).unwrap();
            assert_eq!(read_rows::<Other>(&path).unwrap(), others, "{format}");
            // Numbers read typed are the numbers written (NaN included),
            // and the numbers the text reader gives.
            let path = write(&dir, "s", format, rows().into_iter()).unwrap();
            let back: Vec<Row> = read_rows(&path).unwrap();
            assert_eq!(format!("{back:?}"), format!("{:?}", rows()), "{format}");
            let text = read_records(&path).unwrap();
            let number = |cell: &str| format!("{:?}", cell.parse::<f64>().unwrap());
            for (row, record) in back.iter().zip(&text[1..]) {
                assert_eq!(format!("{:?}", row.t_s), number(&record[0]));
                assert_eq!(format!("{:?}", row.rate), number(&record[4]));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn typed_rows_that_do_not_fit_are_errors_naming_file_and_row() {
        let dir = temp("typed-bad");
        let err = |path: &Path| format!("{:#}", read_rows::<Other>(path).unwrap_err());
        // A truncated CSV line.
        let path = dir.join("short.csv");
        std::fs::write(&path, "mode,delta,note,ok\nstartup,2,,true\nstartup,3\n").unwrap();
        let e = err(&path);
        assert!(e.contains("short.csv") && e.contains("line 3"), "{e}");
        // A garbled CSV cell.
        std::fs::write(&path, "mode,delta,note,ok\nstartup,x,,true\n").unwrap();
        let e = err(&path);
        assert!(e.contains("line 2"), "{e}");
        // A Parquet file without a column the type needs.
        let path = write(&dir, "other", Format::Parquet, rows().into_iter()).unwrap();
        let e = err(&path);
        assert!(
            e.contains("other.parquet") && e.contains("row 1") && e.contains("missing field"),
            "{e}"
        );
        // A Parquet column of the wrong type (text where a number belongs).
        #[derive(serde::Deserialize, Debug)]
        struct ModeAsNumber {
            #[allow(dead_code)]
            mode: u64,
        }
        let e = format!("{:#}", read_rows::<ModeAsNumber>(&path).unwrap_err());
        assert!(e.contains("row 1") && e.contains("invalid type"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_empty_table_and_a_broken_file() {
        let dir = temp("broken");
        let path = write(
            &dir,
            "empty",
            Format::Parquet,
            Vec::<Row>::new().into_iter(),
        )
        .unwrap();
        assert_eq!(
            read_records(&path).unwrap().len(),
            1,
            "a header without columns"
        );
        let path = write(&dir, "cut", Format::Parquet, rows().into_iter()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let err = format!("{:#}", read_records(&path).unwrap_err());
        assert!(
            err.contains("cut.parquet") && err.contains("not a Parquet file"),
            "{err}"
        );
        assert_eq!(
            "xlsx".parse::<Format>().unwrap_err(),
            "unknown table format \"xlsx\" (expected parquet or csv)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The rows of the fixtures in tests/data, which the Arrow writer
    /// (parquet 57 with serde_arrow 0.15, before this writer replaced it)
    /// wrote: struct rows, and map rows with `name` and `zeta` ordered
    /// first; the `.csv` next to each is what the Arrow reader read.
    #[derive(Serialize)]
    struct Fixture {
        t_s: f64,
        flow: usize,
        mode: &'static str,
        delta: i64,
        ok: bool,
        maybe: Option<f64>,
        never: Option<u64>,
    }

    fn fixture_structs() -> Vec<Fixture> {
        (0..12)
            .map(|i| Fixture {
                t_s: i as f64 * 0.25,
                flow: i % 3,
                mode: ["startup", "drain", "probe_bw"][i % 3],
                delta: i as i64 - 5,
                ok: i % 2 == 0,
                maybe: match i {
                    _ if i % 4 == 1 => None,
                    6 => Some(f64::NAN),
                    _ => Some(1e7 / (i as f64 + 1.0)),
                },
                never: None,
            })
            .collect()
    }

    fn fixture_maps() -> Vec<serde_json::Map<String, serde_json::Value>> {
        use serde_json::{json, Value};
        (0..6)
            .map(|i| {
                let mut m = serde_json::Map::new();
                m.insert("zeta".into(), json!(i * 1000));
                m.insert("name".into(), json!(format!("run-{i}")));
                let alpha = if i % 2 == 0 {
                    json!(i)
                } else {
                    json!(i as f64 + 0.5)
                };
                m.insert("alpha".into(), alpha);
                m.insert("neg".into(), json!(i as i64 - 3));
                if i % 3 != 0 {
                    m.insert("sometimes".into(), json!(i as f64 / 3.0));
                }
                m.insert("nothing".into(), Value::Null);
                m.insert("flag".into(), json!(i > 2));
                let label = if i == 2 { Value::Null } else { json!("x") };
                m.insert("label".into(), label);
                m
            })
            .collect()
    }

    fn schema_text(path: &Path) -> String {
        let reader = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
        let mut out = Vec::new();
        parquet::schema::printer::print_schema(
            &mut out,
            reader.metadata().file_metadata().schema(),
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn files_of_the_arrow_writer_read_and_are_written_alike() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let dir = temp("fixtures");
        let new_structs = dir.join("structs.parquet");
        write_parquet(&new_structs, &fixture_structs()).unwrap();
        let new_maps = dir.join("maps.parquet");
        write_parquet_in_order(&new_maps, &fixture_maps(), &["name", "zeta"]).unwrap();
        for (stem, new) in [
            ("arrow-struct-rows", new_structs),
            ("arrow-map-rows", new_maps),
        ] {
            let old = data.join(format!("{stem}.parquet"));
            let expected = read_csv(&data.join(format!("{stem}.csv"))).unwrap();
            assert_eq!(read_records(&old).unwrap(), expected, "{stem}: old file");
            assert_eq!(read_records(&new).unwrap(), expected, "{stem}: new file");
            assert_eq!(schema_text(&new), schema_text(&old), "{stem}: schema");
        }
        // The same rows make the same bytes.
        let again = dir.join("again.parquet");
        write_parquet_in_order(&again, &fixture_maps(), &["name", "zeta"]).unwrap();
        assert_eq!(
            std::fs::read(&again).unwrap(),
            std::fs::read(dir.join("maps.parquet")).unwrap()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn columns_that_cannot_be_typed_are_named_errors() {
        let dir = temp("mixed");
        let rows = [
            serde_json::json!({"a": 1, "b": "x"}),
            serde_json::json!({"a": 2, "b": 3}),
        ];
        let err = format!(
            "{:#}",
            write(&dir, "m", Format::Parquet, rows.iter()).unwrap_err()
        );
        assert!(
            err.contains("m.parquet") && err.contains("column b: mixes text and integer values"),
            "{err}"
        );
        let rows = [
            serde_json::json!({"a": -1}),
            serde_json::json!({"a": u64::MAX}),
        ];
        let err = format!(
            "{:#}",
            write_parquet(&dir.join("w.parquet"), &rows).unwrap_err()
        );
        assert!(
            err.contains("column a: 18446744073709551615 does not fit a signed 64-bit integer"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
