import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { analysisPhase, showFirstSubmit, showResubmit, waitedFor } from '../../src/client/kinds/issue-status/phase';
import { POLL_MS, type AiStatus } from '../../src/client/api/analysis';
import { fakeFetch, okInfo, takeConsoleErrors, type FakeCall } from './fake-server';
import { renderApp, signedIn } from './render';

type Values = Record<string, unknown>;

function status(record: Values, state: string | null, error: string | null = null, updatedAt: string | null = null) {
  return {
    code: 200,
    data: {
      id: 5,
      issueStatus: record['issueStatus'] ?? null,
      videoAnalysisStatus: record['videoAnalysisStatus'] ?? null,
      videoDesensitizationStatus: record['videoDesensitizationStatus'] ?? null,
      state,
      error,
      remark: null,
      updatedAt,
      history: [],
    },
  };
}

/** The issue screen against a fake server whose record and job the test changes as a worker would. */
function openIssue(initial: Values, submit?: (call: FakeCall) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>) {
  const server = {
    record: { id: 5, projectName: 'P1', vehicleNo: 'V1', issueTitle: 'Wind noise', ...initial } as Values,
    state: null as string | null,
    error: null as string | null,
    updatedAt: null as string | null,
  };
  signedIn();
  const fake = fakeFetch({
    'GET /api/system/user/getInfo': okInfo(),
    'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: server.record } }),
    'GET /api/vtp/issueRecord/aiStatus': () => ({ body: status(server.record, server.state, server.error, server.updatedAt) }),
    'POST /api/vtp/issueRecord/aiSubmit': submit ?? (() => ({ body: status(server.record, 'queued') })),
    'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
  });
  renderApp('/data/issue/5');
  return { server, ...fake };
}

const submitCalls = (calls: FakeCall[]) => calls.filter((c) => c.method === 'POST' && c.url.includes('/aiSubmit'));
const statusCalls = (calls: FakeCall[]) => calls.filter((c) => c.url.includes('/aiStatus'));

afterEach(() => {
  vi.useRealTimers();
});

describe('the submit-to-AI icons', () => {
  it('follow SPEC section 6: first submit when no status or report is READY, DOING or DONE; resubmit for AI_PROCESS once the last submission finished; neither while editing', () => {
    expect(showFirstSubmit({}, false)).toBe(true);
    expect(showFirstSubmit({ videoAnalysisStatus: 'FAILED', videoDesensitizationStatus: 'FAILED', aiVideoAnalysisReport: 'old' }, false)).toBe(true);
    expect(showFirstSubmit({ videoAnalysisStatus: 'READY' }, false)).toBe(false);
    expect(showFirstSubmit({ videoDesensitizationStatus: 'DOING' }, false)).toBe(false);
    expect(showFirstSubmit({ aiVideoAnalysisReport: 'DONE' }, false)).toBe(false);
    expect(showFirstSubmit({}, true)).toBe(false);
    expect(showResubmit({ issueStatus: 'AI_PROCESS' }, false)).toBe(true);
    // Only once the last submission has finished: while it waits for a worker or runs, a resubmit would change nothing.
    expect(showResubmit({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' }, false)).toBe(false);
    expect(showResubmit({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'DOING' }, false)).toBe(false);
    expect(showResubmit({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'DOING', videoDesensitizationStatus: 'DONE' }, false)).toBe(false);
    expect(showResubmit({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'DONE' }, false)).toBe(true);
    expect(showResubmit({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'FAILED', videoDesensitizationStatus: 'DONE' }, false)).toBe(true);
    expect(showResubmit({ issueStatus: 'AI_PROCESS' }, true)).toBe(false);
    expect(showResubmit({ issueStatus: 'OPEN' }, false)).toBe(false);
  });

  it('shows the first-submit icon on an issue with no statuses, and hides both icons while editing', async () => {
    openIssue({});
    expect(await screen.findByRole('button', { name: 'Submit to AI' }, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resubmit to AI' })).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Submit to AI' })).not.toBeInTheDocument());
  });

  it('shows only the resubmit icon on an analysed issue, and neither on an issue whose statuses are READY', async () => {
    openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'DONE', aiVideoAnalysisReport: 'report' });
    expect(await screen.findByRole('button', { name: 'Resubmit to AI' }, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Submit to AI' })).not.toBeInTheDocument();
  });

  it('shows no icon for READY statuses outside AI processing', async () => {
    openIssue({ videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' });
    expect(await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 })).toHaveClass('status-ready');
    expect(screen.queryByRole('button', { name: 'Submit to AI' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resubmit to AI' })).not.toBeInTheDocument();
  });
});

describe('submitting to AI', () => {
  it('asks first, sends one call however often the confirm button is clicked while it runs, and says Submitted to AI', async () => {
    const user = userEvent.setup();
    let release: () => void = () => {};
    const answered = new Promise<void>((r) => (release = r));
    const { calls, server } = openIssue({}, async (call) => {
      await answered;
      server.record = { ...server.record, issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' };
      server.state = 'queued';
      void call;
      return { body: status(server.record, 'queued') };
    });
    await user.click(await screen.findByRole('button', { name: 'Submit to AI' }, { timeout: 15_000 }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Submit this issue's videos and images/)).toBeInTheDocument();
    const confirm = within(dialog).getByRole('button', { name: 'Submit' });
    await user.click(confirm);
    await user.click(confirm);
    await user.dblClick(confirm);
    expect(submitCalls(calls)).toHaveLength(1);
    expect(submitCalls(calls)[0]?.body).toEqual({ id: 5, mode: '' });
    release();
    expect(await screen.findByText('Submitted to AI')).toBeInTheDocument();
    expect(submitCalls(calls)).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId('status-Video analysis')).toHaveClass('status-ready'));
    // Queued: neither icon, since a submission now would change nothing (the resubmit shows once it has finished).
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Submit to AI' })).not.toBeInTheDocument());
    expect(screen.queryByRole('button', { name: 'Resubmit to AI' })).not.toBeInTheDocument();
  });

  it('says Submitting to AI failed with the server’s reason when the first submit is refused', async () => {
    const user = userEvent.setup();
    openIssue({}, () => ({
      status: 400,
      body: { code: 400, msg: 'Issue 5 has no video or image attachment to analyse; attach one in its Attachments card first', data: null },
    }));
    await user.click(await screen.findByRole('button', { name: 'Submit to AI' }, { timeout: 15_000 }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Submitting to AI failed')).toBeInTheDocument();
    expect(screen.getByText(/has no video or image attachment/)).toBeInTheDocument();
    expect(takeConsoleErrors().length).toBeGreaterThan(0);
  });

  it('resubmits with AI_RETRY: Resubmitted to AI, or Resubmitting to AI failed when refused', async () => {
    const user = userEvent.setup();
    let refuse = false;
    const { calls } = openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'FAILED', videoDesensitizationStatus: 'DONE' }, () =>
      refuse
        ? { status: 500, body: { code: 500, msg: 'database unavailable', data: null } }
        : { body: status({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' }, 'queued') },
    );
    await user.click(await screen.findByRole('button', { name: 'Resubmit to AI' }, { timeout: 15_000 }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Resubmit' }));
    expect(await screen.findByText('Resubmitted to AI')).toBeInTheDocument();
    expect(submitCalls(calls)[0]?.body).toEqual({ id: 5, mode: 'AI_RETRY' });
    refuse = true;
    await user.click(await screen.findByRole('button', { name: 'Resubmit to AI' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Resubmit' }));
    expect(await screen.findByText('Resubmitting to AI failed')).toBeInTheDocument();
    takeConsoleErrors();
  });

  it('does nothing when the confirmation is cancelled', async () => {
    const user = userEvent.setup();
    const { calls } = openIssue({});
    await user.click(await screen.findByRole('button', { name: 'Submit to AI' }, { timeout: 15_000 }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(submitCalls(calls)).toHaveLength(0);
  });
});

describe('following the analysis', () => {
  it('turns the indicators from READY to DOING to DONE without a reload, then stops polling', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { server, calls } = openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' });
    server.state = 'queued';
    const analysis = await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 });
    expect(analysis).toHaveClass('status-ready');
    expect(screen.getByTestId('status-Desensitization')).toHaveClass('status-ready');
    // In words as well as in blue.
    await waitFor(() => expect(screen.getByTestId('ai-phase')).toHaveTextContent('Queued, waiting for an analysis worker'));
    expect(screen.getByTestId('ai-phase')).toHaveClass('status-ready');

    // A worker claims it: desensitization DOING (yellow).
    server.record = { ...server.record, videoDesensitizationStatus: 'DOING' };
    server.state = 'claimed';
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS));
    await waitFor(() => expect(screen.getByTestId('status-Desensitization')).toHaveClass('status-doing'));
    await waitFor(() => expect(screen.getByTestId('ai-phase')).toHaveTextContent(/^Desensitizing$/));
    expect(screen.getByTestId('ai-phase')).toHaveClass('status-doing');

    // Blurred, the model runs: analysis DOING.
    server.record = { ...server.record, videoDesensitizationStatus: 'DONE', videoAnalysisStatus: 'DOING' };
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS));
    await waitFor(() => expect(screen.getByTestId('status-Video analysis')).toHaveClass('status-doing'));
    expect(screen.getByTestId('status-Desensitization')).toHaveClass('status-done');
    await waitFor(() => expect(screen.getByTestId('ai-phase')).toHaveTextContent(/^Analysing$/));

    // Done: green, and the report (fetched with the record) opens.
    server.record = { ...server.record, videoAnalysisStatus: 'DONE', aiVideoAnalysisReport: '## Finding\n\n- wind noise at **80 km/h**' };
    server.state = 'done';
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS));
    await waitFor(() => expect(screen.getByTestId('status-Video analysis')).toHaveClass('status-done'));
    await waitFor(() => expect(screen.getByRole('button', { name: 'AI report' })).toBeEnabled());
    expect(screen.getByTestId('ai-phase')).toHaveTextContent(/^Done$/);
    expect(screen.getByTestId('ai-phase')).toHaveClass('status-done');

    const polled = statusCalls(calls).length;
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS * 3));
    expect(statusCalls(calls)).toHaveLength(polled);
    vi.useRealTimers();

    // The report renders its markdown; Copy copies the text it shows.
    const user = userEvent.setup();
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await user.click(screen.getByRole('button', { name: 'AI report' }));
    const dialog = await screen.findByRole('dialog');
    const heading = await within(dialog).findByRole('heading', { name: 'Finding' });
    expect(heading.tagName).toBe('H2');
    expect(within(dialog).getByText('80 km/h').tagName).toBe('STRONG');
    await user.click(within(dialog).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('Finding\n\n- wind noise at 80 km/h');
    expect(await screen.findByText('AI report copied')).toBeInTheDocument();
  });

  it('does not poll while the page is hidden', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const hidden = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    const { calls } = openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' });
    await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 });
    await act(() => vi.advanceTimersByTimeAsync(POLL_MS * 2));
    expect(statusCalls(calls)).toHaveLength(0);
    hidden.mockReturnValue('visible');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await waitFor(() => expect(statusCalls(calls).length).toBeGreaterThan(0));
    hidden.mockRestore();
  });

  it('shows the job’s error when a FAILED indicator is tapped', async () => {
    const user = userEvent.setup();
    const { server } = openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'FAILED', videoDesensitizationStatus: 'DONE' });
    server.state = 'failed';
    server.error = 'The model answered 503 three times';
    const failed = await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 });
    expect(failed).toHaveClass('status-other');
    await user.click(failed);
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('ai-error')).toHaveTextContent('The model answered 503 three times');
  });

  it('says in words that a queued job waits for a worker, and for how long', async () => {
    const { server } = openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' });
    server.state = 'queued';
    server.updatedAt = new Date(Date.now() - 3 * 60_000 - 5_000).toISOString();
    const phase = await screen.findByTestId('ai-phase', {}, { timeout: 15_000 });
    await waitFor(() => expect(phase).toHaveTextContent('Queued, waiting for an analysis worker for 3 min'));
    expect(phase).toHaveAttribute('role', 'status');
  });

  it('says Failed: with the worker’s reason without a tap', async () => {
    const { server } = openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'FAILED' });
    server.state = 'failed';
    server.error = 'ffmpeg could not read the video';
    const phase = await screen.findByTestId('ai-phase', {}, { timeout: 15_000 });
    await waitFor(() => expect(phase).toHaveTextContent('Failed: ffmpeg could not read the video'));
    expect(phase).toHaveClass('status-other');
  });

  it('says nothing about an issue never submitted', async () => {
    openIssue({});
    await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 });
    expect(screen.queryByTestId('ai-phase')).not.toBeInTheDocument();
  });
});

describe('the analysis in words', () => {
  const live = (over: Partial<AiStatus>): AiStatus => ({
    id: 5,
    videoAnalysisStatus: 'READY',
    videoDesensitizationStatus: 'READY',
    state: 'queued',
    error: null,
    remark: null,
    updatedAt: null,
    history: [],
    ...over,
  });
  const now = Date.parse('2026-11-26T12:00:00Z');

  it('maps the status call’s states and the record’s statuses to words and colours', () => {
    expect(analysisPhase({}, null)).toBeNull();
    expect(analysisPhase({ issueStatus: 'OPEN', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' }, null)).toBeNull();
    expect(analysisPhase({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' }, null)).toEqual({
      key: 'queued',
      text: 'Queued, waiting for an analysis worker',
      tone: 'ready',
    });
    expect(analysisPhase({}, live({ updatedAt: '2026-11-26T11:57:00Z' }), now)?.text).toBe('Queued, waiting for an analysis worker for 3 min');
    // The contract's format, as the server sends it: local time.
    const local = new Date(Date.parse('2026-11-26T11:57:00Z') - 5 * 60_000);
    const two = (n: number): string => String(n).padStart(2, '0');
    const text = `${local.getFullYear()}-${two(local.getMonth() + 1)}-${two(local.getDate())} ${two(local.getHours())}:${two(local.getMinutes())}:${two(local.getSeconds())}`;
    expect(analysisPhase({}, live({ updatedAt: text }), Date.parse('2026-11-26T11:57:00Z'))?.text).toBe('Queued, waiting for an analysis worker for 5 min');
    expect(analysisPhase({}, live({ state: 'claimed', videoDesensitizationStatus: 'DOING' }), now)).toEqual({
      key: 'desensitizing',
      text: 'Desensitizing',
      tone: 'doing',
    });
    expect(analysisPhase({}, live({ state: 'claimed', videoDesensitizationStatus: 'DONE', videoAnalysisStatus: 'DOING' }), now)).toEqual({
      key: 'analysing',
      text: 'Analysing',
      tone: 'doing',
    });
    expect(analysisPhase({}, live({ state: 'done', videoDesensitizationStatus: 'DONE', videoAnalysisStatus: 'DONE' }), now)).toEqual({
      key: 'done',
      text: 'Done',
      tone: 'done',
    });
    expect(analysisPhase({}, live({ state: 'failed', videoAnalysisStatus: 'FAILED', error: 'model 503' }), now)).toEqual({
      key: 'failed',
      text: 'Failed: model 503',
      tone: 'other',
    });
    expect(analysisPhase({ videoAnalysisStatus: 'FAILED' }, null)?.text).toBe('Failed');
  });

  it('says how long in minutes, hours and days', () => {
    const ago = (ms: number) => new Date(now - ms).toISOString();
    expect(waitedFor(ago(20_000), now)).toBe('for less than a minute');
    expect(waitedFor(ago(3 * 60_000), now)).toBe('for 3 min');
    expect(waitedFor(ago(65 * 60_000), now)).toBe('for 1 h 5 min');
    expect(waitedFor(ago(2 * 3600_000), now)).toBe('for 2 h');
    expect(waitedFor(ago(50 * 3600_000), now)).toBe('for 2 days');
    expect(waitedFor(null, now)).toBe('');
  });
});

describe('saving an issue', () => {
  it('never sends the fields only the analysis sets, even when the form filled in their default', async () => {
    const { withoutServerOwned } = await import('../../src/client/engine/record-edits');
    const { registry } = await import('../../src/client/engine/registry');
    const issue = registry.get('issue');
    expect(issue).toBeDefined();
    const edits = { issueTitle: 'new title', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY', aiVideoAnalysisReport: '' };
    expect(withoutServerOwned(issue as NonNullable<typeof issue>, edits)).toEqual({ issueTitle: 'new title' });
  });
});
