import { render, waitFor } from '@testing-library/react';
import { expect, vi } from 'vitest';
import type { FakeCall } from '../fake-server';
import { FilePanel, type FilePanelProps } from '../../../src/client/files/file-panel';
import { ToastProvider } from '../../../src/client/ui/toast';

export type XhrReply = { status: number; body?: unknown } | 'network-error';

/** A stand-in for XMLHttpRequest (uploads use it for progress): records each request and answers it. */
export class FakeXhr {
  static requests: FakeXhr[] = [];
  static reply: (xhr: FakeXhr) => XhrReply | Promise<XhrReply> = () => ({ status: 201, body: { code: 200, msg: 'ok', data: {} } });
  static timeline: string[] = [];

  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  responseText = '';
  withCredentials = false;
  upload: { onprogress: ((e: { loaded: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }
  /** The bytes sent: a Blob chunk, or the `file` of a multipart form. */
  sentFile(): Blob | null {
    if (this.body instanceof FormData) return this.body.get('file') as Blob | null;
    return this.body instanceof Blob ? this.body : null;
  }
  send(body: unknown): void {
    this.body = body;
    FakeXhr.requests.push(this);
    FakeXhr.timeline.push(`xhr ${this.method}`);
    setTimeout(async () => {
      const reply = await FakeXhr.reply(this);
      if (reply === 'network-error') return this.onerror?.();
      this.upload.onprogress?.({ loaded: this.sentFile()?.size ?? 0 });
      this.status = reply.status;
      this.responseText = reply.body === undefined ? '' : JSON.stringify(reply.body);
      this.onload?.();
    }, 5);
  }
}

export function installFakeXhr(reply?: (xhr: FakeXhr) => XhrReply | Promise<XhrReply>): typeof FakeXhr {
  FakeXhr.requests = [];
  FakeXhr.timeline = [];
  FakeXhr.reply = reply ?? (() => ({ status: 201, body: { code: 200, msg: 'ok', data: {} } }));
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return FakeXhr;
}

/** A small real file that reports another size: enough to test the size rules without allocating 50 MB. */
export function fileOfSize(name: string, size: number, type = 'application/octet-stream'): File {
  const file = new File(['0123456789'], name, { type });
  Object.defineProperty(file, 'size', { value: size });
  return file;
}

export const FOLDER = 'issue_records/20261120/V1/Issue_5_20261120-083000';
export const LIST_URL = `/sharepoint/files`;

export function renderPanel(props: Partial<FilePanelProps> = {}) {
  localStorage.setItem('accessToken', 'token-abc');
  return render(
    <ToastProvider>
      <FilePanel
        title="Attachments"
        path={FOLDER}
        editable
        issue={{ apiPath: '/vtp/issueRecord', id: 5, field: 'relatedFilesJson', with: { taskId: '-2' } }}
        {...props}
      />
    </ToastProvider>,
  );
}

export const entry = (name: string, extra: Record<string, unknown> = {}) => ({
  id: `id-${name}`,
  name,
  isFolder: false,
  mimeType: '',
  size: 10,
  modified: '2026-11-20T08:30:00.000Z',
  ...extra,
});

/** Waits for the closing 'uploaded' status call, so that no request of this test runs into the next one. */
export async function uploadsSettled(calls: FakeCall[]): Promise<void> {
  await waitFor(() =>
    expect(calls.some((c) => c.method === 'PUT' && (c.body as { relatedFilesJson?: string } | undefined)?.relatedFilesJson === 'uploaded')).toBe(true),
  );
}
