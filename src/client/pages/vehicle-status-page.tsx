import { useTranslation } from 'react-i18next';
import { Card } from 'primereact/card';
import { Tag } from 'primereact/tag';
import { useTotalStats } from '../api/stats';
import { kindsWith } from '../kinds/kinds-with';
import { kindText } from '../i18n/kind-texts';
import { storage } from '../lib/storage';
import { OfflineLine } from '../ui/offline-line';
import { PageHeader } from '../ui/page-header';
import { SAMPLE_VEHICLE as V } from './vehicle-sample';
import { PAGE_BACK } from '../../shared/page-shell';

/** The kinds counted on the Data page (x-kind.dataPage), in its order. */
const COUNTED = kindsWith((kind) => kind.meta.dataPage);

/** The Vehicle Status screen: the vehicle's figures are labelled samples; the record counts are the project's real totals. */
export function VehicleStatusPage() {
  const { t } = useTranslation();
  const totals = useTotalStats();
  return (
    <div className="page">
      <PageHeader title={t('pages.vehicle')} back={PAGE_BACK.vehicle} />
      <Card className="mb-3">
        <div className="flex align-items-center gap-2 mb-2">
          <Tag value={t('common.sampleData')} severity="warning" />
          <span className="text-600 text-sm">{t('vehicle.sampleNote')}</span>
        </div>
        {[
          [t('vehicle.vehicleNo'), storage.vehicleNo() || V.vehicleNo],
          [t('vehicle.model'), t('vehicle.sampleModel')],
          [t('vehicle.battery'), `${V.batteryPercent}%`],
          [t('vehicle.odometer'), `${V.odometerKm.toLocaleString('en-GB')} km`],
          [t('vehicle.currentSpeed'), t('workspace.kmh', { value: V.speedKmh })],
          [t('vehicle.lastDrive'), V.lastDrive],
          [t('vehicle.lastCharge'), V.lastCharge],
        ].map(([label, value]) => (
          <div key={label} className="flex justify-content-between py-2 border-bottom-1 surface-border">
            <span className="text-600">{label}</span>
            <span className="font-medium">{value}</span>
          </div>
        ))}
      </Card>
      {totals.offlineSince !== undefined && <OfflineLine since={totals.offlineSince} />}
      <div className="grid">
        {COUNTED.map(({ kind, entry: page }) => (
          <div key={page.count} className="col-6">
            <Card className="text-center">
              <div className="text-3xl font-bold text-primary" data-testid={`vehicle-${page.count}`}>
                {totals.data?.[page.count] ?? '…'}
              </div>
              <div className="text-600">{kindText(kind, 'dataPage.total', page.total)}</div>
            </Card>
          </div>
        ))}
      </div>
    </div>
  );
}
