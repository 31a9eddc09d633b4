import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ALICE } from '../helpers/server.js';
import { useServedIssue, snap, watchCsp } from './browser.js';

/**
 * The edit form on a small phone (issue 44, items 4 and 6; decision 078): at 320x640 at least six
 * fields show between the header and the save bar, a date field's hint is whole, the choices are in
 * the language on screen, and a new record's button says what it does; 390x844 for the pictures.
 */

const SIZES = [
  { width: 320, height: 640 },
  { width: 390, height: 844 },
];
const WORDS = {
  'en-GB': {
    user: 'Username',
    password: 'Password',
    signIn: 'Sign in',
    edit: 'Edit',
    create: 'Create Record',
    category: 'Brakes',
    poiType: 'POI Type',
    search: '隧道',
    found: 'Tunnel',
  },
  'zh-CN': {
    user: '用户名',
    password: '密码',
    signIn: '登录',
    edit: '编辑',
    create: '创建记录',
    category: '制动',
    poiType: 'POI 类型',
    search: 'tunnel',
    found: '隧道',
  },
} as const;
type Locale = keyof typeof WORDS;

describe('the edit form on a small phone', () => {
  const world = useServedIssue({ issueTitle: 'Brake squeal', issueDate: '2026-11-20 00:00:00', issueCategory: 'Brakes', issueSeverity: 'A' });

  async function signedIn(locale: Locale, size: { width: number; height: number }): Promise<Page> {
    const context = await world.browser.newContext({ viewport: size, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale });
    const page = await context.newPage();
    watchCsp(page);
    const w = WORDS[locale];
    await page.goto(`${world.server.url}/login`);
    await page.getByLabel(w.user).fill(ALICE.username);
    await page.getByLabel(w.password, { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: w.signIn }).click();
    await page.waitForURL('**/data');
    return page;
  }

  /** The form's fields wholly on screen between the page's header and the save bar, with the form's first field at the top. */
  async function fieldsOnScreen(page: Page): Promise<number> {
    return page.evaluate(() => {
      const fields = [...document.querySelectorAll<HTMLElement>('.record-form .rjsf .rjsf-field:not(.rjsf-field-object)')].filter((f) => f.offsetHeight > 0);
      const header = document.querySelector('.page-header')?.getBoundingClientRect().bottom ?? 0;
      fields[0]?.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -header);
      const bar = document.querySelector('.edit-bar')?.getBoundingClientRect().top ?? window.innerHeight;
      return fields.filter((f) => {
        const r = f.getBoundingClientRect();
        return r.top >= header - 1 && r.bottom <= bar + 1;
      }).length;
    });
  }

  /** Date fields whose hint (the contract's format, as a placeholder) is wider than their box. */
  async function cutHints(page: Page): Promise<string[]> {
    return page.evaluate(() => {
      const ctx = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
      return [...document.querySelectorAll<HTMLInputElement>('.date-text > input[placeholder]')]
        .filter((input) => {
          const style = getComputedStyle(input, '::placeholder');
          ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return ctx.measureText(input.placeholder).width > room + 0.5;
        })
        .map((input) => input.id);
    });
  }

  for (const locale of Object.keys(WORDS) as Locale[]) {
    it(`shows six fields or more at 320x640, whole date hints and choices in the language (${locale})`, async () => {
      const w = WORDS[locale];
      for (const size of SIZES) {
        const page = await signedIn(locale, size);
        await page.goto(`${world.server.url}/data/issue/${world.issue.id}`);
        await page.getByRole('button', { name: w.edit, exact: true }).click();
        await page.locator('.edit-bar').waitFor();
        await page.locator('.record-form .rjsf').waitFor();
        // The stored 'Brakes' reads in the language on screen.
        await expect.poll(() => page.locator('.p-dropdown', { has: page.locator('#root_issueCategory') }).textContent()).toContain(w.category);
        const shown = await fieldsOnScreen(page);
        await snap(page, `g-edit-${size.width}-${locale}`);
        if (size.width === 320) expect(shown, `fields between the header and the save bar at ${size.width}x${size.height}`).toBeGreaterThanOrEqual(6);
        await page.goto(`${world.server.url}/data/issue/new`);
        await page.getByRole('button', { name: w.create }).waitFor();
        expect(await cutHints(page), `date hints cut off at ${size.width} px`).toEqual([]);
        await snap(page, `g-new-${size.width}-${locale}`);
        // The POI types in the language on screen, found by a word in the other one too.
        await page.goto(`${world.server.url}/data/poi/new`);
        await page.getByRole('button', { name: w.poiType }).click();
        await page.locator('.p-dropdown-filter').fill(w.search);
        await expect.poll(() => page.locator('.p-dropdown-item').allTextContents()).toEqual([w.found]);
        await snap(page, `g-poi-types-${size.width}-${locale}`);
        await page.context().close();
      }
    });
  }
});
