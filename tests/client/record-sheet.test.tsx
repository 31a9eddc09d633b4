import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { formSchema, uiSchema } from '../../src/client/engine/form-schema';
import { RecordSheet } from '../../src/client/engine/record-sheet';
import { groupsOf } from '../../src/client/engine/sections';
import { registry } from '../../src/client/engine/registry';
import { detailExtras } from '../../src/client/kinds/extensions';

const issue = registry.get('issue')!;
const RECORD = {
  id: 9,
  issueTitle: 'Brake squeal',
  issueSeverity: 'High',
  issueCategory: 'Brakes',
  issueStartTime: '2026-11-20 08:30:00',
  faultMileage: 1520,
  issueDescription: 'Squeals below 30 km/h',
  city: 'Leeds',
  projectName: 'P1',
  vehicleNo: 'V1',
  isOverseasSpecific: '否',
  videoAnalysisStatus: 'DOING',
  videoDesensitizationStatus: 'DONE',
};

function sheet(record: Record<string, unknown> = RECORD, slot?: React.ReactNode) {
  return render(
    <RecordSheet kind={issue} schema={formSchema(issue)} uiSchema={uiSchema(issue)} record={record} valueText={detailExtras(issue).valueText}>
      {slot}
    </RecordSheet>,
  );
}

describe('a record in view mode (the sheet)', () => {
  it('starts with the title and the key facts, then what the kind adds (attachments), then the sections', () => {
    sheet(RECORD, <div data-testid="attachments">Attachments</div>);
    const head = screen.getByRole('heading', { level: 2, name: 'Brake squeal' });
    const facts = head.parentElement as HTMLElement;
    expect([...facts.querySelectorAll('dt')].map((d) => d.textContent)).toEqual(['Severity', 'Category', 'Start Time', 'Fault Mileage (km)']);
    expect(within(facts).getByLabelText('Category')).toHaveTextContent('Brakes');
    // The attachments come right after the head, before any section.
    const order = [...screen.getByTestId('record-sheet').children].map((el) => el.getAttribute('data-testid') ?? el.className);
    expect(order.slice(0, 3)).toEqual(['sheet-card sheet-head', 'attachments', 'sheet-card']);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent?.replace(/\d+ fields?/, ''))).toEqual([
      'Brake squeal',
      'What happened',
      'Where',
      'Vehicle and software',
      'Scope',
      'Record',
    ]);
  });

  it('folds empty fields away behind one button that says how many, and shows them on a tap', async () => {
    sheet();
    expect(screen.queryByLabelText('Address')).toBeNull();
    const shownRows = (): number => document.querySelectorAll('.sheet-row').length;
    const before = shownRows();
    const visible = groupsOf(issue, new Set(['issueTitle', 'videoAnalysisStatus', 'videoDesensitizationStatus', 'aiVideoAnalysisReport'])).flatMap(
      (g) => g.fields,
    );
    const empty = visible.filter((f) => !(f in RECORD)).length;
    const button = screen.getByRole('button', { name: `Show ${empty} empty fields` });
    await userEvent.setup().click(button);
    expect(shownRows()).toBe(before + empty);
    expect(screen.getByLabelText('Address')).toHaveTextContent('Not set');
    expect(screen.getByRole('button', { name: 'Hide empty fields' })).toBeInTheDocument();
  });

  it('hides the fields only the video analysis sets until asked', async () => {
    sheet();
    expect(screen.queryByText('Video Analysis Status')).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Show 2 fields set by the server' }));
    expect(screen.getByLabelText('Video Analysis Status')).toHaveTextContent('In progress');
    expect(screen.getByLabelText('Video Desensitization Status')).toHaveTextContent('Done');
  });

  it('folds a section declared collapsed, and its heading opens and closes it', async () => {
    sheet();
    const scope = screen.getByRole('button', { name: /^Scope/ });
    expect(scope).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByLabelText('Overseas Specific')).not.toBeVisible();
    await userEvent.setup().click(scope);
    expect(scope).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByLabelText('Overseas Specific')).toBeVisible();
    expect(screen.getByLabelText('Overseas Specific')).toHaveTextContent('No');
    const where = screen.getByRole('button', { name: /^Where/ });
    expect(where).toHaveAttribute('aria-expanded', 'true');
    await userEvent.setup().click(where);
    expect(screen.getByLabelText('City')).not.toBeVisible();
  });

  it('shows values as text: no inputs, nothing disabled', () => {
    sheet();
    expect(document.querySelectorAll('input, textarea, select, [disabled]')).toHaveLength(0);
    expect(screen.getByLabelText('Description')).toHaveTextContent('Squeals below 30 km/h');
  });
});

describe('the groups of a kind', () => {
  it('put the key fields first, then the sections without them, then the rest under More', () => {
    const groups = groupsOf(issue);
    expect(groups[0]).toEqual({ fields: ['issueTitle', 'issueSeverity', 'issueCategory', 'issueStartTime', 'faultMileage'] });
    expect(groups.find((g) => g.title === 'When')?.fields).toEqual(['issueDate', 'issueEndTime']);
    const all = groups.flatMap((g) => g.fields);
    expect(new Set(all).size).toBe(all.length);
    // Every field people see is somewhere; hidden ones nowhere.
    expect(all.sort()).toEqual(issue.fields.filter((f) => issue.schema.properties[f]?.['x-ui']?.hidden !== true).sort());
  });

  it('are one untitled group for a kind that declares none', () => {
    const plain = { ...issue, meta: { ...issue.meta, keyFields: undefined, sections: undefined } } as unknown as typeof issue;
    const groups = groupsOf(plain);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.title).toBeUndefined();
  });

  it('keeps an empty field in view when it has a note (a required field left empty under an earlier form)', () => {
    const ui = { ...uiSchema(issue), address: { 'ui:help': 'Saved under an earlier version of this form: is required' } };
    render(<RecordSheet kind={issue} schema={formSchema(issue)} uiSchema={ui} record={RECORD} />);
    expect(screen.getByLabelText('Address')).toHaveTextContent('Not set');
    expect(screen.getByTestId('field-warning')).toHaveTextContent('is required');
  });
});
