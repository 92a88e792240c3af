//! A DASH video generated on request: the manifest and the segments of a
//! [`DashConfig`] ladder (by default the oBBR paper's Big Buck Bunny
//! ladder the simulator's DASH model plays), each segment exactly the size
//! the model downloads for it.
//!
//! Routes, under `/dash/`:
//! - `manifest.mpd`: a static MPD (isoff-live profile) with one video
//!   adaptation set, a `SegmentTemplate` (`$RepresentationID$/init.mp4`,
//!   `$RepresentationID$/$Number$.m4s`, numbers from 1) and one
//!   representation per bitrate, ids `v0` (lowest) to `vN`.
//! - `vK/init.mp4`: the initialization segment of representation K.
//! - `vK/N.m4s`: media segment N of representation K, exactly
//!   [`DashConfig::segment_bytes`] bytes (constant bitrate).
//!
//! When the video is [`decodable`] (4 s segments, at most eleven
//! representations, every segment large enough: the oBBR paper's ten-rung
//! ladder and Drucker et al.'s eleven-rung Table V ladder are), the
//! segments are real H.264: representation K's initialization segment is
//! `assets/dash/vK/init.mp4` and every media segment is
//! `assets/dash/vK/media.m4s` (one 4 s GOP of ffmpeg's test pattern, made
//! by `scripts/gen-dash-media.sh`), its decode time (`tfdt`) and sequence
//! number rewritten for segment N, and padded to the ladder's size by a
//! top-level `free` box, which ISO BMFF parsers (browsers' MSE included)
//! skip. A browser plays the video, and every segment still weighs what
//! the model says. Otherwise the segments are ISO BMFF boxes of the right
//! size with nothing to decode (`ftyp` and `free`; `styp` and an `mdat` of
//! zeros), for fetch logic alone.

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
    if decodable(config) {
        return ASSETS[quality].init.to_vec();
    }
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

/// The first bytes of media segment `index` of representation `quality`
/// (the rest, up to [`DashConfig::segment_bytes`], are zeros): when the
/// video is [`decodable`], the encoded segment for that decode time and the
/// header of the `free` box the zeros fill; otherwise
/// [`synthetic_segment_prefix`].
pub fn segment_prefix(config: &DashConfig, quality: usize, index: usize) -> Vec<u8> {
    let size = config.segment_bytes(index, quality);
    if !decodable(config) {
        return synthetic_segment_prefix(size);
    }
    let asset = &ASSETS[quality];
    let segment_ticks = config.segment.as_millis() as u64 * u64::from(asset.timescale()) / 1000;
    let mut out = asset.media_segment(index as u64 * segment_ticks, index as u32 + 1);
    let free = size - out.len() as u64;
    box_header(&mut out, free, b"free");
    out
}

/// The first bytes of a synthetic media segment of `size` bytes (the rest
/// are the zeros of the `mdat` box): a `styp` box and the `mdat` header. A
/// segment too small for the boxes (under 32 bytes, not in any sensible
/// ladder) is zeros alone.
pub fn synthetic_segment_prefix(size: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(32);
    brand_box(&mut out, b"styp", b"msdh", &[b"msdh", b"msix"]);
    let mdat = size.saturating_sub(out.len() as u64);
    if mdat < 8 || size > u64::from(u32::MAX) {
        return Vec::new();
    }
    box_header(&mut out, mdat, b"mdat");
    out
}

/// One representation's encoded media (`assets/dash/vK`).
struct Asset {
    init: &'static [u8],
    media: &'static [u8],
    /// Width and height the encoding has (and the MPD announces).
    width: u32,
    height: u32,
}

macro_rules! asset {
    ($k:literal, $width:literal, $height:literal) => {
        Asset {
            init: include_bytes!(concat!("../../assets/dash/v", $k, "/init.mp4")),
            media: include_bytes!(concat!("../../assets/dash/v", $k, "/media.m4s")),
            width: $width,
            height: $height,
        }
    };
}

/// The encoded representations, lowest first: 25 fps, H.264 High profile
/// level 3.1 (`avc1.64001f`), one 4 s GOP per media segment. Sizes must
/// match `scripts/gen-dash-media.sh`.
static ASSETS: [Asset; 11] = [
    asset!("0", 128, 72),
    asset!("1", 160, 90),
    asset!("2", 192, 108),
    asset!("3", 256, 144),
    asset!("4", 320, 180),
    asset!("5", 384, 216),
    asset!("6", 448, 252),
    asset!("7", 512, 288),
    asset!("8", 576, 324),
    asset!("9", 640, 360),
    asset!("10", 704, 396),
];

/// The media duration of every encoded media segment.
const ASSET_SEGMENT: std::time::Duration = std::time::Duration::from_secs(4);
/// The frame rate of the encoded media.
const ASSET_FRAME_RATE: u32 = 25;

/// The boxes directly inside `data`: `(type, start, end)`, header
/// included; a box overrunning `data` ends the list (the assets are
/// checked by the unit tests, so it does not happen).
fn boxes(data: &[u8]) -> Vec<(&[u8], usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= data.len() {
        let size = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        if size < 8 || at + size > data.len() {
            break;
        }
        out.push((&data[at + 4..at + 8], at, at + size));
        at += size;
    }
    out
}

/// The box at `path` (types, outermost first) in `data`: its start and end.
fn find_box(data: &[u8], path: &[&[u8; 4]]) -> Option<(usize, usize)> {
    let (first, rest) = path.split_first()?;
    let (_, start, end) = boxes(data).into_iter().find(|(kind, _, _)| kind == first)?;
    if rest.is_empty() {
        return Some((start, end));
    }
    let (inner_start, inner_end) = find_box(&data[start + 8..end], rest)?;
    Some((start + 8 + inner_start, start + 8 + inner_end))
}

impl Asset {
    /// The track's timescale (`mdhd`), in which `tfdt` counts.
    fn timescale(&self) -> u32 {
        let (start, _) = find_box(self.init, &[b"moov", b"trak", b"mdia", b"mdhd"])
            .expect("init.mp4 has an mdhd");
        // Version 1 has 64-bit creation and modification times.
        let at = if self.init[start + 8] == 1 { 28 } else { 20 };
        u32::from_be_bytes(self.init[start + at..start + at + 4].try_into().unwrap())
    }

    /// The media segment (its `styp`, `moof` and `mdat`, without the
    /// `sidx` ffmpeg writes, whose times would be those of segment 1) with
    /// decode time `decode_time` (track timescale) and sequence number
    /// `sequence`.
    fn media_segment(&self, decode_time: u64, sequence: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.media.len() + 8);
        for (kind, start, end) in boxes(self.media) {
            if kind != b"sidx" {
                out.extend_from_slice(&self.media[start..end]);
            }
        }
        let (mfhd, _) = find_box(&out, &[b"moof", b"mfhd"]).expect("media.m4s has an mfhd");
        out[mfhd + 12..mfhd + 16].copy_from_slice(&sequence.to_be_bytes());
        let (tfdt, _) = find_box(&out, &[b"moof", b"traf", b"tfdt"]).expect("media.m4s has a tfdt");
        if out[tfdt + 8] == 1 {
            out[tfdt + 12..tfdt + 20].copy_from_slice(&decode_time.to_be_bytes());
        } else {
            let time = u32::try_from(decode_time).expect("a 32-bit tfdt holds the decode time");
            out[tfdt + 12..tfdt + 16].copy_from_slice(&time.to_be_bytes());
        }
        out
    }
}

/// Whether `config`'s video is served as real H.264 (see the module
/// documentation): 4 s segments that divide the video, at most eleven
/// representations, and every segment large enough for the encoded media
/// and a `free` box (and within a 32-bit box size).
pub fn decodable(config: &DashConfig) -> bool {
    let segments = config.segment_count();
    config.segment == ASSET_SEGMENT
        && !config.ladder.is_empty()
        && config.ladder.len() <= ASSETS.len()
        && config
            .video
            .as_millis()
            .is_multiple_of(config.segment.as_millis())
        && (0..config.ladder.len()).all(|quality| {
            let biggest = ASSETS[quality].media.len() as u64 + 8;
            (0..segments).all(|index| {
                let size = config.segment_bytes(index, quality);
                size >= biggest && size <= u64::from(u32::MAX)
            })
        })
}

/// ISO 8601 duration of whole milliseconds, as the MPD writes durations.
fn iso_duration(duration: std::time::Duration) -> String {
    let ms = duration.as_millis();
    format!("PT{}.{:03}S", ms / 1000, ms % 1000)
}

/// The MPD of `config`'s video.
pub fn manifest(config: &DashConfig) -> String {
    let decodable = decodable(config);
    let mut representations = String::new();
    for (quality, bitrate) in config.ladder.iter().enumerate() {
        let picture = if decodable {
            let asset = &ASSETS[quality];
            format!(
                " width=\"{}\" height=\"{}\" frameRate=\"{ASSET_FRAME_RATE}\"",
                asset.width, asset.height
            )
        } else {
            String::new()
        };
        representations.push_str(&format!(
            "      <Representation id=\"v{quality}\" bandwidth=\"{}\" codecs=\"avc1.64001f\"{picture}/>\n",
            bitrate.bits_per_sec()
        ));
    }
    let note = if decodable {
        "H.264 test pattern padded to the ladder's segment sizes"
    } else {
        "segments have the ladder's sizes, not decodable media"
    };
    let segment_ms = config.segment.as_millis();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- bbrlab generated DASH video: {note} -->
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
        let prefix = synthetic_segment_prefix(size);
        assert_eq!(&prefix[4..8], b"styp");
        let styp = u32::from_be_bytes(prefix[0..4].try_into().unwrap()) as u64;
        assert_eq!(&prefix[styp as usize + 4..styp as usize + 8], b"mdat");
        let mdat = u32::from_be_bytes(prefix[styp as usize..styp as usize + 4].try_into().unwrap());
        assert_eq!(styp + u64::from(mdat), size);
        let mpd = manifest(&config);
        assert_eq!(mpd.matches("<Representation ").count(), 10);
        assert!(mpd.contains("mediaPresentationDuration=\"PT600.000S\""));
        assert!(mpd.contains("bandwidth=\"254000\""));
    }

    /// Drucker et al.'s Table V ladder (scenarios/bbr2/table5-dash.toml):
    /// eleven rungs from 1 to 25 Mbit/s, 4 s segments, a 600 s video.
    fn table5() -> DashConfig {
        DashConfig {
            ladder: [
                1000, 1380, 1900, 2630, 3620, 5000, 6900, 9520, 13100, 18100, 25000,
            ]
            .into_iter()
            .map(cc::Bandwidth::from_kbps)
            .collect(),
            ..DashConfig::obbr_paper()
        }
    }

    #[test]
    fn the_table5_ladder_is_real_h264_with_eleven_representations() {
        let config = table5();
        assert!(decodable(&config));
        let mpd = manifest(&config);
        assert_eq!(mpd.matches("<Representation ").count(), 11);
        assert!(mpd.contains(
            "<Representation id=\"v10\" bandwidth=\"25000000\" codecs=\"avc1.64001f\" width=\"704\" height=\"396\""
        ));
        assert_eq!(
            route(&config, "v10/150.m4s"),
            Some(Resource::Segment {
                quality: 10,
                index: 149
            })
        );
        assert_eq!(route(&config, "v11/1.m4s"), None);
        // One rung more than the encoded media: served, but not decodable.
        let mut twelve = config.clone();
        twelve.ladder.push(cc::Bandwidth::from_kbps(30_000));
        assert!(!decodable(&twelve));
    }

    /// A 30 s video of 2 s segments: not what the encoded assets hold.
    fn synthetic() -> DashConfig {
        DashConfig {
            segment: std::time::Duration::from_secs(2),
            video: std::time::Duration::from_secs(30),
            ..DashConfig::obbr_paper()
        }
    }

    #[test]
    fn other_videos_get_synthetic_segments_of_the_right_size() {
        let config = synthetic();
        assert!(!decodable(&config));
        let init = init_segment(&config, 3);
        let ftyp = u32::from_be_bytes(init[0..4].try_into().unwrap()) as usize;
        let free = u32::from_be_bytes(init[ftyp..ftyp + 4].try_into().unwrap()) as usize;
        assert_eq!(ftyp + free, init.len());
        assert!(!init.windows(4).any(|w| w == b"moov"));
        let size = config.segment_bytes(2, 4);
        assert_eq!(
            segment_prefix(&config, 4, 2),
            synthetic_segment_prefix(size)
        );
        assert!(manifest(&config).contains("not decodable media"));
        assert!(!manifest(&config).contains(" width="));
    }

    /// The box types directly inside `data`, in order.
    fn kinds(data: &[u8]) -> Vec<String> {
        boxes(data)
            .iter()
            .map(|(kind, _, _)| String::from_utf8_lossy(kind).into_owned())
            .collect()
    }

    #[test]
    fn the_assets_are_h264_of_the_announced_codec_and_sizes() {
        for (k, asset) in ASSETS.iter().enumerate() {
            // The boxes tile each file exactly.
            assert_eq!(kinds(asset.init), ["ftyp", "moov"], "v{k}");
            let ends: usize = boxes(asset.media).iter().map(|(_, s, e)| e - s).sum();
            assert_eq!(ends, asset.media.len(), "v{k}");
            assert_eq!(kinds(asset.media), ["styp", "sidx", "moof", "mdat"], "v{k}");
            // avc1.64001f: High profile (0x64), level 3.1 (0x1f).
            let avcc = asset.init.windows(4).position(|w| w == b"avcC").unwrap();
            assert_eq!(&asset.init[avcc + 4..avcc + 8], [1, 0x64, 0, 0x1f], "v{k}");
            let (tkhd, _) = find_box(asset.init, &[b"moov", b"trak", b"tkhd"]).unwrap();
            let fixed =
                |at: usize| u32::from_be_bytes(asset.init[at..at + 4].try_into().unwrap()) >> 16;
            assert_eq!(asset.init[tkhd + 8], 0, "v{k}: tkhd version 0");
            assert_eq!(
                (fixed(tkhd + 84), fixed(tkhd + 88)),
                (asset.width, asset.height),
                "v{k}"
            );
            // Sample data found relative to the moof (no absolute base
            // offset), so dropping the sidx moves nothing.
            let (tfhd, _) = find_box(asset.media, &[b"moof", b"traf", b"tfhd"]).unwrap();
            let flags = u32::from_be_bytes(asset.media[tfhd + 8..tfhd + 12].try_into().unwrap());
            assert_eq!(flags & 0x1, 0, "v{k}: tfhd has a base data offset");
            assert_ne!(
                flags & 0x02_0000,
                0,
                "v{k}: tfhd is not default-base-is-moof"
            );
            assert_eq!(asset.timescale() % ASSET_FRAME_RATE, 0, "v{k}");
        }
    }

    #[test]
    fn decodable_segments_are_the_encoded_media_at_their_time_padded_by_free() {
        let config = DashConfig::obbr_paper();
        assert!(decodable(&config));
        let mpd = manifest(&config);
        assert!(
            mpd.contains("width=\"640\" height=\"360\" frameRate=\"25\""),
            "{mpd}"
        );
        assert_eq!(init_segment(&config, 7), ASSETS[7].init);
        for (quality, index) in [(0, 0), (0, 149), (9, 1), (5, 77)] {
            let size = config.segment_bytes(index, quality);
            let prefix = segment_prefix(&config, quality, index);
            assert_eq!(kinds(&prefix), ["styp", "moof", "mdat"]);
            // Then the free box's header, its size reaching the segment's end.
            let (_, _, end) = *boxes(&prefix).last().unwrap();
            assert_eq!(end + 8, prefix.len());
            assert_eq!(&prefix[end + 4..end + 8], b"free");
            let free = u32::from_be_bytes(prefix[end..end + 4].try_into().unwrap());
            assert_eq!(end as u64 + u64::from(free), size);
            // Segment N starts at (N - 1) * 4 s, numbered N.
            let asset = &ASSETS[quality];
            let (tfdt, _) = find_box(&prefix, &[b"moof", b"traf", b"tfdt"]).unwrap();
            assert_eq!(prefix[tfdt + 8], 1);
            let time = u64::from_be_bytes(prefix[tfdt + 12..tfdt + 20].try_into().unwrap());
            assert_eq!(time, index as u64 * 4 * u64::from(asset.timescale()));
            let (mfhd, _) = find_box(&prefix, &[b"moof", b"mfhd"]).unwrap();
            let sequence = u32::from_be_bytes(prefix[mfhd + 12..mfhd + 16].try_into().unwrap());
            assert_eq!(sequence as usize, index + 1);
            // Everything else is the encoded segment's bytes.
            let (moof, mdat_end) = (boxes(&prefix)[1].1, end);
            let (src_moof, _) = find_box(asset.media, &[b"moof"]).unwrap();
            let src = &asset.media[src_moof..src_moof + (mdat_end - moof)];
            let mut patched = prefix[moof..mdat_end].to_vec();
            patched[tfdt - moof + 12..tfdt - moof + 20]
                .copy_from_slice(&src[tfdt - moof + 12..tfdt - moof + 20]);
            patched[mfhd - moof + 12..mfhd - moof + 16]
                .copy_from_slice(&src[mfhd - moof + 12..mfhd - moof + 16]);
            assert_eq!(patched, src);
        }
    }
}
