//! dash.js v4's request abandonment (`AbandonRequestsRule`, on by default
//! in v4.7.4): a segment whose download has slowed so much that it would
//! take far longer than its own media duration is given up mid-way and
//! fetched again at a quality the measured rate can carry.
//!
//! dash.js runs the rule on every progress event of the segment's request
//! (Chromium fires an XHR's progress events at most every 50 ms, and only
//! when bytes arrived: in-order bytes the transport hands up, so a packet
//! that arrives behind a hole, a lost packet not yet resent, makes none).
//! The first event marks the first byte; each later
//! one adds a sample, the bytes loaded so far over the time since the first
//! byte, in kbit/s rounded to a whole number. The rule can fire once the
//! download has run for more than 500 ms (`graceTimeThreshold`) with at
//! least five samples (`minLengthToAverage`), is not complete, is not at
//! quality 0, and the buffer holds at most the stable buffer time (above
//! it a slow segment cannot hurt). The measured rate is the mean of the
//! samples; the estimated download time is the segment's bytes over it
//! (seconds, rounded to 0.01). Below 1.8 x the segment's media duration
//! (`abandonMultiplier`) the download goes on. Above it, the new quality is
//! the highest whose bitrate fits 0.9 x the measured rate (no latency
//! correction here, unlike the throughput rule), and the request is
//! abandoned only if the bytes still to come exceed the whole segment at
//! the new quality (segment bytes x new bitrate / current bitrate): a
//! download nearly done is finished instead. A segment is abandoned at
//! most once: its second request runs to the end.
//!
//! What dash.js then does (`AbrController`, `StreamProcessor`), and the
//! player ([`super::Player`]) with it: the request is aborted (the server
//! stops sending what it has not sent yet), the partial download counts as
//! a throughput sample (its bytes over its time, as an aborted request's
//! trace does), BOLA's placeholder is deflated to what the new quality
//! needs, the quality is set without asking the other rules, the same
//! segment is requested again at once, and for 10 s (`abandonLoadTimeout`)
//! the quality may not rise and buffered segments are not replaced.

use std::time::Duration;

use cc::Instant;

use super::abr::quality_for_bitrate;
use super::throughput::SAFETY_FACTOR;
use super::DashConfig;

/// dash.js `graceTimeThreshold`: the download's age before the rule may fire.
pub const GRACE_TIME: Duration = Duration::from_millis(500);
/// dash.js `abandonMultiplier`: the estimated download time, in segment
/// durations, beyond which the rule fires.
pub const ABANDON_MULTIPLIER: f64 = 1.8;
/// dash.js `minLengthToAverage`: progress samples needed.
pub const MIN_SAMPLES: usize = 5;
/// Chromium's XHR progress events come at most this often.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);
/// dash.js `abandonLoadTimeout`: after an abandonment, how long the
/// quality may not rise.
pub const ABANDON_STATE: Duration = Duration::from_secs(10);

/// What the rule knows of the download in flight at one progress event.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// The event's time.
    pub now: Instant,
    /// Bytes of the segment received so far.
    pub loaded: u64,
    /// The segment's size.
    pub total: u64,
    /// The segment's media duration.
    pub segment: Duration,
    /// The quality being downloaded.
    pub quality: usize,
    /// Seconds of media buffered.
    pub buffer: Duration,
}

/// The rule's samples for the download in flight.
#[derive(Clone, Debug, Default)]
pub struct AbandonRule {
    first_byte: Option<Instant>,
    last_event: Option<Instant>,
    /// Bytes held at the last event.
    last_loaded: u64,
    /// Samples, kbit/s.
    samples: Vec<f64>,
}

impl AbandonRule {
    /// A new download begins: forget the last one's samples.
    pub fn reset(&mut self) {
        *self = AbandonRule::default();
    }

    /// The mean of the download's rate samples, kbit/s rounded as dash.js
    /// rounds it (None before the first).
    pub fn measured_kbps(&self) -> Option<f64> {
        (!self.samples.is_empty())
            .then(|| (self.samples.iter().sum::<f64>() / self.samples.len() as f64).round())
    }

    /// Bytes arrived; if a progress event is due (the first, or 50 ms
    /// after the last), the rule runs. Returns the quality to fetch the
    /// segment at instead when it abandons the download.
    pub fn on_progress(&mut self, config: &DashConfig, p: Progress) -> Option<usize> {
        let waiting = self
            .last_event
            .is_some_and(|last| p.now < last + PROGRESS_INTERVAL);
        if waiting || (self.last_event.is_some() && p.loaded <= self.last_loaded) {
            return None;
        }
        self.last_event = Some(p.now);
        self.last_loaded = p.loaded;
        let Some(first_byte) = self.first_byte else {
            self.first_byte = Some(p.now);
            return None;
        };
        let elapsed_ms = (p.now - first_byte).as_secs_f64() * 1e3;
        if p.loaded > 0 && elapsed_ms > 0.0 {
            self.samples
                .push((p.loaded as f64 * 8.0 / elapsed_ms).round());
        }
        if p.buffer > config.stable_buffer
            || self.samples.len() < MIN_SAMPLES
            || p.now - first_byte <= GRACE_TIME
            || p.loaded >= p.total
            || p.quality == 0
        {
            return None;
        }
        let measured_kbps = self.measured_kbps().unwrap_or(0.0);
        let estimate_s = (p.total as f64 * 8.0 / measured_kbps / 1e3 * 100.0).round() / 100.0;
        if estimate_s < p.segment.as_secs_f64() * ABANDON_MULTIPLIER {
            return None;
        }
        let quality = quality_for_bitrate(config, measured_kbps * 1e3 * SAFETY_FACTOR, None);
        let other_total = p.total as f64 * config.ladder[quality].as_bps_f64()
            / config.ladder[p.quality].as_bps_f64();
        ((p.total - p.loaded) as f64 > other_total).then_some(quality)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    /// A segment of quality 8 (9914 kbit/s, 4.96 MB) received at `mbps`
    /// from time 0, with `buffer_s(ms)` seconds of buffer: when the rule
    /// first answers at the 50 ms progress events up to `until_ms`, and
    /// with which quality.
    fn run(mbps: f64, buffer_s: impl Fn(u64) -> u64, until_ms: u64) -> Option<(u64, usize)> {
        let config = DashConfig::obbr_paper();
        let total = config.segment_bytes(0, 8);
        let mut rule = AbandonRule::default();
        (0..=until_ms).step_by(50).find_map(|ms| {
            let loaded = ((mbps * 1e6 / 8.0) * ms as f64 / 1e3) as u64;
            rule.on_progress(
                &config,
                Progress {
                    now: at(ms),
                    loaded: loaded.min(total),
                    total,
                    segment: config.segment,
                    quality: 8,
                    buffer: Duration::from_secs(buffer_s(ms)),
                },
            )
            .map(|q| (ms, q))
        })
    }

    #[test]
    fn a_download_far_slower_than_its_segment_is_abandoned_after_the_grace_time() {
        // 3 Mbit/s for 39.7 Mbit: about 13 s, more than 1.8 x 4 s. The rule
        // fires at the first event past 500 ms, for the quality 0.9 x 3
        // Mbit/s carries: 1883 kbit/s (quality 5).
        assert_eq!(run(3.0, |_| 8, 2000), Some((550, 5)));
    }

    #[test]
    fn a_download_that_keeps_up_or_a_full_buffer_is_left_alone() {
        // 6 Mbit/s: 6.6 s, under 7.2 s.
        assert_eq!(run(6.0, |_| 8, 6000), None);
        // 3 Mbit/s, but 13 s of buffer, above the 12 s stable buffer.
        assert_eq!(run(3.0, |_| 13, 6000), None);
    }

    #[test]
    fn a_download_nearly_done_is_finished() {
        // 4 Mbit/s: 9.9 s for the segment, so too slow; 0.9 x 4 Mbit/s
        // carries quality 6 (3134 kbit/s), whose whole segment is 31.6% of
        // this one. The buffer is above the stable buffer time until
        // `drop_ms`: from 6 s on, 39.5% remains and the download is
        // abandoned; from 7 s on, 29.4% remains and it is finished.
        let drop_at = |drop_ms| move |ms| if ms < drop_ms { 13 } else { 11 };
        assert_eq!(run(4.0, drop_at(6000), 9000), Some((6000, 6)));
        assert_eq!(run(4.0, drop_at(7050), 9000), None);
    }

    #[test]
    fn progress_events_come_at_most_every_50_ms() {
        let config = DashConfig::obbr_paper();
        let mut rule = AbandonRule::default();
        let p = |ms| Progress {
            now: at(ms),
            loaded: 1000 + ms,
            total: 1_000_000,
            segment: config.segment,
            quality: 3,
            buffer: Duration::ZERO,
        };
        rule.on_progress(&config, p(0));
        for ms in [10, 49, 50, 60, 99, 100] {
            rule.on_progress(&config, p(ms));
        }
        assert_eq!(rule.samples.len(), 2, "at 50 and 100 ms only");
    }

    #[test]
    fn no_event_without_new_bytes() {
        // Packets arriving behind a hole (a lost packet not yet resent)
        // hand no bytes up: no progress event, so the stall's time does
        // not enter the samples as near-zero rates.
        let config = DashConfig::obbr_paper();
        let mut rule = AbandonRule::default();
        let p = |ms, loaded| Progress {
            now: at(ms),
            loaded,
            total: 5_000_000,
            segment: config.segment,
            quality: 8,
            buffer: Duration::from_secs(8),
        };
        rule.on_progress(&config, p(0, 3000));
        for ms in [50, 100, 150, 200] {
            assert_eq!(rule.on_progress(&config, p(ms, 3000)), None);
        }
        assert!(rule.samples.is_empty(), "{:?}", rule.samples);
        // The hole fills: 300 KB by 250 ms, then 10 Mbit/s on.
        for ms in (250..=700).step_by(50) {
            let loaded = 300_000 + (ms - 250) * 1250;
            assert_eq!(rule.on_progress(&config, p(ms, loaded)), None, "at {ms} ms");
        }
        assert_eq!(rule.samples.len(), 10);
        assert!(
            rule.samples.iter().all(|&k| k > 9000.0),
            "{:?}",
            rule.samples
        );
    }
}
