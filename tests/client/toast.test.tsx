import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '../../src/client/i18n';
import { preloadToast, ToastProvider, useToast, type ShowToast } from '../../src/client/ui/toast';

function Grab({ onReady }: { onReady: (show: ShowToast) => void }) {
  onReady(useToast());
  return null;
}

describe('toasts', () => {
  it('show one at a time: the latest replaces the one on screen, also when two come at once', async () => {
    await preloadToast();
    let show: ShowToast = () => {};
    render(
      <ToastProvider>
        <Grab onReady={(s) => (show = s)} />
      </ToastProvider>,
    );
    act(() => show('info', 'First'));
    expect(await screen.findByText('First')).toBeInTheDocument();
    act(() => {
      show('info', 'Second');
      show('error', 'Third');
    });
    expect(await screen.findByText('Third')).toBeInTheDocument();
    expect(screen.queryByText('First')).not.toBeInTheDocument();
    expect(screen.queryByText('Second')).not.toBeInTheDocument();
  });

  it('keeps the latest of toasts asked for before the toast library has loaded', async () => {
    let show: ShowToast = () => {};
    render(
      <ToastProvider>
        <Grab onReady={(s) => (show = s)} />
      </ToastProvider>,
    );
    act(() => {
      show('info', 'Early one');
      show('warn', 'Early two');
    });
    expect(await screen.findByText('Early two')).toBeInTheDocument();
    expect(screen.queryByText('Early one')).not.toBeInTheDocument();
  });

  it('leave with the language they were shown in: switching the language clears the toast on screen', async () => {
    await preloadToast();
    let show: ShowToast = () => {};
    render(
      <ToastProvider>
        <Grab onReady={(s) => (show = s)} />
      </ToastProvider>,
    );
    try {
      await act(() => applyLanguage('zh'));
      act(() => show('success', '行驶会话已开始', undefined, 60_000));
      expect(await screen.findByText('行驶会话已开始')).toBeInTheDocument();
      await act(() => applyLanguage('en'));
      expect(screen.queryByText('行驶会话已开始')).not.toBeInTheDocument();
      act(() => show('info', 'Drive session started'));
      expect(await screen.findByText('Drive session started')).toBeInTheDocument();
    } finally {
      await applyLanguage('en');
    }
  });
});
