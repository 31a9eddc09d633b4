import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '../../src/client/i18n';
import { SignOutDialog } from '../../src/client/ui/sign-out-dialog';

// The dialog words the running sessions in the language on screen; a session of a kind the
// catalogue does not name (one an admin added in a schema file) keeps the kind's own name.
describe('SignOutDialog', () => {
  const running = [
    { kind: 'drive', startedAt: '2026-11-21 08:00:00' },
    { kind: 'refuel', startedAt: '2026-11-21 09:30:00' },
  ];

  it('names known kinds from the catalogue and other kinds by their name (English)', async () => {
    await applyLanguage('en');
    render(<SignOutDialog visible onCancel={() => undefined} onConfirm={() => undefined} running={running} />);
    const line = await screen.findByTestId('sign-out-sessions');
    expect(line).toHaveTextContent('drive session (since 08:00)');
    expect(line).toHaveTextContent('refuel session (since 09:30)');
  });

  it('does the same on a Chinese screen', async () => {
    await applyLanguage('zh');
    render(<SignOutDialog visible onCancel={() => undefined} onConfirm={() => undefined} running={running} />);
    const line = await screen.findByTestId('sign-out-sessions');
    expect(line).toHaveTextContent('行驶');
    expect(line).toHaveTextContent('refuel');
    await applyLanguage('en');
  });
});
