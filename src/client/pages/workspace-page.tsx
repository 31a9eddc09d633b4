import { Link, useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { Tag } from 'primereact/tag';
import { useAuth } from '../auth/auth-context';
import { useSessions } from '../session/sessions';
import { storage } from '../session/storage';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { SAMPLE_VEHICLE } from './vehicle-sample';

/** The signed-in landing view: vehicle status, drive and charging sessions, record shortcuts. */
export function WorkspacePage() {
  const { state } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const sessions = useSessions();
  const username = state.status === 'signedIn' ? state.username : '';
  const vehicleNo = storage.vehicleNo() || SAMPLE_VEHICLE.vehicleNo;

  function startDrive(): void {
    if (sessions.startDrive()) toast('success', 'Drive session started');
  }
  function endDrive(): void {
    const prefill = sessions.endDrive();
    if (!prefill) return;
    toast('success', 'Drive session ended');
    navigate('/data/drive/new', { state: { prefill } });
  }
  function startCharging(): void {
    if (sessions.startCharging()) toast('success', 'Charging session started');
  }
  function endCharging(): void {
    const prefill = sessions.endCharging();
    if (!prefill) return;
    toast('success', 'Charging session ended');
    navigate('/data/charging/new', { state: { prefill } });
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

        <Card title="Driving Status" className="workspace-card">
          <SessionLine running={sessions.drive?.startedAt} runningLabel="Driving since" idleLabel="Not driving" />
          <div className="grid mt-2">
            <div className="col-6">
              <Button label="Start Drive" icon="pi pi-play" className="w-full" onClick={startDrive} disabled={!sessions.canStartDrive} />
            </div>
            <div className="col-6">
              <Button label="End Drive" icon="pi pi-stop" severity="danger" className="w-full" onClick={endDrive} disabled={!sessions.canEndDrive} />
            </div>
          </div>
        </Card>

        <Card title="Charging Status" className="workspace-card">
          <SessionLine running={sessions.charging?.startedAt} runningLabel="Charging since" idleLabel="Not charging" />
          <div className="grid mt-2">
            <div className="col-6">
              <Button label="Start Charging" icon="pi pi-bolt" severity="success" className="w-full" onClick={startCharging} disabled={!sessions.canStartCharging} />
            </div>
            <div className="col-6">
              <Button label="End Charging" icon="pi pi-stop" severity="danger" className="w-full" onClick={endCharging} disabled={!sessions.canEndCharging} />
            </div>
          </div>
        </Card>

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
