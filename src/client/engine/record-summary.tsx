import type { CSSProperties, ReactNode } from 'react';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { ConnectorsTable } from './widgets/connectors-table';
import { parseConnectors, widgetText } from './widgets/widget-values';
import { FieldGroups, type FieldGroup } from './sections';
import { SignedNumberBox } from './widgets/signed-number';

// A record as the disabled form shows it (same markup, ids and sizes as RJSF's PrimeReact theme),
// without the form library: painted at once, replaced by the form without a jump.

/** RJSF's PrimeReact FieldTemplate column: the same box for every field. */
const COLUMN: CSSProperties = { display: 'flex', flexDirection: 'column', gap: '0.5rem', marginBottom: '1rem' };
const BOX = 'p-inputtext p-component p-disabled';

// PrimeReact's structural CSS comes with its first mounted component: none here, so inline.
const DROPDOWN: CSSProperties = { display: 'flex', cursor: 'default', position: 'relative', userSelect: 'none' };
const DROPDOWN_LABEL: CSSProperties = { display: 'block', whiteSpace: 'nowrap', overflow: 'hidden', flex: '1 1 auto', width: '1%', textOverflow: 'ellipsis' };
const DROPDOWN_TRIGGER: CSSProperties = { display: 'flex', alignItems: 'center', justifyContent: 'center', flexShrink: 0 };
const HIDDEN: CSSProperties = {
  border: 0,
  clip: 'rect(0 0 0 0)',
  height: 1,
  margin: -1,
  opacity: 0,
  overflow: 'hidden',
  padding: 0,
  pointerEvents: 'none',
  position: 'absolute',
  whiteSpace: 'nowrap',
  width: 1,
};

/** A disabled PrimeReact Dropdown; `inputId` puts the id on its hidden input, as the Yes/No widget does. */
function Dropdown({ id, shown, placeholder, inputId = false }: { id: string; shown: string; placeholder?: string; inputId?: boolean }) {
  const empty = shown === '';
  return (
    <div id={inputId ? undefined : id} className={`p-dropdown p-component p-inputwrapper p-disabled${inputId ? ' w-full' : ''}`} style={DROPDOWN}>
      {inputId && (
        <div className="p-hidden-accessible" style={HIDDEN}>
          <input id={id} value={shown} readOnly disabled tabIndex={-1} />
        </div>
      )}
      <span className={`p-dropdown-label p-inputtext${empty ? (placeholder ? ' p-placeholder' : ' p-dropdown-label-empty') : ''}`} style={DROPDOWN_LABEL}>
        {empty ? (placeholder ?? '\u00a0') : shown}
      </span>
      <div className="p-dropdown-trigger" style={DROPDOWN_TRIGGER}>
        <svg width="14" height="14" viewBox="0 0 14 14" className="p-icon p-dropdown-trigger-icon" aria-hidden="true" />
      </div>
    </div>
  );
}

/** The read-only control of one field, as the form's widget for it shows a value. */
function valueOf(id: string, prop: RJSFSchema, ui: UiSchema, value: unknown, record: Record<string, unknown>): ReactNode {
  const shown = widgetText(prop, ui, value, record);
  switch (ui['ui:widget']) {
    case 'derived':
      return (
        <output id={id} className={`${BOX} w-full derived-value`}>
          {shown || 'N/A'}
        </output>
      );
    case 'dateText':
      return <input id={id} className="p-inputtext p-component w-full" value={shown} disabled readOnly />;
    case 'yesNo':
      return <Dropdown id={id} shown={shown} placeholder="—" inputId />;
    case 'connectors':
      return (
        <div id={id} className="connectors">
          <ConnectorsTable connectors={parseConnectors(value)} />
        </div>
      );
    case 'signedNumber':
      return <SignedNumberBox id={id} value={shown} disabled label={String(prop.title ?? '')} />;
    case 'textarea':
      return <textarea id={id} className={`p-inputtextarea p-inputtext ${BOX}`} rows={5} value={shown} disabled readOnly />;
    default:
      if (Array.isArray(prop.enum)) return <Dropdown id={id} shown={shown} inputId />;
      return <input id={id} className={BOX} type="text" value={shown} disabled readOnly />;
  }
}

/** The record read-only, laid out as the disabled form lays it out (in the form's groups). */
export function RecordSummary({ schema, uiSchema, record }: { schema: RJSFSchema; uiSchema: UiSchema; record: Record<string, unknown> }) {
  const properties = (schema.properties ?? {}) as Record<string, RJSFSchema>;
  const field = (name: string): ReactNode => {
    const prop = properties[name];
    const ui = (uiSchema[name] ?? {}) as UiSchema;
    if (!prop || ui['ui:widget'] === 'hidden') return null;
    const id = `root_${name}`;
    return (
      <div key={name} className={`rjsf-field rjsf-field-${String(prop.type ?? 'string')}`}>
        <div style={COLUMN}>
          <label htmlFor={id}>{prop.title ?? name} </label>
          {valueOf(id, prop, ui, record[name], record)}
          {typeof prop.description === 'string' && <small>{prop.description}</small>}
          {typeof ui['ui:help'] === 'string' && (
            <small className="field-warning" data-testid="field-warning">
              <i className="pi pi-info-circle" aria-hidden="true" /> {ui['ui:help']}
            </small>
          )}
        </div>
      </div>
    );
  };
  const groups = uiSchema['ui:groups'] as FieldGroup[] | undefined;
  return (
    <div className="rjsf" data-testid="record-summary">
      <div className="rjsf-field rjsf-field-object">
        <div style={COLUMN}>
          {groups === undefined && Object.keys(properties).map(field)}
          {groups && <FieldGroups groups={groups} field={field} />}
        </div>
      </div>
    </div>
  );
}
