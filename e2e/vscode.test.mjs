// End-to-end test of the gradguard extension in a real VS Code (code-server 4.100.3, VS Code 1.100)
// driven through Chromium. Run with `make e2e` (it builds the .vsix and installs the tools first).
//
// A trusted workspace: squiggles on the expected lines, the hover's explanation, a quick fix applied
// through the lightbulb menu, a notebook, and a setting that takes effect without a reload.
// An untrusted workspace: it still lints, and the interpreter named by its settings never runs.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { ARTIFACTS, E2E_DIR, REPO, Session, log, vsixPath, waitFor } from "./harness.mjs";
import { hoverSquiggle, lineText, openFile, problems, runCommand, squiggleBox, waitForSquiggles } from "./workbench.mjs";

const NOTEBOOK_CELLS = ".editor-group-container.active .notebook-editor .cell-editor-container .monaco-editor";

const USER_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.colorTheme": "Default Light Modern",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "git.enabled": false,
  "editor.hover.delay": 150,
  "editor.minimap.enabled": false,
  "editor.fontSize": 14,
  "files.autoSave": "off",
  "chat.disableAIFeatures": true,
  "notebook.lineNumbers": "on",
  "gradguard.trace.server": "verbose",
};

/** Runs `body`; on failure saves a screenshot named after `name` before rethrowing. */
async function withScreenshot(session, name, body) {
  try {
    return await body();
  } catch (err) {
    const file = await session.screenshot(`${name}-failure`);
    log(`failure screenshot: ${file}`);
    const html = await session.page
      ?.evaluate(() => document.querySelector(".editor-group-container.active")?.outerHTML ?? "")
      .catch(() => "");
    if (html) fs.writeFileSync(path.join(ARTIFACTS, `${session.name}-${name}-failure.html`), html);
    throw err;
  }
}

describe("gradguard in VS Code (trusted workspace)", () => {
  const session = new Session("trusted");
  let page;

  before(async () => {
    session.prepare({ ...USER_SETTINGS, "security.workspace.trust.enabled": false });
    session.installExtension(vsixPath());
    await session.startServer();
    page = await session.openBrowser();
  });

  after(async () => {
    await session.stop();
  });

  test("squiggles appear on the expected lines with no setup", async () => {
    await withScreenshot(session, "squiggles", async () => {
      await openFile(page, "graph_before_loop.py");
      // The first start creates the server's environment: a generous, bounded wait.
      await waitForSquiggles(page, [11], { timeoutMs: 180000 });
      await page.keyboard.press("Control+Shift+M");
      await waitFor(
        "the GG103 finding in the Problems panel",
        async () => (await problems(page)).some((row) => row.includes("GG103") && row.includes("[Ln 11, Col 22]")),
        30000,
      );
      await page.keyboard.press("Control+Shift+M"); // hide the panel again
    });
  });

  test("the hover explains the pitfall", async () => {
    await withScreenshot(session, "hover", async () => {
      const hover = await hoverSquiggle(page, 11, "GG103");
      const text = await hover.innerText();
      assert.match(text, /`?y`? was computed on line 8, before the loop/);
      assert.match(text, /At run time/);
      assert.match(text, /Trying to backward through the graph a second time/);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, "trusted-hover.png") });
      const target = process.env.GRADGUARD_README_SCREENSHOT;
      if (target) {
        // The editor with its hover, for the README.
        const editor = await page.locator(".editor-group-container.active").boundingBox();
        const box = await hover.boundingBox();
        const right = Math.min(1400, Math.max(editor.x + 900, box.x + box.width + 20));
        const bottom = Math.min(900, Math.max(box.y + box.height + 20, editor.y + 380));
        await page.screenshot({ path: target, clip: { x: editor.x, y: editor.y, width: right - editor.x, height: bottom - editor.y } });
        log(`README screenshot: ${target}`);
      }
      await page.mouse.move(5, 450);
      await page.keyboard.press("Escape");
    });
  });

  test("a quick fix from the lightbulb menu changes the file as expected", async () => {
    await withScreenshot(session, "quickfix", async () => {
      await openFile(page, "numpy_on_grad.py");
      await waitForSquiggles(page, [19], { timeoutMs: 60000 });
      const box = await squiggleBox(page, 19);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      const lightbulb = page.locator(".editor-group-container.active .lightBulbWidget");
      await lightbulb.first().waitFor({ state: "visible", timeout: 30000 });
      await lightbulb.first().click();
      const rows = page.locator(".action-widget .monaco-list-row.action");
      await rows.first().waitFor({ state: "visible", timeout: 15000 });
      const offered = await rows.evaluateAll((items) => items.map((item) => item.getAttribute("aria-label")));
      log(`quick fixes offered: ${JSON.stringify(offered)}`);
      const wanted = offered.findIndex((label) => label?.startsWith("gradguard (GG110)"));
      assert.ok(wanted >= 0, `no gradguard fix among ${JSON.stringify(offered)}`);
      // The menu takes keys (a click can land on its pointer guard while it opens): move the focus to
      // the fix, then apply it.
      const focused = page.locator(".action-widget .monaco-list-row.action.focused");
      await waitFor(
        "the fix to be focused in the menu",
        async () => {
          const label = await focused.getAttribute("aria-label", { timeout: 2000 });
          if (label === offered[wanted]) return true;
          await page.keyboard.press(offered.indexOf(label) > wanted ? "ArrowUp" : "ArrowDown");
          return false;
        },
        15000,
      );
      await page.keyboard.press("Enter");
      await waitFor("the fix in the editor", async () => (await lineText(page, 19))?.includes(".detach()"), 30000);
      await page.keyboard.press("Control+S");
      const file = path.join(session.workspace, "numpy_on_grad.py");
      const expected = fs.readFileSync(path.join(E2E_DIR, "fixtures", "expected", "numpy_on_grad.py"), "utf8");
      await waitFor("the saved file", () => fs.readFileSync(file, "utf8") === expected, 15000).catch(() => {
        assert.equal(fs.readFileSync(file, "utf8"), expected);
      });
      // The finding is gone once the fix is in.
      await waitForSquiggles(page, [], { timeoutMs: 30000 });
    });
  });

  test("a notebook gets squiggles and hovers in its cells", async () => {
    await withScreenshot(session, "notebook", async () => {
      await openFile(page, "notebook.ipynb");
      await page.locator(`${NOTEBOOK_CELLS} .view-lines`).first().waitFor({ state: "visible", timeout: 60000 });
      // Cell 4 (the third code cell), line 4: `head(feats)` reads the graph built in cell 3.
      const cell = `${NOTEBOOK_CELLS}`;
      await waitFor(
        "a squiggle in the notebook's loop cell",
        async () => (await page.locator(`${cell} .view-overlays .squiggly-error`).count()) > 0,
        60000,
      );
      const cellText = await page.evaluate((cell) => {
        for (const editor of document.querySelectorAll(cell)) {
          if (editor.querySelector(".view-overlays .squiggly-error")) {
            return editor.querySelector(".view-lines")?.textContent ?? "";
          }
        }
        return "";
      }, cell);
      assert.match(cellText, /for epoch in range\(3\)/);
      const hover = await hoverSquiggle(page, 4, "GG103", { root: cell });
      assert.match(await hover.innerText(), /`?feats`? was computed on line 1 of cell 3, before the loop/);
      await page.mouse.move(5, 450);
      await page.keyboard.press("Escape");
      await page.keyboard.press("Control+Shift+M");
      await waitFor(
        "the notebook's GG103 in the Problems panel",
        async () => (await problems(page)).some((row) => row.includes("GG103") && row.includes("feats") && row.includes("[Ln 4, Col 28]")),
        30000,
      );
      await page.keyboard.press("Control+Shift+M");
      await session.screenshot("notebook");
    });
  });

  test("a changed setting takes effect without reloading", async () => {
    await withScreenshot(session, "settings", async () => {
      const settingsFile = path.join(session.userData, "User", "settings.json");
      const original = fs.readFileSync(settingsFile, "utf8");
      await openFile(page, "graph_before_loop.py");
      await waitForSquiggles(page, [11], { timeoutMs: 30000 });
      fs.writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(original), "gradguard.ignore": ["GG103"] }, null, 2));
      await waitForSquiggles(page, [], { timeoutMs: 30000 });
      fs.writeFileSync(settingsFile, original);
      await waitForSquiggles(page, [11], { timeoutMs: 30000 });
    });
  });

  test("the command palette offers gradguard's commands", async () => {
    await withScreenshot(session, "commands", async () => {
      await runCommand(page, "gradguard: Show Log");
      await page
        .locator(".panel .monaco-editor .view-lines", { hasText: "Server running" })
        .first()
        .waitFor({ state: "visible", timeout: 30000 });
    });
  });
});

describe("gradguard in VS Code (untrusted workspace)", () => {
  const session = new Session("untrusted");
  let page;
  let marker;

  before(async () => {
    marker = path.join(session.root, "workspace-interpreter-ran");
    session.prepare(
      {
        ...USER_SETTINGS,
        "security.workspace.trust.enabled": true,
        "security.workspace.trust.startupPrompt": "never",
        "security.workspace.trust.banner": "always",
      },
      // A workspace that names its own "interpreter": running it would leave the marker file.
      { "gradguard.interpreter": ["/bin/sh", "-c", `touch '${marker}'; exec python3 "$@"`, "sh"] },
    );
    session.installExtension(vsixPath());
    await session.startServer();
    page = await session.openBrowser();
  });

  after(async () => {
    await session.stop();
  });

  test("still lints, without running the workspace's interpreter", async () => {
    await withScreenshot(session, "untrusted", async () => {
      await page.locator(".monaco-workbench", { hasText: "Restricted Mode" }).first().waitFor({ state: "visible", timeout: 60000 });
      await openFile(page, "graph_before_loop.py");
      await waitForSquiggles(page, [11], { timeoutMs: 180000 });
      assert.equal(fs.existsSync(marker), false, "the interpreter named by the untrusted workspace ran");
      await session.screenshot("untrusted");
    });
  });
});

// Let a failed `before` leave its output somewhere useful.
process.on("exit", () => {
  if (fs.existsSync(ARTIFACTS)) log(`artifacts in ${path.relative(REPO, ARTIFACTS)}/`);
});
