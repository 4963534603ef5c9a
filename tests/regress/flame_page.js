// SPDX-License-Identifier: GPL-2.0-or-later
// Drives a memgrow-report HTML page in headless Chromium (Debian's, through
// npm's playwright-core from report/web): waits for the flame graph, then
// times each interaction (switching the metric, searching, zooming by a
// click) from the event to the next painted frame, and prints JSON: the
// timings in ms, what the flame graph showed after each step, the page's
// errors. argv: page, chromium, [screenshot.png (1400x900, the first screen)].
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "../../report/web/node_modules/playwright-core"));

(async () => {
  const [page_file, executable, shot] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: executable,
                                          args: ["--no-sandbox", "--disable-gpu"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => errors.push("console: " + m.text()));
  const t0 = Date.now();
  await page.goto("file://" + path.resolve(page_file));
  await page.waitForSelector("#r0-flame[data-flame-ready]", { timeout: 120000 });
  const out = { load_ms: Date.now() - t0, steps: [], errors };
  if (shot) await page.screenshot({ path: shot });
  // What the chart shows: frames drawn, the widest frame's name.
  const state = () => page.evaluate(() => {
    const gs = [...document.querySelectorAll("#r0-flame .flame-chart g.frame")];
    const visible = gs.filter((g) => +g.querySelector("rect").getAttribute("width") > 0);
    const named = (t) => visible.filter((g) => g.querySelector("title").textContent.includes(t));
    return { frames: visible.length,
             highlighted: document.querySelectorAll("#r0-flame rect[fill='#e600e6']").length,
             details: document.querySelector("#r0-flame .flame-details").textContent,
             empty: document.querySelector("#r0-flame .flame-empty").hidden ? "" :
               document.querySelector("#r0-flame .flame-empty").textContent,
             titles: visible.slice(0, 400).map((g) => g.querySelector("title").textContent) };
  });
  // From the input event to the second animation frame after it: the
  // browser has run the handlers and painted.
  const timed = async (name, act) => {
    await page.evaluate(() => { window.__t = performance.now(); });
    await act();
    const ms = await page.evaluate(() => new Promise((done) =>
      requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - window.__t)))));
    out.steps.push({ name, ms, ...(await state()) });
  };
  out.initial = await state();
  await timed("live", () => page.check("#r0-flame input[value='1']"));
  await timed("leaked", () => page.check("#r0-flame input[value='2']"));
  await timed("gained", () => page.check("#r0-flame input[value='0']"));
  const needle = process.env.FLAME_SEARCH || "main";
  await timed("search", () => page.fill("#r0-flame .flame-search", needle));
  await timed("clear", () => page.fill("#r0-flame .flame-search", ""));
  // Zoom into the widest frame at depth 1 (the root's largest child).
  await timed("zoom", () => page.evaluate(() => {
    const gs = [...document.querySelectorAll("#r0-flame .flame-chart g.frame")];
    // d3 keeps each frame's node on its element: the root's children are at depth 1.
    const depth1 = gs.filter((g) => g.__data__.depth === 1);
    depth1.sort((a, b) => b.__data__.value - a.__data__.value);
    window.__zoomed = depth1[0].__data__.data.name;
    depth1[0].dispatchEvent(new MouseEvent("click", { bubbles: true }));
  }));
  out.zoomed = await page.evaluate(() => window.__zoomed);
  await timed("reset", () => page.click("#r0-flame .flame-reset"));
  console.log(JSON.stringify(out));
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
