import { useState, type ReactNode } from 'react';
import type { Kind } from '../../shared/kind-types';
import { t } from '../i18n';
import { kindText } from '../i18n/kind-texts';

/** One group of fields on a form or a sheet: an untitled group (the key fields) cannot fold. */
export type FieldGroup = { title?: string; fields: string[]; collapsed?: boolean };

/** A kind's shown fields in groups: the key fields (untitled), each x-kind.section, then the rest under 'More' (untitled when alone). */
export function groupsOf(kind: Kind, leaveOut: ReadonlySet<string> = new Set()): FieldGroup[] {
  const { keyFields = [], sections = [] } = kind.meta;
  const shown = (f: string): boolean => kind.schema.properties[f] !== undefined && kind.schema.properties[f]?.['x-ui']?.hidden !== true && !leaveOut.has(f);
  const groups: FieldGroup[] = [];
  const placed = new Set<string>();
  const key = keyFields.filter(shown);
  if (key.length > 0) groups.push({ fields: key });
  for (const f of key) placed.add(f);
  for (const [index, section] of sections.entries()) {
    const fields = section.fields.filter((f) => shown(f) && !placed.has(f));
    for (const f of fields) placed.add(f);
    if (fields.length > 0)
      groups.push({ title: kindText(kind, `sections.${index}.title`, section.title), fields, ...(section.collapsed ? { collapsed: true } : {}) });
  }
  const rest = kind.fields.filter((f) => shown(f) && !placed.has(f));
  if (rest.length > 0) groups.push(groups.length === 0 ? { fields: rest } : { title: t('detail.more'), fields: rest });
  return groups;
}

type FieldSectionProps = { title: string; collapsed?: boolean; open?: boolean; count?: number; children: ReactNode };
/** Groups of fields as forms show them: untitled ones plain, titled ones folding (open where `open` says of a field). */
export function FieldGroups({ groups, field, open }: { groups: FieldGroup[]; field: (name: string) => ReactNode; open?: (name: string) => boolean }) {
  return groups.map((g, i) =>
    g.title === undefined ? (
      <div key={i} className="field-group">
        {g.fields.map(field)}
      </div>
    ) : (
      <FieldSection key={i} title={g.title} collapsed={g.collapsed} open={open !== undefined && g.fields.some(open)} count={g.fields.length}>
        {g.fields.map(field)}
      </FieldSection>
    ),
  );
}

/** A titled group that folds, keeping its fields mounted so a form loses nothing; `open` forces it open (an error in it). */
export function FieldSection({ title, collapsed = false, open, count, children }: FieldSectionProps) {
  const [folded, setFolded] = useState(collapsed);
  // From the title, not useId: the form and the light summary that paints before it must match.
  const bodyId = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const isOpen = open === true || !folded;
  return (
    <section className="field-section" data-testid="field-section">
      <h2 className="field-section-title">
        <button type="button" className="field-section-toggle" aria-expanded={isOpen} aria-controls={bodyId} onClick={() => setFolded(isOpen)}>
          <span className="flex-1">{title}</span>
          {!isOpen && count !== undefined && <span className="field-section-count">{t('detail.fieldCount', { count })}</span>}
          <i className={`pi ${isOpen ? 'pi-chevron-up' : 'pi-chevron-down'}`} aria-hidden="true" />
        </button>
      </h2>
      <div id={bodyId} className="field-section-body" hidden={!isOpen}>
        {children}
      </div>
    </section>
  );
}
