import { useState } from 'react';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { RadioButton } from 'primereact/radiobutton';
import { useTranslation } from 'react-i18next';
import { t as text } from '../i18n';
import { fieldTitle } from '../i18n/kind-texts';
import type { Kind } from '../../shared/kind-types';

export type FieldConflict = { field: string; title: string; base: unknown; theirs: unknown; yours: unknown };

export type Choice = 'yours' | 'theirs';

const show = (value: unknown): string =>
  value === null || value === undefined || value === '' ? text('conflict.empty') : typeof value === 'string' ? value : JSON.stringify(value);

interface ConflictDialogProps {
  /** The record's kind: a field it has is titled in the language on screen, not in the server's words. */
  kind: Kind;
  conflict: { conflicts: FieldConflict[]; changedBy: string };
  onResolve: (choices: Record<string, Choice>) => void;
  onCancel: () => void;
  saving: boolean;
}

/** Someone else changed fields you changed: each side by side, yours and theirs, a choice per field (yours by default), then save. */
export function ConflictDialog({ kind, conflict: { conflicts, changedBy }, onResolve, onCancel, saving }: ConflictDialogProps) {
  const { t } = useTranslation();
  const [choices, setChoices] = useState<Record<string, Choice>>(() => Object.fromEntries(conflicts.map((c) => [c.field, 'yours'])));
  const footer = (
    <div className="flex gap-2">
      <Button label={t('conflict.back')} outlined className="flex-1" onClick={onCancel} disabled={saving} />
      <Button
        label={t(saving ? 'conflict.saving' : 'conflict.save')}
        icon="pi pi-check"
        className="flex-1"
        onClick={() => onResolve(choices)}
        disabled={saving}
      />
    </div>
  );
  return (
    <Dialog
      header={t('conflict.title')}
      visible
      onHide={onCancel}
      footer={footer}
      className="conflict-dialog"
      style={{ width: 'min(30rem, calc(100vw - 1rem))' }}
      modal
    >
      <p className="mt-0 text-700">{t(changedBy ? 'conflict.personChanged' : 'conflict.someoneChanged', { name: changedBy, count: conflicts.length })}</p>
      {conflicts.map((c) => {
        const title = kind.schema.properties[c.field] ? fieldTitle(kind, c.field) : c.title;
        return (
          <fieldset key={c.field} className="conflict-field" aria-label={title}>
            <legend className="font-semibold">{title}</legend>
            {(['yours', 'theirs'] as const).map((side) => (
              <div key={side} className="conflict-option">
                <RadioButton
                  inputId={`conflict-${c.field}-${side}`}
                  name={`conflict-${c.field}`}
                  value={side}
                  checked={choices[c.field] === side}
                  onChange={() => setChoices({ ...choices, [c.field]: side })}
                />
                <label htmlFor={`conflict-${c.field}-${side}`}>
                  <span className="conflict-side">{t(`conflict.${side}`)}</span>
                  <span className="conflict-value">{show(c[side])}</span>
                </label>
              </div>
            ))}
          </fieldset>
        );
      })}
    </Dialog>
  );
}
