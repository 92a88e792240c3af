// Receives a live stream from bbrlab serve (the `path` query parameter, a
// /live?bitrate=... URL) with fetch() and a stream reader, and records in
// window.bbrlabLive, in Date.now() milliseconds (so a caller on the same
// machine can place it in its own clock):
// - requested: when the live request was made (after a first request,
//   /dash/manifest.mpd, has opened the connection, so the handshake is
//   not the stream's);
// - stream_start: the server's frame time zero (its bbrlab-stream-start
//   header, the same clock on the same machine);
// - frames: per frame (16-byte header: frame number and payload length,
//   big-endian; then the payload), its number, payload bytes and when its
//   last byte arrived (`at`);
// - done (the stream ended), status, protocol (Resource Timing's
//   nextHopProtocol, known at the end), errors.
'use strict';

(function () {
  const params = new URLSearchParams(location.search);
  const path = params.get('path') || '';
  document.getElementById('source').textContent = path;
  const record = {
    path,
    requested: null,
    status: null,
    frames: [],
    trailing_bytes: 0,
    done: false,
    protocol: null,
    errors: [],
  };
  window.bbrlabLive = record;
  window.bbrlabFinished = () => record.done || record.errors.length > 0;
  window.bbrlabSnapshot = () => Object.assign(JSON.parse(JSON.stringify(record)), { now: Date.now() });

  const run = async () => {
    if (!path.startsWith('/live?')) throw new Error(`path must be a /live?... URL, got ${JSON.stringify(path)}`);
    const warm = await fetch('/dash/manifest.mpd', { cache: 'no-store' });
    await warm.arrayBuffer();
    record.requested = Date.now();
    const response = await fetch(path, { cache: 'no-store' });
    record.status = response.status;
    const start = response.headers.get('bbrlab-stream-start');
    record.stream_start = start === null ? null : Number(start);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    const reader = response.body.getReader();
    let pending = new Uint8Array(0);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const at = Date.now();
      const joined = new Uint8Array(pending.length + value.length);
      joined.set(pending);
      joined.set(value, pending.length);
      pending = joined;
      while (pending.length >= 16) {
        const view = new DataView(pending.buffer, pending.byteOffset, 16);
        const number = Number(view.getBigUint64(0));
        const bytes = Number(view.getBigUint64(8));
        if (pending.length < 16 + bytes) break;
        record.frames.push({ number, bytes, at });
        pending = pending.slice(16 + bytes);
      }
    }
    record.trailing_bytes = pending.length;
    const entry = performance.getEntriesByName(new URL(path, location.href).href).pop();
    record.protocol = entry ? entry.nextHopProtocol : null;

    record.done = true;
  };
  run().catch((e) => record.errors.push({ source: 'page', message: String(e) }));
})();
