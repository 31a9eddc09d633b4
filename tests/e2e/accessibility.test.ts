import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

// Every screen checked by axe-core (a checker we did not write) with the WCAG 2.x A and AA rules,
// at phone size, as a tester sees it: no serious or critical violation may remain.
// Run through the browser's debugging protocol, which the page's Content-Security-Policy does not
// govern (a <script> tag added to the page would be, rightly, refused).
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

async function violations(page: Page): Promise<string[]> {
  // Laid out at its full height, so that a field is not counted as too small to touch because the
  // fixed Save bar at the thumb covers it at one scroll position; sizes are the phone's (390 px).
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const before = page.viewportSize();
  await page.setViewportSize({ width: before?.width ?? 390, height: Math.max(before?.height ?? 844, height + 200) });
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } });
    return result.violations;
  });
  if (before) await page.setViewportSize(before);
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .slice(0, 5)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}

describe('accessibility of every screen (axe-core, WCAG 2 AA)', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let issueId = 0;
  let chargingId = 0;

  beforeAll(async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const today = new Date().toISOString().slice(0, 10);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueDate: `${today} 09:00:00`, issueTitle: 'Brake squeal', issueCategory: 'Brakes' },
    });
    issueId = created.body.data.id as number;
    const charging = await server.request('POST', '/api/vtp/chargingRecord', {
      token,
      body: { chargeDate: today, startChargeTime: `${today} 10:00:00`, vehicleStartSoc: 20, vehicleEndSoc: 80, temperature: -4 },
    });
    chargingId = charging.body.data.id as number;
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it('has no serious or critical violation on the sign-in page', async () => {
    const { context, page } = await phone(browser);
    try {
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Username').waitFor();
      expect(await violations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('has no serious or critical violation on the signed-in screens', async () => {
    const { context, page } = await phone(browser);
    try {
      await signIn(page, server.url, ALICE.username, ALICE.password);
      const screens: [string, string, () => Promise<unknown>][] = [
        ['/data', 'data', () => page.getByText('Total Data Summary').waitFor()],
        ['/dashboard', 'workspace', () => page.getByText('Record Data').first().waitFor()],
        ['/data/issue', 'issue-list', () => page.getByText('Brake squeal').waitFor()],
        [`/data/issue/${issueId}`, 'issue-view', () => page.getByRole('heading', { name: `Issue Record: ${issueId}` }).waitFor()],
        ['/data/poi/new', 'poi-new', () => page.getByRole('button', { name: 'Create Record' }).waitFor()],
        ['/data/issue/new', 'issue-new', () => page.getByRole('button', { name: 'Create Record' }).waitFor()],
        ['/data/charging/new', 'charging-new', () => page.getByRole('button', { name: 'Create Record' }).waitFor()],
        // The read-only sheet of a kind with sections, and a form with folding sections and two location pairs.
        [`/data/charging/${chargingId}`, 'charging-view', () => page.getByRole('heading', { name: `Charging Record: ${chargingId}` }).waitFor()],
        [
          '/data/drive/new',
          'drive-new',
          async () => {
            // Its folded 'Places' section opened, so its location controls are checked too: in the form,
            // not in the summary painted while the form loads, whose sections the form replaces folded.
            await page.locator('.record-form .rjsf').waitFor();
            await page.getByRole('button', { name: /^Places/ }).click();
            await page.getByRole('button', { name: 'Use my position (Start)' }).waitFor();
          },
        ],
        ['/data/drive', 'drive-list', () => page.getByRole('heading', { name: 'Drive Records' }).waitFor()],
        ['/vehicle', 'vehicle', () => page.getByText('Battery').first().waitFor()],
        ['/outbox', 'outbox', () => page.getByText('Nothing waiting').waitFor()],
        [
          '/profile',
          'profile',
          () =>
            page
              .getByRole('button', { name: /sign out/i })
              .first()
              .waitFor(),
        ],
      ];
      const all: string[] = [];
      for (const [path, name, ready] of screens) {
        await page.goto(`${server.url}${path}`);
        await ready();
        await snap(page, `a11y-${name}`);
        for (const v of await violations(page)) all.push(`${path}: ${v}`);
      }
      expect(all).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('has no serious or critical violation on the screens in Chinese, a phone whose language is Chinese', async () => {
    // The server draws the page and its shell in Chinese for this phone (docs/decisions/045), and the app starts in it.
    const { context, page } = await phone(browser, 'zh-CN');
    try {
      await page.goto(`${server.url}/login`);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
      await page.getByLabel('用户名').fill(ALICE.username);
      await page.getByLabel('密码', { exact: true }).fill(ALICE.password);
      expect(await violations(page)).toEqual([]);
      await page.getByRole('button', { name: '登录' }).click();
      await page.waitForURL('**/data');
      const screens: [string, () => Promise<unknown>][] = [
        ['/data', () => page.getByText('数据总计').first().waitFor()],
        ['/data/issue', () => page.getByText('Brake squeal').waitFor()],
        [`/data/issue/${issueId}`, () => page.getByRole('heading', { name: `问题记录：${issueId}` }).waitFor()],
        ['/data/issue/new', () => page.getByRole('button', { name: '创建记录' }).waitFor()],
        ['/outbox', () => page.getByText('没有待发送的内容').waitFor()],
      ];
      const found: string[] = [];
      for (const [path, ready] of screens) {
        await page.goto(`${server.url}${path}`);
        await ready();
        expect(await page.evaluate(() => document.documentElement.lang), path).toBe('zh-CN');
        for (const v of await violations(page)) found.push(`${path}: ${v}`);
      }
      expect(found).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
