// GraphiQL offline: Debian's chromium, headless, opens the console with every request that
// is not to the service blocked, runs a query in it and keeps a screenshot in test-artifacts/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { createServer } from "../../src/server.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";
import { listen } from "../otlp/helpers.js";

const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let app: App;
let service: Awaited<ReturnType<typeof listen>>;
let browser: Browser;
beforeAll(async () => {
  app = createTestApp();
  service = await listen(createServer(app) as never);
  // scripts/setup.ts --test installs Debian's chromium.
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: FLAGS, headless: true });
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await app?.close();
});

describe("GraphiQL without internet", () => {
  it("loads from the service alone, runs a query and shows the answer", async () => {
    const ws = await createTestWorkspace(app, "graphiql");
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const blocked: string[] = [];
    const served: string[] = [];
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      if (!url.startsWith(`${service.url}/`)) {
        blocked.push(url);
        return route.abort("internetdisconnected");
      }
      served.push(url);
      return route.continue();
    });
    const page = await context.newPage();
    const response = await page.goto(`${service.url}/`, { waitUntil: "load" });
    expect(response!.url()).toBe(`${service.url}/graphql`); // GET / redirects to the console
    expect(response!.status()).toBe(200);
    // The default query of the console asks for the caller's workspace; run it.
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor({ state: "visible", timeout: 30_000 });
    await expect.poll(() => page.locator(".graphiql-query-editor").innerText(), { timeout: 30_000 }).toContain("viewer");
    // The API key goes in the Headers tab, as a user would type it.
    await page.getByText("Headers", { exact: true }).click();
    await page.locator(".graphiql-editor-tool .graphiql-editor:visible").click();
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${ws.secret}` }));
    await run.click();
    await expect.poll(() => page.locator(".graphiql-response").innerText(), { timeout: 30_000 }).toContain(ws.workspace.name);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "graphiql-offline.png") });
    expect(blocked).toEqual([]); // nothing outside the service was even asked for
    expect(served.some((url) => url.endsWith("/graphql"))).toBe(true);
    await context.close();
  });
});
