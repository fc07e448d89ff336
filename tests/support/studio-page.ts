/// <reference lib="dom" />
/**
 * Pages of `mime studio` in a real browser: playwright-core driving the system's Chromium (no browser
 * download), launched once for the file. `onStudioPage` starts `mime studio` on a home, opens the URL
 * it printed and, after the test's use of the page, closes it and checks the studio exits 0.
 */
import { type Browser, chromium, type Locator, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { type RunningMime, startMime } from './run-mime.ts';

export interface StudioBrowser {
  /** `mime studio` on `home`, and a page that opened the URL it printed. */
  openStudio(home: string, env?: NodeJS.ProcessEnv): Promise<{ studio: RunningMime; page: Page }>;
  /** Runs `use` on a page of `mime studio` on `home`; closes both after it (the studio exits 0). */
  onStudioPage(home: string, use: (page: Page) => Promise<void>, env?: NodeJS.ProcessEnv): Promise<void>;
}

export function useStudioBrowser(): StudioBrowser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  const openStudio = async (home: string, env?: NodeJS.ProcessEnv) => {
    if (!browser) throw new Error('the browser is not started (use it inside a test)');
    const studio = startMime(['studio', '--home', home], { env });
    const url = await studio.waitForStdoutLine();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{40,}$/);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const trail: string[] = [];
    const pending = new Map<Request, number>();
    trails.set(page, { trail, pending });
    page.on('request', (request) => pending.set(request, Date.now()));
    page.on('requestfinished', (request) => pending.delete(request));
    page.on('pageerror', (error) => trail.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      pending.delete(request);
      trail.push(`${request.method()} ${request.url()} failed`);
    });
    // The API's answers, in order (frames and assets left out).
    page.on('response', (response) => {
      const { pathname } = new URL(response.url());
      if (pathname.startsWith('/api/') && !pathname.endsWith('/file'))
        trail.push(`${response.request().method()} ${pathname}: ${response.status()}`);
    });
    // What the page's script was handed: each click (on what) and each form sent.
    await page.addInitScript(() => {
      const what = (node: EventTarget | null) =>
        node instanceof Element ? `${node.localName}${node.id ? `#${node.id}` : ''}` : String(node);
      for (const type of ['click', 'submit'])
        document.addEventListener(
          type,
          // biome-ignore lint/suspicious/noConsole: the page tells the test through its console
          (event) => console.debug(`mime-test: ${type} ${what(event.target)}`),
          true,
        );
    });
    page.on('console', (message) => {
      if (message.text().startsWith('mime-test: ')) trail.push(message.text().slice(11));
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) trail.push(`shown ${new URL(frame.url()).hash || '/'}`);
    });
    await page.goto(url);
    return { studio, page };
  };
  return {
    openStudio,
    async onStudioPage(home, use, env) {
      const { studio, page } = await openStudio(home, env);
      try {
        await use(page);
      } finally {
        await page.close();
        studio.kill('SIGTERM');
        expect((await studio.done).exitCode).toBe(0);
      }
    },
  };
}

/** What happened on each studio page (the API's answers, pages shown, script errors, requests failed), for errors. */
const trails = new WeakMap<Page, { trail: string[]; pending: Map<Request, number> }>();

/**
 * Waits until the page's status line says `text`; else fails saying what it says, and what went wrong
 * on the page.
 */
export async function statusSays(page: Page, text: string): Promise<void> {
  const status = page.getByRole('status');
  try {
    await status.filter({ hasText: text }).waitFor();
  } catch (error) {
    const says = await status.allTextContents().catch(() => []);
    const { trail = [], pending = new Map() } = trails.get(page) ?? {};
    const open = [...pending].map(
      ([r, at]) => `${r.method()} ${new URL(r.url()).pathname} for ${Date.now() - at} ms`,
    );
    throw new Error(
      `the status did not say ${JSON.stringify(text)}: it says ${JSON.stringify(says)}; on the page: ${trail.join('; ')}; requests not answered: ${open.join(', ') || 'none'}`,
      { cause: error },
    );
  }
}

/** Saves the workflow the page shows and waits until it says so. */
export async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Save' }).click();
  await statusSays(page, 'Saved.');
}

/** Holds the page's requests to `url` (a glob) unanswered until the returned function is called. */
export async function holdRequests(page: Page, url: string): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * Checks that `pictures`, whose requests are held (`holdRequests`) until `release`, hold their place
 * before their pixels come: each has a height, `below` does not move as they load, and each shows in
 * its own shape once loaded. Resolves how many pictures there were.
 */
export async function expectPlaceKept(
  pictures: Locator,
  below: Locator,
  release: () => void,
): Promise<number> {
  const held = await pictures.evaluateAll((images) => images.map((i) => i.getBoundingClientRect().height));
  for (const height of held) expect(height).toBeGreaterThan(0);
  const placed = await below.boundingBox();
  release();
  await expect
    .poll(
      () =>
        pictures.evaluateAll((images) =>
          (images as HTMLImageElement[]).every((i) => i.complete && i.naturalWidth > 0),
        ),
      { timeout: 30_000 },
    )
    .toBe(true);
  expect(await below.boundingBox()).toEqual(placed);
  const shapes = await pictures.evaluateAll((images) =>
    (images as HTMLImageElement[]).map((i) =>
      Math.abs(i.clientHeight - (i.clientWidth * i.naturalHeight) / i.naturalWidth),
    ),
  );
  for (const off of shapes) expect(off).toBeLessThan(1);
  return held.length;
}
