import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Avatar } from 'primereact/avatar';
import { Button } from 'primereact/button';
import { Card } from 'primereact/card';
import { useAppVersion } from '../api/app-info';
import { getInfo } from '../api/auth';
import { useAuth } from '../auth/auth-context';
import { checkForUpdates, findUpdate, leaveUpdateNote, localWork, resetPhone, takeUpdateNote, type LocalWork } from '../updates/update-check';
import { chooseLanguage, LANGUAGE_NAMES, LANGUAGES } from '../i18n';
import { kindText } from '../i18n/kind-texts';
import { registry } from '../engine/registry';
import { Dialog } from 'primereact/dialog';
import { storage } from '../lib/storage';
import { discardSessions, runningSessions } from '../sessions/sessions';
import { PageHeader } from '../ui/page-header';
import { SignOutDialog } from '../ui/sign-out-dialog';
import { useToast } from '../ui/toast';

/** A row of Settings; one with nothing behind it yet says so, with no arrow that would promise a tap (docs/decisions/065). */
function SettingsRow({ icon, label, children }: { icon: string; label: string; children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="settings-row">
      <i className={`${icon} ${children ? 'text-primary' : 'text-500'}`} aria-hidden="true" />
      <span className={children ? 'flex-1' : 'flex-1 text-600'}>{label}</span>
      {children ?? <span className="text-sm text-600">{t('profile.notYet')}</span>}
    </div>
  );
}

function ResetDialog({ work, onCancel, onConfirm }: { work: LocalWork; onCancel: () => void; onConfirm: () => void }) {
  const { t, i18n } = useTranslation();
  const losses = [
    ...(work.drafts > 0 ? [t('profile.unsavedEdits', { count: work.drafts })] : []),
    ...work.sessionKinds.map((name) => {
      const kind = registry.get(name);
      return t('profile.runningSession', { kind: i18n.language === 'en' || !kind ? name : kindText(kind, 'dataPage.total', name) });
    }),
    ...(work.signedIn ? [t('profile.yourSignIn')] : []),
  ];
  const footer = (
    <div className="flex gap-2">
      <Button label={t('common.cancel')} outlined className="flex-1" onClick={onCancel} />
      <Button label={t('profile.resetConfirm')} severity="danger" className="flex-1" onClick={onConfirm} />
    </div>
  );
  return (
    <Dialog header={t('profile.resetTitle')} visible onHide={onCancel} footer={footer} style={{ width: 'min(26rem, calc(100vw - 1rem))' }} modal>
      <p className="mt-0">{losses.length > 0 ? t('profile.resetIntroSome') : t('profile.resetIntroNone')}</p>
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

/**
 * 'Check for Updates' says what it found: a new version (the app's copies are dropped and the page
 * reloads, saying afterwards what it updated to), the latest one, or no server (nothing is dropped).
 */
function useUpdateCheck(version: string | null | undefined): { updating: boolean; update: () => Promise<void> } {
  const { t } = useTranslation();
  const toast = useToast();
  const [updating, setUpdating] = useState(false);
  useEffect(() => {
    const note = takeUpdateNote();
    if (!note) return;
    if (note.found === 'new') toast('success', t('app.updated'), note.version ? t('updates.updatedTo', { version: note.version }) : undefined, 6000);
    else toast('info', t('updates.refreshed', { version: note.version ?? t('common.unknown') }), undefined, 6000);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the page opens after the reload
  }, []);

  async function update(): Promise<void> {
    setUpdating(true);
    try {
      const found = await findUpdate();
      if (found.status === 'offline') return toast('warn', t('updates.offline'), undefined, 6000);
      if (found.status === 'latest')
        return toast('success', t('updates.latest', { version: found.version ?? version ?? t('common.unknown') }), undefined, 6000);
      if (found.status === 'new') toast('info', t('updates.found', { version: found.version ?? '' }), undefined, 6000);
      leaveUpdateNote({ found: found.status, version: found.version });
      await checkForUpdates();
    } catch (e) {
      console.error('The update check failed:', e);
      toast('error', t('updates.failed'), (e as Error).message, 6000);
    } finally {
      setUpdating(false);
    }
  }
  return { updating, update };
}

function UserCard() {
  const { t } = useTranslation();
  return (
    <Card className="mb-3">
      <div className="flex align-items-center gap-3">
        <Avatar icon="pi pi-user" size="xlarge" shape="circle" className="bg-primary text-white" />
        <div>
          <div className="text-xl font-semibold" data-testid="profile-username">
            {storage.username() || t('profile.user')}
          </div>
          <div className="text-600" data-testid="profile-dept">
            {storage.deptName() ?? ''}
          </div>
        </div>
      </div>
    </Card>
  );
}

/** English / 简体中文: the choice is kept on this phone and every screen follows it at once. */
function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const language = i18n.language === 'zh' ? 'zh' : 'en';
  return (
    <div className="settings-row flex-wrap" role="group" aria-labelledby="language-label">
      <i className="pi pi-language text-primary" aria-hidden="true" />
      <span className="flex-1" id="language-label">
        {t('profile.language')}
      </span>
      {/* On a line of their own: both names whole at 320 px, each a full-height target. */}
      <div className="flex gap-2 w-full">
        {LANGUAGES.map((l) => (
          <Button
            key={l}
            label={LANGUAGE_NAMES[l]}
            lang={l === 'zh' ? 'zh-CN' : 'en'}
            className="flex-1"
            outlined={l !== language}
            aria-pressed={l === language}
            onClick={() => void chooseLanguage(l).catch((e: unknown) => console.error('The language could not be switched:', e))}
          />
        ))}
      </div>
    </div>
  );
}

/** 'Test': the user's info as the server has it, in the console. */
async function logUserInfo(): Promise<void> {
  try {
    console.log('User info:', await getInfo());
  } catch (e) {
    console.log('User info could not be loaded:', e);
  }
}

/** My Profile: who is signed in, the settings, the language, the version and its update check, sign-out and resetting the phone. */
export function ProfilePage() {
  const { t } = useTranslation();
  const { signOut } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const version = useAppVersion();
  const [signOutOpen, setSignOutOpen] = useState(false);
  const [resetting, setResetting] = useState<LocalWork | null>(null);
  const { updating, update } = useUpdateCheck(version);
  const checkLabel = updating ? t('updates.checking') : t('profile.checkUpdates');
  const running = signOutOpen ? runningSessions() : [];

  async function confirmSignOut(endSessions: boolean): Promise<void> {
    setSignOutOpen(false);
    if (endSessions) discardSessions();
    await signOut();
    toast('success', t('profile.loggedOut'));
    navigate('/login', { replace: true });
  }

  return (
    <div className="page">
      <PageHeader title={t('pages.profile')} />
      <UserCard />
      <h2 className="text-base text-600 font-medium mb-2">{t('profile.settings')}</h2>
      <Card className="mb-3 settings-card">
        <SettingsRow icon="pi pi-cog" label={t('profile.appSettings')} />
        <SettingsRow icon="pi pi-download" label={t('profile.exportData')} />
        <SettingsRow icon="pi pi-question-circle" label={t('profile.help')} />
        <LanguageSwitch />
        <SettingsRow icon="pi pi-info-circle" label={t('profile.version')}>
          <span className="text-600" data-testid="app-version">
            {version === undefined ? '…' : version === null ? t('common.unknown') : `v${version}`}
          </span>
        </SettingsRow>
        <div className="flex gap-2 pt-3">
          <Button label={checkLabel} icon="pi pi-refresh" outlined className="flex-1" loading={updating} onClick={() => void update()} />
          <Button label={t('profile.test')} icon="pi pi-wrench" outlined severity="secondary" onClick={() => void logUserInfo()} />
        </div>
      </Card>
      <Button label={t('profile.signOut')} icon="pi pi-sign-out" severity="danger" className="w-full" onClick={() => setSignOutOpen(true)} />
      <Button label={t('profile.reset')} icon="pi pi-trash" text severity="secondary" className="w-full mt-2" onClick={() => setResetting(localWork())} />
      {resetting && <ResetDialog work={resetting} onCancel={() => setResetting(null)} onConfirm={() => void resetPhone()} />}
      <SignOutDialog visible={signOutOpen} running={running} onCancel={() => setSignOutOpen(false)} onConfirm={(end) => void confirmSignOut(end)} />
    </div>
  );
}
