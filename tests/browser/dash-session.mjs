#!/usr/bin/env node
// One DASH session played by dash.js in headless Chromium, for an emulated
// run (`bbrlab run --emulate` with `[flow.dash] player = "dashjs"`), which
// drives it over stdin and stdout:
//
// 1. Chromium starts, QUIC forced on ORIGIN with the SPKI pin; the script
//    prints `ready`.
// 2. On the line `go` it opens the player page (player/, answered by this
//    script with dash.js beside it, so only the manifest and the segments
//    cross the network) with SETTINGS_JSON passed to dash.js.
// 3. It prints `record JSON` (the page's record, player/player.js, with the
//    media played (`played`, the video's currentTime) at `now` (ms since
//    the epoch), the protocol of each request and the console errors) when the video has ended, on a player error, or on the
//    line `stop` (or the end of stdin), then exits.
//
// usage: node dash-session.mjs 127.0.0.1:PORT SPKI_BASE64 SETTINGS_JSON
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkArgs, fail, withChromium } from './chromium-h3.mjs';

const WHAT = 'dash session';
const [origin, spki, settingsArg] = process.argv.slice(2);
checkArgs(WHAT, origin, spki);
let settings;
try {
  settings = JSON.parse(settingsArg ?? '');
} catch (e) {
  fail(WHAT, `SETTINGS_JSON is not JSON (${e.message}): usage: node dash-session.mjs 127.0.0.1:PORT SPKI_BASE64 SETTINGS_JSON`);
}
if (process.argv.length > 5 || typeof settings !== 'object' || settings === null) {
  fail(WHAT, 'usage: node dash-session.mjs 127.0.0.1:PORT SPKI_BASE64 SETTINGS_JSON (a JSON object)');
}
const here = dirname(fileURLToPath(import.meta.url));
const localFiles = {
  '/player/index.html': join(here, 'player/index.html'),
  '/player/player.js': join(here, 'player/player.js'),
  '/player/dash.all.min.js': join(here, 'node_modules/dashjs/dist/dash.all.min.js'),
};

// The controlling process's lines: `go`, then `stop`.
const lines = createInterface({ input: process.stdin });
const commands = [];
let wake = null;
lines.on('line', (line) => {
  commands.push(line.trim());
  if (wake) wake();
});
lines.on('close', () => {
  commands.push('stop');
  if (wake) wake();
});
const next = (ms) => new Promise((resolve) => {
  if (commands.length > 0) return resolve(commands.shift());
  const timer = ms === undefined ? null : setTimeout(() => { wake = null; resolve(null); }, ms);
  wake = () => {
    wake = null;
    if (timer) clearTimeout(timer);
    resolve(commands.shift());
  };
});

try {
  const result = await withChromium(origin, spki, async (page) => {
    const consoleErrors = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    console.log('ready');
    const command = await next();
    if (command !== 'go') return null;
    const query = new URLSearchParams({ settings: JSON.stringify(settings) });
    const response = await page.goto(`https://${origin}/player/index.html?${query}`, { timeout: 30_000 });
    if (response?.status() !== 200) {
      throw new Error(`the player page answered ${response?.status()}`);
    }
    let record;
    for (;;) {
      // The record, the media played and the time, read together.
      record = await page.evaluate(() => {
        const r = window.bbrlabPlayer ? JSON.parse(JSON.stringify(window.bbrlabPlayer)) : null;
        if (r) {
          r.played = document.getElementById('video').currentTime;
          r.now = Date.now();
        }
        return r;
      });
      if (!record) throw new Error('the player page set no window.bbrlabPlayer');
      if (record.errors.length > 0 || record.session.ended !== null) break;
      if ((await next(200)) === 'stop') break;
    }
    record.protocols = await page.evaluate(() => performance.getEntriesByType('resource')
      .map((e) => ({ url: e.name, protocol: e.nextHopProtocol })));
    record.console_errors = consoleErrors;
    return record;
  }, localFiles);
  if (result !== null) console.log(`record ${JSON.stringify(result)}`);
  process.exit(0);
} catch (e) {
  fail(WHAT, e.stack ?? String(e));
}
