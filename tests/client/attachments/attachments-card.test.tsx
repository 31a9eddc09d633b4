import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { issueAttachmentFolder } from '../../helpers/issue-folder';
import { fakeFetch, okInfo, type FakeCall } from '../fake-server';
import { renderApp, signedIn } from '../render';
import { entry } from './fakes';

const ISSUE = { id: 5, taskId: '-2', issueTitle: 'Brake squeal', issueStartTime: '2026-11-20 08:30:00', projectName: 'P1', vehicleNo: 'V1' };
const FOLDER = issueAttachmentFolder(ISSUE);
const ENTRIES = [
  entry('report.pdf', { mimeType: 'application/pdf', size: 1024 }),
  entry('photo.png', { mimeType: 'image/png', size: 1536, path: `${FOLDER}/photo.png` }),
  entry('sub', { isFolder: true, size: 0 }),
  entry('voice.webm', { mimeType: 'video/webm', size: 1023 }),
  entry('clip.mp4', { mimeType: 'video/mp4', size: 1.5 * 1024 * 1024 }),
];

function open(path: string, listing: unknown[] = ENTRIES) {
  signedIn();
  return fakeFetch({
    'GET /api/system/user/getInfo': okInfo(),
    'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }),
    'GET /sharepoint/files': () => ({ body: { code: 200, msg: 'ok', data: listing } }),
    'POST /api/system/signed-link': (call: FakeCall) => ({ body: { code: 200, data: { url: `${(call.body as { path: string }).path}&_sig=x` } } }),
  });
}

const rows = (): HTMLElement[] => screen.getAllByTestId('file-item');

describe('the issue’s Attachments card', () => {
  it('lists the issue folder read-only in view mode: folders first, icons by type, sizes; upload and record only after Edit', async () => {
    const { calls } = open('/data/issue/5');
    renderApp('/data/issue/5');
    // The first test compiles the lazy detail screen and the card's chunk: give it room on two busy cores.
    await screen.findByRole('heading', { name: 'Attachments' }, { timeout: 15_000 });
    await waitFor(() => expect(rows()).toHaveLength(5));
    expect(rows().map((r) => r.querySelector('.file-item-name')?.textContent)).toEqual(['sub', 'clip.mp4', 'photo.png', 'report.pdf', 'voice.webm']);
    expect(rows().map((r) => r.querySelector('[data-type]')?.getAttribute('data-type'))).toEqual(['folder', 'video', 'image', 'pdf', 'audio']);
    expect(rows()[1]).toHaveTextContent('1.5 MB');
    expect(rows()[2]).toHaveTextContent('1.5 KB');
    expect(rows()[3]).toHaveTextContent('1 KB');
    expect(rows()[4]).toHaveTextContent('1023 Bytes');
    expect(rows()[4]).toHaveTextContent(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);

    const list = calls.find((c) => c.url.startsWith('/sharepoint/files?'));
    expect(list?.url).toBe(`/sharepoint/files?path=${encodeURIComponent(`/${FOLDER}`)}`);
    expect(list?.headers).toMatchObject({ authorization: 'Bearer token-abc', clientid: expect.any(String) });

    expect(screen.queryByRole('button', { name: 'Upload files' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Record audio' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Choose files to upload')).not.toBeInTheDocument();
    // Download and preview stay available while viewing.
    expect(screen.getByRole('button', { name: 'Download photo.png' })).toBeInTheDocument();

    await userEvent.setup().click(screen.getByRole('button', { name: 'Edit' }));
    expect(await screen.findByRole('button', { name: 'Upload files' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Record audio' })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('button', { name: 'Upload files' })).not.toBeInTheDocument();
  });

  it("shows 'Empty' for an empty folder", async () => {
    open('/data/issue/5', []);
    renderApp('/data/issue/5');
    expect(await screen.findByText('Empty')).toBeInTheDocument();
  });

  it('shows an empty list (and logs) when the listing fails', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    signedIn();
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }),
      'GET /sharepoint/files': () => ({ status: 500, body: { code: 500, msg: 'disk unavailable' } }),
    });
    renderApp('/data/issue/5');
    expect(await screen.findByText('Empty')).toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Could not list'), expect.objectContaining({ message: 'disk unavailable' }));
  });

  it('keeps files attached to a new issue on the phone until it is saved, and lists nothing from the server', async () => {
    const { calls } = open('/data/issue/new');
    renderApp('/data/issue/new');
    expect(await screen.findByText('Photos, videos and voice notes added here are uploaded when the issue is saved.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Choose files to upload'), new File(['abc'], 'note.txt', { type: 'text/plain' }));
    expect(await screen.findByText('note.txt')).toBeInTheDocument();
    expect(screen.getByText('Uploaded when the issue is saved')).toBeInTheDocument();
    expect(calls.some((c) => c.url.startsWith('/sharepoint'))).toBe(false);
  });

  it('previews an image in a dialog and opens downloads and PDFs in a new tab through signed links', async () => {
    const { calls } = open('/data/issue/5');
    const tab = { location: { href: '' }, opener: {} as unknown, close: vi.fn() };
    const openSpy = vi.fn(() => tab);
    vi.stubGlobal('open', openSpy);
    renderApp('/data/issue/5');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Preview photo.png' }));
    const dialog = await screen.findByRole('dialog');
    const img = await within(dialog).findByRole('img', { name: 'photo.png' });
    expect(img).toHaveAttribute('src', `/sharepoint/files/preview?path=${encodeURIComponent(`/${FOLDER}/photo.png`)}&_sig=x`);

    await user.click(within(dialog).getByRole('button', { name: 'Download' }));
    expect(openSpy).toHaveBeenCalledWith('', '_blank');
    await waitFor(() => expect(tab.location.href).toBe(`/sharepoint/files/download?path=${encodeURIComponent(`/${FOLDER}/photo.png`)}&_sig=x`));
    expect(tab.opener).toBeNull();

    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('button', { name: 'Preview report.pdf' }));
    await waitFor(() => expect(tab.location.href).toBe(`/sharepoint/preview.html?path=${encodeURIComponent(`/${FOLDER}/report.pdf`)}&_sig=x`));
    expect(calls.filter((c) => c.url === '/api/system/signed-link')).toHaveLength(3);
  });

  it('lists the desensitized copies apart from the originals, under their own heading', async () => {
    signedIn();
    const blurred = [
      entry('clip.mp4', { mimeType: 'video/mp4', size: 2048, path: `${FOLDER}/desensitized/clip.mp4` }),
      entry('photo.png', { mimeType: 'image/png', size: 512, path: `${FOLDER}/desensitized/photo.png` }),
    ];
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }),
      'GET /sharepoint/files': (call: FakeCall) => {
        const path = new URL(call.url, 'http://x').searchParams.get('path') ?? '';
        return {
          body: { code: 200, msg: 'ok', data: path.endsWith('/desensitized') ? blurred : [...ENTRIES, entry('desensitized', { isFolder: true, size: 0 })] },
        };
      },
    });
    renderApp('/data/issue/5');
    const apart = await screen.findByTestId('apart-folder', {}, { timeout: 15_000 });
    expect(within(apart).getByRole('heading', { name: 'Desensitized copies' })).toBeInTheDocument();
    await waitFor(() => expect(within(apart).getAllByTestId('file-item')).toHaveLength(2));
    expect(
      within(apart)
        .getAllByTestId('file-item')
        .map((r) => r.querySelector('.file-item-name')?.textContent),
    ).toEqual(['clip.mp4', 'photo.png']);
    // The originals keep their own list, without the desensitized folder in it.
    const originals = screen.getAllByTestId('file-item').filter((r) => !apart.contains(r));
    expect(originals.map((r) => r.querySelector('.file-item-name')?.textContent)).toEqual(['sub', 'clip.mp4', 'photo.png', 'report.pdf', 'voice.webm']);
    expect(within(apart).getByRole('button', { name: 'Download clip.mp4' })).toBeInTheDocument();
  });
});
