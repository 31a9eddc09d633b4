import type { Kind } from '../../shared/kind-types';
import { formatCardValue } from './format';
import type { RecordRow } from './use-record-list';

/** A list card laid out by the kind's x-kind.card: a title and lines of label, value and suffix. */
export function RecordCard({ kind, row, onOpen, waiting = false }: { kind: Kind; row: RecordRow; onOpen: () => void; waiting?: boolean }) {
  const { title, lines } = kind.meta.card;
  const titleText = title.text ?? (title.field ? formatCardValue(row[title.field], title.format) : null) ?? title.fallback ?? '';
  return (
    <button type="button" className="record-card" onClick={onOpen}>
      <div className="record-card-title">
        {titleText}
        {waiting && <span className="waiting-tag">Waiting to sync</span>}
      </div>
      {lines.map((line, i) => {
        const value = formatCardValue(row[line.field], line.format);
        if (value === null && line.optional) return null;
        const suffix = line.suffixField ? formatCardValue(row[line.suffixField], undefined) : null;
        return (
          <div key={i} className={`record-card-line${line.format === 'clamp-2' ? ' clamp-2' : ''}`}>
            {line.icon && <i className={`${line.icon} text-500`} aria-hidden="true" />}
            {line.label && <span className="text-500">{line.label}:</span>}
            <span className="record-card-value">{value ?? line.fallback ?? ''}</span>
            {suffix && <span className="text-600 record-card-suffix">{suffix}</span>}
          </div>
        );
      })}
    </button>
  );
}
