import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ALICE, CAROL, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

/**
 * Decision 006 in the browser: two testers edit one issue at once. Different fields merge; the same
 * field shows the second one the conflict view, where they choose per field and save.
 */
describe('editing one issue from two phones', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it('shows the second editor both values of a field changed by both, and saves the choice with their other edits', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Brake squeal', city: 'Munich', issueDescription: 'At 50 km/h' },
    });
    const id = created.body.data.id as number;

    const alice = await phone(browser);
    const carol = await phone(browser);
    await signIn(alice.page, server.url, ALICE.username, ALICE.password);
    await signIn(carol.page, server.url, CAROL.username, CAROL.password);
    for (const { page } of [alice, carol]) {
      await page.goto(`${server.url}/data/issue/${id}`);
      await page.getByRole('heading', { name: `Issue Record: ${id}` }).waitFor();
      await page.getByRole('button', { name: 'Edit' }).click();
    }
    // Alice changes the title and saves first.
    await alice.page.getByLabel('Title').fill('Brake squeal, front left');
    await alice.page.getByRole('button', { name: 'Save Changes' }).click();
    await alice.page.getByText('Issue record updated successfully').waitFor();

    // Carol, on the version she opened, changes the title too, and the city.
    await carol.page.getByLabel('Title').fill('Brake noise when cold');
    await carol.page.getByLabel('City').fill('Garching');
    await carol.page.getByRole('button', { name: 'Save Changes' }).click();
    const dialog = carol.page.getByRole('dialog', { name: 'Changed by someone else' });
    await dialog.waitFor();
    await expect.poll(() => dialog.getByText('alice changed this field since you opened the record').count()).toBe(1);
    await expect.poll(() => dialog.getByText('Brake squeal, front left').count()).toBe(1);
    await expect.poll(() => dialog.getByText('Brake noise when cold').count()).toBe(1);
    await snap(carol.page, 'issue-conflict');
    // She keeps Alice's title.
    await dialog.getByText('Theirs').click();
    await dialog.getByRole('button', { name: 'Save my choices' }).click();
    await carol.page.getByText('Issue record updated successfully').waitFor();
    // The record's sheet: its title heads it, other values are text labelled by their field.
    await expect.poll(() => carol.page.locator('.sheet-title').textContent()).toBe('Brake squeal, front left');
    expect(await carol.page.getByLabel('City').textContent()).toBe('Garching');

    const stored = (await server.request('GET', `/api/vtp/issueRecord/${id}`, { token })).body.data;
    expect(stored).toMatchObject({ issueTitle: 'Brake squeal, front left', city: 'Garching', issueDescription: 'At 50 km/h', version: 3 });
    await alice.context.close();
    await carol.context.close();
  });

  it('merges edits of different fields without asking', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Wiper judder', city: 'Ulm' } });
    const id = created.body.data.id as number;
    const { context, page } = await phone(browser);
    await signIn(page, server.url, CAROL.username, CAROL.password);
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    // Someone else changes the city meanwhile.
    expect((await server.request('PUT', '/api/vtp/issueRecord', { token, body: { id, version: 1, city: 'Augsburg' } })).status).toBe(200);
    await page.getByLabel('Title').fill('Wiper judder at 100 km/h');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Issue record updated successfully').waitFor();
    // The screen shows the merged record: her title and their city.
    await expect.poll(() => page.getByLabel('City').textContent()).toBe('Augsburg');
    expect((await server.request('GET', `/api/vtp/issueRecord/${id}`, { token })).body.data).toMatchObject({
      issueTitle: 'Wiper judder at 100 km/h',
      city: 'Augsburg',
    });
    await context.close();
  });
});
