// Starts Debian's headless Chromium with QUIC forced on one loopback origin
// and its self-signed certificate pinned by SPKI hash, for the HTTP/3 checks
// (h3-fetch.mjs, dash-play.mjs).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/// Debian's Chromium, or the browser BBRLAB_CHROMIUM names.
export const CHROMIUM = process.env.BBRLAB_CHROMIUM || '/usr/bin/chromium';

/// The flags: no background traffic (the machine has only loopback), QUIC
/// forced on `origin` (host:port), and the server's certificate accepted by
/// the base64 SHA-256 of its SubjectPublicKeyInfo. Chromium honours the SPKI
/// list only with an explicit --user-data-dir, which playwright's persistent
/// context passes.
export function chromiumArgs(origin, spki) {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--enable-quic',
    `--origin-to-force-quic-on=${origin}`,
    `--ignore-certificate-errors-spki-list=${spki}`,
  ];
}

export function fail(what, message) {
  console.error(`${what} FAILED: ${message}`);
  process.exit(1);
}

/// Checks `origin` (127.0.0.1:PORT) and `spki` (base64 of 32 bytes), so bad
/// input is refused before a browser starts.
export function checkArgs(what, origin, spki) {
  const m = /^127\.0\.0\.1:(\d{1,5})$/.exec(origin ?? '');
  if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) {
    fail(what, `origin must be 127.0.0.1:PORT (loopback only), got ${JSON.stringify(origin)}`);
  }
  if (!/^[A-Za-z0-9+/]{43}=$/.test(spki ?? '')) {
    fail(what, `the SPKI pin must be the base64 SHA-256 of the certificate's public key, got ${JSON.stringify(spki)}`);
  }
  if (!existsSync(CHROMIUM)) {
    fail(what, `${CHROMIUM} not found: run scripts/setup-browser.sh`);
  }
}

/// The page's console errors and uncaught exceptions, collected from now on.
export function consoleErrors(page) {
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

/// Runs `body(page)` in a fresh Chromium profile, closed and removed after.
/// `localFiles` maps paths on the origin to files this script answers them
/// with itself (a page and its scripts that need not cross the network).
export async function withChromium(origin, spki, body, localFiles = {}) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'bbrlab-chromium-h3-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: chromiumArgs(origin, spki),
      timeout: 60_000,
    });
    // Loopback only: anything but the server's origin is refused.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === origin && Object.hasOwn(localFiles, url.pathname)) {
        return route.fulfill({ path: localFiles[url.pathname] });
      }
      if (url.host === origin || url.protocol === 'data:' || url.protocol === 'blob:') {
        return route.continue();
      }
      console.error(`refused a request off the server: ${url}`);
      return route.abort();
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return await body(page);
  } finally {
    if (context) await context.close().catch(() => {});
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
