import { useState, type ReactNode } from 'react';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { i18n, t } from '../i18n';
import { fieldTitle } from '../i18n/kind-texts';
import type { Kind } from '../../shared/kind-types';
import { systemFields } from './form-schema';
import { FieldSection, groupsOf } from './sections';
import { ConnectorsTable } from './widgets/connectors-table';
import { parseConnectors, widgetText } from './widgets/widget-values';
import { cardTitle, cardValue } from './record-card';
import type { Values } from './record-edits';

const isEmpty = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Under the sheet: a button each to show or hide the empty fields and the fields the server sets (none when there are none). */
function SheetMore({ toggles }: { toggles: { count: number; icon: string; label: string; onClick: () => void }[] }) {
  const shown = toggles.filter((b) => b.count > 0);
  if (shown.length === 0) return null;
  return (
    <div className="sheet-more">
      {shown.map((b) => (
        <button key={b.icon} type="button" className="sheet-more-button" onClick={b.onClick}>
          <i className={`pi ${b.icon}`} aria-hidden="true" />
          {b.label}
        </button>
      ))}
    </div>
  );
}

function shownValue(prop: RJSFSchema, ui: UiSchema, value: unknown, record: Record<string, unknown>): ReactNode {
  const widget = ui['ui:widget'];
  if (widget === 'derived') return widgetText(prop, ui, value, record) || null;
  if (isEmpty(value)) return null;
  if (widget !== 'connectors') return widgetText(prop, ui, value, record) || (widget === 'dateText' ? String(value) : '');
  const list = parseConnectors(value);
  return list.length === 0 ? null : <ConnectorsTable connectors={list} />;
}

function Row({ name, label, value, multiline, help }: { name: string; label: string; value: ReactNode; multiline: boolean; help?: string | undefined }) {
  return (
    <div className="sheet-row" data-field={name}>
      <dt id={`label_${name}`} className="sheet-label">
        {label}
      </dt>
      <dd
        id={`root_${name}`}
        aria-labelledby={`label_${name}`}
        className={`sheet-value${value === null ? ' sheet-value-empty' : ''}${multiline ? ' sheet-value-multiline' : ''}`}
      >
        {value ?? t('detail.notSet')}
        {help !== undefined && (
          <small className="field-warning" data-testid="field-warning">
            <i className="pi pi-info-circle" aria-hidden="true" /> {help}
          </small>
        )}
      </dd>
    </div>
  );
}

/** A kind's own words for some stored values (kinds/extensions.ts); undefined leaves a value to the sheet. */
export type ValueText = (field: string, value: unknown) => string | undefined;

type RecordSheetProps = { kind: Kind; schema: RJSFSchema; uiSchema: UiSchema; record: Values; valueText?: ValueText | undefined; children?: ReactNode };

/** A field's shown value (null when empty) and its row, folded away when empty unless `showEmpty` or it has something to say. */
function sheetCells({ schema, uiSchema, record, valueText }: RecordSheetProps, showEmpty: boolean) {
  const properties = (schema.properties ?? {}) as Record<string, RJSFSchema>;
  const value = (name: string): ReactNode => {
    const prop = properties[name];
    if (!prop) return null;
    // Such as the analysis flow's stored words (AI_PROCESS, READY...) in the language on screen (docs/decisions/045).
    return valueText?.(name, record[name]) ?? shownValue(prop, (uiSchema[name] ?? {}) as UiSchema, record[name], record);
  };
  const row = (name: string): ReactNode => {
    const prop = properties[name];
    const ui = (uiSchema[name] ?? {}) as UiSchema;
    if (!prop) return null;
    const v = value(name);
    const help = typeof ui['ui:help'] === 'string' ? ui['ui:help'] : undefined;
    if (v === null && !showEmpty && help === undefined) return null;
    return <Row key={name} name={name} label={String(prop.title ?? name)} value={v} multiline={ui['ui:widget'] === 'textarea'} help={help} />;
  };
  return { value, row };
}

function SheetGroup({ title, collapsed, rows }: { title: string | undefined; collapsed: boolean | undefined; rows: ReactNode[] }) {
  if (rows.length === 0) return null;
  const list = <dl className="sheet-list">{rows}</dl>;
  return (
    <div className="sheet-card">
      {title === undefined ? (
        list
      ) : (
        <FieldSection title={title} collapsed={collapsed} count={rows.length}>
          {list}
        </FieldSection>
      )}
    </div>
  );
}

/** A record in view mode: title and key facts, the screen's children (attachments), then sections; empty and server-set fields fold away. */
export function RecordSheet(props: RecordSheetProps) {
  const { kind, uiSchema, record, children } = props;
  const [showEmpty, setShowEmpty] = useState(false);
  const [showSystem, setShowSystem] = useState(false);
  const titleField = kind.meta.card.title.field;
  const system = systemFields(kind);
  // The title field is the heading, not a row as well.
  const groups = groupsOf(kind, new Set(titleField === undefined ? system : [...system, titleField]));
  const head = (kind.meta.keyFields ?? []).length > 0 && groups[0]?.title === undefined ? groups[0] : undefined;
  const rest = head ? groups.slice(1) : groups;
  const { value, row } = sheetCells(props, showEmpty);
  const emptyCount = groups
    .flatMap((g) => g.fields)
    .filter((f) => value(f) === null && typeof (uiSchema[f] as UiSchema | undefined)?.['ui:help'] !== 'string').length;
  const systemList = kind.fields.filter((f) => system.has(f) && kind.schema.properties[f]?.['x-ui']?.hidden !== true);
  const factRows = (head?.fields ?? []).map(row).filter((r) => r !== null);

  return (
    <div className="record-sheet" data-testid="record-sheet">
      <section className="sheet-card sheet-head" aria-labelledby="sheet-title">
        <h2 id="sheet-title" className="sheet-title">
          {cardTitle(kind, cardValue(kind, record, i18n.language)) ?? kind.schema.title}
        </h2>
        {factRows.length > 0 && <dl className="sheet-facts">{factRows}</dl>}
      </section>
      {children}
      {rest.map((g, i) => (
        <SheetGroup key={g.title ?? i} title={g.title} collapsed={g.collapsed} rows={g.fields.map(row).filter((r) => r !== null)} />
      ))}
      {showSystem && systemList.length > 0 && (
        <div className="sheet-card" data-testid="system-fields">
          <FieldSection title={t('detail.setByServer')}>
            <dl className="sheet-list">
              {systemList.map((name) => (
                <Row key={name} name={name} label={fieldTitle(kind, name)} value={value(name)} multiline={false} />
              ))}
            </dl>
          </FieldSection>
        </div>
      )}
      <SheetMore
        toggles={[
          {
            count: emptyCount,
            icon: showEmpty ? 'pi-eye-slash' : 'pi-eye',
            label: showEmpty ? t('detail.hideEmpty') : t('detail.showEmpty', { count: emptyCount }),
            onClick: () => setShowEmpty(!showEmpty),
          },
          {
            count: systemList.length,
            icon: 'pi-server',
            label: showSystem ? t('detail.hideSystem') : t('detail.showSystem', { count: systemList.length }),
            onClick: () => setShowSystem(!showSystem),
          },
        ]}
      />
    </div>
  );
}
