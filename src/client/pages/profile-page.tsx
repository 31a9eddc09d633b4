import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { Avatar } from 'primereact/avatar';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { fetchAppVersion } from '../api/app-info';
import { getInfo } from '../api/auth';
import { useAuth } from '../auth/auth-context';
import { checkForUpdates, localWork, resetPhone, type LocalWork } from '../updates/update-check';
import { Dialog } from 'primereact/dialog';
import { storage } from '../lib/storage';
import { discardSessions, runningSessions } from '../sessions/sessions';
import { PageHeader } from '../ui/page-header';
import { SignOutDialog } from '../ui/sign-out-dialog';
import { useToast } from '../ui/toast';
import { PAGE_TITLES } from '../../shared/page-shell';

const UNKNOWN = '未知';

/** The version to show: loaded once, '未知' (and a console message) when it cannot be read. */
export function useAppVersion(): string | null {
  const [version, setVersion] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetchAppVersion().then(
      (v) => live && setVersion(v),
      (e: unknown) => {
        console.warn('Could not read the app version from /manifest.json:', e);
        if (live) setVersion(UNKNOWN);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return version;
}

function SettingsRow({ icon, label, children }: { icon: string; label: string; children?: ReactNode }) {
  return (
    <div className="settings-row">
      <i className={`${icon} text-primary`} aria-hidden="true" />
      <span className="flex-1">{label}</span>
      {children ?? <i className="pi pi-angle-right text-400" aria-hidden="true" />}
    </div>
  );
}

/** Asks before wiping the phone, saying exactly what would be lost. */
function ResetDialog({ work, onCancel, onConfirm }: { work: LocalWork; onCancel: () => void; onConfirm: () => void }) {
  const losses = [
    ...(work.drafts > 0 ? [`${work.drafts} unsaved ${work.drafts === 1 ? 'edit' : 'edits'}`] : []),
    ...work.sessions,
    ...(work.signedIn ? ['your sign-in (you need a connection to sign in again)'] : []),
  ];
  const footer = (
    <div className="flex gap-2">
      <Button label="Cancel" outlined className="flex-1" onClick={onCancel} />
      <Button label="Reset" severity="danger" className="flex-1" onClick={onConfirm} />
    </div>
  );
  return (
    <Dialog header="Reset this phone?" visible onHide={onCancel} footer={footer} style={{ width: 'min(26rem, calc(100vw - 1rem))' }} modal>
      <p className="mt-0">Everything this app keeps on this phone will be removed{losses.length > 0 ? ':' : '. Nothing unsaved is on it.'}</p>
      {losses.length > 0 && (
        <ul className="mt-0" data-testid="reset-losses">
          {losses.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}

export function ProfilePage() {
  const { signOut } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const version = useAppVersion();
  const [updating, setUpdating] = useState(false);
  const [signOutOpen, setSignOutOpen] = useState(false);
  const [resetting, setResetting] = useState<LocalWork | null>(null);
  const username = storage.username() || 'User';
  const dept = storage.deptName() ?? '';

  async function update(): Promise<void> {
    setUpdating(true);
    try {
      await checkForUpdates();
    } finally {
      setUpdating(false);
    }
  }

  async function test(): Promise<void> {
    try {
      console.log('User info:', await getInfo());
    } catch (e) {
      console.log('User info could not be loaded:', e);
    }
  }

  async function confirmSignOut(endSessions: boolean): Promise<void> {
    setSignOutOpen(false);
    if (endSessions) discardSessions();
    await signOut();
    toast('success', 'Logged out successfully');
    navigate('/login', { replace: true });
  }

  return (
    <div className="page">
      <PageHeader title={PAGE_TITLES.profile} />
      <Card className="mb-3">
        <div className="flex align-items-center gap-3">
          <Avatar icon="pi pi-user" size="xlarge" shape="circle" className="bg-primary text-white" />
          <div>
            <div className="text-xl font-semibold" data-testid="profile-username">{username}</div>
            <div className="text-600" data-testid="profile-dept">{dept}</div>
          </div>
        </div>
      </Card>
      <h2 className="text-base text-600 font-medium mb-2">Settings</h2>
      <Card className="mb-3 settings-card">
        <SettingsRow icon="pi pi-cog" label="App Settings" />
        <SettingsRow icon="pi pi-download" label="Export Data" />
        <SettingsRow icon="pi pi-question-circle" label="Help & Support" />
        <SettingsRow icon="pi pi-info-circle" label="App Version">
          <span className="text-600" data-testid="app-version">
            {version === null ? '…' : version === UNKNOWN ? UNKNOWN : `v${version}`}
          </span>
        </SettingsRow>
        <div className="flex gap-2 pt-3">
          <Button label="Check for Updates" icon="pi pi-refresh" outlined className="flex-1" loading={updating} onClick={() => void update()} />
          <Button label="Test" icon="pi pi-wrench" outlined severity="secondary" onClick={() => void test()} />
        </div>
      </Card>
      <Button label="Sign Out" icon="pi pi-sign-out" severity="danger" className="w-full" onClick={() => setSignOutOpen(true)} />
      <Button label="Reset this phone" icon="pi pi-trash" text severity="secondary" className="w-full mt-2" onClick={() => setResetting(localWork())} />
      {resetting && <ResetDialog work={resetting} onCancel={() => setResetting(null)} onConfirm={() => void resetPhone()} />}
      <SignOutDialog visible={signOutOpen} running={signOutOpen ? runningSessions() : []} onCancel={() => setSignOutOpen(false)} onConfirm={(end) => void confirmSignOut(end)} />
    </div>
  );
}
