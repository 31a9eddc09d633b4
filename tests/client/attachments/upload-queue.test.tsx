import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeFetch, takeConsoleErrors, type FakeCall } from '../fake-server';
import { entry, fileOfSize, FOLDER, installFakeXhr, renderPanel, uploadsSettled, type FakeXhr } from './fakes';

const MB5 = 5 * 1024 * 1024;
const ok = (data: unknown = {}) => ({ body: { code: 200, msg: 'ok', data } });

function choose(files: File[]): void {
  fireEvent.change(screen.getByLabelText('Choose files to upload'), { target: { files } });
}

function serve(extra: Record<string, (call: FakeCall) => { status?: number; body: unknown }> = {}) {
  let listing: unknown[] = [];
  const fake = fakeFetch({
    'GET /sharepoint/files': () => ok(listing),
    'PUT /api/vtp/issueRecord': (call) => ok(call.body),
    ...extra,
  });
  return { ...fake, setListing: (l: unknown[]) => (listing = l) };
}

const item = (name: string): HTMLElement => screen.getAllByTestId('upload-item').find((el) => el.textContent?.includes(name)) as HTMLElement;

describe('the upload queue', () => {
  it('uploads a small file in one multipart POST with the headers, shows Uploaded, toasts and lists the folder again', async () => {
    const server = serve();
    const xhr = installFakeXhr(() => {
      server.setListing([entry('photo.png', { mimeType: 'image/png', size: 2048 })]);
      return { status: 201, body: { code: 200, msg: 'ok', data: entry('photo.png') } };
    });
    renderPanel();
    expect(await screen.findByText('Empty')).toBeInTheDocument();
    choose([new File(['png-bytes'], 'photo.png', { type: 'image/png' })]);
    expect(await screen.findByText('Uploaded')).toBeInTheDocument();
    // The file's name, never the internal folder path.
    expect(await screen.findByText('File "photo.png" uploaded successfully.')).toBeInTheDocument();
    expect(screen.queryByText(new RegExp(FOLDER))).not.toBeInTheDocument();
    const [post] = xhr.requests as FakeXhr[];
    expect(post?.method).toBe('POST');
    // The app keeps both files on a name clash, asking as Graph clients do.
    expect(post?.url).toBe(`/sharepoint/files/upload?path=${encodeURIComponent('/' + FOLDER)}&%40microsoft.graph.conflictBehavior=rename`);
    expect(post?.headers).toMatchObject({ authorization: 'Bearer token-abc', clientid: expect.any(String) });
    expect((post?.sentFile() as File).name).toBe('photo.png');
    expect(await screen.findByRole('button', { name: 'Preview photo.png' })).toHaveTextContent('2 KB');
    expect(within(item('photo.png')).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
    await uploadsSettled(server.calls);
  });

  it('shows Upload failed with the server’s message; Retry counts up and resets progress; Remove takes it away', async () => {
    const { calls } = serve();
    let fail = true;
    let release: (() => void) | undefined;
    const xhr = installFakeXhr(async () => {
      if (fail) return { status: 500, body: { code: 500, msg: 'Disk full' } };
      await new Promise<void>((resolve) => (release = resolve));
      return { status: 201, body: { code: 200, data: entry('a.txt') } };
    });
    renderPanel();
    choose([new File(['aaa'], 'a.txt')]);
    expect(await screen.findByText('Upload failed: Disk full')).toBeInTheDocument();
    expect(await screen.findByText('Failed to upload file: a.txt.')).toBeInTheDocument();
    choose([new File(['bbb'], 'b.txt')]);
    await waitFor(() => expect(screen.getAllByText('Upload failed: Disk full')).toHaveLength(2));
    expect(item('a.txt')).toHaveAttribute('data-retries', '0');

    fail = false;
    await userEvent.setup().click(within(item('a.txt')).getByRole('button', { name: 'Retry' }));
    expect(item('a.txt')).toHaveAttribute('data-retries', '1');
    expect(within(item('a.txt')).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0');
    expect(within(item('a.txt')).getByText('0%')).toBeInTheDocument();
    // Held open until the progress reset is seen; then let it finish.
    await waitFor(() => expect(xhr.requests).toHaveLength(3));
    await waitFor(() => expect(release).toBeDefined());
    release?.();
    await waitFor(() => expect(within(item('a.txt')).getByText('Uploaded')).toBeInTheDocument());

    await userEvent.setup().click(within(item('b.txt')).getByRole('button', { name: 'Remove' }));
    expect(screen.getAllByTestId('upload-item')).toHaveLength(1);
    expect(screen.queryByText('b.txt')).not.toBeInTheDocument();
    await uploadsSettled(calls);
  });

  it('uses a plain upload below 52428800 bytes and a session from 52428800 on', async () => {
    const { calls } = serve({
      'POST /sharepoint/files/upload/session': () => ok({ uploadUrl: '/sharepoint/files/upload/session/s1', nextExpectedRanges: ['0-'] }),
    });
    const xhr = installFakeXhr(() => ({ status: 201, body: { code: 200, data: {} } }));
    renderPanel();
    choose([fileOfSize('under.bin', 52428799)]);
    await screen.findByText('Uploaded');
    expect(xhr.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual(['POST /sharepoint/files/upload']);
    choose([fileOfSize('at.bin', 52428800)]);
    await waitFor(() => expect(screen.getAllByText('Uploaded')).toHaveLength(2));
    expect(xhr.requests[1]).toMatchObject({ method: 'PUT', url: '/sharepoint/files/upload/session/s1' });
    await uploadsSettled(calls);
  });

  it('sends a session upload in 5 MB chunks with Content-Range, accepting a bare uploadUrl', async () => {
    const total = 52428800 + 1000;
    const { calls } = serve({ 'POST /sharepoint/files/upload/session': () => ({ body: { uploadUrl: '/up/s2' } }) });
    const xhr = installFakeXhr((r) => {
      const [, , end] = /bytes (\d+)-(\d+)\//.exec(r.headers['content-range'] ?? '') ?? [];
      return Number(end) === total - 1
        ? { status: 201, body: { code: 200, data: {} } }
        : { status: 202, body: { code: 200, data: { nextExpectedRanges: [`${Number(end) + 1}-`] } } };
    });
    renderPanel();
    choose([fileOfSize('long-video.mp4', total, 'video/mp4')]);
    await screen.findByText('Uploaded', undefined, { timeout: 8000 });
    expect(calls.find((c) => c.url.startsWith('/sharepoint/files/upload/session'))?.body).toEqual({
      item: { name: 'long-video.mp4', fileSize: expect.any(Number), '@microsoft.graph.conflictBehavior': 'rename' },
    });
    const ranges = xhr.requests.map((r) => r.headers['content-range']);
    expect(ranges).toHaveLength(11);
    expect(ranges[0]).toBe(`bytes 0-${MB5 - 1}/${total}`);
    expect(ranges[1]).toBe(`bytes ${MB5}-${2 * MB5 - 1}/${total}`);
    expect(ranges[10]).toBe(`bytes ${10 * MB5}-${total - 1}/${total}`);
    // The upload URL is the credential: the chunks carry no token.
    expect(xhr.requests[0]?.headers['authorization']).toBeUndefined();
    await uploadsSettled(calls);
  });

  it('shows the chunk failure and resumes from the server’s nextExpectedRanges on Retry', async () => {
    const total = 52428800 + 10;
    const { calls } = serve({
      'POST /sharepoint/files/upload/session': () => ok({ uploadUrl: '/sharepoint/files/upload/session/s3' }),
      'GET /sharepoint/files/upload/session/s3': () => ok({ nextExpectedRanges: [`${MB5}-`] }),
    });
    let broken = true;
    const xhr = installFakeXhr((r) => {
      if (r.headers['content-range']?.startsWith(`bytes ${MB5}-`) && broken) return { status: 503, body: { code: 503, msg: 'busy' } };
      if (r.headers['content-range']?.startsWith('bytes 0-')) return { status: 202, body: { code: 200, data: { nextExpectedRanges: [`${MB5}-`] } } };
      return { status: 201, body: { code: 200, data: {} } };
    });
    renderPanel();
    choose([fileOfSize('drive.mp4', total, 'video/mp4')]);
    expect(await screen.findByText('Upload failed: Upload of piece 2 failed: HTTP 503 (busy)')).toBeInTheDocument();
    expect(await screen.findByText('Failed to upload file: drive.mp4.')).toBeInTheDocument();
    broken = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('Uploaded');
    expect(xhr.requests.map((r) => r.headers['content-range'])).toEqual([
      `bytes 0-${MB5 - 1}/${total}`,
      `bytes ${MB5}-${2 * MB5 - 1}/${total}`,
      `bytes ${MB5}-${2 * MB5 - 1}/${total}`,
    ]);
    // Resumed on the same session: asked where to go on, never created a second one.
    expect(calls.filter((c) => c.method === 'POST' && c.url.includes('/upload/session'))).toHaveLength(1);
    expect(calls.some((c) => c.method === 'GET' && c.url === '/sharepoint/files/upload/session/s3')).toBe(true);
    await uploadsSettled(calls);
  });

  it('says Could not create an upload session or the server’s text when a session cannot be created', async () => {
    let answer: { status: number; body: unknown } = { status: 500, body: null };
    serve({ 'POST /sharepoint/files/upload/session': () => answer });
    installFakeXhr();
    renderPanel();
    choose([fileOfSize('big.bin', 60_000_000)]);
    expect(await screen.findByText('Upload failed: Could not create an upload session')).toBeInTheDocument();
    answer = { status: 413, body: { code: 413, msg: 'The file is larger than 20 GiB' } };
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Upload failed: The file is larger than 20 GiB')).toBeInTheDocument();
  });

  it("marks the issue 'uploading' before the first upload and 'uploaded' after, with the small payload", async () => {
    const timeline: string[] = [];
    const { calls } = serve({
      'PUT /api/vtp/issueRecord': (call) => {
        timeline.push(`status ${(call.body as { relatedFilesJson: string }).relatedFilesJson}`);
        return ok(call.body);
      },
    });
    installFakeXhr(() => {
      timeline.push('upload');
      return { status: 201, body: { code: 200, data: {} } };
    });
    renderPanel();
    choose([new File(['1'], 'one.jpg'), new File(['2'], 'two.jpg')]);
    await waitFor(() => expect(timeline).toEqual(['status uploading', 'upload', 'upload', 'status uploaded']));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { id: 5, taskId: '-2', relatedFilesJson: 'uploading' },
      { id: 5, taskId: '-2', relatedFilesJson: 'uploaded' },
    ]);
  });

  it('only logs a failed status update: the upload goes on and nothing about it is shown', async () => {
    serve({ 'PUT /api/vtp/issueRecord': () => ({ status: 500, body: { code: 500, msg: 'database down' } }) });
    installFakeXhr();
    renderPanel();
    choose([new File(['1'], 'one.jpg')]);
    expect(await screen.findByText('Uploaded')).toBeInTheDocument();
    await waitFor(() =>
      expect(takeConsoleErrors().map((args) => String(args[0]))).toEqual([expect.stringContaining('uploading'), expect.stringContaining('uploaded')]),
    );
    expect(screen.queryByText(/database down/)).not.toBeInTheDocument();
    expect(await screen.findByText('File "one.jpg" uploaded successfully.')).toBeInTheDocument();
  });

  it('uploads to the project root and sends no status without an issue', async () => {
    const { calls } = serve();
    const xhr = installFakeXhr();
    renderPanel({ path: '', issue: undefined });
    choose([new File(['1'], 'top.txt')]);
    expect(await screen.findByText('File "top.txt" uploaded successfully.')).toBeInTheDocument();
    expect(xhr.requests[0]?.url).toBe('/sharepoint/files/upload?path=%2F&%40microsoft.graph.conflictBehavior=rename');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });
});
