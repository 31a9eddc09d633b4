import type { ReactNode } from 'react';
import type { Connector } from './widget-values';

/**
 * The connector rows as a table of type, power and total. `action` adds a last column (the
 * widget's delete button in edit mode). Free of PrimeReact, so the read-only summary shows the
 * same table without loading the form's widgets.
 */
export function ConnectorsTable({ connectors, action }: { connectors: Connector[]; action?: ((index: number) => ReactNode) | undefined }) {
  return (
    <table className="connectors-table">
      <thead>
        <tr>
          <th>Type</th>
          <th>Power</th>
          <th>Total</th>
          {action && <th aria-label="Actions" />}
        </tr>
      </thead>
      <tbody>
        {connectors.length === 0 && (
          <tr>
            <td colSpan={action ? 4 : 3} className="text-500">
              No connectors
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
