//! Static files under a root directory: where a request path leads, its
//! byte range and its content type.
//!
//! A path is resolved so that nothing outside the root can be read: it is
//! percent-decoded once, any `..` or `.` segment, NUL or backslash is
//! refused, the rest is joined to the root, and the result is
//! canonicalized (symlinks followed) and must still lie under the
//! canonical root. A symlink inside the root that leads outside is thus
//! "not found", as is anything that is not a regular file.

use std::path::{Path, PathBuf};

/// Longest request path (before decoding) the server looks at.
pub const MAX_PATH: usize = 2048;

/// Why a path cannot be served.
#[derive(Debug, PartialEq, Eq)]
pub enum PathError {
    /// Malformed: bad percent-encoding, not UTF-8, a traversal attempt;
    /// answered 400 with this message.
    Bad(String),
    /// Longer than [`MAX_PATH`]: answered 414.
    TooLong,
    /// No regular file there under the root: answered 404.
    NotFound,
}

/// Decodes `%XX` escapes once.
///
/// # Errors
/// A `%` not followed by two hex digits, or a result that is not UTF-8.
pub fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent-encoding at byte {i} of the path"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded path is not UTF-8".to_string())
}

/// The segments of a request path (still percent-encoded, starting with
/// `/`), decoded; empty segments (`//`, the leading `/`) dropped.
///
/// # Errors
/// [`PathError::TooLong`], or [`PathError::Bad`]: bad percent-encoding,
/// not UTF-8, a NUL or backslash, a `.` or `..` segment.
pub fn check(path: &str) -> Result<Vec<String>, PathError> {
    if path.len() > MAX_PATH {
        return Err(PathError::TooLong);
    }
    let decoded = percent_decode(path).map_err(PathError::Bad)?;
    if decoded.contains('\0') || decoded.contains('\\') {
        return Err(PathError::Bad(
            "the path holds a NUL or a backslash".to_string(),
        ));
    }
    let mut segments = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" => {}
            "." | ".." => {
                return Err(PathError::Bad(
                    "the path has a \".\" or \"..\" segment".to_string(),
                ))
            }
            name => segments.push(name.to_string()),
        }
    }
    Ok(segments)
}

/// The file under `root` (already canonical) that `path` (the request's
/// path, still percent-encoded, starting with `/`) names; a directory
/// stands for its `index.html`.
///
/// # Errors
/// See [`PathError`].
pub fn resolve(root: &Path, path: &str) -> Result<PathBuf, PathError> {
    let mut candidate = root.to_path_buf();
    // Segments only: a leading "/" adds nothing, so the path stays
    // relative to the root ("/etc/passwd" is root/etc/passwd).
    for segment in check(path)? {
        candidate.push(segment);
    }
    let mut real = candidate.canonicalize().map_err(|_| PathError::NotFound)?;
    if real.is_dir() {
        real = real
            .join("index.html")
            .canonicalize()
            .map_err(|_| PathError::NotFound)?;
    }
    if !real.starts_with(root) || !real.is_file() {
        return Err(PathError::NotFound);
    }
    Ok(real)
}

/// What a `Range` header asks of a body of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum RangeRequest {
    /// No range, or one the server may ignore (another unit, several
    /// ranges): the whole body, 200.
    Whole,
    /// Bytes `start..end` (end exclusive), 206.
    Part {
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
    },
    /// No byte of the range exists: 416 with `Content-Range: bytes */len`.
    Unsatisfiable,
}

/// Reads a `Range` header value against a body of `len` bytes: a single
/// `bytes=a-b`, `bytes=a-` or `bytes=-n` (RFC 9110 §14.1.2).
///
/// Several ranges are answered with the whole body, which RFC 9110 allows
/// (a server may ignore `Range`), as it does for other range units.
///
/// # Errors
/// A `bytes=` value that is not a range (answered 400).
pub fn parse_range(value: &str, len: u64) -> Result<RangeRequest, String> {
    let Some(spec) = value.trim().strip_prefix("bytes=") else {
        return Ok(RangeRequest::Whole);
    };
    if spec.contains(',') {
        return Ok(RangeRequest::Whole);
    }
    let bad = || {
        format!("Range: expected bytes=FIRST-LAST, bytes=FIRST- or bytes=-SUFFIX, got {value:?}")
    };
    let (first, last) = spec.trim().split_once('-').ok_or_else(bad)?;
    let number = |text: &str| -> Result<u64, String> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        text.parse::<u64>().map_err(|_| bad())
    };
    match (first.trim(), last.trim()) {
        ("", suffix) => {
            let n = number(suffix)?;
            if n == 0 || len == 0 {
                Ok(RangeRequest::Unsatisfiable)
            } else {
                Ok(RangeRequest::Part {
                    start: len.saturating_sub(n),
                    end: len,
                })
            }
        }
        (first, "") => {
            let start = number(first)?;
            if start >= len {
                Ok(RangeRequest::Unsatisfiable)
            } else {
                Ok(RangeRequest::Part { start, end: len })
            }
        }
        (first, last) => {
            let (start, last) = (number(first)?, number(last)?);
            if last < start {
                Err(bad())
            } else if start >= len {
                Ok(RangeRequest::Unsatisfiable)
            } else {
                Ok(RangeRequest::Part {
                    start,
                    end: last.saturating_add(1).min(len),
                })
            }
        }
    }
}

/// The content type of a file by its extension; unknown ones are
/// `application/octet-stream`.
pub fn content_type(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("css") => "text/css",
        Some("js" | "mjs") => "text/javascript",
        Some("json") => "application/json",
        Some("xml") => "application/xml",
        Some("wasm") => "application/wasm",
        Some("pdf") => "application/pdf",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("mpd") => "application/dash+xml",
        Some("m3u8") => "application/vnd.apple.mpegurl",
        Some("m4s") => "video/iso.segment",
        Some("mp4" | "m4v") => "video/mp4",
        Some("m4a") => "audio/mp4",
        Some("ts") => "video/mp2t",
        Some("webm") => "video/webm",
        Some("flv") => "video/x-flv",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_rfc_9110() {
        let part = |start, end| Ok(RangeRequest::Part { start, end });
        for (value, len, expected) in [
            ("bytes=0-99", 1000, part(0, 100)),
            ("bytes=10-", 1000, part(10, 1000)),
            ("bytes=-100", 1000, part(900, 1000)),
            ("bytes=-5000", 1000, part(0, 1000)),
            ("bytes=990-2000", 1000, part(990, 1000)),
            ("bytes=1000-", 1000, Ok(RangeRequest::Unsatisfiable)),
            ("bytes=1000-1001", 1000, Ok(RangeRequest::Unsatisfiable)),
            ("bytes=-0", 1000, Ok(RangeRequest::Unsatisfiable)),
            ("bytes=0-", 0, Ok(RangeRequest::Unsatisfiable)),
            ("items=0-1", 1000, Ok(RangeRequest::Whole)),
            ("bytes=0-1,5-6", 1000, Ok(RangeRequest::Whole)),
        ] {
            assert_eq!(parse_range(value, len), expected, "{value}");
        }
        for bad in [
            "bytes=",
            "bytes=-",
            "bytes=a-b",
            "bytes=5-1",
            "bytes=+1-2",
            "bytes=1",
        ] {
            assert!(parse_range(bad, 1000).is_err(), "{bad}");
        }
    }

    #[test]
    fn no_path_leaves_the_root() {
        let dir = std::env::temp_dir().join(format!("bbrlab-files-{}", std::process::id()));
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("sub/index.html"), "i").unwrap();
        std::fs::write(dir.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), root.join("link")).unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(resolve(&root, "/a.txt").unwrap(), root.join("a.txt"));
        assert_eq!(resolve(&root, "/%61.txt").unwrap(), root.join("a.txt"));
        assert_eq!(
            resolve(&root, "/sub/").unwrap(),
            root.join("sub/index.html")
        );
        for path in [
            "/../secret",
            "/sub/../../secret",
            "/%2e%2e/secret",
            "/%2E%2E%2Fsecret",
            "/./a.txt",
        ] {
            assert!(
                matches!(resolve(&root, path), Err(PathError::Bad(_))),
                "{path}"
            );
        }
        for path in ["/link", "/missing", "//etc/passwd", "/"] {
            assert_eq!(resolve(&root, path), Err(PathError::NotFound), "{path}");
        }
        assert!(matches!(resolve(&root, "/%zz"), Err(PathError::Bad(_))));
        assert!(matches!(resolve(&root, "/%ff"), Err(PathError::Bad(_))));
        assert!(matches!(resolve(&root, "/a%00"), Err(PathError::Bad(_))));
        assert_eq!(
            resolve(&root, &"/a".repeat(MAX_PATH)),
            Err(PathError::TooLong)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn content_types_by_extension() {
        assert_eq!(
            content_type(Path::new("x/manifest.mpd")),
            "application/dash+xml"
        );
        assert_eq!(
            content_type(Path::new("a.HTML")),
            "text/html; charset=utf-8"
        );
        assert_eq!(content_type(Path::new("blob")), "application/octet-stream");
    }
}
