import { startTransition, useEffect, useState } from 'react';

type FormModule = typeof import('./record-form');

let loaded: FormModule | undefined;
let loading: Promise<FormModule> | undefined;

export function loadRecordForm(): Promise<FormModule> {
  loading ??= import('./record-form').then((m) => (loaded = m));
  return loading;
}

/** The form component once its chunk is here (undefined before), loading it when `needed`. */
export function useRecordForm(needed: boolean): FormModule['RecordForm'] | undefined {
  const [module, setModule] = useState<FormModule | undefined>(loaded);
  useEffect(() => {
    if (module || !needed) return;
    let cancelled = false;
    loadRecordForm().then(
      // A transition: the fields are drawn in slices, not in one long task (150 ms on a slow phone).
      (m) => !cancelled && startTransition(() => setModule(m)),
      (e: unknown) => console.error('The form could not be loaded:', e),
    );
    return () => {
      cancelled = true;
    };
  }, [module, needed]);
  return module?.RecordForm;
}
