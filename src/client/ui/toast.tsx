import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Toast, ToastMessage } from 'primereact/toast';
import { i18n } from '../i18n';

export type ShowToast = (severity: 'success' | 'info' | 'warn' | 'error', summary: string, detail?: string, life?: number) => void;

type ToastModule = typeof import('primereact/toast');

let modulePromise: Promise<ToastModule> | undefined;
/** PrimeReact's Toast is fetched on first use, so the sign-in page stays small: call early where a toast is likely. */
export function preloadToast(): Promise<ToastModule> {
  modulePromise ??= import('primereact/toast');
  return modulePromise;
}

const ToastContext = createContext<ShowToast | null>(null);

/** One toast area for the app: showing a toast replaces the one on screen (one at a time). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const ref = useRef<Toast>(null);
  const pending = useRef<ToastMessage | null>(null);
  const [mod, setMod] = useState<ToastModule | null>(null);

  const show = useCallback<ShowToast>((severity, summary, detail, life = 3000) => {
    const message: ToastMessage = { severity, summary, life };
    if (detail !== undefined && detail !== summary) message.detail = detail;
    if (ref.current) return ref.current.replace(message);
    pending.current = message;
    preloadToast().then(setMod, (e: unknown) => console.error('The toast component could not be loaded:', e));
  }, []);

  // One language per screen: a toast shown in the language just left goes with it.
  useEffect(() => {
    const clear = (): void => {
      ref.current?.clear();
      pending.current = null;
    };
    i18n.on('languageChanged', clear);
    return () => i18n.off('languageChanged', clear);
  }, []);

  useEffect(() => {
    if (mod && ref.current && pending.current) {
      ref.current.replace(pending.current);
      pending.current = null;
    }
  }, [mod]);

  const ToastComponent = mod?.Toast;
  return (
    <ToastContext.Provider value={show}>
      {/* No exit animation: a replaced toast vanishes at once, so only one is ever on screen. */}
      {ToastComponent && (
        <ToastComponent ref={ref} position="top-center" className="app-toast" transitionOptions={{ exit: false, timeout: { enter: 300, exit: 0 } }} />
      )}
      {children}
    </ToastContext.Provider>
  );
}

export function useToast(): ShowToast {
  const show = useContext(ToastContext);
  if (!show) throw new Error('useToast must be used inside a ToastProvider');
  return show;
}
