import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSchemasPreview, type SchemasPreview } from '../../scripts/lib/schemas-preview.js';
import { launch, phone, snap } from './browser.js';

// `npm run schemas:preview`: Vite's dev server on a copy of schemas/, in this process, and the
// page in Chromium at phone size. Every screen is drawn from the real components with sample
// values; saving a file updates the page, and a file the server would refuse shows its problems.

const ROOT = path.resolve(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

let dir: string;
let preview: SchemasPreview;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let original: string;
/** Requests the page made to the app's API paths: there must be none. */
const serverCalls: string[] = [];

const issueFile = (): string => path.join(dir, 'issue.schema.json');
const section = (name: string) => page.getByTestId(`preview-${name}`);
/** Opens the preview at a kind and screen, as a fresh page load. */
async function open(hash: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      // A goto that changes only the hash would not load the page again.
      await page.goto('about:blank');
      await page.goto(`${preview.url}${hash}`);
      return;
    } catch (e) {
      // A reload for a file saved by the test before (an editor's save can be two events) cut it short.
      if (tries === 3) throw e;
      console.warn(`Opening the preview again: ${(e as Error).message.split('\n')[0]}`);
    }
  }
}
const today = (): string => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-preview-test-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas'))) if (f.endsWith('.schema.json')) fs.copyFileSync(path.join(ROOT, 'schemas', f), path.join(dir, f));
  original = fs.readFileSync(issueFile(), 'utf8');
  preview = await startSchemasPreview({ dir, port: await freePort(), strictPort: true, host: '127.0.0.1', logLevel: 'warn' });
  browser = await launch();
  ({ context, page } = await phone(browser));
  page.on('request', (r) => {
    if (/^\/(api|sharepoint|download)(\/|$)/.test(new URL(r.url()).pathname)) serverCalls.push(r.url());
  });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await preview?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run schemas:preview', () => {
  it("draws the issue kind's list card, view, new and edit forms with sample values", async () => {
    await open('#issue/card');
    const cards = page.getByTestId('record-cards');
    // The first load waits for Vite to bundle the dependencies.
    await expect.poll(() => cards.innerText(), { timeout: 60_000 }).toContain('Sample Title');
    const cardText = await cards.innerText();
    expect(cardText).toContain('1024');
    // Category is a choice (decision 078): its sample is the first choice, shown by its label.
    expect(cardText).toContain('Category:\nBrakes');
    // The second card has no values: the schema's fallbacks.
    expect(cardText).toContain('Untitled Issue');
    expect(cardText).toContain('No description');
    await expect.poll(() => page.getByRole('link', { name: 'issue' }).getAttribute('aria-current')).toBe('page');
    await snap(page, 'schemas-preview-card');

    await page.getByRole('link', { name: 'View', exact: true }).click();
    await expect.poll(() => section('view').getByRole('heading', { level: 1 }).innerText()).toBe('Issue Record: 1024');
    const view = section('view');
    expect(await view.getByTestId('record-summary').count()).toBe(1);
    expect(await view.getByLabel('Title', { exact: true }).inputValue()).toBe('Sample Title');
    expect(await view.getByLabel('Fault Mileage (km)').inputValue()).toBe('0');
    expect(await view.getByLabel('Longitude', { exact: true }).inputValue()).toBe('36');
    expect(await view.locator('#root_issueStartTime').inputValue()).toMatch(new RegExp(`^${today()} \\d\\d:\\d\\d:\\d\\d$`));
    expect(await view.locator('#root_isOverseasSpecific').inputValue()).toBe('No');
    // Hidden fields stay hidden, as in the app.
    expect(await view.getByText('Related Files').count()).toBe(0);
    await snap(page, 'schemas-preview-view');

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    const edit = section('edit');
    await expect.poll(() => edit.locator('#root_issueTitle').inputValue()).toBe('Sample Title');
    expect(await edit.locator('#root_issueTitle').isEditable()).toBe(true);
    expect(await edit.locator('#root_id').inputValue()).toBe('1024');
    expect(await edit.getByText('Fault Mileage (km)').count()).toBe(1);
    await edit.locator('#root_issueTitle').fill('Brake squeal');
    expect(await edit.locator('#root_issueTitle').inputValue()).toBe('Brake squeal');

    await page.getByRole('link', { name: 'New', exact: true }).click();
    const created = section('new');
    await expect.poll(() => created.getByRole('heading', { level: 1 }).innerText()).toBe('New Issue Record');
    expect(await created.locator('#root_issueTitle').inputValue()).toBe('Sample Title');
    // x-default now: the start time is now, in the contract's format; a new record has no id field.
    expect(await created.locator('#root_issueStartTime').inputValue()).toMatch(new RegExp(`^${today()} \\d\\d:\\d\\d:\\d\\d$`));
    expect(await created.locator('#root_id').getAttribute('type')).toBe('hidden');
    expect(await created.getByText('ID', { exact: true }).count()).toBe(0);
    await snap(page, 'schemas-preview-new');
    // What a new record starts with: defaults only.
    await created.getByLabel('Only what a new record starts with').check();
    await expect.poll(() => created.locator('#root_issueTitle').inputValue()).toBe('');
    // A choice since decision 080: its picker shows the default.
    expect(await created.locator('.p-dropdown', { has: page.locator('#root_country') }).innerText()).toContain('UK');

    expect(serverCalls).toEqual([]);
  });

  it('updates the page when a schema file is saved', async () => {
    await open('#issue/view');
    await expect.poll(() => section('view').getByLabel('Title', { exact: true }).count()).toBe(1);
    fs.writeFileSync(issueFile(), original.replace('"title": "Title"', '"title": "Headline"'));
    await expect.poll(() => section('view').getByLabel('Headline', { exact: true }).inputValue(), { timeout: 20_000 }).toBe('Sample Headline');
    expect(new URL(page.url()).hash).toBe('#issue/view');

    // A new kind appears as its file is added.
    fs.copyFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), path.join(dir, 'refuel.schema.json'));
    await expect.poll(() => page.getByRole('link', { name: 'refuel' }).count(), { timeout: 20_000 }).toBe(1);
    fs.rmSync(path.join(dir, 'refuel.schema.json'));
    // Counted on the page drawn again, not on the blank page of the reload.
    const chips = page.getByRole('navigation', { name: 'Kinds' }).getByRole('link');
    await expect.poll(() => chips.allInnerTexts(), { timeout: 20_000 }).toEqual(['charging', 'drive', 'issue', 'poi']);
    expect(serverCalls).toEqual([]);
  });

  it('shows the problems of a file the server would refuse, and recovers when it is fixed', async () => {
    await open('#issue/view');
    await expect.poll(() => section('view').count()).toBe(1);
    const box = page.getByRole('alert', { name: 'Problems in issue.schema.json' });

    fs.writeFileSync(issueFile(), original.replace('"title": "Issue Record",', '"title": "Issue Record"'));
    await expect.poll(() => box.innerText(), { timeout: 20_000 }).toContain('is not valid JSON');
    expect(await box.innerText()).toMatch(/line 5, column \d+/);
    expect(await box.innerText()).toContain(issueFile());
    await snap(page, 'schemas-preview-problem');

    // Valid JSON, refused by the meta-check: an unknown keyword and a card line naming no property.
    fs.writeFileSync(
      issueFile(),
      original.replace('"maxLength": 500 }', '"maxLength": 500, "x-widget": "big" }').replace('"field": "issueCategory"', '"field": "issueKategory"'),
    );
    await expect.poll(() => box.innerText(), { timeout: 20_000 }).toContain("properties.issueTitle has unknown keyword 'x-widget'");
    expect(await box.innerText()).toContain('2 problems');

    fs.writeFileSync(issueFile(), original);
    await expect.poll(() => section('view').getByLabel('Title', { exact: true }).inputValue(), { timeout: 20_000 }).toBe('Sample Title');
    expect(await box.count()).toBe(0);
    expect(serverCalls).toEqual([]);
  });

  it('is not in the app: the production build holds none of it', () => {
    const built = fs.readdirSync(inject('clientDir'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(built.length).toBeGreaterThan(0);
    for (const e of built) {
      const text = fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
      expect(text.includes('Schema preview') || text.includes('src/client/preview'), e.name).toBe(false);
    }
  });
});
