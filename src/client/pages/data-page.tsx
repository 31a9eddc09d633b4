import { Link } from 'react-router-dom';
import { Card } from 'primereact/card';
import { storage } from '../session/storage';
import { PageHeader } from '../ui/page-header';

const LISTS: Array<[string, string, string]> = [
  ['Drive Records', '/data/drive', 'pi pi-car'],
  ['Charging Records', '/data/charging', 'pi pi-bolt'],
  ['Issue Records', '/data/issue', 'pi pi-exclamation-triangle'],
  ['POI Records', '/data/poi', 'pi pi-map-marker'],
];

/**
 * Data Management. The project card is complete; the daily and total summaries, the Excel report
 * and the day packages come with the Data page issue, so until then this page links to the lists.
 */
export function DataPage() {
  return (
    <div className="page">
      <PageHeader title="Data Management" />
      <Card title="Project Information" className="mb-3">
        <div className="flex justify-content-between py-1">
          <span className="text-600">Project</span>
          <span className="font-medium" data-testid="project-name">{storage.deptName() ?? '-1'}</span>
        </div>
        <div className="flex justify-content-between py-1">
          <span className="text-600">Vehicle</span>
          <span className="font-medium" data-testid="vehicle-no">{storage.vehicleNo() || '-'}</span>
        </div>
      </Card>
      <Card title="Records">
        <p className="mt-0 text-600">Daily and total summaries are not built yet.</p>
        <div className="flex flex-column gap-2">
          {LISTS.map(([label, to, icon]) => (
            <Link key={to} to={to} className="settings-row no-underline text-color">
              <i className={`${icon} text-primary`} aria-hidden="true" />
              <span className="flex-1">{label}</span>
              <i className="pi pi-angle-right text-400" aria-hidden="true" />
            </Link>
          ))}
        </div>
      </Card>
    </div>
  );
}
