#!/usr/bin/env node
// Loads a page from `bbrlab serve` over HTTP/3 in headless Chromium and,
// from that page, fetch()es a list of paths. Prints one JSON object: the
// page's status, title and protocol, and per path the status, length,
// SHA-256 and the protocol Resource Timing reports (nextHopProtocol).
//
// usage: node h3-fetch.mjs 127.0.0.1:PORT SPKI_BASE64 PAGE_PATH PATH...
import { checkArgs, fail, withChromium } from './chromium-h3.mjs';

const WHAT = 'h3 fetch';
const [origin, spki, pagePath, ...paths] = process.argv.slice(2);
checkArgs(WHAT, origin, spki);
if (!pagePath?.startsWith('/') || paths.some((p) => !p.startsWith('/'))) {
  fail(WHAT, 'usage: node h3-fetch.mjs 127.0.0.1:PORT SPKI_BASE64 /page /path...');
}

try {
  const result = await withChromium(origin, spki, async (page) => {
    const response = await page.goto(`https://${origin}${pagePath}`, { timeout: 30_000 });
    const fetched = await page.evaluate(async (paths) => {
      const hex = (buffer) =>
        [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
      const out = [];
      for (const path of paths) {
        const r = await fetch(path, { cache: 'no-store' });
        const body = await r.arrayBuffer();
        out.push({
          path,
          status: r.status,
          length: body.byteLength,
          sha256: hex(await crypto.subtle.digest('SHA-256', body)),
          content_type: r.headers.get('content-type'),
        });
      }
      // Resource Timing entries appear once the responses are complete.
      for (const item of out) {
        const url = new URL(item.path, location.href).href;
        const entries = performance.getEntriesByName(url, 'resource');
        item.protocol = entries.length ? entries[entries.length - 1].nextHopProtocol : null;
      }
      return {
        title: document.title,
        protocol: performance.getEntriesByType('navigation')[0]?.nextHopProtocol ?? null,
        fetched: out,
      };
    }, paths);
    return { status: response?.status() ?? null, ...fetched };
  });
  console.log(JSON.stringify(result));
} catch (e) {
  fail(WHAT, e.stack ?? String(e));
}
