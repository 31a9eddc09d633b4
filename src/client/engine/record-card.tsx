import { useTranslation } from 'react-i18next';
import type { Kind } from '../../shared/kind-types';
import { kindText } from '../i18n/kind-texts';
import { formatCardValue } from './format';
import { labelOf } from '../../shared/schema-evolution';
import { isMultiSelect } from '../../shared/field-vocabulary';
import { hasChoiceLabels } from '../../shared/choice-labels';
import type { RecordRow } from './use-record-list';

/** A record's title as the kind's cards show it (x-kind.card.title): a text, a field's value, or the fallback. */
export function cardTitle(kind: Kind, value: (field: string) => unknown): string | null {
  const { text, field, format, fallback } = kind.meta.card.title;
  return (
    (text === undefined ? undefined : kindText(kind, 'card.title.text', text)) ??
    (field ? formatCardValue(value(field), format) : null) ??
    (fallback === undefined ? null : kindText(kind, 'card.title.fallback', fallback))
  );
}

/** A field's value as cards show it: a choice (or a list of them) by its label (x-labels) in `language`, other values as stored. */
export const cardValue =
  (kind: Kind, row: Record<string, unknown>, language: string) =>
  (field: string): unknown => {
    const prop = kind.schema.properties[field];
    const labelled = hasChoiceLabels(prop) || isMultiSelect(prop);
    return !labelled || row[field] === undefined || row[field] === null ? row[field] : labelOf(prop, row[field], language);
  };

/** A list card laid out by the kind's x-kind.card: a title and lines of label, value and suffix. */
export function RecordCard({ kind, row, onOpen, waiting = false }: { kind: Kind; row: RecordRow; onOpen: () => void; waiting?: boolean }) {
  const { t, i18n } = useTranslation();
  const { lines } = kind.meta.card;
  // The card's labels and fallbacks (x-kind.card) in the language on screen.
  const text = (path: string, schemaText: string | undefined): string | undefined =>
    schemaText === undefined ? undefined : kindText(kind, `card.${path}`, schemaText);
  const value = cardValue(kind, row, i18n.language);
  return (
    <button type="button" className="record-card" onClick={onOpen}>
      <div className="record-card-title">
        {cardTitle(kind, value) ?? ''}
        {waiting && <span className="waiting-tag">{t('list.waiting')}</span>}
      </div>
      {lines.map((line, i) => {
        const shown = formatCardValue(value(line.field), line.format);
        if (shown === null && line.optional) return null;
        const suffix = line.suffixField ? formatCardValue(value(line.suffixField), undefined) : null;
        return (
          <div key={i} className={`record-card-line${line.format === 'clamp-2' ? ' clamp-2' : ''}`}>
            {line.icon && <i className={`${line.icon} text-500`} aria-hidden="true" />}
            {line.label && <span className="text-500">{text(`lines.${i}.label`, line.label)}:</span>}
            <span className="record-card-value">{shown ?? text(`lines.${i}.fallback`, line.fallback) ?? ''}</span>
            {suffix && <span className="text-600 record-card-suffix">{suffix}</span>}
          </div>
        );
      })}
    </button>
  );
}
