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

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use anyhow::Context;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, FieldRef, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::Serialize;
use serde_arrow::schema::{SchemaLike, TracingOptions};

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
    let batch = if rows.is_empty() {
        // No rows, no types to learn: an empty table.
        RecordBatch::new_empty(Arc::new(Schema::empty()))
    } else {
        let options = TracingOptions::default()
            .allow_null_fields(true)
            .coerce_numbers(true)
            .map_as_struct(true);
        let mut fields = Vec::<FieldRef>::from_samples(rows, options)?;
        let rank = |f: &FieldRef| {
            order
                .iter()
                .position(|n| n == f.name())
                .unwrap_or(order.len())
        };
        fields.sort_by_key(rank);
        serde_arrow::to_record_batch(&fields, &rows)?
    };
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
        .build();
    let file = File::create(path)?;
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
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
    let file = File::open(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).context("not a Parquet file")?;
    let header: csv::StringRecord = builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    let mut rows = vec![header];
    for batch in builder.build()? {
        let batch = batch?;
        let columns = batch
            .columns()
            .iter()
            .zip(batch.schema().fields())
            .map(|(column, field)| {
                column_text(column.as_ref()).with_context(|| format!("column {}", field.name()))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        for row in 0..batch.num_rows() {
            rows.push(columns.iter().map(|c| c[row].as_str()).collect());
        }
    }
    Ok(rows)
}

/// A column's values as text, as the CSV writer would have printed them.
fn column_text(column: &dyn Array) -> anyhow::Result<Vec<String>> {
    fn each<T: ToString>(column: &dyn Array, value: impl Fn(usize) -> T) -> Vec<String> {
        (0..column.len())
            .map(|i| {
                if column.is_null(i) {
                    String::new()
                } else {
                    value(i).to_string()
                }
            })
            .collect()
    }
    Ok(match column.data_type() {
        DataType::Null => vec![String::new(); column.len()],
        DataType::Boolean => each(column, |i| column.as_boolean().value(i)),
        DataType::Float64 => each(column, |i| column.as_primitive::<Float64Type>().value(i)),
        DataType::Float32 => each(column, |i| column.as_primitive::<Float32Type>().value(i)),
        DataType::Int64 => each(column, |i| column.as_primitive::<Int64Type>().value(i)),
        DataType::Int32 => each(column, |i| column.as_primitive::<Int32Type>().value(i)),
        DataType::Int16 => each(column, |i| column.as_primitive::<Int16Type>().value(i)),
        DataType::Int8 => each(column, |i| column.as_primitive::<Int8Type>().value(i)),
        DataType::UInt64 => each(column, |i| column.as_primitive::<UInt64Type>().value(i)),
        DataType::UInt32 => each(column, |i| column.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt16 => each(column, |i| column.as_primitive::<UInt16Type>().value(i)),
        DataType::UInt8 => each(column, |i| column.as_primitive::<UInt8Type>().value(i)),
        DataType::Utf8 => each(column, |i| column.as_string::<i32>().value(i).to_string()),
        DataType::LargeUtf8 => each(column, |i| column.as_string::<i64>().value(i).to_string()),
        other => {
            anyhow::bail!("unsupported column type {other} (expected numbers, text or booleans)")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        t_s: f64,
        flow: usize,
        mode: &'static str,
        cwnd: u64,
        rate: f64,
    }

    fn rows() -> Vec<Row> {
        (0..500)
            .map(|i| Row {
                t_s: i as f64 * 0.01,
                flow: i % 2,
                mode: if i < 100 { "startup" } else { "probe_bw" },
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
}
