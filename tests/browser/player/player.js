// Plays a DASH manifest (the `mpd` query parameter, by default bbrlab
// serve's generated /dash/manifest.mpd) with dash.js and records what the
// player did, as JSON in window.bbrlabPlayer and in #record:
// - segments: one entry per loaded media segment: quality index, segment
//   index and start time, bytes, download time (request start to end, ms),
//   throughput (bit/s over that time), time to first byte, the video
//   buffer level when it arrived (s), and dash.js's throughput estimate
//   then (its sliding-window average, kbit/s, as the ABR rules read it),
//   and its first progress events (`progress`: [ms since the first
//   byte, bytes loaded] of each of dash.js's loadingProgress events in the
//   download's first 1.5 s, the samples its abandonment rule reads);
// - abandoned: downloads dash.js abandoned, with the same progress events;
// - switches: quality changes dash.js requested (from, to, at playback time);
// - stalls: the video buffer running empty (BUFFER_EMPTY) or playback
//   waiting for data (PLAYBACK_WAITING) after the first frame played
//   (`started`, ms after the page ran), with dash.js's buffer level and the
//   seconds the video element holds beyond the playhead (`buffered_ahead`):
//   an event with seconds buffered is not for want of data (dash.js can
//   signal BUFFER_EMPTY at startup before its accounting catches up, and
//   Chromium can wait a moment at a resolution switch);
// - errors: dash.js ERROR and PLAYBACK_ERROR events and the video element's
//   errors;
// - state: playback time, frames decoded and the picture size, updated
//   each second;
// - session: the viewer's session in wall-clock time (Date.now(), ms since
//   the epoch, so a caller on the same machine can place it in its own
//   clock): the first video request (`first_request`, initialization
//   segment included), the first frame played (`started`), the end of the
//   video (`ended`) and each wait for data after the first frame
//   (`waits`, from the video element's `waiting` to its next `playing`;
//   `end` is null while a wait lasts).
// The `settings` query parameter, JSON, is passed to dash.js's
// updateSettings (e.g. the buffer targets and ABR strategy of a scenario).
'use strict';

(function () {
  const params = new URLSearchParams(location.search);
  const mpd = params.get('mpd') || '/dash/manifest.mpd';
  document.getElementById('source').textContent = mpd;
  const video = document.getElementById('video');
  const t0 = performance.now();
  const now = () => Math.round(performance.now() - t0);

  let settings = null;
  try {
    settings = params.has('settings') ? JSON.parse(params.get('settings')) : null;
  } catch (e) {
    settings = { invalid: String(e) };
  }
  const record = {
    manifest: mpd,
    settings,
    dashjs: typeof dashjs !== 'undefined' ? dashjs.Version || null : null,
    mse_h264: typeof MediaSource !== 'undefined'
      && MediaSource.isTypeSupported('video/mp4; codecs="avc1.64001f"'),
    started: null,
    segments: [],
    abandoned: [],
    init_segments: 0,
    switches: [],
    stalls: [],
    errors: [],
    state: {},
    session: { first_request: null, started: null, ended: null, waits: [] },
  };
  window.bbrlabPlayer = record;
  // For tests/browser/browser-session.mjs: whether the session is over,
  // and the record with the media played (`played`) at `now`.
  // The element's `ended` is set before its `ended` event is dispatched (a
  // task of its own): a session that ends just as it is read counts as
  // ended, at the time it is read, rather than missing its end.
  const noteEnd = () => {
    if (video.ended && record.session.ended === null) record.session.ended = Date.now();
  };
  window.bbrlabFinished = () => {
    noteEnd();
    return record.errors.length > 0 || record.session.ended !== null;
  };
  window.bbrlabSnapshot = () => {
    noteEnd();
    return Object.assign(JSON.parse(JSON.stringify(record)), {
      played: video.currentTime,
      now: Date.now(),
    });
  };
  const show = () => {
    const v = video.getVideoPlaybackQuality ? video.getVideoPlaybackQuality() : {};
    record.state = {
      at_ms: now(),
      current_time: video.currentTime,
      paused: video.paused,
      ended: video.ended,
      ready_state: video.readyState,
      video_width: video.videoWidth,
      video_height: video.videoHeight,
      frames_decoded: v.totalVideoFrames ?? null,
      frames_dropped: v.droppedVideoFrames ?? null,
      buffer_level: player ? player.getBufferLength('video') : null,
    };
    document.getElementById('record').textContent = JSON.stringify(record, null, 1);
  };

  if (typeof dashjs === 'undefined') {
    record.errors.push({ at_ms: now(), source: 'page', message: 'dash.all.min.js did not load' });
    show();
    return;
  }
  if (settings && settings.invalid) {
    record.errors.push({ at_ms: now(), source: 'page', message: `settings: ${settings.invalid}` });
    show();
    return;
  }
  const player = dashjs.MediaPlayer().create();
  player.updateSettings({ debug: { logLevel: dashjs.Debug.LOG_LEVEL_WARNING } });
  if (settings) player.updateSettings(settings);
  const E = dashjs.MediaPlayer.events;
  const session = record.session;
  const requested = (date) => {
    if (!date) return;
    const t = date.getTime();
    if (session.first_request === null || t < session.first_request) session.first_request = t;
  };

  // The progress events of the downloads in flight, by request.
  const progress = new Map();
  const PROGRESS_WINDOW_MS = 1500;
  // dash.js's public FRAGMENT_LOADING_PROGRESS fires only for fetch
  // streaming; its XHR progress reaches the abandonment rule as the event
  // bus's internal 'loadingProgress', which player.on hears too.
  player.on('loadingProgress', (e) => {
    const r = e.request;
    if (!r || r.mediaType !== 'video' || r.type !== 'MediaSegment' || !r.firstByteDate) return;
    const since = Date.now() - r.firstByteDate.getTime();
    if (since > PROGRESS_WINDOW_MS) return;
    if (!progress.has(r)) progress.set(r, []);
    progress.get(r).push([since, r.bytesLoaded]);
  });
  const takeProgress = (r) => {
    const events = progress.get(r) || [];
    progress.delete(r);
    return events;
  };
  player.on(E.FRAGMENT_LOADING_ABANDONED, (e) => {
    const r = e.request;
    if (!r || r.mediaType !== 'video') return;
    record.abandoned.push({
      at_ms: now(),
      quality: r.quality,
      index: r.index,
      bytes: r.bytesLoaded,
      bytes_total: r.bytesTotal,
      progress: takeProgress(r),
    });
  });
  player.on(E.FRAGMENT_LOADING_COMPLETED, (e) => {
    const r = e.request;
    if (!r || r.mediaType !== 'video') return;
    requested(r.requestStartDate);
    if (r.type !== 'MediaSegment') {
      record.init_segments += 1;
      return;
    }
    const start = r.requestStartDate ? r.requestStartDate.getTime() : null;
    const first = r.firstByteDate ? r.firstByteDate.getTime() : null;
    const end = r.requestEndDate ? r.requestEndDate.getTime() : null;
    const ms = start !== null && end !== null ? end - start : null;
    record.segments.push({
      at_ms: now(),
      quality: r.quality,
      index: r.index,
      start_time: r.startTime,
      url: r.url,
      bytes: r.bytesLoaded,
      bytes_total: r.bytesTotal,
      download_ms: ms,
      ttfb_ms: start !== null && first !== null ? first - start : null,
      request_epoch_ms: start,
      end_epoch_ms: end,
      throughput_bps: ms ? Math.round((r.bytesLoaded * 8 * 1000) / ms) : null,
      buffer_level: player.getBufferLength('video'),
      throughput_estimate_kbps: player.getAverageThroughput('video'),
      progress: takeProgress(r),
      error: e.error ? String(e.error.message || e.error) : null,
    });
    show();
  });
  player.on(E.QUALITY_CHANGE_REQUESTED, (e) => {
    if (e.mediaType !== 'video') return;
    record.switches.push({
      at_ms: now(),
      playback_time: video.currentTime,
      from: e.oldQuality,
      to: e.newQuality,
      reason: e.reason ? e.reason.name || JSON.stringify(e.reason) : null,
    });
  });
  // Playback began when the first frame plays; waiting before it is
  // startup, not a stall.
  video.addEventListener('playing', () => {
    if (record.started === null) record.started = now();
    if (session.started === null) session.started = Date.now();
    const last = session.waits[session.waits.length - 1];
    if (last && last.end === null) last.end = Date.now();
  });
  video.addEventListener('waiting', () => {
    if (session.started === null || session.ended !== null) return;
    const last = session.waits[session.waits.length - 1];
    if (!last || last.end !== null) session.waits.push({ begin: Date.now(), end: null });
  });
  video.addEventListener('ended', () => {
    noteEnd();
    show();
  });
  // Seconds the video element holds beyond the playhead (its own buffered
  // ranges, not dash.js's accounting, which can lag at startup).
  const bufferedAhead = () => {
    const b = video.buffered;
    for (let i = 0; i < b.length; i++) {
      if (b.start(i) <= video.currentTime + 0.1 && video.currentTime < b.end(i)) {
        return b.end(i) - video.currentTime;
      }
    }
    return 0;
  };
  const stall = (kind) => () => {
    if (record.started === null) return;
    record.stalls.push({
      at_ms: now(),
      kind,
      playback_time: video.currentTime,
      buffer_level: player.getBufferLength('video'),
      buffered_ahead: bufferedAhead(),
      ready_state: video.readyState,
    });
  };
  player.on(E.PLAYBACK_WAITING, stall('waiting'));
  player.on(E.BUFFER_EMPTY, (e) => {
    if (!e.mediaType || e.mediaType === 'video') stall('buffer_empty')();
  });
  player.on(E.ERROR, (e) => {
    record.errors.push({ at_ms: now(), source: 'dashjs', message: JSON.stringify(e.error ?? e) });
  });
  player.on(E.PLAYBACK_ERROR, (e) => {
    record.errors.push({ at_ms: now(), source: 'playback', message: JSON.stringify(e.error ?? e) });
  });
  video.addEventListener('error', () => {
    const err = video.error;
    record.errors.push({
      at_ms: now(),
      source: 'video',
      message: err ? `code ${err.code}: ${err.message}` : 'unknown',
    });
  });
  setInterval(show, 1000);
  player.initialize(video, mpd, true);
  show();
})();
