#!/usr/bin/env bash
# Regenerates crates/quic/assets/dash: for each of the 11 representations of
# the generated DASH video (v0 lowest .. v10), a real H.264 fMP4
# initialization segment (init.mp4) and one 4 s media segment (media.m4s) of
# ffmpeg's `testsrc` pattern, at the resolution `bbrlab serve` announces for
# it (crates/quic/src/http3/dash.rs, RESOLUTIONS). `bbrlab serve` sends the
# media segment for every segment number (its decode time rewritten) padded
# to the ladder's size with a `free` box. The files are committed; this
# script is only needed to change them. Needs ffmpeg with libx264.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=crates/quic/assets/dash
# Must match dash.rs RESOLUTIONS (its unit test checks the files against it).
SIZES=(128x72 160x90 192x108 256x144 320x180 384x216 448x252 512x288 576x324 640x360 704x396)

if ! command -v ffmpeg >/dev/null 2>&1; then
    echo "error: gen-dash-media: ffmpeg is missing (apt-get install ffmpeg)" >&2
    exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for k in "${!SIZES[@]}"; do
    dir="$WORK/v$k"
    mkdir -p "$dir"
    # High profile level 3.1 (the MPD's codecs="avc1.64001f"), 25 fps, one
    # closed GOP of 100 frames (4 s), no B-frames (no composition offsets),
    # bit-exact output so a rerun gives the same bytes.
    (cd "$dir" && ffmpeg -nostdin -hide_banner -loglevel error \
        -f lavfi -i "testsrc=size=${SIZES[$k]}:rate=25:duration=4" \
        -c:v libx264 -profile:v high -level 3.1 -pix_fmt yuv420p \
        -preset veryslow -crf 40 -g 100 -keyint_min 100 -sc_threshold 0 -bf 0 \
        -threads 1 -fflags +bitexact -flags:v +bitexact -map_metadata -1 -an \
        -f dash -seg_duration 4 -use_template 1 -use_timeline 0 \
        -init_seg_name init.mp4 -media_seg_name media.m4s out.mpd)
    mkdir -p "$OUT/v$k"
    cp "$dir/init.mp4" "$dir/media.m4s" "$OUT/v$k/"
done
