import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ALICE } from '../helpers/server.js';
import { useServedIssue, signIn, snap, watchCsp } from './browser.js';

/**
 * The first minutes on a small phone (320x640, touch): what the server answers a plain request,
 * sign-in errors a screen reader hears and a person can read, real counts beside labelled samples,
 * rows that look tappable only when they are, targets of 44 px and a focus ring that shows.
 */

/** WCAG contrast of an rgb() colour against white. */
function contrastOnWhite(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (l + 0.05);
}

describe('a small phone', () => {
  const world = useServedIssue({ issueTitle: 'Counted', issueDate: '2026-11-20 00:00:00' });

  async function small(locale = 'en-GB'): Promise<Page> {
    const context = await world.browser.newContext({ viewport: { width: 320, height: 640 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale });
    const page = await context.newPage();
    watchCsp(page);
    return page;
  }

  it('answers a request for / that is not a browser with the app, not a 404', async () => {
    const res = await fetch(`${world.server.url}/`, { headers: { accept: '*/*' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('ties sign-in errors to their fields at 4.5:1 and moves focus to where the tester must act', async () => {
    const page = await small();
    await page.goto(`${world.server.url}/login`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('username');
    const described = await page.locator('#username').getAttribute('aria-describedby');
    const error = page.locator(`#${described}`);
    expect(await error.textContent()).toMatch(/required/i);
    expect(contrastOnWhite(await error.evaluate((e) => getComputedStyle(e).color))).toBeGreaterThanOrEqual(4.5);
    await page.getByLabel('Username').fill(ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('password');
    const refusal = await page.locator('#password').getAttribute('aria-describedby');
    expect(refusal).toBe('signin-error');
    expect((await page.locator('#signin-error').textContent())?.length).toBeGreaterThan(0);
    // The field with focus shows it: a ring of 3:1 or more against the white card.
    const style = await page.locator('#password').evaluate((e) => ({ color: getComputedStyle(e).outlineColor, width: getComputedStyle(e).outlineWidth }));
    expect(parseFloat(style.width)).toBeGreaterThanOrEqual(2);
    expect(contrastOnWhite(style.color)).toBeGreaterThanOrEqual(3);
    await snap(page, 'small-sign-in-refused');
    await page.context().close();
  });

  it('shows real record counts beside labelled samples, no arrow on rows that do nothing, and 44 px targets', async () => {
    for (const locale of ['en-GB', 'zh-CN']) {
      const page = await small(locale);
      if (locale === 'en-GB') await signIn(page, world.server.url, ALICE.username, ALICE.password);
      else {
        await page.goto(`${world.server.url}/login`);
        await page.getByLabel('用户名').fill(ALICE.username);
        await page.getByLabel('密码', { exact: true }).fill(ALICE.password);
        await page.getByRole('button', { name: '登录' }).click();
        await page.waitForURL('**/data');
      }
      await page.goto(`${world.server.url}/dashboard`);
      await page.getByTestId('vehicle-sample').waitFor();
      const link = await page.locator('.vehicle-summary').boundingBox();
      expect(link?.height).toBeGreaterThanOrEqual(44);
      // Nothing cut off at 320 px: every button's text fits in it.
      const cut = await page.evaluate(() =>
        [...document.querySelectorAll('button')].filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent),
      );
      expect(cut).toEqual([]);
      await snap(page, `small-workspace-${locale}`);
      await page.goto(`${world.server.url}/vehicle`);
      await expect.poll(() => page.getByTestId('vehicle-issueCount').textContent()).toBe('1');
      await snap(page, `small-vehicle-${locale}`);
      await page.goto(`${world.server.url}/profile`);
      await page.locator('.settings-row').first().waitFor();
      expect(await page.locator('.settings-row .pi-angle-right').count()).toBe(0);
      await snap(page, `small-profile-${locale}`);
      // The recording's name box says all of its hint at 320 px.
      await page.goto(`${world.server.url}/data/issue/${world.issue.id}`);
      await page.getByRole('button', { name: locale === 'en-GB' ? 'Edit' : '编辑' }).click();
      await page.getByLabel(locale === 'en-GB' ? 'Recording name' : '录音名称', { exact: true }).waitFor();
      const fits = await page.evaluate(() => {
        const input = [...document.querySelectorAll<HTMLInputElement>('input[aria-label][placeholder]')].find((i) =>
          /^(Recording name|录音名称)$/.test(i.getAttribute('aria-label') ?? ''),
        );
        if (!input) return null;
        const style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return context.measureText(input.placeholder).width <= room;
      });
      expect(fits).toBe(true);
      await snap(page, `small-issue-edit-${locale}`);
      await page.context().close();
    }
  });
});
