import fs from 'node:fs';
import path from 'node:path';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { format } from 'date-fns';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { applyLanguage } from '../../src/client/i18n';
import { choiceLabel, hasChoiceLabels } from '../../src/shared/choice-labels';
import type { KindSchema } from '../../src/shared/kind-types';

beforeAll(() => loadRecordForm(), 20_000);

// Capture in few taps: a new POI starts with its report time now and its reporter the signed-in
// user (x-default "now" and "user" in poi.schema.json).
describe('a new POI', () => {
  it('starts with the report time now and the signed-in user as reporter', async () => {
    signedIn('alice', { userName: 'alice', nickName: 'Alice Tester', deptName: 'P1', remark: 'V1' });
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo({ userName: 'alice', nickName: 'Alice Tester', deptName: 'P1', remark: 'V1' }) });
    renderApp('/data/poi/new');
    await screen.findByRole('button', { name: 'Create Record' });
    await waitFor(() => expect(screen.getByLabelText('Reporter')).toHaveValue('Alice Tester'));
    expect((document.getElementById('root_reportTime') as HTMLInputElement).value).toMatch(new RegExp(`^${format(new Date(), 'yyyy-MM-dd')}`));
  });
});

// docs/decisions/080: a new issue's defaults (Country, Working Condition, Weather) are choices, so a
// Chinese screen shows them in Chinese and every phone stores the same value. The invariant, for
// every issue field whose default is a labelled choice: the picker shows the default's label in the
// language on screen, and a create sends the stored value, not the label.
const ISSUE_SCHEMA = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../schemas/issue.schema.json'), 'utf8')) as KindSchema;
const labelledDefaults = Object.entries(ISSUE_SCHEMA.properties).filter(([, p]) => p.default !== undefined && hasChoiceLabels(p) && !p.readOnly);

describe('a new issue’s defaults', () => {
  afterEach(() => applyLanguage('en'));

  it('are labelled choices: Country, Working Condition and Weather among them', () => {
    expect(labelledDefaults.map(([f]) => f)).toEqual(expect.arrayContaining(['country', 'workingCondition', 'weather']));
  });

  it.each(['zh', 'en'] as const)('show in the language on screen (%s) and are stored as the programme’s values', async (language) => {
    await applyLanguage(language);
    signedIn();
    const { calls } = fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'POST /api/vtp/issueRecord': (call) => ({ body: { code: 200, data: { ...(call.body as object), id: 5 } } }),
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: { id: 5 } } }),
    });
    renderApp('/data/issue/new');
    const create = await screen.findByRole('button', { name: language === 'zh' ? '创建记录' : 'Create Record' });
    for (const [field, prop] of labelledDefaults) {
      // A choice without an English label is shown as stored (decision 078).
      const label = choiceLabel(prop, prop.default, language) ?? String(prop.default);
      if (language === 'zh') expect(label, field).toMatch(/[\u4e00-\u9fff]/);
      await waitFor(() => expect(document.getElementById(`root_${field}`)?.closest('.p-dropdown'), field).toHaveTextContent(label));
    }
    await userEvent.setup().click(create);
    const sent = await waitFor(() => {
      const post = calls.find((c) => c.method === 'POST');
      if (!post) throw new Error('not sent yet');
      return post.body as Record<string, unknown>;
    });
    for (const [field, prop] of labelledDefaults) expect(sent[field], field).toBe(prop.default);
  });
});
