import { Card } from 'primereact/card';
import { useLocation } from 'react-router-dom';
import { PageHeader } from '../ui/page-header';

/**
 * A screen whose issue has not landed yet. It says so plainly and shows what it was handed
 * (such as the times of an ended drive), so nothing is lost on the way.
 */
export function PendingPage({ title, back }: { title: string; back: string }) {
  const location = useLocation();
  const prefill = (location.state as { prefill?: Record<string, unknown> } | null)?.prefill;
  return (
    <div className="page">
      <PageHeader title={title} back={back} />
      <Card>
        <p className="mt-0">This screen is not built yet. It arrives with the record screens.</p>
        {prefill && (
          <dl className="prefill" data-testid="prefill">
            {Object.entries(prefill).map(([key, value]) => (
              <div key={key} className="flex justify-content-between py-1">
                <dt className="text-600">{key}</dt>
                <dd className="m-0 font-medium">{String(value)}</dd>
              </div>
            ))}
          </dl>
        )}
      </Card>
    </div>
  );
}
