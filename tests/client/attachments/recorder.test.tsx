import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeFetch } from '../fake-server';
import { installFakeXhr, renderPanel, uploadsSettled } from './fakes';

function micRejects(name: string): void {
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: { getUserMedia: vi.fn(() => Promise.reject(new DOMException('nope', name))) },
  });
}

/** A MediaRecorder that hands over one chunk when stopped. */
class FakeRecorder {
  static last: FakeRecorder | null = null;
  static isTypeSupported = (type: string): boolean => type === 'audio/webm;codecs=opus' || type === 'audio/webm';
  state: 'inactive' | 'recording' = 'inactive';
  ondataavailable: ((e: { data: Blob }) => void) | null = null;
  onstop: (() => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(
    readonly stream: { getTracks: () => Array<{ stop: () => void }> },
    readonly options?: { mimeType?: string },
  ) {
    FakeRecorder.last = this;
  }
  get mimeType(): string {
    return this.options?.mimeType ?? '';
  }
  start(): void {
    this.state = 'recording';
  }
  stop(): void {
    this.state = 'inactive';
    this.ondataavailable?.({ data: new Blob(['opus-bytes'], { type: this.mimeType }) });
    this.onstop?.();
  }
}

function micWorks() {
  const track = { stop: vi.fn() };
  const getUserMedia = vi.fn(() => Promise.resolve({ getTracks: () => [track] }));
  Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: { getUserMedia } });
  vi.stubGlobal('MediaRecorder', FakeRecorder);
  return { track, getUserMedia };
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'mediaDevices');
});

describe('recording a voice note', () => {
  it.each([
    ['NotAllowedError', 'Microphone access denied. Please allow access in your browser settings.'],
    ['NotFoundError', 'Microphone not found.'],
    ['NotReadableError', 'Could not start recording. Please check microphone permissions.'],
  ])('says what went wrong when the microphone fails with %s', async (name, message) => {
    fakeFetch({ 'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }) });
    micRejects(name);
    renderPanel();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Record audio' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Record audio' })).toBeEnabled();
  });

  it('records opus in webm, releases the microphone on stop and uploads recording_{timestamp}.webm', async () => {
    const { calls } = fakeFetch({
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
      'PUT /api/vtp/issueRecord': () => ({ body: { code: 200 } }),
    });
    const xhr = installFakeXhr();
    const { track, getUserMedia } = micWorks();
    renderPanel();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Record audio' }));
    expect(await screen.findByText('Recording started...')).toBeInTheDocument();
    expect(getUserMedia).toHaveBeenCalledWith({ audio: true });
    expect(FakeRecorder.last?.options).toEqual({ mimeType: 'audio/webm;codecs=opus' });
    expect(screen.getByLabelText('Recording name')).toBeDisabled();
    await user.click(screen.getByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ }));
    expect(track.stop).toHaveBeenCalled();
    expect(await screen.findByText('Uploaded')).toBeInTheDocument();
    const sent = xhr.requests[0]?.sentFile() as File;
    expect(sent.name).toMatch(/^recording_\d{8}-\d{6}\.webm$/);
    expect(sent.type).toBe('audio/webm');
    await uploadsSettled(calls);
  });

  it('uses a custom name, and says so when a recording fails to upload', async () => {
    fakeFetch({ 'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }), 'PUT /api/vtp/issueRecord': () => ({ body: { code: 200 } }) });
    installFakeXhr(() => ({ status: 500, body: { code: 500, msg: 'Disk full' } }));
    micWorks();
    renderPanel();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Recording name'), 'Brake noise');
    await user.click(screen.getByRole('button', { name: 'Record audio' }));
    await user.click(await screen.findByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ }));
    expect(await screen.findByText('Failed to upload recording "Brake noise.webm".')).toBeInTheDocument();
    expect(screen.getByText('Upload failed: Disk full')).toBeInTheDocument();
  });

  it('falls back to the default name when the custom one cannot be used', async () => {
    const { calls } = fakeFetch({
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
      'PUT /api/vtp/issueRecord': () => ({ body: { code: 200 } }),
    });
    const xhr = installFakeXhr();
    micWorks();
    renderPanel();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Recording name'), '...');
    await user.click(screen.getByRole('button', { name: 'Record audio' }));
    await user.click(await screen.findByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ }));
    await waitFor(() => expect(xhr.requests).toHaveLength(1));
    expect((xhr.requests[0]?.sentFile() as File).name).toMatch(/^recording_\d{8}-\d{6}\.webm$/);
    expect(await screen.findByText('Uploaded')).toBeInTheDocument();
    await uploadsSettled(calls);
  });

  it('reports an error event of the recorder and releases the microphone', async () => {
    fakeFetch({ 'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }) });
    const xhr = installFakeXhr();
    const { track } = micWorks();
    renderPanel();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Record audio' }));
    await screen.findByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ });
    FakeRecorder.last?.onerror?.();
    expect(await screen.findByText('An error occurred during recording.')).toBeInTheDocument();
    expect(track.stop).toHaveBeenCalled();
    expect(await screen.findByRole('button', { name: 'Record audio' })).toBeEnabled();
    expect(xhr.requests).toHaveLength(0);
  });
});
