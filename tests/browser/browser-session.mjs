#!/usr/bin/env node
// One session of a page in headless Chromium, for an emulated run
// (`bbrlab run --emulate`: dash.js playing a `[flow.dash] player =
// "dashjs"` session with player/, a `[flow.live] client = "chromium"`
// stream received by live/), which drives it over stdin and stdout:
//
// 1. Chromium starts, QUIC forced on ORIGIN with the SPKI pin; the script
//    prints `ready`.
// 2. On the line `go` it opens PAGE (player/index.html or live/index.html,
//    answered by this script itself with dash.js beside the player, so
//    only what the page fetches from the server crosses the network) with
//    the query parameters QUERY_JSON (an object of strings: the player's
//    `settings`, the live page's `path`).
// 3. It prints `record JSON` (the page's window.bbrlabSnapshot(): its
//    record at `now`, ms since the epoch, with the protocol of each request
//    and the console errors) when the page says it is finished
//    (window.bbrlabFinished()), or on the end of stdin, then exits.
//
// usage: node browser-session.mjs 127.0.0.1:PORT SPKI_BASE64 PAGE QUERY_JSON
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkArgs, consoleErrors, fail, withChromium } from './chromium-h3.mjs';

const WHAT = 'browser session';
const [origin, spki, pagePath, query_json] = process.argv.slice(2);
checkArgs(WHAT, origin, spki);
const here = dirname(fileURLToPath(import.meta.url));
const localFiles = {
  '/player/index.html': join(here, 'player/index.html'),
  '/player/player.js': join(here, 'player/player.js'),
  '/player/dash.all.min.js': join(here, 'node_modules/dashjs/dist/dash.all.min.js'),
  '/live/index.html': join(here, 'live/index.html'),
  '/live/live.js': join(here, 'live/live.js'),
};
const USAGE = 'usage: node browser-session.mjs 127.0.0.1:PORT SPKI_BASE64 /player/index.html|/live/index.html QUERY_JSON';
if (!['/player/index.html', '/live/index.html'].includes(pagePath) || process.argv.length > 6) {
  fail(WHAT, USAGE);
}
let query;
try {
  query = new URLSearchParams(JSON.parse(query_json ?? ''));
} catch (e) {
  fail(WHAT, `QUERY_JSON: ${e.message}: ${USAGE}`);
}

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
    const errors = consoleErrors(page);
    console.log('ready');
    const command = await next();
    if (command !== 'go') return null;
    const response = await page.goto(`https://${origin}${pagePath}?${query}`, { timeout: 30_000 });
    if (response?.status() !== 200) {
      throw new Error(`${pagePath} answered ${response?.status()}`);
    }
    let record;
    for (;;) {
      const [snapshot, finished] = await page.evaluate(() => [
        window.bbrlabSnapshot ? window.bbrlabSnapshot() : null,
        window.bbrlabFinished ? window.bbrlabFinished() : false,
      ]);
      record = snapshot;
      if (!record) throw new Error(`${pagePath} set no window.bbrlabSnapshot`);
      if (finished) break;
      if ((await next(200)) === 'stop') break;
    }
    record.protocols = await page.evaluate(() => performance.getEntriesByType('resource')
      .map((e) => ({ url: e.name, protocol: e.nextHopProtocol })));
    record.console_errors = errors;
    return record;
  }, localFiles);
  // stdout is a pipe, written asynchronously: exiting at once would cut a
  // record longer than the pipe's 64 KiB buffer (a 600 s session's is), so
  // the process ends only once the line is written.
  const line = result !== null ? `record ${JSON.stringify(result)}\n` : '';
  process.stdout.write(line, () => process.exit(0));
} catch (e) {
  fail(WHAT, e.stack ?? String(e));
}
