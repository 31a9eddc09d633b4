import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { toneOf } from '../../src/client/kinds/issue-status/phase';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';

function openIssue(record: Record<string, unknown>) {
  signedIn();
  fakeFetch({
    'GET /api/system/user/getInfo': okInfo(),
    'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: { id: 5, projectName: 'P1', vehicleNo: 'V1', ...record } } }),
    'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
  });
  renderApp('/data/issue/5');
}

describe('the issue status strip', () => {
  it('colours READY, DOING, DONE and anything else', () => {
    expect(['READY', 'DOING', 'DONE', 'LATER', undefined].map(toneOf)).toEqual(['ready', 'doing', 'done', 'other', 'other']);
  });

  it('shows the two indicators and keeps the AI report closed until the analysis is DONE with a report', async () => {
    openIssue({ videoAnalysisStatus: 'DOING', videoDesensitizationStatus: 'READY', aiVideoAnalysisReport: 'Report text' });
    expect(await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 })).toHaveClass('status-doing');
    expect(screen.getByTestId('status-Desensitization')).toHaveClass('status-ready');
    expect(screen.getByRole('button', { name: 'AI report' })).toBeDisabled();
  });

  it('says where the analysis is in words beside the colours', async () => {
    openIssue({ issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'DONE', aiVideoAnalysisReport: 'Report text' });
    const phase = await screen.findByTestId('ai-phase', {}, { timeout: 15_000 });
    expect(phase).toHaveTextContent(/^Done$/);
    expect(phase).toHaveClass('status-done');
    // The indicators keep their SPEC colours.
    expect(await screen.findByTestId('status-Video analysis', {}, { timeout: 15_000 })).toHaveClass('status-done');
  });

  it('opens the AI report and copies it', async () => {
    const user = userEvent.setup();
    // After setup: user-event installs a clipboard of its own.
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    openIssue({ videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'DONE', aiVideoAnalysisReport: 'Wind noise from the left mirror.' });
    await user.click(await screen.findByRole('button', { name: 'AI report' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('AI report')).toBeInTheDocument();
    expect(within(dialog).getByText('Wind noise from the left mirror.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Copy' }));
    // Copy loads the report's text view first (report-view.ts): the clipboard is written a moment later.
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('Wind noise from the left mirror.'));
    expect(await screen.findByText('AI report copied')).toBeInTheDocument();
    await user.click(within(dialog).getByText('Close').closest('button') as HTMLElement);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('is not shown on a new issue', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/issue/new');
    await screen.findByRole('heading', { name: 'New Issue Record' });
    expect(screen.queryByRole('button', { name: 'AI report' })).not.toBeInTheDocument();
  });
});
