import { useRef, useState, type FormEvent, type InputHTMLAttributes } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { appPath } from '../auth/app-path';
import { useAuth, type FromState } from '../auth/auth-context';
import { preloadToast, useToast } from '../ui/toast';

/** Where to go after signing in: the remembered origin, or '/' (which leads to /data); only ever a path of this app. */
function destination(state: unknown, search: string): string {
  return appPath((state as FromState | null)?.from ?? new URLSearchParams(search).get('redirect'));
}

export function LoginPage() {
  const { t } = useTranslation();
  const form = useSignIn();
  if (form.to !== null) return <Navigate to={form.to} replace />;
  return (
    <div className="login-page">
      <form className="login-card surface-card shadow-2 border-round-xl p-4" onSubmit={form.submit} noValidate>
        <div className="text-center mb-4">
          <i className="pi pi-car text-primary" style={{ fontSize: '2.5rem' }} aria-hidden="true" />
          <h1 className="text-2xl font-semibold mt-2 mb-1">{t('login.heading')}</h1>
          <p className="text-600 m-0">{t('login.subtitle')}</p>
        </div>
        <LoginField login={form} name="username" autoComplete="username" autoCapitalize="none" spellCheck={false} />
        <LoginField login={form} name="password" autoComplete="current-password" secret />
        <button type="submit" className="p-button p-component w-full mt-2 justify-content-center gap-2" disabled={form.busy}>
          <i className={form.busy ? 'pi pi-spin pi-spinner' : 'pi pi-sign-in'} aria-hidden="true" />
          <span className="font-semibold">{t(form.busy ? 'login.signingIn' : 'login.signIn')}</span>
        </button>
      </form>
    </div>
  );
}

/** The form's state: what is typed, what is missing or refused, and submit(); `to`: where a tester signed in goes. */
function useSignIn() {
  const { t } = useTranslation();
  const { state, signIn } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const location = useLocation();
  const [values, setValues] = useState({ username: '', password: '' });
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  // The server's refusal, said under the password and read out with it (aria-describedby).
  const [refusal, setRefusal] = useState<Problem>();
  const fields = { username: useRef<HTMLInputElement>(null), password: useRef<HTMLInputElement>(null) };
  const [username, password] = [values.username.trim(), values.password];

  async function submit(e: FormEvent): Promise<void> {
    e.preventDefault();
    setTried(true);
    setRefusal(undefined);
    // Focus goes where the tester has to act: the first empty field.
    if (username === '') return fields.username.current?.focus();
    if (password === '') return fields.password.current?.focus();
    if (busy) return;
    setBusy(true);
    void preloadToast().catch(() => {});
    try {
      await signIn(username, password);
      toast('success', t('login.success'));
      navigate(destination(location.state, location.search), { replace: true });
    } catch (err) {
      const detail = err instanceof ApiError ? err.message : undefined;
      toast('error', t('login.failed'), detail);
      setRefusal({ id: 'signin-error', text: detail ?? t('login.failed'), alert: true });
      fields.password.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  const missing = (name: Field): Problem | undefined =>
    tried && { username, password }[name] === '' ? { id: `${name}-error`, text: t(`login.${name}Required`) } : undefined;
  const problems = { username: missing('username'), password: missing('password') ?? refusal };
  const to = state.status === 'signedIn' && !busy ? destination(location.state, location.search) : null;
  return { to, values, set: (name: Field, value: string) => setValues((v) => ({ ...v, [name]: value })), busy, problems, fields, submit };
}

type Field = 'username' | 'password';
type FieldProps = { login: ReturnType<typeof useSignIn>; name: Field; secret?: boolean } & InputHTMLAttributes<HTMLInputElement>;
/** What is wrong with a field, said under it and read out with it; `alert`: the server's refusal, said at once. */
type Problem = { id: string; text: string; alert?: boolean };

/** A plain input in the PrimeReact theme (the sign-in page loads no component library), its label and problem (a refusal not in red); a password can be shown. */
function LoginField({ login, name, secret, ...input }: FieldProps) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  const problem = login.problems[name];
  const toggle = shown ? 'login.hidePassword' : 'login.showPassword';
  const control = (
    <input
      ref={login.fields[name]}
      id={name}
      {...input}
      type={secret ? (shown ? 'text' : 'password') : undefined}
      value={login.values[name]}
      onChange={(e) => login.set(name, e.target.value)}
      className={`p-inputtext p-component w-full${problem && !problem.alert ? ' p-invalid' : ''}`}
      aria-required="true"
      aria-invalid={problem !== undefined}
      aria-describedby={problem?.id}
    />
  );
  return (
    <div className="field">
      <label htmlFor={name} className="font-medium">
        {t(`login.${name}`)}
      </label>
      {secret ? (
        <div className="p-input-icon-right w-full">
          {control}
          <button type="button" className="password-toggle" onClick={() => setShown((v) => !v)} aria-label={t(toggle)}>
            <i className={shown ? 'pi pi-eye-slash' : 'pi pi-eye'} aria-hidden="true" />
          </button>
        </div>
      ) : (
        control
      )}
      {problem && (
        <small id={problem.id} className="p-error" role={problem.alert ? 'alert' : undefined}>
          {problem.text}
        </small>
      )}
    </div>
  );
}
