import { Blob as NodeBlob } from 'node:buffer';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitingFiles, type WaitingFile } from '../../../src/client/outbox/store';
import { issueAttachmentFolder } from '../../helpers/issue-folder';
import { fakeFetch, okInfo } from '../fake-server';
import { renderApp, signedIn } from '../render';
import { entry, FOLDER, installFakeXhr, renderPanel } from './fakes';

// The Attachments card lists what the server has plus what is on its way (the outbox; docs/PRODUCT.md
// section 4, Attachments),
// refreshes when it arrives, and never says 'Empty' meanwhile; a resumed upload ends uploaded, once.
const ok = (data: unknown = {}) => ({ body: { code: 200, msg: 'ok', data } });
const ISSUE = { id: 5, taskId: '-2', issueTitle: 'Brake squeal', issueStartTime: '2026-11-20 08:30:00', projectName: 'P1', vehicleNo: 'V1' };
const ISSUE_FOLDER = issueAttachmentFolder(ISSUE);

// Node's Blob survives fake-indexeddb's structured clone (jsdom's loses its bytes); jsdom's FormData
// takes only its own Blobs, so the sync's multipart body is kept as given (as outbox-sync-core.test.ts does).
class KeepingFormData {
  readonly parts = new Map<string, unknown>();
  append(key: string, value: unknown): void {
    this.parts.set(key, value);
  }
}

function waiting(owner: string, folder: string, name: string, type: string, extra: Partial<WaitingFile> = {}): WaitingFile {
  const blob = new NodeBlob(['0123456789'], { type }) as unknown as Blob;
  return { key: `${owner}:file:${name}`, owner, folder, name, type, blob, createdAt: Date.now(), state: 'waiting', ...extra };
}

/** Fails the test if the card ever says 'Empty' while it runs. */
function watchForEmpty(): { seen: () => boolean; stop: () => void } {
  let seen = false;
  const check = (): void => {
    if (document.querySelector('.file-list-empty')) seen = true;
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  return { seen: () => seen, stop: () => observer.disconnect() };
}

const names = (testId: string): string[] =>
  screen.queryAllByTestId(testId).map((el) => el.querySelector('.upload-item-name, .file-item-name')?.textContent ?? '');

afterEach(async () => {
  for (const owner of ['alice', '']) for (const file of await waitingFiles.list(owner)) await waitingFiles.remove(file.key);
});

describe('the Attachments card and the files on their way', () => {
  it('lists the outbox’s files for the issue with the server’s, then lists them as uploaded when the sync sent them, never saying Empty', async () => {
    signedIn();
    await waitingFiles.put(waiting('alice', ISSUE_FOLDER, 'clip.mp4', 'video/mp4'));
    // The folder as the create answered it may carry slashes the card's own does not.
    await waitingFiles.put(waiting('alice', `/${ISSUE_FOLDER}`, 'photo.jpg', 'image/jpeg'));
    vi.stubGlobal('FormData', KeepingFormData);
    let listing: unknown[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { calls } = fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/issueRecord/5': () => ok(ISSUE),
      'GET /sharepoint/files': () => ok(listing),
      // The sync's uploads wait until the test lets them through, as on a slow uplink.
      'POST /sharepoint/files/upload': async () => {
        await gate;
        listing = [entry('clip.mp4', { mimeType: 'video/mp4' }), entry('photo.jpg', { mimeType: 'image/jpeg' })];
        return ok(entry('x'));
      },
    });
    const empty = watchForEmpty();
    renderApp('/data/issue/5');
    await screen.findByRole('heading', { name: 'Attachments' }, { timeout: 15_000 });
    await waitFor(() => expect(names('incoming-file').sort()).toEqual(['clip.mp4', 'photo.jpg']));
    expect(screen.getByRole('list', { name: 'Files on their way' })).toBeInTheDocument();
    expect(screen.queryByTestId('file-item')).not.toBeInTheDocument();
    const listingsBefore = calls.filter((c) => c.url.startsWith('/sharepoint/files?')).length;

    // The sync runs (the app starts it; a second call joins the running one) and the files arrive.
    const { syncOutbox } = await import('../../../src/client/outbox/sync');
    const run = syncOutbox();
    await waitFor(() => expect(screen.getAllByTestId('incoming-file').some((el) => el.getAttribute('data-status') === 'sending')).toBe(true));
    release();
    await act(async () => {
      await run;
    });
    await waitFor(() => expect(names('file-item').sort()).toEqual(['clip.mp4', 'photo.jpg']));
    await waitFor(() => expect(screen.queryByTestId('incoming-file')).not.toBeInTheDocument());
    expect(calls.filter((c) => c.url.startsWith('/sharepoint/files?')).length).toBeGreaterThan(listingsBefore);
    expect(empty.seen()).toBe(false);
    empty.stop();
  });

  it('lists only this folder’s files from the outbox, a refused one with why, and does not say Empty', async () => {
    signedIn();
    await waitingFiles.put(waiting('alice', ISSUE_FOLDER, 'voice.webm', 'audio/webm', { state: 'refused', lastError: 'File too large' }));
    await waitingFiles.put(waiting('alice', 'issue_records/other/folder', 'elsewhere.png', 'image/png'));
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/issueRecord/5': () => ok(ISSUE),
      'GET /sharepoint/files': () => ok([]),
    });
    renderApp('/data/issue/5');
    await waitFor(() => expect(names('incoming-file')).toEqual(['voice.webm']), { timeout: 15_000 });
    expect(screen.getByTestId('incoming-file')).toHaveTextContent('Upload failed: File too large');
    expect(screen.queryByText('Empty')).not.toBeInTheDocument();
  });

  it('ends an upload cut by going offline and resumed by the sync as uploaded, once', async () => {
    let listing: unknown[] = [];
    fakeFetch({ 'GET /sharepoint/files': () => ok(listing), 'PUT /api/vtp/issueRecord': (call) => ok(call.body) });
    installFakeXhr(() => 'network-error');
    const online = Object.getOwnPropertyDescriptor(Navigator.prototype, 'onLine');
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
    try {
      renderPanel();
      fireEvent.change(screen.getByLabelText('Choose files to upload'), { target: { files: [new File(['video-bytes'], 'drive.mp4', { type: 'video/mp4' })] } });
      const row = await screen.findByTestId('upload-item');
      await waitFor(() => expect(row).toHaveTextContent('Waiting to sync'));
    } finally {
      if (online) Object.defineProperty(navigator, 'onLine', online);
      else delete (navigator as { onLine?: boolean }).onLine;
    }
    const [kept] = await waitingFiles.list('');
    expect(kept).toMatchObject({ name: 'drive.mp4', folder: FOLDER, state: 'waiting' });
    // The queue row is the file: the outbox's copy of it is not listed a second time.
    expect(screen.queryByTestId('incoming-file')).not.toBeInTheDocument();

    // The sync sends it (the outbox entry goes) and the server has it.
    listing = [entry('drive.mp4', { mimeType: 'video/mp4' })];
    await act(async () => {
      await waitingFiles.remove((kept as WaitingFile).key);
    });
    const done = screen.getByTestId('upload-item');
    await waitFor(() => expect(done).toHaveTextContent('Uploaded'));
    expect(done).not.toHaveTextContent('Waiting to sync');
    expect(within(done).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
    await waitFor(() => expect(names('file-item')).toEqual(['drive.mp4']));
    expect(screen.getAllByTestId('upload-item')).toHaveLength(1);
    expect(screen.queryByTestId('incoming-file')).not.toBeInTheDocument();
  });
});
