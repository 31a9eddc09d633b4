import { useTranslation } from 'react-i18next';
import { Card } from 'primereact/card';
import { Tag } from 'primereact/tag';
import { storage } from '../lib/storage';
import { PageHeader } from '../ui/page-header';
import { SAMPLE_VEHICLE as V } from './vehicle-sample';
import { PAGE_BACK } from '../../shared/page-shell';

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
  const { t } = useTranslation();
  const counts: Array<[string, number]> = [
    [t('vehicle.drive'), V.counts.drive],
    [t('vehicle.charge'), V.counts.charge],
    [t('vehicle.issue'), V.counts.issue],
    [t('vehicle.poi'), V.counts.poi],
  ];
  return (
    <div className="page">
      <PageHeader title={t('pages.vehicle')} back={PAGE_BACK.vehicle} actions={<Tag value={t('common.sampleData')} severity="warning" />} />
      <Card className="mb-3">
        <Row label={t('vehicle.vehicleNo')} value={storage.vehicleNo() || V.vehicleNo} />
        <Row label={t('vehicle.model')} value={t('vehicle.sampleModel')} />
        <Row label={t('vehicle.battery')} value={`${V.batteryPercent}%`} />
        <Row label={t('vehicle.odometer')} value={`${V.odometerKm.toLocaleString('en-GB')} km`} />
        <Row label={t('vehicle.currentSpeed')} value={t('workspace.kmh', { value: V.speedKmh })} />
        <Row label={t('vehicle.lastDrive')} value={V.lastDrive} />
        <Row label={t('vehicle.lastCharge')} value={V.lastCharge} />
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
