import { useState } from 'react';
import { Button } from 'primereact/button';
import { Banner } from '../ui/offline-line';
import { Dialog } from 'primereact/dialog';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import type { Kind } from '../../shared/kind-types';
import { fieldTitle, kindText } from '../i18n/kind-texts';
import { choicesOf, isMultiSelect } from '../../shared/field-vocabulary';
import { labelOf } from '../../shared/schema-evolution';
import { ChoiceChips } from './widgets/choices';

/** Filter values by field, sent as plain query parameters. */
export type FieldFilters = Record<string, string>;

const trimmed = (filters: FieldFilters): FieldFilters =>
  Object.fromEntries(Object.entries(filters).flatMap(([k, v]) => (v.trim() === '' ? [] : [[k, v.trim()]])));

/** One filter: its field's title, how it matches, and its box: chips for a list of choices (sent comma-separated, decision 074), else typed. */
function FilterRow(p: { kind: Kind; field: string; value: string; onChange: (next: string) => void }) {
  const { t } = useTranslation();
  const id = `filter-${p.field}`;
  const prop = p.kind.schema.properties[p.field];
  // A list of choices matches any of the choices picked (docs/decisions/061).
  const multi = isMultiSelect(prop);
  const how = multi ? t('list.anyOf') : p.kind.meta.filters?.[p.field] === 'contains' ? t('list.contains') : t('list.is');
  const choices = (multi ? (choicesOf(prop) ?? []) : []).map((value) => ({ value, label: labelOf({ ...prop, type: 'string' }, value) }));
  return (
    <div className="flex flex-column gap-1">
      <label htmlFor={id}>
        {fieldTitle(p.kind, p.field)} <span className="text-600 text-sm">({how})</span>
      </label>
      {multi ? (
        <ChoiceChips id={id} value={p.value.split(',').filter((v) => v !== '')} choices={choices} onChange={(next) => p.onChange((next ?? []).join(','))} />
      ) : (
        <InputText id={id} value={p.value} onChange={(e) => p.onChange(e.target.value)} />
      )}
    </div>
  );
}

/** A search button opening a form of the kind's declared filters (none without them). */
export function FieldFilterButton({ kind, value, onApply }: { kind: Kind; value: FieldFilters; onApply: (next: FieldFilters) => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<FieldFilters>(value);
  const fields = kind.fields.filter((f) => f in (kind.meta.filters ?? {}));
  if (fields.length === 0) return null;
  const active = Object.keys(value).length > 0;
  const apply = (next: FieldFilters): void => {
    onApply(trimmed(next));
    setOpen(false);
  };
  const footer = (
    <div className="flex gap-2">
      <Button label={t('list.clear')} outlined className="flex-1" onClick={() => apply({})} />
      <Button label={t('list.search')} icon="pi pi-search" className="flex-1" onClick={() => apply(draft)} />
    </div>
  );
  return (
    <>
      <Button
        icon="pi pi-search"
        rounded
        text={!active}
        aria-label={t('list.search')}
        onClick={() => {
          setDraft(value);
          setOpen(true);
        }}
      />
      {open && (
        <Dialog
          header={t('list.searchTitle', { title: kindText(kind, 'titles.list', kind.meta.titles.list) })}
          visible
          onHide={() => setOpen(false)}
          footer={footer}
          style={{ width: 'min(28rem, calc(100vw - 1rem))' }}
          modal
        >
          <form
            className="flex flex-column gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              apply(draft);
            }}
          >
            {fields.map((field) => (
              <FilterRow key={field} kind={kind} field={field} value={draft[field] ?? ''} onChange={(v) => setDraft({ ...draft, [field]: v })} />
            ))}
            <button type="submit" hidden />
          </form>
        </Dialog>
      )}
    </>
  );
}

export function FieldFilterBanner({ kind, value, onClear }: { kind: Kind; value: FieldFilters; onClear: () => void }) {
  const { t } = useTranslation();
  const entries = Object.entries(value);
  if (entries.length === 0) return null;
  const shown = (field: string, v: string): string => {
    const prop = kind.schema.properties[field];
    return isMultiSelect(prop) ? labelOf(prop, v.split(',')) : v;
  };
  const text = entries.map(([field, v]) => `${fieldTitle(kind, field)}: ${shown(field, v)}`).join(', ');
  return <Banner icon="pi-search text-primary" text={text} action={t('list.clearSearch')} onAction={onClear} />;
}
