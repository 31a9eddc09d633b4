import { Blob as NodeBlob } from 'node:buffer';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyLanguage, LANGUAGE_KEY } from '../../src/client/i18n';
import { fieldTitle } from '../../src/client/i18n/kind-texts';
import { registry } from '../../src/client/engine/registry';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { outbox, waitingFiles } from '../../src/client/outbox/store';
import { issueAttachmentFolder } from '../helpers/issue-folder';
import { fakeFetch, okInfo, type FakeCall } from './fake-server';
import { expectOnly } from './one-language-check';
import { renderApp, signedIn } from './render';
import { installFakeXhr, renderPanel, uploadsSettled } from './attachments/fakes';

// For the screens decision 038 left in English or in the specification's
// Chinese: the outbox with its remove dialog, an issue with its AI strip, submit and report dialogs,
// its Attachments card (viewing and editing, with the upload and recording controls and the
// location widget) and the conflict dialog. Each is visited in Chinese and in English and fails on
// any text of the other language. Record values are in the screen's language, or named as values.

type Language = 'zh' | 'en';

const ZHANG = { userName: '张伟', nickName: '张伟', deptName: 'P1', remark: 'V1' };

/** The records' own words in each language: titles, reasons, a report, file names. */
const VALUES = {
  zh: {
    user: '张伟',
    title: '车窗异响',
    theirs: '车窗异响（已确认）',
    yours: '车窗异响 2',
    reason: '记录已被删除',
    report: '## 结论\n\n左侧后视镜**高速**时有风噪',
    photo: '照片.jpg',
    clip: '视频.mp4',
    remark: '更换轮胎',
    other: '李明',
  },
  en: {
    user: 'alice',
    title: 'Wind noise',
    theirs: 'Wind noise (confirmed)',
    yours: 'Wind noise 2',
    reason: 'The record was deleted',
    report: '## Finding\n\nLeft mirror **at speed**',
    photo: 'photo.jpg',
    clip: 'clip.mp4',
    remark: 'New tyres',
    other: 'bob',
  },
} as const;

function issueOf(language: Language) {
  const v = VALUES[language];
  return {
    id: 5,
    taskId: '-2',
    issueTitle: v.title,
    issueStartTime: '2026-11-20 08:30:00',
    projectName: 'P1',
    vehicleNo: 'V1',
    issueStatus: 'AI_PROCESS',
    videoAnalysisStatus: 'DONE',
    videoDesensitizationStatus: 'DONE',
    aiVideoAnalysisReport: v.report,
    version: 3,
  };
}

async function signIn(language: Language): Promise<void> {
  if (language === 'zh') {
    signedIn('张伟', ZHANG);
    localStorage.setItem(LANGUAGE_KEY, 'zh');
  } else signedIn();
  await applyLanguage(language);
}

const file = (name: string, type: string) => new NodeBlob(['0123456789'], { type }) as unknown as Blob;

beforeAll(() => loadRecordForm(), 20_000);

afterEach(async () => {
  await applyLanguage('en');
  for (const owner of ['alice', '张伟']) {
    for (const item of await outbox.list(owner)) await outbox.remove(item.key);
    for (const f of await waitingFiles.list(owner)) await waitingFiles.remove(f.key);
  }
});

describe.each(['zh', 'en'] as const)('one language on the field screens (%s)', (language) => {
  const v = VALUES[language];

  it('the outbox, with a refused new record, a conflicting change and a refused file, and its remove dialogs', { timeout: 60_000 }, async () => {
    await signIn(language);
    const owner = v.user;
    const folder = issueAttachmentFolder(issueOf(language));
    await outbox.put({
      key: `${owner}:issue:k1`,
      owner,
      kindName: 'issue',
      apiPath: '/vtp/issueRecord',
      route: '/data/issue',
      op: 'create',
      values: { issueTitle: v.title, faultMileage: 1200 },
      createdAt: Date.now(),
      attempts: 1,
      state: 'refused',
      lastError: v.reason,
    });
    await outbox.put({
      key: `${owner}:drive:k2`,
      owner,
      kindName: 'drive',
      apiPath: '/vtp/driveRecord',
      route: '/data/drive',
      op: 'update',
      recordId: 12,
      // A field of the drive form: the outbox names the fields a change holds, by their titles.
      values: { weather: v.remark },
      baseVersion: 2,
      createdAt: Date.now(),
      attempts: 1,
      state: 'conflict',
    });
    // The sync words an upload session's failure as the specification quotes it, in Chinese, whatever the screen's language.
    await waitingFiles.put({
      key: `${owner}:file:f1`,
      owner,
      folder,
      name: v.photo,
      type: 'image/jpeg',
      blob: file(v.photo, 'image/jpeg'),
      createdAt: Date.now(),
      state: 'refused',
      lastError: '创建上传会话失败',
    });
    fakeFetch({ 'GET /api/system/user/getInfo': language === 'zh' ? okInfo(ZHANG) : okInfo() });
    renderApp('/outbox');
    const cards = await screen.findAllByText(new RegExp(v.title));
    expect(cards.length).toBeGreaterThan(0);
    await screen.findByText(v.photo);
    expect(screen.getByText(language === 'zh' ? '创建上传会话失败' : 'Could not create an upload session')).toBeInTheDocument();
    // The file's folder is the record's path on the server: a value, not the screen's words.
    await expectOnly(language, 'outbox', [v.user, v.photo, folder]);

    const user = userEvent.setup();
    const removes = screen.getAllByRole('button', { name: language === 'zh' ? '移除' : 'Remove' });
    await user.click(removes[0]!);
    expect(await screen.findByRole('dialog')).toBeInTheDocument();
    await expectOnly(language, 'outbox remove-change dialog', [v.user, v.photo, folder]);
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: language === 'zh' ? '保留' : 'Keep it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(screen.getAllByRole('button', { name: language === 'zh' ? '移除' : 'Remove' }).at(-1)!);
    expect(await screen.findByRole('dialog')).toBeInTheDocument();
    await expectOnly(language, 'outbox remove-file dialog', [v.user, v.photo, folder]);
  });

  it(
    'an issue: its AI strip, submit and report dialogs, Attachments card, form with location and upload controls, and the conflict dialog',
    { timeout: 90_000 },
    async () => {
      await signIn(language);
      const issue = issueOf(language);
      const folder = issueAttachmentFolder(issue);
      const entries = [
        { id: 'a', name: v.photo, isFolder: false, mimeType: 'image/jpeg', size: 2048, modified: '2026-11-20T08:30:00.000Z', path: `${folder}/${v.photo}` },
        {
          id: 'b',
          name: v.clip,
          isFolder: false,
          mimeType: 'video/mp4',
          size: 1.5 * 1024 * 1024,
          modified: '2026-11-20T08:31:00.000Z',
          path: `${folder}/${v.clip}`,
        },
      ];
      fakeFetch({
        'GET /api/system/user/getInfo': language === 'zh' ? okInfo(ZHANG) : okInfo(),
        'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: issue } }),
        'GET /sharepoint/files': (call: FakeCall) => ({ body: { code: 200, msg: 'ok', data: call.url.includes('desensitized') ? [] : entries } }),
        'PUT /api/vtp/issueRecord': () => ({
          status: 409,
          body: {
            code: 409,
            msg: `Issue Title was changed by ${v.other} since you opened this record; choose which values to keep`,
            data: {
              current: { ...issue, issueTitle: v.theirs, version: 4 },
              conflicts: [{ field: 'issueTitle', title: 'Issue Title', base: v.title, theirs: v.theirs, yours: v.yours }],
            },
          },
        }),
      });
      renderApp('/data/issue/5');
      // The issue's stored status (AI_PROCESS) is shown in the screen's language too (docs/decisions/045).
      const values = [v.user, v.photo, v.clip, v.title, v.theirs, v.yours, v.other, 'V1', 'P1'];

      // The strip says where the analysis is in words, in the screen's language.
      const phase = await screen.findByTestId('ai-phase', {}, { timeout: 15_000 });
      await waitFor(() => expect(screen.getByTestId('status-Video analysis')).toBeInTheDocument(), { timeout: 15_000 });
      expect(phase).toHaveTextContent(language === 'zh' ? '已完成' : 'Done');
      await waitFor(() => expect(screen.getAllByTestId('file-item')).toHaveLength(2), { timeout: 15_000 });
      await expectOnly(language, 'issue with its AI strip and Attachments card', values);

      const user = userEvent.setup();
      // The resubmit confirmation, then cancelled.
      await user.click(screen.getByRole('button', { name: language === 'zh' ? '重新提交给 AI' : 'Resubmit to AI' }));
      const confirm = await screen.findByRole('dialog');
      await expectOnly(language, 'resubmit dialog', values);
      await user.click(within(confirm).getByRole('button', { name: language === 'zh' ? '取消' : 'Cancel' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

      // The report, rendered.
      await user.click(screen.getByRole('button', { name: language === 'zh' ? 'AI 报告' : 'AI report' }));
      const report = await screen.findByRole('dialog');
      await within(report).findByTestId('ai-report', {}, { timeout: 15_000 });
      expect(within(report).getByText(language === 'zh' ? 'AI报告内容' : 'AI report')).toBeInTheDocument();
      await expectOnly(language, 'AI report dialog', [
        ...values,
        language === 'zh' ? '左侧后视镜' : 'Left mirror',
        language === 'zh' ? '高速' : 'at speed',
        language === 'zh' ? '时有风噪' : 'Finding',
        '结论',
      ]);
      await user.click(
        within(report)
          .getByText(language === 'zh' ? '关闭' : 'Close', { selector: '.p-dialog-footer .p-button-label' })
          .closest('button')!,
      );
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

      // Editing: the form with the location widget, the card with upload and recording controls.
      await user.click(screen.getByRole('button', { name: language === 'zh' ? '编辑' : 'Edit' }));
      await screen.findByRole('button', { name: language === 'zh' ? '上传文件' : 'Upload files' }, { timeout: 15_000 });
      expect(screen.getByRole('button', { name: language === 'zh' ? '使用我的位置' : 'Use my position' })).toBeInTheDocument();
      await expectOnly(language, 'issue form with attachments and location', values);

      // Someone else changed the title meanwhile: the conflict dialog.
      const titleField = screen.getByLabelText(new RegExp(`^${fieldTitle(registry.get('issue')!, 'issueTitle')}`));
      await user.clear(titleField);
      await user.type(titleField, v.yours);
      await user.click(screen.getByRole('button', { name: language === 'zh' ? '保存修改' : 'Save Changes' }));
      const conflict = await screen.findByRole('dialog', {}, { timeout: 15_000 });
      expect(within(conflict).getByText(language === 'zh' ? '已被他人修改' : 'Changed by someone else')).toBeInTheDocument();
      expect(within(conflict).getByText(v.theirs)).toBeInTheDocument();
      await expectOnly(language, 'conflict dialog', values);
    },
  );

  it("a drive's form names its two location pairs in the screen's language", { timeout: 60_000 }, async () => {
    await signIn(language);
    const driver = language === 'zh' ? '张伟' : 'Alice';
    fakeFetch({
      'GET /api/system/user/getInfo': language === 'zh' ? okInfo(ZHANG) : okInfo(),
      'GET /api/vtp/driveRecord/7': () => ({
        body: {
          code: 200,
          data: {
            id: 7,
            driveDate: '2026-11-20 00:00:00',
            startTime: '2026-11-20 08:00:00',
            stopTime: '2026-11-20 09:30:00',
            travelDistance: 88.4,
            projectName: 'P1',
            vehicleNo: 'V1',
            driver,
            version: 1,
          },
        },
      }),
    });
    renderApp('/data/drive/7');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: language === 'zh' ? '编辑' : 'Edit' }, { timeout: 15_000 }));
    for (const name of language === 'zh' ? ['使用我的位置（起点）', '使用我的位置（终点）'] : ['Use my position (Start)', 'Use my position (End)'])
      expect(await screen.findByRole('button', { name, hidden: true })).toBeInTheDocument();
    await expectOnly(language, 'drive form', [driver, 'V1', 'P1']);
  });

  it('the upload queue: a failed upload with Retry and Remove, an uploaded one, and their toasts', { timeout: 60_000 }, async () => {
    await signIn(language);
    const [failing, passing] = language === 'zh' ? ['记录甲.txt', '记录乙.txt'] : ['note-a.txt', 'note-b.txt'];
    const full = language === 'zh' ? '磁盘已满' : 'Disk full';
    const { calls } = fakeFetch({
      'GET /sharepoint/files': () => ({ body: { code: 200, msg: 'ok', data: [] } }),
      'PUT /api/vtp/issueRecord': (call: FakeCall) => ({ body: { code: 200, msg: 'ok', data: call.body } }),
    });
    installFakeXhr((xhr) =>
      (xhr.sentFile() as File | null)?.name === failing ? { status: 500, body: { code: 500, msg: full } } : { status: 201, body: { code: 200, data: {} } },
    );
    renderPanel({ title: language === 'zh' ? '附件' : 'Attachments' });
    fireEvent.change(screen.getByLabelText(language === 'zh' ? '选择要上传的文件' : 'Choose files to upload'), {
      target: { files: [new File(['a'], failing), new File(['b'], passing)] },
    });
    expect(await screen.findByText(language === 'zh' ? `上传失败：${full}` : `Upload failed: ${full}`)).toBeInTheDocument();
    expect(await screen.findByText(language === 'zh' ? '上传成功' : 'Uploaded')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: language === 'zh' ? '重试' : 'Retry' })).toBeInTheDocument();
    await uploadsSettled(calls);
    await expectOnly(language, 'upload queue with its toasts', [failing, passing, full, 'issue_records/20261120/V1/Issue_5_20261120-083000']);
  });
});
