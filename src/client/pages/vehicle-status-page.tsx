import { Card } from 'primereact/card';
import { Tag } from 'primereact/tag';
import { storage } from '../lib/storage';
import { PageHeader } from '../ui/page-header';
import { SAMPLE_VEHICLE as V } from './vehicle-sample';
import { PAGE_BACK, PAGE_TITLES } from '../../shared/page-shell';

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex justify-content-between py-2 border-bottom-1 surface-border">
      <span className="text-600">{label}</span>
      <span className="font-medium">{value}</span>
    </div>
  );
}

/** The Vehicle Status screen: sample data only, no calls (docs/PRODUCT.md section 4). */
export function VehicleStatusPage() {
  const counts: Array<[string, number]> = [
    ['Drive', V.counts.drive],
    ['Charge', V.counts.charge],
    ['Issue', V.counts.issue],
    ['POI', V.counts.poi],
  ];
  return (
    <div className="page">
      <PageHeader title={PAGE_TITLES.vehicle} back={PAGE_BACK.vehicle} actions={<Tag value="Sample data" severity="warning" />} />
      <Card className="mb-3">
        <Row label="Vehicle No" value={storage.vehicleNo() || V.vehicleNo} />
        <Row label="Model" value={V.model} />
        <Row label="Battery" value={`${V.batteryPercent}%`} />
        <Row label="Odometer" value={`${V.odometerKm.toLocaleString('en-GB')} km`} />
        <Row label="Current Speed" value={`${V.speedKmh} km/h`} />
        <Row label="Last Drive" value={V.lastDrive} />
        <Row label="Last Charge" value={V.lastCharge} />
      </Card>
      <div className="grid">
        {counts.map(([label, n]) => (
          <div key={label} className="col-6">
            <Card className="text-center">
              <div className="text-3xl font-bold text-primary">{n}</div>
              <div className="text-600">{label}</div>
            </Card>
          </div>
        ))}
      </div>
    </div>
  );
}
