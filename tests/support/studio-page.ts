/// <reference lib="dom" />
/**
 * Pages of `mime studio` in a real browser: playwright-core driving the system's Chromium (no browser
 * download), launched once for the file. `onStudioPage` starts `mime studio` on a home, opens the URL
 * it printed and, after the test's use of the page, closes it and checks the studio exits 0.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
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

/** Waits until the page's status line says `text`. */
export const statusSays = (page: Page, text: string) =>
  page.getByRole('status').filter({ hasText: text }).waitFor();

/** Saves the workflow the page shows and waits until it says so. */
export async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Save' }).click();
  await statusSays(page, 'Saved.');
}
