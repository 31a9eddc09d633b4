import { useRef, useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { appPath } from '../auth/app-path';
import { useAuth } from '../auth/auth-context';
import type { FromState } from '../auth/require-auth';
import { preloadToast, useToast } from '../ui/toast';

/** Where to go after signing in: the remembered origin, or '/' (which leads to /data); only ever a path of this app. */
function destination(state: unknown, search: string): string {
  return appPath((state as FromState | null)?.from ?? new URLSearchParams(search).get('redirect'));
}

export function LoginPage() {
  const { t } = useTranslation();
  const { state, signIn } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const location = useLocation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const [showPassword, setShowPassword] = useState(false);
  // The server's refusal, said under the password and read out with it (aria-describedby).
  const [refusal, setRefusal] = useState<string | null>(null);
  const userField = useRef<HTMLInputElement>(null);
  const passwordField = useRef<HTMLInputElement>(null);

  if (state.status === 'signedIn' && !busy) return <Navigate to={destination(location.state, location.search)} replace />;

  async function submit(e: FormEvent): Promise<void> {
    e.preventDefault();
    setTried(true);
    setRefusal(null);
    // Focus goes where the tester has to act: the first empty field.
    if (username.trim() === '') return userField.current?.focus();
    if (password === '') return passwordField.current?.focus();
    if (busy) return;
    setBusy(true);
    void preloadToast().catch(() => {});
    try {
      await signIn(username.trim(), password);
      toast('success', t('login.success'));
      navigate(destination(location.state, location.search), { replace: true });
    } catch (err) {
      const detail = err instanceof ApiError ? err.message : undefined;
      toast('error', t('login.failed'), detail);
      setRefusal(detail ?? t('login.failed'));
      passwordField.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  const missingUser = tried && username.trim() === '';
  const missingPassword = tried && password === '';
  return (
    <div className="login-page">
      <form className="login-card surface-card shadow-2 border-round-xl p-4" onSubmit={submit} noValidate>
        <div className="text-center mb-4">
          <i className="pi pi-car text-primary" style={{ fontSize: '2.5rem' }} aria-hidden="true" />
          <h1 className="text-2xl font-semibold mt-2 mb-1">{t('login.heading')}</h1>
          <p className="text-600 m-0">{t('login.subtitle')}</p>
        </div>
        {/* Plain inputs styled by the PrimeReact theme: the sign-in page loads no component library. */}
        <div className="field">
          <label htmlFor="username" className="font-medium">
            {t('login.username')}
          </label>
          <input
            ref={userField}
            id="username"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            className={`p-inputtext p-component w-full${missingUser ? ' p-invalid' : ''}`}
            aria-required="true"
            aria-invalid={missingUser}
            aria-describedby={missingUser ? 'username-error' : undefined}
          />
          {missingUser && (
            <small id="username-error" className="p-error">
              {t('login.usernameRequired')}
            </small>
          )}
        </div>
        <div className="field">
          <label htmlFor="password" className="font-medium">
            {t('login.password')}
          </label>
          <div className="p-input-icon-right w-full">
            <input
              ref={passwordField}
              id="password"
              type={showPassword ? 'text' : 'password'}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="current-password"
              className={`p-inputtext p-component w-full${missingPassword ? ' p-invalid' : ''}`}
              aria-required="true"
              aria-invalid={missingPassword || refusal !== null}
              aria-describedby={missingPassword ? 'password-error' : refusal !== null ? 'signin-error' : undefined}
            />
            <button
              type="button"
              className="password-toggle"
              onClick={() => setShowPassword((v) => !v)}
              aria-label={showPassword ? t('login.hidePassword') : t('login.showPassword')}
            >
              <i className={showPassword ? 'pi pi-eye-slash' : 'pi pi-eye'} aria-hidden="true" />
            </button>
          </div>
          {missingPassword && (
            <small id="password-error" className="p-error">
              {t('login.passwordRequired')}
            </small>
          )}
          {refusal !== null && !missingPassword && (
            <small id="signin-error" className="p-error" role="alert">
              {refusal}
            </small>
          )}
        </div>
        <button type="submit" className="p-button p-component w-full mt-2 justify-content-center gap-2" disabled={busy}>
          <i className={busy ? 'pi pi-spin pi-spinner' : 'pi pi-sign-in'} aria-hidden="true" />
          <span className="font-semibold">{busy ? t('login.signingIn') : t('login.signIn')}</span>
        </button>
      </form>
    </div>
  );
}
