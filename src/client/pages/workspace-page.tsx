import { Link, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { Tag } from 'primereact/tag';
import { useAuth } from '../auth/auth-context';
import type { Kind, WorkspaceSessionMeta } from '../../shared/kind-types';
import { kindsWith } from '../kinds/kinds-with';
import { SESSION_KINDS, useSessions } from '../sessions/sessions';
import { storage } from '../lib/storage';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { SAMPLE_VEHICLE } from './vehicle-sample';
import { kindText } from '../i18n/kind-texts';

type SessionTextKey = 'title' | 'startLabel' | 'endLabel' | 'runningLabel' | 'idleLabel' | 'startedToast' | 'endedToast';

/** The 'Record Data' shortcuts (x-kind.workspace.shortcut), in their order. */
const SHORTCUTS = kindsWith((kind) => kind.meta.workspace?.shortcut);

/** The signed-in landing view: vehicle status, drive and charging sessions, record shortcuts. */
export function WorkspacePage() {
  const { t } = useTranslation();
  const { state } = useAuth();
  const sessions = useSessions();
  const username = state.status === 'signedIn' ? state.username : '';
  const vehicleNo = storage.vehicleNo() || SAMPLE_VEHICLE.vehicleNo;
  return (
    <div className="page">
      <PageHeader title={t('pages.workspace')} />
      <p className="text-lg mt-0 mb-3">{t('workspace.welcome', { name: username })}</p>
      <div className="flex flex-column gap-3">
        <VehicleCard vehicleNo={vehicleNo} />
        {SESSION_KINDS.map(({ kind, entry: card }) => (
          <SessionCard key={kind.name} kind={kind} card={card} sessions={sessions} />
        ))}
        <ShortcutsCard />
      </div>
    </div>
  );
}

function VehicleCard({ vehicleNo }: { vehicleNo: string }) {
  const { t } = useTranslation();
  return (
    <Card title={t('pages.vehicle')} className="workspace-card">
      {/* Speed and battery are examples until the vehicle is connected: said, never passed off as real. */}
      <Tag value={t('common.sampleData')} severity="warning" className="mb-2" data-testid="vehicle-sample" />
      <Link to="/vehicle" className="vehicle-summary no-underline text-color">
        <span className="sr-only">{t('workspace.openVehicle')}</span>
        {[
          [t('workspace.vehicle'), vehicleNo],
          [t('workspace.speed'), t('workspace.kmh', { value: SAMPLE_VEHICLE.speedKmh })],
          [t('vehicle.battery'), `${SAMPLE_VEHICLE.batteryPercent}%`],
        ].map(([label, value]) => (
          <div key={label}>
            <div className="text-500 text-sm">{label}</div>
            <div className="font-semibold">{value}</div>
          </div>
        ))}
        <i className="pi pi-angle-right text-500" aria-hidden="true" />
      </Link>
    </Card>
  );
}

/** A kind's session (x-kind.workspace.session): whether it runs and since when, with start and end. */
function SessionCard({ kind, card, sessions }: { kind: Kind; card: WorkspaceSessionMeta; sessions: ReturnType<typeof useSessions> }) {
  const toast = useToast();
  const navigate = useNavigate();
  const text = (key: SessionTextKey): string => kindText(kind, `workspace.session.${key}`, card[key]);
  const running = sessions.running[kind.name]?.startedAt;
  function start(): void {
    if (sessions.start(kind.name)) toast('success', text('startedToast'));
  }
  // Ending goes to the kind's new record, with the session's times filled in.
  function end(): void {
    const prefill = sessions.end(kind.name);
    if (!prefill) return;
    toast('success', text('endedToast'));
    navigate(`${kind.meta.route}/new`, { state: { prefill } });
  }
  return (
    <Card title={text('title')} className="workspace-card">
      {running ? (
        <Tag severity="success" icon="pi pi-circle-fill" value={`${text('runningLabel')} ${running.slice(11, 16)}`} />
      ) : (
        <Tag value={text('idleLabel')} className="surface-200 text-700" />
      )}
      <div className="grid mt-2">
        {[
          { label: text('startLabel'), icon: card.startIcon, severity: card.startSeverity, onClick: start, disabled: !sessions.canStart(kind.name) },
          { label: text('endLabel'), icon: 'pi pi-stop', severity: 'danger' as const, onClick: end, disabled: !sessions.canEnd(kind.name) },
        ].map((button, i) => (
          <div key={i} className="col-6">
            <Button {...button} className="w-full" />
          </div>
        ))}
      </div>
    </Card>
  );
}

function ShortcutsCard() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  if (SHORTCUTS.length === 0) return null;
  return (
    <Card title={t('workspace.recordData')} className="workspace-card">
      <div className="grid">
        {SHORTCUTS.map(({ kind, entry: shortcut }) => (
          <div key={kind.name} className="col-6">
            <Button
              label={kindText(kind, 'workspace.shortcut.label', shortcut.label)}
              icon={shortcut.icon}
              outlined
              severity={shortcut.severity}
              className="w-full"
              onClick={() => navigate(`${kind.meta.route}/new`)}
            />
          </div>
        ))}
      </div>
    </Card>
  );
}
