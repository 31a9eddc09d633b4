import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { formSchema, uiSchema } from '../../../src/client/engine/form-schema';
import { RecordDetail } from '../../../src/client/engine/record-detail';
import { RecordSummary } from '../../../src/client/engine/record-summary';
import { registry } from '../../../src/client/engine/registry';
import { loadRecordForm } from '../../../src/client/engine/use-record-form';
import { ToastProvider } from '../../../src/client/ui/toast';
import { sampleRecord } from '../../helpers/samples';

/** What decides the layout: each element's tag, classes, inline style and shown text, in order. */
function layout(root: Element): string[] {
  const out: string[] = [];
  const walk = (el: Element, depth: number): void => {
    // PrimeReact's hidden accessible inputs of a dropdown, and hidden fields, take no space.
    if ((el.classList.contains('p-hidden-accessible') && !el.querySelector('[id]')) || el.getAttribute('type') === 'hidden') return;
    const classes = [...el.classList]
      .filter((c) => !['p-filled', 'p-inputwrapper-filled', 'p-clickable'].includes(c))
      .sort()
      .join('.');
    const own = [...el.childNodes]
      .filter((n) => n.nodeType === 3)
      .map((n) => n.textContent)
      .join('')
      .trim();
    const value = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? `=${el.value}` : '';
    const tag = el.tagName.toLowerCase() === 'form' ? 'div' : el.tagName.toLowerCase();
    if (tag !== 'path')
      out.push(
        `${'  '.repeat(depth)}${tag}${el.id ? `#${el.id}` : ''}.${classes}${el.getAttribute('style') && !/p-dropdown|p-hidden/.test(el.className) ? `[${el.getAttribute('style')}]` : ''} ${own}${value}`,
      );
    for (const child of el.children) walk(child, depth + 1);
  };
  walk(root, 0);
  return out;
}

describe('the read-only summary of a record', () => {
  it.each([...registry.keys()])('lays out a %s exactly as the disabled form does (no jump when the form takes its place)', async (name) => {
    const kind = registry.get(name)!;
    const record = {
      ...sampleRecord(kind, 3),
      id: 7,
      isOverseasSpecific: '是',
      remark: JSON.stringify({ connectors: [{ type: 'CCS', power: '60', total: '2' }] }),
    };
    const schema = formSchema(kind);
    const ui = uiSchema(kind);
    const { RecordForm } = await loadRecordForm();
    const form = render(
      <ToastProvider>
        <RecordForm schema={schema} uiSchema={ui} values={record} editing={false} onChange={() => undefined} onSubmit={() => undefined} />
      </ToastProvider>,
    );
    const expected = layout(form.container.querySelector('.rjsf') as Element).filter((line) => !/\[display: none;\]/.test(line));
    form.unmount();
    const summary = render(<RecordSummary schema={schema} uiSchema={ui} record={record} />);
    const shown = layout(summary.container.querySelector('.rjsf') as Element);
    // Hidden fields render nothing in the summary; the form keeps them in display:none boxes.
    const visible = expected.filter(
      (line, i, all) => !all.slice(0, i).some((prev) => /\[display: none;\]/.test(prev) && line.startsWith(prev.match(/^ */)![0] + '  ')),
    );
    expect(shown.map((l) => l.replace(/^(\s*)(\S+)/, (_m, s: string, t: string) => s + t.replace(/svg\..*/, 'svg')))).toEqual(
      visible.map((l) => l.replace(/^(\s*)(\S+)/, (_m, s: string, t: string) => s + t.replace(/svg\..*/, 'svg'))),
    );
  });

  it('is what a record first paints with, labelled like the form, before the form is loaded', async () => {
    const kind = registry.get('issue')!;
    render(
      <RecordSummary
        schema={formSchema(kind)}
        uiSchema={uiSchema(kind)}
        record={{ id: 5, issueTitle: 'Brake squeal', isOverseasSpecific: '是', faultMileage: 0 }}
      />,
    );
    expect(screen.getByLabelText('Title')).toHaveValue('Brake squeal');
    expect(screen.getByLabelText('Title')).toBeDisabled();
    expect(screen.getByLabelText('Fault Mileage (km)')).toHaveValue('0');
    expect(document.getElementById('root_isOverseasSpecific')?.closest('.p-dropdown')).toHaveTextContent('Yes');
    expect(screen.queryByLabelText('Task ID')).toBeNull();
  });

  it('gives way to the form when editing starts', async () => {
    const kind = registry.get('issue')!;
    render(
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={kind} id="new" />
        </ToastProvider>
      </MemoryRouter>,
    );
    expect(await screen.findByLabelText('Title')).toBeEnabled();
    expect(screen.queryByTestId('record-summary')).toBeNull();
  });
});
