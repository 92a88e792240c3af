//! A DASH video generated on request: the manifest and the segments of a
//! [`DashConfig`] ladder (by default the oBBR paper's Big Buck Bunny
//! ladder the simulator's DASH model plays), with no video file behind it.
//!
//! Routes, under `/dash/`:
//! - `manifest.mpd`: a static MPD (isoff-live profile) with one video
//!   adaptation set, a `SegmentTemplate` (`$RepresentationID$/init.mp4`,
//!   `$RepresentationID$/$Number$.m4s`, numbers from 1) and one
//!   representation per bitrate, ids `v0` (lowest) to `vN`.
//! - `vK/init.mp4`: an initialization segment: an ISO BMFF `ftyp` box and a
//!   `free` box naming the stream. It carries no `moov`, so a decoder
//!   cannot use it: the stream is for fetch logic, not for pictures.
//! - `vK/N.m4s`: media segment N of representation K: a `styp` box and an
//!   `mdat` box of zeros, together exactly
//!   [`DashConfig::segment_bytes`] bytes (constant bitrate), the size the
//!   simulator's DASH player downloads for that segment.

use sim::app::dash::DashConfig;

/// What a `/dash/...` path names.
#[derive(Debug, PartialEq, Eq)]
pub enum Resource {
    /// The MPD.
    Manifest,
    /// The initialization segment of a representation.
    Init {
        /// Quality index (0 is the lowest bitrate).
        quality: usize,
    },
    /// A media segment.
    Segment {
        /// Quality index.
        quality: usize,
        /// Segment index (0-based; the URL's `$Number$` is this + 1).
        index: usize,
    },
}

/// The resource `rest` (the path after `/dash/`) names in `config`'s
/// video, or `None` (404).
pub fn route(config: &DashConfig, rest: &str) -> Option<Resource> {
    if rest == "manifest.mpd" {
        return Some(Resource::Manifest);
    }
    let (representation, file) = rest.split_once('/')?;
    let quality: usize = representation.strip_prefix('v')?.parse().ok()?;
    if quality >= config.ladder.len() || representation != format!("v{quality}") {
        return None;
    }
    if file == "init.mp4" {
        return Some(Resource::Init { quality });
    }
    let digits = file.strip_suffix(".m4s")?;
    // Reject signs, leading zeros and the like: one URL per segment.
    let number: usize = digits.parse().ok()?;
    if number == 0 || number > config.segment_count() || digits != number.to_string() {
        return None;
    }
    Some(Resource::Segment {
        quality,
        index: number - 1,
    })
}

/// An ISO BMFF box header: 32-bit size (header included) and type.
fn box_header(out: &mut Vec<u8>, size: u64, kind: &[u8; 4]) {
    out.extend_from_slice(&(size as u32).to_be_bytes());
    out.extend_from_slice(kind);
}

/// A `ftyp`/`styp` box: major brand, version 0, compatible brands.
fn brand_box(out: &mut Vec<u8>, kind: &[u8; 4], major: &[u8; 4], compatible: &[&[u8; 4]]) {
    box_header(out, 16 + 4 * compatible.len() as u64, kind);
    out.extend_from_slice(major);
    out.extend_from_slice(&0u32.to_be_bytes());
    for brand in compatible {
        out.extend_from_slice(*brand);
    }
}

/// The initialization segment of representation `quality`.
pub fn init_segment(config: &DashConfig, quality: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    brand_box(&mut out, b"ftyp", b"iso6", &[b"iso6", b"dash", b"mp41"]);
    let note = format!(
        "bbrlab synthetic DASH: representation v{quality}, {} bit/s, no decodable media",
        config.ladder[quality].bits_per_sec()
    );
    box_header(&mut out, 8 + note.len() as u64, b"free");
    out.extend_from_slice(note.as_bytes());
    out
}

/// The first bytes of a media segment of `size` bytes (the rest are the
/// zeros of the `mdat` box): a `styp` box and the `mdat` header. A
/// segment too small for the boxes (under 32 bytes, not in any sensible
/// ladder) is zeros alone.
pub fn segment_prefix(size: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(32);
    brand_box(&mut out, b"styp", b"msdh", &[b"msdh", b"msix"]);
    let mdat = size.saturating_sub(out.len() as u64);
    if mdat < 8 || size > u64::from(u32::MAX) {
        return Vec::new();
    }
    box_header(&mut out, mdat, b"mdat");
    out
}

/// ISO 8601 duration of whole milliseconds, as the MPD writes durations.
fn iso_duration(duration: std::time::Duration) -> String {
    let ms = duration.as_millis();
    format!("PT{}.{:03}S", ms / 1000, ms % 1000)
}

/// The MPD of `config`'s video.
pub fn manifest(config: &DashConfig) -> String {
    let mut representations = String::new();
    for (quality, bitrate) in config.ladder.iter().enumerate() {
        representations.push_str(&format!(
            "      <Representation id=\"v{quality}\" bandwidth=\"{}\" codecs=\"avc1.64001f\"/>\n",
            bitrate.bits_per_sec()
        ));
    }
    let segment_ms = config.segment.as_millis();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- bbrlab synthetic DASH video: segments have the ladder's sizes, not decodable media -->
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="{duration}" minBufferTime="{segment}">
  <Period id="0" start="PT0S">
    <AdaptationSet id="0" contentType="video" mimeType="video/mp4" segmentAlignment="true" startWithSAP="1">
      <SegmentTemplate timescale="1000" duration="{segment_ms}" startNumber="1" initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number$.m4s"/>
{representations}    </AdaptationSet>
  </Period>
</MPD>
"#,
        duration = iso_duration(config.video),
        segment = iso_duration(config.segment),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_one_resource_each() {
        let config = DashConfig::obbr_paper();
        assert_eq!(route(&config, "manifest.mpd"), Some(Resource::Manifest));
        assert_eq!(
            route(&config, "v0/init.mp4"),
            Some(Resource::Init { quality: 0 })
        );
        assert_eq!(
            route(&config, "v9/150.m4s"),
            Some(Resource::Segment {
                quality: 9,
                index: 149
            })
        );
        for missing in [
            "v10/1.m4s",
            "v9/151.m4s",
            "v0/0.m4s",
            "v0/01.m4s",
            "v01/1.m4s",
            "v0/+1.m4s",
            "x0/1.m4s",
            "v0",
            "",
        ] {
            assert_eq!(route(&config, missing), None, "{missing}");
        }
    }

    #[test]
    fn segments_have_the_models_sizes_and_valid_boxes() {
        let config = DashConfig::obbr_paper();
        let size = config.segment_bytes(0, 9);
        assert_eq!(size, 14_931_000 * 4 / 8);
        let prefix = segment_prefix(size);
        assert_eq!(&prefix[4..8], b"styp");
        let styp = u32::from_be_bytes(prefix[0..4].try_into().unwrap()) as u64;
        assert_eq!(&prefix[styp as usize + 4..styp as usize + 8], b"mdat");
        let mdat = u32::from_be_bytes(prefix[styp as usize..styp as usize + 4].try_into().unwrap());
        assert_eq!(styp + u64::from(mdat), size);
        let init = init_segment(&config, 3);
        let ftyp = u32::from_be_bytes(init[0..4].try_into().unwrap()) as usize;
        let free = u32::from_be_bytes(init[ftyp..ftyp + 4].try_into().unwrap()) as usize;
        assert_eq!(ftyp + free, init.len());
        let mpd = manifest(&config);
        assert_eq!(mpd.matches("<Representation ").count(), 10);
        assert!(mpd.contains("mediaPresentationDuration=\"PT600.000S\""));
        assert!(mpd.contains("bandwidth=\"254000\""));
    }
}
