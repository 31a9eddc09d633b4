import { Link, useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { Tag } from 'primereact/tag';
import { useAuth } from '../auth/auth-context';
import { useSessions, type SessionKind } from '../session/sessions';
import { storage } from '../session/storage';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { SAMPLE_VEHICLE } from './vehicle-sample';

interface SessionCardSpec {
  kind: SessionKind;
  title: string;
  startLabel: string;
  endLabel: string;
  startIcon: string;
  startSeverity?: 'success';
  runningLabel: string;
  idleLabel: string;
  startedToast: string;
  endedToast: string;
  /** Where ending the session goes, with the session's times for the new record. */
  newRecord: string;
}

const SESSION_CARDS: SessionCardSpec[] = [
  {
    kind: 'drive',
    title: 'Driving Status',
    startLabel: 'Start Drive',
    endLabel: 'End Drive',
    startIcon: 'pi pi-play',
    runningLabel: 'Driving since',
    idleLabel: 'Not driving',
    startedToast: 'Drive session started',
    endedToast: 'Drive session ended',
    newRecord: '/data/drive/new',
  },
  {
    kind: 'charging',
    title: 'Charging Status',
    startLabel: 'Start Charging',
    endLabel: 'End Charging',
    startIcon: 'pi pi-bolt',
    startSeverity: 'success',
    runningLabel: 'Charging since',
    idleLabel: 'Not charging',
    startedToast: 'Charging session started',
    endedToast: 'Charging session ended',
    newRecord: '/data/charging/new',
  },
];

/** The signed-in landing view: vehicle status, drive and charging sessions, record shortcuts. */
export function WorkspacePage() {
  const { state } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const sessions = useSessions();
  const username = state.status === 'signedIn' ? state.username : '';
  const vehicleNo = storage.vehicleNo() || SAMPLE_VEHICLE.vehicleNo;

  function start(card: SessionCardSpec): void {
    if (sessions.start(card.kind)) toast('success', card.startedToast);
  }
  function end(card: SessionCardSpec): void {
    const prefill = sessions.end(card.kind);
    if (!prefill) return;
    toast('success', card.endedToast);
    navigate(card.newRecord, { state: { prefill } });
  }

  return (
    <div className="page">
      <PageHeader title="Workspace" />
      <p className="text-lg mt-0 mb-3">Welcome back, {username}</p>
      <div className="flex flex-column gap-3">
        <Card title="Vehicle Status" className="workspace-card">
          <Link to="/vehicle" className="vehicle-summary no-underline text-color" aria-label="Open Vehicle Status">
            <div>
              <div className="text-500 text-sm">Vehicle</div>
              <div className="font-semibold">{vehicleNo}</div>
            </div>
            <div>
              <div className="text-500 text-sm">Speed</div>
              <div className="font-semibold">{SAMPLE_VEHICLE.speedKmh} km/h</div>
            </div>
            <div>
              <div className="text-500 text-sm">Battery</div>
              <div className="font-semibold">{SAMPLE_VEHICLE.batteryPercent}%</div>
            </div>
            <i className="pi pi-angle-right text-500" aria-hidden="true" />
          </Link>
        </Card>

        {SESSION_CARDS.map((card) => (
          <Card key={card.kind} title={card.title} className="workspace-card">
            <SessionLine running={sessions.running[card.kind]?.startedAt} runningLabel={card.runningLabel} idleLabel={card.idleLabel} />
            <div className="grid mt-2">
              <div className="col-6">
                <Button label={card.startLabel} icon={card.startIcon} severity={card.startSeverity} className="w-full" onClick={() => start(card)} disabled={!sessions.canStart(card.kind)} />
              </div>
              <div className="col-6">
                <Button label={card.endLabel} icon="pi pi-stop" severity="danger" className="w-full" onClick={() => end(card)} disabled={!sessions.canEnd(card.kind)} />
              </div>
            </div>
          </Card>
        ))}

        <Card title="Record Data" className="workspace-card">
          <div className="grid">
            <div className="col-6">
              <Button label="Record POI" icon="pi pi-map-marker" outlined className="w-full" onClick={() => navigate('/data/poi/new')} />
            </div>
            <div className="col-6">
              <Button label="Record Issue" icon="pi pi-exclamation-triangle" outlined severity="warning" className="w-full" onClick={() => navigate('/data/issue/new')} />
            </div>
          </div>
        </Card>
      </div>
    </div>
  );
}

function SessionLine({ running, runningLabel, idleLabel }: { running: string | undefined; runningLabel: string; idleLabel: string }) {
  return running ? (
    <Tag severity="success" icon="pi pi-circle-fill" value={`${runningLabel} ${running.slice(11, 16)}`} />
  ) : (
    <Tag value={idleLabel} className="surface-200 text-700" />
  );
}
