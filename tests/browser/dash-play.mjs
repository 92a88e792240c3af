#!/usr/bin/env node
// Plays a DASH video from `bbrlab serve` over HTTP/3 in headless Chromium
// with the project's dash.js player page (player/, served by bbrlab serve
// with dash.all.min.js beside it) until SECONDS of video have played, a
// player error, or a timeout. Prints the page's record (player/player.js)
// as JSON, with the protocol of each request (Resource Timing) and the
// console errors.
//
// usage: node dash-play.mjs 127.0.0.1:PORT SPKI_BASE64 PAGE_PATH SECONDS
import { checkArgs, consoleErrors, fail, withChromium } from './chromium-h3.mjs';

const WHAT = 'dash play';
const [origin, spki, pagePath, secondsArg] = process.argv.slice(2);
checkArgs(WHAT, origin, spki);
const seconds = Number(secondsArg);
if (!pagePath?.startsWith('/') || !(seconds > 0 && seconds <= 120) || process.argv.length > 6) {
  fail(WHAT, 'usage: node dash-play.mjs 127.0.0.1:PORT SPKI_BASE64 /player/index.html SECONDS (1-120)');
}
// Startup, then playing in real time, with room for a slow machine.
const deadline = Date.now() + (30 + seconds * 2) * 1000;

try {
  const result = await withChromium(origin, spki, async (page) => {
    const errors = consoleErrors(page);
    const response = await page.goto(`https://${origin}${pagePath}`, { timeout: 30_000 });
    if (response?.status() !== 200) {
      throw new Error(`the player page answered ${response?.status()}`);
    }
    let record;
    for (;;) {
      record = await page.evaluate(() => JSON.parse(JSON.stringify(window.bbrlabPlayer ?? null)));
      if (!record) throw new Error('the player page set no window.bbrlabPlayer');
      if (record.errors.length > 0) break;
      if ((record.state.current_time ?? 0) >= seconds) break;
      if (Date.now() > deadline) {
        record.timed_out = true;
        break;
      }
      await page.waitForTimeout(500);
    }
    record.protocols = await page.evaluate(() => {
      const entries = performance.getEntriesByType('navigation').concat(
        performance.getEntriesByType('resource'));
      return entries.map((e) => ({ url: e.name, protocol: e.nextHopProtocol }));
    });
    record.console_errors = errors;
    return record;
  });
  console.log(JSON.stringify(result));
} catch (e) {
  fail(WHAT, e.stack ?? String(e));
}
