// Page helpers for the VS Code workbench (1.100, as code-server serves it). Every wait is on a DOM
// state with a bounded timeout; nothing sleeps to synchronise.
import { log, waitFor } from "./harness.mjs";

const EDITOR = ".editor-group-container.active .monaco-editor";

/** Opens a workspace file from the Explorer and waits for its tab to be the active one. */
export async function openFile(page, name) {
  await page.keyboard.press("Escape");
  const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
  await row.waitFor({ state: "visible", timeout: 30000 });
  await row.dblclick();
  await page
    .locator(".tabs-container .tab.active", { hasText: name })
    .waitFor({ state: "visible", timeout: 30000 });
}

/**
 * The 1-based line numbers carrying a squiggle of `kind` ("error", "warning", ...) in the editors
 * matched by `root` (the active text editor, or the cell editors of a notebook).
 */
export async function squiggleLines(page, root = EDITOR, kind = "error") {
  return page.evaluate(
    ({ root, kind }) => {
      const result = [];
      for (const editor of document.querySelectorAll(root)) {
        const tops = new Map();
        for (const line of editor.querySelectorAll(".margin-view-overlays > div")) {
          const number = line.querySelector(".line-numbers")?.textContent?.trim();
          if (number) tops.set(line.style.top, Number(number));
        }
        for (const squiggle of editor.querySelectorAll(`.view-overlays .squiggly-${kind}`)) {
          const top = squiggle.parentElement?.style.top;
          if (tops.has(top)) result.push(tops.get(top));
        }
      }
      return [...new Set(result)].sort((a, b) => a - b);
    },
    { root, kind },
  );
}

export async function waitForSquiggles(page, expected, { root = EDITOR, kind = "error", timeoutMs = 120000 } = {}) {
  const want = JSON.stringify(expected);
  let last = [];
  await waitFor(
    `squiggles on lines ${want}`,
    async () => {
      last = await squiggleLines(page, root, kind);
      return JSON.stringify(last) === want;
    },
    timeoutMs,
  ).catch((err) => {
    throw new Error(`${err.message}; squiggles are on lines ${JSON.stringify(last)}`);
  });
}

/** The squiggle's box on `line` (1-based) of the editor(s) under `root`. */
export async function squiggleBox(page, line, root = EDITOR, kind = "error") {
  return page.evaluate(
    ({ line, root, kind }) => {
      for (const editor of document.querySelectorAll(root)) {
        let top;
        for (const row of editor.querySelectorAll(".margin-view-overlays > div")) {
          if (row.querySelector(".line-numbers")?.textContent?.trim() === String(line)) top = row.style.top;
        }
        for (const squiggle of editor.querySelectorAll(`.view-overlays .squiggly-${kind}`)) {
          if (top !== undefined && squiggle.parentElement?.style.top === top) {
            const box = squiggle.getBoundingClientRect();
            return { x: box.x, y: box.y, width: box.width, height: box.height };
          }
        }
      }
      return undefined;
    },
    { line, root, kind },
  );
}

/**
 * Hovers the squiggle on `line` until the hover shows `text`. The first hover after an editor opens
 * is known to be racy (the hover service may not be ready), so this moves away and back, a bounded
 * number of times.
 */
export async function hoverSquiggle(page, line, text, { root = EDITOR, attempts = 5 } = {}) {
  const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: text });
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const box = await squiggleBox(page, line, root);
    if (box === undefined) throw new Error(`no squiggle on line ${line}`);
    await page.mouse.move(5, 450);
    await page.mouse.move(box.x + Math.max(2, box.width / 2), box.y + box.height / 2, { steps: 4 });
    try {
      await hover.first().waitFor({ state: "visible", timeout: 5000 });
      return hover.first();
    } catch (err) {
      log(`hover attempt ${attempt} on line ${line} showed no "${text}"`);
      if (attempt === attempts) throw err;
    }
  }
  throw new Error("unreachable");
}

// Runs in the page: the text of a line as the editor shows it (spaces normalised).
function lineTextInPage({ line, root }) {
  const editor = document.querySelector(root);
  if (!editor) return undefined;
  let top;
  for (const row of editor.querySelectorAll(".margin-view-overlays > div")) {
    if (row.querySelector(".line-numbers")?.textContent?.trim() === String(line)) top = row.style.top;
  }
  for (const view of editor.querySelectorAll(".view-lines > .view-line")) {
    if (view.style.top === top) return view.textContent.replace(/\u00a0/g, " ");
  }
  return undefined;
}

/** The text of line `line` as the editor shows it (spaces normalised). */
export async function lineText(page, line, root = EDITOR) {
  return page.evaluate(lineTextInPage, { line, root });
}

/** Runs a command from the Command Palette by its title. */
export async function runCommand(page, title) {
  const input = page.locator(".quick-input-widget input");
  await waitFor(
    "the Command Palette",
    async () => {
      if (!(await input.isVisible())) await page.keyboard.press("Control+Shift+P");
      return input.isVisible();
    },
    15000,
    500,
  );
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ state: "visible", timeout: 15000 });
  await input.press("Enter");
}

/** The rows of the Problems panel, as text. */
export async function problems(page) {
  return page.locator(".markers-panel .monaco-list-row").allInnerTexts();
}

/**
 * In the page: the lines carrying a squiggle, by kind, in the editor(s) under `root`, as JSON
 * (`{"error":[..],"warning":[..],"info":[..]}`). Only the lines the editor draws (those in view).
 */
function squiggleStateInPage(root) {
  const state = { error: new Set(), warning: new Set(), info: new Set() };
  for (const editor of document.querySelectorAll(root)) {
    const tops = new Map();
    for (const line of editor.querySelectorAll(".margin-view-overlays > div")) {
      const number = line.querySelector(".line-numbers")?.textContent?.trim();
      if (number) tops.set(line.style.top, Number(number));
    }
    for (const kind of Object.keys(state)) {
      for (const squiggle of editor.querySelectorAll(`.view-overlays .squiggly-${kind}`)) {
        const top = squiggle.parentElement?.style.top;
        if (tops.has(top)) state[kind].add(tops.get(top));
      }
    }
  }
  return JSON.stringify(Object.fromEntries(Object.entries(state).map(([kind, lines]) => [kind, [...lines].sort((a, b) => a - b)])));
}

function squiggleStateJson(expected) {
  const sorted = (lines) => [...(lines ?? [])].sort((a, b) => a - b);
  return JSON.stringify({ error: sorted(expected.error), warning: sorted(expected.warning), info: sorted(expected.info) });
}

/** The lines in view carrying an error, warning or info squiggle: `{ error, warning, info }`. */
export async function squiggleState(page, root = EDITOR) {
  return JSON.parse(await page.evaluate(squiggleStateInPage, root));
}

/**
 * Waits until the squiggles in view are exactly `expected` (`{ error, warning, info }`, missing kinds
 * empty), checking every 10 ms in the page so that the time it returns at is close to the change's.
 * Throws after timeoutMs, naming `what` and the squiggles there are.
 */
/**
 * Waits until line `line` reads `text` and the squiggles in view are `expected`, and both still hold
 * `stableMs` later (while the editor re-renders after an edit, its decorations can pass through a
 * state for a moment). Returns `performance.now()` of the first moment they held.
 */
export async function waitForEdit(page, expected, line, text, { root = EDITOR, timeoutMs = 30000, stableMs = 300, what = "the edit" } = {}) {
  const want = JSON.stringify(squiggleStateJson(expected));
  const both = `(${squiggleStateInPage})(${JSON.stringify(root)}) === ${want} && (${lineTextInPage})(${JSON.stringify({ line, root })}) === ${JSON.stringify(text)}`;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = deadline - performance.now();
    try {
      await page.waitForFunction(both, undefined, { polling: 10, timeout: Math.max(1, left) });
    } catch (err) {
      const now = await page.evaluate(squiggleStateInPage, root).catch(() => "unknown");
      const shown = await lineText(page, line, root).catch(() => "unknown");
      throw new Error(`${what}: line ${line} ${JSON.stringify(text)} with squiggles ${want} did not appear within ${timeoutMs} ms; line ${line} reads ${JSON.stringify(shown)} and the squiggles are ${now} (${err.message.split("\n")[0]})`);
    }
    const at = performance.now();
    await page.waitForTimeout(stableMs);
    if (await page.evaluate(both)) return at;
  }
}

export async function waitForSquiggleState(page, expected, { root = EDITOR, timeoutMs = 30000, what = "the squiggles" } = {}) {
  const want = squiggleStateJson(expected);
  try {
    await page.waitForFunction(`(${squiggleStateInPage})(${JSON.stringify(root)}) === ${JSON.stringify(want)}`, undefined, {
      polling: 10,
      timeout: timeoutMs,
    });
  } catch (err) {
    const now = await page.evaluate(squiggleStateInPage, root).catch(() => "unknown");
    throw new Error(`${what}: squiggles ${want} did not appear within ${timeoutMs} ms; they are ${now} (${err.message.split("\n")[0]})`);
  }
}
