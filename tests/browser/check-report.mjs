#!/usr/bin/env node
// Loads a bbrlab HTML report in headless Chromium and checks that it renders:
// every section with figures shows them as non-empty, visible SVGs, no two
// series of a figure share a colour, no text but a backed annotation lies in a
// plot's data area, the table of contents resolves, nothing is logged as an
// error, and nothing is fetched from outside the file. Writes a full-page screenshot for a human to look at.
//
// usage: node check-report.mjs <report.html> <screenshot.png>
// Needs Debian's Chromium at /usr/bin/chromium and `npm ci` here
// (scripts/setup-browser.sh does both).

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
// The machine allows no network besides localhost: these flags stop
// Chromium's own background traffic (updates, sync, QUIC probes).
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function fail(message, code = 1) {
  console.error(`report check FAILED: ${message}`);
  process.exit(code);
}

const [reportArg, screenshotArg] = process.argv.slice(2);
if (!reportArg || !screenshotArg || process.argv.length > 4) {
  console.error('usage: node check-report.mjs <report.html> <screenshot.png>');
  process.exit(2);
}
const reportPath = resolve(reportArg);
const screenshotPath = resolve(screenshotArg);
if (!existsSync(reportPath) || !statSync(reportPath).isFile()) {
  fail(`${reportPath} is not a file`);
}
if (!existsSync(CHROMIUM)) {
  fail(`${CHROMIUM} not found: run scripts/setup-browser.sh`);
}

const failures = [];
const consoleErrors = [];
const externalRequests = [];
// A fresh profile per run: no state leaks between checks, and Chromium never
// touches the user's own profile.
const userDataDir = mkdtempSync(join(tmpdir(), 'bbrlab-chromium-'));
let context;
let summary;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    timeout: 60_000,
  });
  // The report must be self-contained: record and refuse anything not in the file.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('about:')) {
      return route.continue();
    }
    externalRequests.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') {
      consoleErrors.push(message.text());
    }
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));

  const response = await page.goto(pathToFileURL(reportPath).href, { waitUntil: 'load', timeout: 30_000 });
  if (response && !response.ok()) {
    failures.push(`loading the report returned status ${response.status()}`);
  }

  const result = await page.evaluate(() => {
    // Text inside a figure's data area (data-plot-area on its SVG) is
    // allowed only as an annotation: on a pale backing rectangle that holds
    // it, drawn after every data mark, so no series runs through it. Axis
    // labels, ticks, titles and legends must stay outside. Returns what breaks this.
    function textInPlotArea(svg, figure) {
      const area = (svg.dataset.plotArea ?? '').split(' ').map(Number);
      if (area.length !== 4 || area.some((v) => !Number.isFinite(v))) {
        return [];
      }
      const [left, top, right, bottom] = area;
      const inset = 2;
      const overlaps = (b) =>
        b.x < right - inset && b.x + b.width > left + inset && b.y < bottom - inset && b.y + b.height > top + inset;
      const colours = new Set(
        (figure.dataset.seriesColours ?? '').split(' ').filter((c) => c).map((c) => c.toUpperCase()),
      );
      // A box in the SVG's own coordinates, whatever transform (a rotated
      // axis label) the element carries.
      const toSvg = svg.getScreenCTM().inverse();
      const boxOf = (el) => {
        const b = el.getBBox();
        const m = toSvg.multiply(el.getScreenCTM());
        const corners = [
          [b.x, b.y],
          [b.x + b.width, b.y],
          [b.x, b.y + b.height],
          [b.x + b.width, b.y + b.height],
        ].map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
        const xs = corners.map((p) => p.x);
        const ys = corners.map((p) => p.y);
        const x = Math.min(...xs);
        const y = Math.min(...ys);
        return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
      };
      const elements = [...svg.querySelectorAll('*')];
      const isData = (el) =>
        ['polyline', 'path', 'rect', 'circle', 'line'].includes(el.tagName) &&
        [el.getAttribute('stroke'), el.getAttribute('fill')].some((c) => c && colours.has(c.toUpperCase())) &&
        overlaps(boxOf(el));
      let lastData = -1;
      elements.forEach((el, i) => {
        if (isData(el)) {
          lastData = i;
        }
      });
      const problems = [];
      elements.forEach((el, i) => {
        if (el.tagName !== 'text' || !el.textContent.trim()) {
          return;
        }
        const box = boxOf(el);
        if (!overlaps(box)) {
          return;
        }
        const text = el.textContent.trim();
        const backing = el.previousElementSibling;
        const backed =
          backing?.tagName === 'rect' &&
          (backing.getAttribute('fill') ?? '').toUpperCase() === '#FFFFFF' &&
          (() => {
            const b = boxOf(backing);
            const slack = 3;
            return (
              b.x <= box.x + slack && b.y <= box.y + slack &&
              b.x + b.width >= box.x + box.width - slack && b.y + b.height >= box.y + box.height - slack
            );
          })();
        const where = (b) => `${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.width)}x${Math.round(b.height)}`;
        if (!backed) {
          problems.push(
            `text "${text}" (at ${where(box)}) lies in the data area without a backing` +
              (backing?.tagName === 'rect' ? ` (the rectangle before it is at ${where(boxOf(backing))})` : ''),
          );
        } else if (i < lastData) {
          problems.push(`text "${text}" in the data area is drawn before data, which can overprint it`);
        }
      });
      return problems;
    }

    const sections = [...document.querySelectorAll('section.report-section')].map((section) => ({
      id: section.id,
      title: section.querySelector('h2')?.textContent?.trim() ?? '',
      declared: Number(section.dataset.figures ?? '0'),
      figures: [...section.querySelectorAll('.figure')].map((figure) => {
        const svg = figure.querySelector('svg');
        const box = svg?.getBoundingClientRect();
        return {
          title: svg?.querySelector('title')?.textContent ?? '',
          hasSvg: Boolean(svg),
          children: svg ? svg.childElementCount : 0,
          width: box ? box.width : 0,
          height: box ? box.height : 0,
          error: figure.querySelector('.figure-error')?.textContent ?? '',
          colours: (figure.dataset.seriesColours ?? '').split(' ').filter((c) => c),
          textInPlot: svg ? textInPlotArea(svg, figure) : [],
        };
      }),
    }));
    const brokenLinks = [...document.querySelectorAll('nav.toc a[href^="#"]')]
      .map((a) => decodeURIComponent(a.getAttribute('href').slice(1)))
      .filter((id) => !document.getElementById(id));
    return { sections, brokenLinks, title: document.title };
  });

  if (result.sections.length === 0) {
    failures.push('no section.report-section in the page');
  }
  let figureCount = 0;
  for (const section of result.sections) {
    const where = `section #${section.id} ("${section.title}")`;
    if (section.figures.length !== section.declared) {
      failures.push(`${where}: ${section.figures.length} .figure elements, but data-figures says ${section.declared}`);
    }
    section.figures.forEach((figure, i) => {
      figureCount += 1;
      const name = `${where}, figure ${i + 1}${figure.title ? ` ("${figure.title}")` : ''}`;
      if (figure.error) {
        failures.push(`${name}: ${figure.error}`);
      } else if (!figure.hasSvg) {
        failures.push(`${name}: no <svg> inside .figure`);
      } else if (figure.children === 0) {
        failures.push(`${name}: the <svg> is empty`);
      } else if (figure.width < 1 || figure.height < 1) {
        failures.push(`${name}: the <svg> has no visible size (${figure.width}x${figure.height})`);
      }
      for (const problem of figure.textInPlot) {
        failures.push(`${name}: ${problem}`);
      }
      // One colour per series: up to the palette's twenty, no two series of
      // a figure may share one.
      const distinct = new Set(figure.colours);
      if (figure.colours.length <= 20 && distinct.size !== figure.colours.length) {
        failures.push(`${name}: two series share a colour (${figure.colours.join(' ')})`);
      }
    });
  }
  for (const id of result.brokenLinks) {
    failures.push(`table of contents links to #${id}, which does not exist`);
  }
  for (const url of externalRequests) {
    failures.push(`the report requested an external resource: ${url}`);
  }
  for (const text of consoleErrors) {
    failures.push(`console error: ${text}`);
  }

  await page.screenshot({ path: screenshotPath, fullPage: true, timeout: 60_000 });
  summary = `report check: ${result.sections.length} sections, ${figureCount} figures, ${consoleErrors.length} console errors`;
} catch (error) {
  failures.push(`browser run failed: ${error.message}`);
} finally {
  if (context) {
    await context.close().catch(() => {});
  }
  rmSync(userDataDir, { recursive: true, force: true });
}

if (summary) {
  console.log(summary);
}
if (failures.length > 0) {
  for (const failure of failures) {
    console.error(`report check FAILED: ${failure}`);
  }
  process.exit(1);
}
console.log(`screenshot: ${screenshotPath}`);
