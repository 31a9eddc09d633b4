import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Connector } from './widget-values';

/** The connectors as a table; `action` adds a column (delete, in edit mode). Free of PrimeReact, so the read-only views need no form code. */
export function ConnectorsTable({ connectors, action }: { connectors: Connector[]; action?: ((index: number) => ReactNode) | undefined }) {
  const { t } = useTranslation();
  return (
    <table className="connectors-table">
      <thead>
        <tr>
          <th>{t('connectors.type')}</th>
          <th>{t('connectors.power')}</th>
          <th>{t('connectors.total')}</th>
          {action && <th aria-label={t('connectors.actions')} />}
        </tr>
      </thead>
      <tbody>
        {connectors.length === 0 && (
          <tr>
            <td colSpan={action ? 4 : 3} className="text-500">
              {t('connectors.none')}
            </td>
          </tr>
        )}
        {connectors.map((c, i) => (
          <tr key={i}>
            <td>{c.type}</td>
            <td>{c.power}</td>
            <td>{c.total}</td>
            {action && <td>{action(i)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
