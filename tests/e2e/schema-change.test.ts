import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ALICE, ROOT, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

/**
 * An admin's breaking change on live data, in the browser (docs/decisions/034): issues saved with
 * a free-text severity; then the schema makes it a choice of A or B with labels (C retired) and
 * adds a required owner. A phone still running the old app is told a new version of the form is
 * available before it edits; the new app shows the old record's retired value with its label and
 * a note, and saves a change of another field, keeping the value.
 */
describe('editing an old record after a breaking schema change', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-schema-change-'));
  const before = path.join(work, 'schemas-before');
  const after = path.join(work, 'schemas-after');
  const clientAfter = path.join(work, 'client-after');
  let browser: Browser;
  let storage: { dataDir: string; schema: string };
  let id = 0;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    fs.mkdirSync(before);
    fs.mkdirSync(after);
    for (const file of fs.readdirSync(path.join(ROOT, 'schemas')).filter((f) => f.endsWith('.schema.json'))) {
      fs.copyFileSync(path.join(ROOT, 'schemas', file), path.join(before, file));
      fs.copyFileSync(path.join(ROOT, 'schemas', file), path.join(after, file));
    }
    const issue = JSON.parse(fs.readFileSync(path.join(after, 'issue.schema.json'), 'utf8')) as Record<string, any>;
    issue['properties']['issueSeverity'] = {
      ...issue['properties']['issueSeverity'],
      enum: ['A', 'B'],
      'x-labels': { A: 'A: safety', B: 'B: function', C: 'C: comfort' },
    };
    issue['properties']['issueOwner'] = { title: 'Owner', type: 'string', maxLength: 50 };
    issue['required'] = ['issueOwner'];
    fs.writeFileSync(path.join(after, 'issue.schema.json'), JSON.stringify(issue, null, 2));
    // The new app, as `npm start` builds it for the changed files.
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', clientAfter, '--emptyOutDir', '--logLevel', 'error'],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: 'production', SCHEMAS_DIR: after },
        stdio: 'inherit',
      },
    );
    const first = await startServer({ name: 'sqlite' }, { SCHEMAS_DIR: before, CLIENT_DIR: inject('clientDir') }, { keep: true });
    servers.push(first);
    storage = first.storage;
    const token = await first.login(ALICE.username, ALICE.password);
    const created = await first.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Wiper judder', issueSeverity: 'C', issueDate: '2026-11-20 08:00:00' },
    });
    expect(created.status).toBe(200);
    id = created.body.data.id as number;
    await first.close();
    browser = await launch();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.close().catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
    expectNoServerErrors(servers);
  });

  it('tells a phone with the old app that a new version of the form is available, instead of letting it edit', async () => {
    const server = await startServer({ name: 'sqlite' }, { SCHEMAS_DIR: after, CLIENT_DIR: inject('clientDir') }, { reuse: storage, keep: true });
    servers.push(server);
    const { context, page } = await phone(browser);
    try {
      await signIn(page, server.url, ALICE.username, ALICE.password);
      await page.goto(`${server.url}/data/issue/${id}`);
      await page.getByTestId('form-outdated').waitFor();
      await expect.poll(() => page.getByTestId('form-outdated').textContent()).toContain('A new version of this form is available');
      await page.getByRole('button', { name: 'Update to edit' }).waitFor();
      expect(await page.getByRole('button', { name: 'Edit', exact: true }).count()).toBe(0);
      await snap(page, 'schema-change-old-app');
    } finally {
      await context.close();
      await server.close();
    }
  });

  it('shows the retired value with its label and a note, and saves a change of another field, keeping it', async () => {
    const server = await startServer({ name: 'sqlite' }, { SCHEMAS_DIR: after, CLIENT_DIR: clientAfter }, { reuse: storage, keep: true });
    servers.push(server);
    const { context, page } = await phone(browser);
    try {
      await signIn(page, server.url, ALICE.username, ALICE.password);
      await page.goto(`${server.url}/data/issue/${id}`);
      await page.getByRole('heading', { name: `Issue Record: ${id}` }).waitFor();
      await page.getByText('C: comfort (retired)').first().waitFor();
      const notes = page.getByTestId('field-warning');
      await expect
        .poll(() => notes.allTextContents())
        .toEqual(
          expect.arrayContaining([
            expect.stringContaining('Saved under an earlier version of this form: must be one of: A, B (got "C")'),
            expect.stringContaining('Saved under an earlier version of this form: is required'),
          ]),
        );
      expect(await page.getByTestId('form-outdated').count()).toBe(0);
      await expect
        .poll(() => page.getByTestId('earlier-version-line').textContent())
        .toContain('Saved under an earlier version of this form: Severity, Owner.');
      await snap(page, 'schema-change-view');
      await page.getByText('C: comfort (retired)').first().scrollIntoViewIfNeeded();
      await snap(page, 'schema-change-view-retired');
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.getByLabel('Title').fill('Wiper judder at speed');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await page.getByText('Issue record updated successfully').waitFor();
      await snap(page, 'schema-change-saved');
      const token = await server.login(ALICE.username, ALICE.password);
      const stored = await server.request('GET', `/api/vtp/issueRecord/${id}`, { token });
      expect(stored.body.data).toMatchObject({ issueTitle: 'Wiper judder at speed', issueSeverity: 'C' });
      expect(stored.body.warnings).toEqual([
        { field: 'issueSeverity', title: 'Severity', problem: 'must be one of: A, B (got "C")' },
        { field: 'issueOwner', title: 'Owner', problem: 'is required' },
      ]);
    } finally {
      await context.close();
      await server.close();
    }
  });
});
