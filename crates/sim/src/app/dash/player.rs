//! The player: a playback buffer fed one segment at a time, the request
//! schedule, and what the viewer saw.
//!
//! Playback starts when the first segment is complete (dash.js starts as
//! soon as it can play), drains the buffer in real time, stalls when the
//! buffer empties before the video's end and resumes when the next segment
//! is complete. After each download the next request waits until the
//! buffer has drained below the target (the stable buffer time, or the
//! top-quality buffer time while at the top quality), then the ABR
//! controller decides, and BOLA may add a delay of its own. One request is
//! in flight at a time, as dash.js fetches one video segment at a time.
//!
//! The first segment is the exception: dash.js sets the initial bitrate's
//! quality as a quality change from index 0, and it requests the media
//! segment after a quality change without asking the rules again (its
//! `ScheduleController` skips `checkPlaybackQuality` until a media segment
//! has been requested), so when that quality is above 0 the first segment
//! is fetched at it with no decision: no rule votes and the switch-history
//! rule does not count it. (After any other quality change the request
//! that follows is the one the changing decision was made for, as here.)
//! At index 0 there is no change, and dash.js decides before the first
//! segment as before any other.
//!
//! Two of dash.js's moves change that order (the module essay in
//! [`super`] says when): after an up-switch the next request may go back
//! into the buffer (fast switching), and a download may be abandoned and
//! its segment requested again at once at a lower quality.

use std::time::Duration;

use cc::Instant;

use super::abandon::{AbandonRule, Progress, ABANDON_STATE};
use super::abr::{AbrController, Context, Decision, Rule};
use super::bola::LoadedSegment;
use super::log::{DecisionRow, Outcome};
use super::throughput::{sample_bps, ThroughputHistory};
use super::{DashConfig, DashSummary, Session};

/// Where playback is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first segment is complete.
    Waiting,
    Playing,
    /// The buffer ran dry at `since`.
    Stalled {
        since: Instant,
    },
    /// The last frame played at `at`.
    Ended {
        at: Instant,
    },
}

/// The media clock: what is downloaded, what is played.
#[derive(Clone, Debug)]
struct Playback {
    state: State,
    /// Media downloaded.
    buffered: Duration,
    /// Media played.
    position: Duration,
    /// When `position` was last brought up to date.
    updated: Instant,
    started_at: Option<Instant>,
    stalled: Duration,
    stalls: u64,
}

impl Playback {
    /// Plays from the last update to `now`; returns true if the buffer ran
    /// dry in between (a new stall).
    fn advance(&mut self, now: Instant, video: Duration) -> bool {
        let mut stalled = false;
        if self.state == State::Playing {
            let available = self.buffered - self.position;
            let elapsed = now - self.updated;
            if elapsed < available {
                self.position += elapsed;
            } else {
                self.position = self.buffered;
                let dry = self.updated + available;
                self.state = if self.buffered >= video {
                    State::Ended { at: dry }
                } else {
                    stalled = true;
                    State::Stalled { since: dry }
                };
            }
        }
        self.updated = now;
        stalled
    }

    fn level(&self) -> Duration {
        self.buffered - self.position
    }

    /// A segment of `duration` is complete at `now` (after `advance`).
    fn append(&mut self, now: Instant, duration: Duration) {
        self.buffered += duration;
        match self.state {
            State::Waiting => {
                self.started_at = Some(now);
                self.state = State::Playing;
            }
            State::Stalled { since } => {
                self.stalled += now - since;
                self.stalls += 1;
                self.state = State::Playing;
            }
            State::Playing | State::Ended { .. } => {}
        }
    }
}

/// A segment in flight.
#[derive(Clone, Copy, Debug)]
struct Download {
    index: usize,
    quality: usize,
    rule: Rule,
    /// Stream offsets of its first byte and one past its last.
    start: u64,
    end: u64,
    requested_at: Instant,
    first_byte_at: Option<Instant>,
    /// The request follows an abandoned one whose unsent bytes the server
    /// has not dropped yet: where this one starts in the stream is known
    /// only then ([`Player::on_cut`]).
    awaiting_cut: bool,
    /// Whether the abandonment rule may still give it up (not a second time).
    may_abandon: bool,
    /// Its row in the decision log.
    row: usize,
}

/// A request for the server: write `bytes` of segment `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The segment.
    pub index: usize,
    /// Its quality index.
    pub quality: usize,
    /// Its size.
    pub bytes: u64,
    /// The server must first drop what it has not sent of the previous
    /// request (abandoned), then tell the player where it cut
    /// ([`Player::on_cut`]).
    pub cancels_previous: bool,
}

/// A DASH session's player.
#[derive(Clone, Debug)]
pub struct Player {
    config: DashConfig,
    connect: Instant,
    abr: AbrController,
    history: ThroughputHistory,
    playback: Playback,
    next_index: usize,
    /// A decision waiting out BOLA's delay (or the abandonment rule's,
    /// due at once), with its row of the decision log.
    decided: Option<(Decision, DecisionRow)>,
    next_request_at: Option<Instant>,
    download: Option<Download>,
    requested_bytes: u64,
    /// Each buffered segment's (quality, rule) of its last download, in
    /// segment order.
    downloaded: Vec<(usize, Rule)>,
    abandon: AbandonRule,
    /// The abandonment state: until then the quality may not rise.
    abandoned_until: Option<Instant>,
    /// The decision log ([`super::log`]), one row per request.
    decisions: Vec<DecisionRow>,
}

impl Player {
    /// A player that sends its first request at `connect`.
    pub fn new(config: DashConfig, connect: Instant) -> Player {
        Player {
            abr: AbrController::new(&config),
            history: ThroughputHistory::default(),
            playback: Playback {
                state: State::Waiting,
                buffered: Duration::ZERO,
                position: Duration::ZERO,
                updated: connect,
                started_at: None,
                stalled: Duration::ZERO,
                stalls: 0,
            },
            next_index: 0,
            decided: None,
            next_request_at: Some(connect),
            download: None,
            requested_bytes: 0,
            downloaded: Vec::new(),
            abandon: AbandonRule::default(),
            abandoned_until: None,
            decisions: Vec::new(),
            connect,
            config,
        }
    }

    /// When the player next wants to request (None while a download is in
    /// flight or once the video is fetched).
    pub fn next_request_at(&self) -> Option<Instant> {
        self.next_request_at
    }

    /// Whether every segment is downloaded and no more will be fetched.
    pub fn is_fetched(&self) -> bool {
        self.download.is_none()
            && self.next_index >= self.config.segment_count()
            && self.downloaded.len() == self.config.segment_count()
    }

    /// Seconds of media buffered at `now` (no state change).
    pub fn buffer_level(&self, now: Instant) -> Duration {
        let mut playback = self.playback.clone();
        playback.advance(now, self.config.video);
        playback.level()
    }

    /// At its request time the player decides and, unless BOLA asks it to
    /// wait (then [`Player::next_request_at`] moves), returns the request.
    pub fn poll_request(&mut self, now: Instant) -> Option<Request> {
        if self.next_request_at != Some(now) {
            return None;
        }
        self.advance(now);
        let (decision, logged) = match self.decided.take() {
            Some(decided) => decided,
            None if self.decisions.is_empty() && self.abr.quality() > 0 => {
                // The initial bitrate's quality is a change from index 0,
                // so no rule decides the first segment (the essay above).
                let decision = Decision {
                    quality: self.abr.quality(),
                    delay: Duration::ZERO,
                    rule: Rule::Kept,
                    votes: Default::default(),
                };
                let row = self.log_row(now, &decision, decision.quality, false);
                (decision, row)
            }
            None => {
                let ctx = Context {
                    now,
                    buffer_s: self.playback.level().as_secs_f64(),
                    buffer_empty: matches!(
                        self.playback.state,
                        State::Waiting | State::Stalled { .. }
                    ),
                    downloaded: self.downloaded.len(),
                    segment_s: self.config.segment_duration(self.next_index).as_secs_f64(),
                };
                let before = self.abr.quality();
                let mut decision = self.abr.decide(ctx, &self.history);
                let mut held = false;
                if decision.quality > before {
                    if self.abandoned_until.is_some_and(|until| now < until) {
                        // dash.js refuses an up-switch in the abandonment state.
                        decision.quality = before;
                        decision.rule = Rule::Kept;
                        self.abr.set_quality(before);
                        held = true;
                    } else if self.config.fast_switching {
                        if let Some(index) = self.replacement(decision.quality) {
                            self.next_index = index;
                        }
                    }
                }
                let row = self.log_row(now, &decision, before, held);
                if !decision.delay.is_zero() {
                    self.decided = Some((decision, row));
                    self.next_request_at = Some(now + decision.delay);
                    return None;
                }
                (decision, row)
            }
        };
        let index = self.next_index;
        let bytes = self.config.segment_bytes(index, decision.quality);
        let cancels_previous = decision.rule == Rule::AbandonRequests;
        let row = self.decisions.len();
        self.decisions.push(DecisionRow {
            segment: index,
            replacement: index < self.downloaded.len(),
            ..logged
        });
        self.download = Some(Download {
            index,
            quality: decision.quality,
            rule: decision.rule,
            start: self.requested_bytes,
            end: self.requested_bytes + bytes,
            requested_at: now,
            first_byte_at: None,
            awaiting_cut: cancels_previous,
            may_abandon: !cancels_previous,
            row,
        });
        self.abandon.reset();
        self.requested_bytes += bytes;
        self.next_index += 1;
        self.next_request_at = None;
        Some(Request {
            index,
            quality: decision.quality,
            bytes,
            cancels_previous,
        })
    }

    /// The decision log's row of `decision`, taken at `now` from the
    /// quality `before` it; `held` when the abandonment state refused the
    /// up-switch the rules voted for. The segment is filled in when the
    /// request leaves.
    fn log_row(&self, now: Instant, decision: &Decision, before: usize, held: bool) -> DecisionRow {
        let bola = self.abr.bola();
        DecisionRow {
            flow: 0,
            t_s: now.as_secs_f64(),
            delay_s: decision.delay.as_secs_f64(),
            segment: self.next_index,
            quality: decision.quality,
            previous_quality: before,
            rule: decision.rule,
            using_bola: self.abr.using_bola(),
            replacement: false,
            held_by_abandonment: held,
            buffer_s: self.playback.level().as_secs_f64(),
            estimate_bps: self.history.average(),
            window: self.history.window(),
            last_sample_bps: self.history.last_sample(),
            latency_s: self.history.average_latency(),
            throughput_allows: decision.votes.throughput_allows,
            throughput_vote: decision.votes.throughput,
            bola_vote: decision.votes.bola,
            insufficient_buffer_vote: decision.votes.insufficient_buffer,
            switch_history_vote: decision.votes.switch_history,
            bola_phase: bola.phase(),
            placeholder_s: bola.placeholder_s(),
            outcome: Outcome::InFlight,
            end_s: None,
            rate_bps: None,
        }
    }

    /// The decision log: one row per request, in request order (see
    /// [`super::log`]); `flow` is 0, the simulator sets the flow's.
    pub fn decisions(&self) -> &[DecisionRow] {
        &self.decisions
    }

    /// Fast switching: the buffered segment to fetch again at `quality`
    /// after an up-switch, if any. dash.js looks at the segment holding the
    /// playback position + 1.5 segment durations: when it was loaded lower
    /// and the buffer holds at least those 1.5 segments, the next request
    /// is that segment.
    fn replacement(&self, quality: usize) -> Option<usize> {
        let ahead = self.config.segment.mul_f64(1.5);
        if self.playback.level() < ahead {
            return None;
        }
        let time = self.playback.position + ahead;
        let index = (time.as_nanos() / self.config.segment.as_nanos()) as usize;
        self.downloaded
            .get(index)
            .filter(|&&(loaded, _)| loaded < quality)
            .map(|_| index)
    }

    /// The server dropped the unsent bytes of an abandoned request: the
    /// stream now ends at `cut`, and the request that follows starts
    /// there.
    pub fn on_cut(&mut self, cut: u64) {
        if let Some(download) = self.download.as_mut().filter(|d| d.awaiting_cut) {
            let bytes = download.end - download.start;
            download.start = cut;
            download.end = cut + bytes;
            download.awaiting_cut = false;
            self.requested_bytes = download.end;
        }
    }

    /// The connection holds `in_order` stream bytes in order at `now`.
    /// Returns true when this completed a segment (the request time may
    /// have changed).
    pub fn on_delivered(&mut self, now: Instant, in_order: u64) -> bool {
        let Some(download) = self.download.as_mut().filter(|d| !d.awaiting_cut) else {
            return false;
        };
        if download.first_byte_at.is_none() && in_order > download.start {
            download.first_byte_at = Some(now);
        }
        if in_order < download.end {
            return in_order > download.start && self.check_abandon(now, in_order);
        }
        let download = self.download.take().expect("checked above");
        self.advance(now);
        let before = self.playback.level();
        let duration = self.config.segment_duration(download.index);
        let replacement = download.index < self.downloaded.len();
        if replacement {
            // The media was buffered already.
            self.downloaded[download.index] = (download.quality, download.rule);
        } else {
            self.playback.append(now, duration);
            self.downloaded.push((download.quality, download.rule));
        }
        let first_byte = download.first_byte_at.unwrap_or(now);
        let bytes = download.end - download.start;
        self.history
            .push(bytes, first_byte - download.requested_at, now - first_byte);
        let logged = &mut self.decisions[download.row];
        logged.outcome = Outcome::Loaded;
        logged.end_s = Some(now.as_secs_f64());
        logged.rate_bps = Some(sample_bps(bytes, now - first_byte));
        let level = self.playback.level();
        // The buffer's peak: the dynamic strategy sees it (abr's essay).
        self.abr.on_buffer_level(level.as_secs_f64());
        self.abr.bola_mut().on_downloaded(LoadedSegment {
            requested: download.requested_at,
            finished: now,
            level_s: before.as_secs_f64(),
            quality: download.quality,
            duration_s: duration.as_secs_f64(),
            replacement,
        });
        if self.next_index < self.config.segment_count() {
            let target = if download.quality == self.config.top_quality() {
                self.config.top_quality_buffer
            } else {
                self.config.stable_buffer
            };
            self.next_request_at = Some(now + level.saturating_sub(target));
        } else if self.playback.state == State::Playing {
            // The rest plays out without another download.
            self.playback.state = State::Ended { at: now + level };
            self.playback.position = self.playback.buffered;
        }
        true
    }

    /// A progress event of the download in flight, `in_order` stream bytes
    /// held: the abandonment rule runs. Returns true when it abandoned the
    /// download (the same segment is then due again at once).
    fn check_abandon(&mut self, now: Instant, in_order: u64) -> bool {
        if !self.config.abandon_requests {
            return false;
        }
        let Some(download) = self.download.filter(|d| d.may_abandon) else {
            return false;
        };
        self.advance(now);
        let loaded = in_order - download.start;
        let progress = Progress {
            now,
            loaded,
            total: download.end - download.start,
            segment: self.config.segment_duration(download.index),
            quality: self.abr.quality(),
            buffer: self.playback.level(),
        };
        let Some(quality) = self.abandon.on_progress(&self.config, progress) else {
            return false;
        };
        // The aborted request's bytes and time are a throughput sample.
        let first_byte = download.first_byte_at.unwrap_or(now);
        self.history
            .push(loaded, first_byte - download.requested_at, now - first_byte);
        self.abr
            .bola_mut()
            .on_abandoned(self.playback.level().as_secs_f64(), quality);
        let logged = &mut self.decisions[download.row];
        logged.outcome = Outcome::Abandoned;
        logged.end_s = Some(now.as_secs_f64());
        logged.rate_bps = self.abandon.measured_kbps().map(|kbps| kbps * 1e3);
        self.abr.abandoned(quality);
        self.abandoned_until = Some(now + ABANDON_STATE);
        self.download = None;
        self.requested_bytes = download.start;
        self.next_index = download.index;
        let decision = Decision {
            quality,
            delay: Duration::ZERO,
            rule: Rule::AbandonRequests,
            votes: Default::default(),
        };
        let row = self.log_row(now, &decision, download.quality, false);
        self.decided = Some((decision, row));
        self.next_request_at = Some(now);
        true
    }

    /// Plays up to `now`; the ABR controller sees the buffer level then
    /// (it only falls between the player's events, so its lowest points are
    /// all seen).
    fn advance(&mut self, now: Instant) {
        if self.playback.advance(now, self.config.video) {
            self.abr.bola_mut().on_stall();
        }
        self.abr
            .on_buffer_level(self.playback.level().as_secs_f64());
    }

    /// What the viewer saw by `end` (a session still running is judged on
    /// what it played so far).
    pub fn summary(&self, end: Instant) -> DashSummary {
        let mut playback = self.playback.clone();
        let ended_at = match playback.state {
            State::Ended { at } => Some(at),
            _ => {
                playback.advance(end.max(playback.updated), self.config.video);
                None
            }
        };
        let stalled = playback.stalled
            + match playback.state {
                State::Stalled { since } => end.max(since) - since,
                _ => Duration::ZERO,
            };
        Session {
            qualities: self.downloaded.iter().map(|&(q, _)| q).collect(),
            bola_segments: Some(
                self.downloaded
                    .iter()
                    .filter(|&&(_, rule)| rule == Rule::Bola)
                    .count() as u64,
            ),
            played: playback.position,
            elapsed: ended_at.unwrap_or(end).max(self.connect) - self.connect,
            startup: playback.started_at.map(|s| s - self.connect),
            stalled,
            stalls: playback.stalls + matches!(playback.state, State::Stalled { .. }) as u64,
            complete: ended_at.is_some(),
        }
        .summary(&self.config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cc::Bandwidth;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    /// A three-segment video of 4 s segments at one bitrate of 1 Mbit/s.
    fn tiny() -> DashConfig {
        DashConfig {
            ladder: vec![Bandwidth::from_mbps(1)],
            video: Duration::from_secs(12),
            ..DashConfig::obbr_paper()
        }
    }

    /// Delivers the whole of the player's current request at `done_ms`,
    /// its first byte 100 ms earlier.
    fn fetch(p: &mut Player, request_ms: u64, done_ms: u64) -> Request {
        let r = p.poll_request(at(request_ms)).expect("a request is due");
        let end = p.requested_bytes;
        assert!(!p.on_delivered(at(done_ms - 100), end - r.bytes + 1));
        assert!(p.on_delivered(at(done_ms), end));
        r
    }

    #[test]
    fn playback_starts_with_the_first_segment_and_stalls_when_dry() {
        let mut p = Player::new(tiny(), at(0));
        assert_eq!(p.next_request_at(), Some(at(0)));
        let r = fetch(&mut p, 0, 1000);
        assert_eq!((r.index, r.quality, r.bytes), (0, 0, 500_000));
        assert_eq!(p.buffer_level(at(1000)), Duration::from_secs(4));
        assert_eq!(p.next_request_at(), Some(at(1000)), "below the 12 s target");
        // Segment 1 takes 6 s: playback runs dry at 5 s and stalls 2 s.
        fetch(&mut p, 1000, 7000);
        fetch(&mut p, 7000, 8000);
        assert!(p.is_fetched());
        assert_eq!(p.next_request_at(), None);
        let s = p.summary(at(8000));
        assert!(s.complete);
        assert_eq!((s.segments, s.stalls, s.qs), (3, 1, 0));
        assert!((s.rebuffer_s - 2.0).abs() < 1e-9, "{s:?}");
        assert!((s.startup_delay_s - 1.0).abs() < 1e-9);
        // Playback ends at 7 s + 8 s of buffer - 1 s played by 8 s... = 15 s:
        // 15 s for 12 s of video.
        assert!((s.rb.unwrap() - 0.25).abs() < 1e-9, "{s:?}");
        assert!((s.qoe_lin - (3.0 - 4.3 * 2.0)).abs() < 1e-9);
    }

    #[test]
    fn the_first_segment_is_fetched_without_a_decision() {
        // The initial 1000 kbit/s is quality 2 of the oBBR ladder: a change
        // from index 0, after which dash.js asks no rule.
        let mut p = Player::new(DashConfig::obbr_paper(), at(0));
        let first = fetch(&mut p, 0, 500);
        assert_eq!(first.quality, 2);
        assert!(p.abr.switch_history().is_empty(), "not counted");
        let row = &p.decisions()[0];
        assert_eq!(
            (row.rule, row.throughput_vote, row.switch_history_vote),
            (Rule::Kept, None, None)
        );
        // The second segment is decided, and counted.
        p.poll_request(p.next_request_at().unwrap()).unwrap();
        assert_eq!(p.abr.switch_history().len(), 1);
        // An initial bitrate at the lowest rung is no change: dash.js
        // decides before the first segment as before any other.
        let lowest = DashConfig {
            initial_bitrate: Bandwidth::from_kbps(254),
            ..DashConfig::obbr_paper()
        };
        let mut p = Player::new(lowest, at(0));
        assert_eq!(p.poll_request(at(0)).unwrap().quality, 0);
        assert_eq!(p.abr.switch_history().len(), 1);
    }

    #[test]
    fn a_full_buffer_holds_the_next_request_back() {
        // One bitrate is the top quality: make its target the stable 12 s.
        let config = DashConfig {
            video: Duration::from_secs(40),
            top_quality_buffer: Duration::from_secs(12),
            ..tiny()
        };
        let mut p = Player::new(config, at(0));
        let mut t = 0;
        // Fast downloads (100 ms each) fill the buffer to the 12 s target.
        for _ in 0..4 {
            let due = p.next_request_at().unwrap();
            t = due.as_nanos() / 1_000_000;
            fetch(&mut p, t, t + 200);
        }
        // After the fourth: 16 s downloaded, about 0.6 s played.
        let level = p.buffer_level(at(t + 200));
        let due = p.next_request_at().unwrap();
        assert!(level > Duration::from_secs(12));
        assert_eq!(due, at(t + 200) + (level - Duration::from_secs(12)));
        assert!(
            p.poll_request(at(t + 200)).is_none(),
            "not before it is due"
        );
        assert!(p.poll_request(due).is_some());
    }

    #[test]
    fn a_session_cut_short_is_judged_on_what_played() {
        let mut p = Player::new(tiny(), at(0));
        fetch(&mut p, 0, 2000);
        p.poll_request(at(2000)).unwrap(); // never arrives
        let s = p.summary(at(10_000));
        assert!(!s.complete);
        assert_eq!(s.segments, 1);
        // Played 4 s (2-6 s), stalled 6-10 s.
        assert!((s.rebuffer_s - 4.0).abs() < 1e-9, "{s:?}");
        assert!((s.rb.unwrap() - 1.5).abs() < 1e-9, "(10 - 4) / 4: {s:?}");
        let nothing = Player::new(tiny(), at(0)).summary(at(5000));
        assert_eq!(nothing.rb, None);
        assert!((nothing.startup_delay_s - 5.0).abs() < 1e-9);
    }

    /// Fetches the player's due request at `mbps`, its first byte 50 ms
    /// after the request, in 10 ms deliveries; returns it and when it was
    /// complete, or None (and the time) if the player abandoned it.
    fn fetch_at_rate(p: &mut Player, mbps: f64) -> (Request, Option<Instant>) {
        let now = p.next_request_at().expect("a request is due");
        let r = loop {
            if let Some(r) = p.poll_request(p.next_request_at().unwrap()) {
                break r;
            }
        };
        let start = p.requested_bytes - r.bytes;
        let first = now + Duration::from_millis(50);
        let mut t = first;
        loop {
            let got = ((t - first).as_secs_f64() * mbps * 1e6 / 8.0) as u64 + 1;
            let in_order = start + got.min(r.bytes);
            if p.on_delivered(t, in_order) {
                let done = in_order == start + r.bytes;
                return (r, done.then_some(t));
            }
            t += Duration::from_millis(10);
        }
    }

    /// Segments at 3 Mbit/s until the buffer passes `level`, then one at
    /// 40 Mbit/s: the requests that follow.
    fn after_a_fast_segment(config: DashConfig, level: Duration) -> (Player, Vec<Request>) {
        let mut p = Player::new(config, at(0));
        let mut requests = Vec::new();
        while p.playback.level() < level {
            requests.push(fetch_at_rate(&mut p, 3.0).0);
        }
        requests.push(fetch_at_rate(&mut p, 40.0).0);
        (p, requests)
    }

    #[test]
    fn bola_takes_over_once_an_arrival_lifts_the_buffer_past_the_stable_time() {
        // 14 Mbit/s holds quality 8 (9.9 Mbit/s, below the top), so the
        // requests leave at the 12 s target; each arrival lifts the buffer
        // above it, and dash.js's dynamic strategy hands the decisions to
        // BOLA from then on (it used to stay with the throughput rule,
        // judged at the decisions alone).
        let config = DashConfig {
            video: Duration::from_secs(200),
            ..DashConfig::obbr_paper()
        };
        let mut p = Player::new(config, at(0));
        let mut levels = Vec::new();
        for _ in 0..30 {
            let due = p.next_request_at().expect("a request is due");
            levels.push(p.buffer_level(due));
            fetch_at_rate(&mut p, 14.0);
        }
        assert!(levels.iter().all(|l| *l <= Duration::from_secs(12)));
        let first = p
            .downloaded
            .iter()
            .position(|&(_, rule)| rule == Rule::Bola);
        first.expect("BOLA decided some segments");
        // An up-switch's fast-switching cascade can drain the buffer to
        // 6 s and hand a few decisions back to the throughput rule; once
        // the buffer is full again, BOLA decides.
        let last = &p.downloaded[p.downloaded.len() - 5..];
        let bola = p
            .downloaded
            .iter()
            .filter(|&&(_, r)| r == Rule::Bola)
            .count();
        assert!(
            bola >= 10 && last.iter().all(|&(_, rule)| rule == Rule::Bola),
            "{:?}",
            p.downloaded
        );
        assert!(p.abr.using_bola());
        assert!(p.downloaded.iter().all(|&(q, _)| q < 9));
    }

    #[test]
    fn an_up_switch_fetches_buffered_segments_again_from_position_plus_one_and_a_half() {
        let (mut p, requests) =
            after_a_fast_segment(DashConfig::obbr_paper(), Duration::from_secs(7));
        let buffered = p.downloaded.len();
        let last = requests.last().unwrap().quality;
        let position = p.playback.position;
        let r = fetch_at_rate(&mut p, 40.0).0;
        assert!(r.quality > last, "an up-switch: {last} to {r:?}");
        // The segment holding position + 6 s, buffered lower, is next.
        let expected = ((position + Duration::from_secs(6)).as_secs_f64() / 4.0) as usize;
        assert!(expected < buffered, "{expected} of {buffered}");
        assert_eq!(r.index, expected, "{requests:?}");
        assert_eq!(
            p.downloaded[expected].0, r.quality,
            "counted at its last quality"
        );
        assert_eq!(
            p.downloaded.len(),
            buffered,
            "a replacement adds no segment"
        );
        // Then the ones after it follow, unless the quality rose again and
        // the segment at position + 1.5 segments is fetched a third time.
        let position = p.playback.position;
        let next = fetch_at_rate(&mut p, 40.0).0;
        let again = ((position + Duration::from_secs(6)).as_secs_f64() / 4.0) as usize;
        if next.quality > r.quality {
            assert_eq!((next.index, again), (expected, expected), "{next:?}");
        } else {
            assert_eq!(next.index, expected + 1, "{next:?}");
        }
        let s = p.summary(p.playback.updated);
        assert_eq!(s.segments, buffered as u64);

        // Without fast switching, or with less than 1.5 segments of buffer,
        // the next segment is a new one.
        let off = DashConfig {
            fast_switching: false,
            ..DashConfig::obbr_paper()
        };
        let (mut p, _) = after_a_fast_segment(off, Duration::from_secs(7));
        let buffered = p.downloaded.len();
        assert_eq!(fetch_at_rate(&mut p, 40.0).0.index, buffered);
        // The rule itself: a segment loaded at the new quality or above is
        // kept, and under 1.5 segments of buffer nothing is replaced.
        let (mut p, _) = after_a_fast_segment(DashConfig::obbr_paper(), Duration::from_secs(7));
        let index = ((p.playback.position + Duration::from_secs(6)).as_secs_f64() / 4.0) as usize;
        let loaded = p.downloaded[index].0;
        assert_eq!(p.replacement(loaded + 1), Some(index));
        assert_eq!(p.replacement(loaded), None);
        let dry = p.playback.updated + p.playback.level() - Duration::from_millis(5990);
        p.advance(dry);
        assert!(p.playback.level() < Duration::from_secs(6));
        assert_eq!(p.replacement(9), None);
    }

    #[test]
    fn a_collapsed_download_is_abandoned_and_its_segment_fetched_again_lower() {
        let config = DashConfig {
            video: Duration::from_secs(40),
            ..DashConfig::obbr_paper()
        };
        // Two fast segments, then the rate falls to 1 Mbit/s.
        let mut p = Player::new(config.clone(), at(0));
        fetch_at_rate(&mut p, 40.0);
        let (high, _) = fetch_at_rate(&mut p, 40.0);
        assert!(high.quality >= 7, "{high:?}");
        let (abandoned, done) = fetch_at_rate(&mut p, 1.0);
        assert_eq!(done, None, "abandoned: {abandoned:?}");
        let again = p.poll_request(p.next_request_at().unwrap()).unwrap();
        assert_eq!(again.index, abandoned.index);
        assert!(again.quality < abandoned.quality, "{again:?}");
        assert!(again.cancels_previous);
        // The server cut the stream after 200 bytes of the abandoned one.
        let cut = p.requested_bytes - again.bytes + 200;
        p.on_cut(cut);
        assert!(
            !p.on_delivered(at(60_000), cut),
            "old bytes are not the new segment's"
        );
        assert!(p.on_delivered(at(61_000), cut + again.bytes));
        let s = p.summary(at(61_000));
        assert_eq!(s.segments, 3);

        // Without the rule the slow download runs to its end.
        let off = DashConfig {
            abandon_requests: false,
            ..config
        };
        let mut p = Player::new(off, at(0));
        fetch_at_rate(&mut p, 40.0);
        fetch_at_rate(&mut p, 40.0);
        assert!(fetch_at_rate(&mut p, 1.0).1.is_some());
    }

    #[test]
    fn the_decision_log_has_a_row_per_request_with_its_votes_and_end() {
        let config = DashConfig {
            video: Duration::from_secs(40),
            ..DashConfig::obbr_paper()
        };
        // Two fast segments, then one at 1 Mbit/s that is abandoned.
        let mut p = Player::new(config, at(0));
        fetch_at_rate(&mut p, 40.0);
        let (second, _) = fetch_at_rate(&mut p, 40.0);
        let (abandoned, done) = fetch_at_rate(&mut p, 1.0);
        assert_eq!(done, None);
        let again = p.poll_request(p.next_request_at().unwrap()).unwrap();
        let log = p.decisions();
        assert_eq!(log.len(), 4, "{log:#?}");
        // The first segment: no estimate, the initial bitrate's quality.
        assert_eq!(
            (log[0].rule, log[0].quality, log[0].estimate_bps),
            (Rule::Kept, 2, None)
        );
        assert_eq!(log[0].outcome, Outcome::Loaded);
        let rate = log[0].rate_bps.unwrap();
        // 40 Mbit/s, the last byte on the 10 ms delivery after it.
        assert!(rate > 36e6 && rate < 40e6, "its sample: {rate}");
        // The second: the throughput rule's vote, the lowest, won; its
        // inputs are the first segment's sample.
        let row = &log[1];
        assert_eq!((row.segment, row.quality), (1, second.quality));
        assert_eq!(row.rule, Rule::Throughput);
        assert_eq!(row.throughput_vote, Some(row.quality));
        assert_eq!(row.throughput_allows, Some(row.quality));
        assert_eq!(row.previous_quality, 2);
        assert_eq!((row.window, row.last_sample_bps), (1, Some(rate)));
        assert!(
            row.insufficient_buffer_vote.is_none(),
            "not before two segments"
        );
        assert!(!row.using_bola && row.bola_vote.is_none());
        // The abandoned download: the rate the rule measured, then the
        // same segment again at the rule's quality.
        let row = &log[2];
        assert_eq!(
            (row.segment, row.outcome),
            (abandoned.index, Outcome::Abandoned)
        );
        assert!(row.rate_bps.unwrap() < 1.5e6, "{row:?}");
        assert!(row.insufficient_buffer_vote.is_some());
        let row = &log[3];
        assert_eq!((row.segment, row.quality), (again.index, again.quality));
        assert_eq!(
            (row.rule, row.outcome),
            (Rule::AbandonRequests, Outcome::InFlight)
        );
        assert_eq!(row.previous_quality, abandoned.quality);
        assert!(!row.replacement, "the abandoned segment was never buffered");
        assert!(log.windows(2).all(|w| w[0].t_s <= w[1].t_s));
    }

    #[test]
    fn downswitches_count_as_quality_switches() {
        let mut p = Player::new(DashConfig::obbr_paper(), at(0));
        // The first segment at the initial bitrate (quality 2), fetched at
        // 80 Mbit/s: the next goes to the top.
        let first = fetch(&mut p, 0, 100 + 2);
        assert_eq!(first.quality, 2);
        let second = fetch(&mut p, 102, 1200);
        assert!(second.quality > 2, "{second:?}");
        // Then a slow segment: the quality falls.
        let third_at = p.next_request_at().unwrap().as_nanos() / 1_000_000;
        fetch(&mut p, third_at, third_at + 60_000);
        let fourth = p.poll_request(p.next_request_at().unwrap()).unwrap();
        assert!(fourth.quality < second.quality, "{fourth:?}");
        let s = p.summary(at(third_at + 60_000));
        assert_eq!(s.qs, 0, "a decided but undownloaded segment does not count");
    }
}
