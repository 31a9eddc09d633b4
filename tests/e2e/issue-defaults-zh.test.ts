import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ALICE, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { launch, phone, snap } from './browser.js';

/** A new issue on a Chinese phone (decision 080): its defaults show in Chinese and the record stores the programme's values. */
describe('a new issue on a Chinese phone', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ name: 'sqlite' }, { CLIENT_DIR: inject('clientDir') });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (server) expectNoServerErrors([server]);
  });

  it('shows 英国, 城市 and 晴 and stores UK, City and Sunny', async () => {
    const { context, page } = await phone(browser, 'zh-CN');
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill(ALICE.username);
    await page.getByLabel('密码', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL('**/data');
    await page.goto(`${server.url}/data/issue/new`);
    const picked = (field: string) => page.locator('.p-dropdown', { has: page.locator(`#root_${field}`) });
    await expect.poll(() => picked('country').innerText()).toContain('英国');
    expect(await picked('workingCondition').innerText()).toContain('城市');
    expect(await picked('weather').innerText()).toContain('晴');
    fs.mkdirSync('/tmp/shots-j', { recursive: true });
    for (const field of ['country', 'weather']) {
      await picked(field).evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await snap(page, `issue-defaults-zh-${field}`);
      await page.screenshot({ path: `/tmp/shots-j/issue-defaults-zh-${field}.png` });
    }
    await page.locator('#root_issueTitle').fill('默认值');
    await page.getByRole('button', { name: '创建记录' }).click();
    await page.waitForURL(/\/data\/issue\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const token = await server.login(ALICE.username, ALICE.password);
    const stored = await server.request('GET', `/api/vtp/issueRecord/${id}`, { token });
    expect(stored.body.data).toMatchObject({ country: 'UK', workingCondition: 'City', weather: 'Sunny' });
    await context.close();
  });
});
