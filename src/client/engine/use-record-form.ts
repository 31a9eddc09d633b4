import { startTransition, useEffect, useState } from 'react';

type FormModule = typeof import('./record-form');

let loaded: FormModule | undefined;
let loading: Promise<FormModule> | undefined;

/** Loads the form's chunk once; later callers get the same promise, and the module once it is here. */
export function loadRecordForm(): Promise<FormModule> {
  loading ??= import('./record-form').then((m) => (loaded = m));
  return loading;
}

/**
 * The form component once its chunk is here (undefined before), loading it when `needed`: the
 * detail screen asks when a record is edited or created, and ahead of time once the screen is idle.
 */
export function useRecordForm(needed: boolean): FormModule['RecordForm'] | undefined {
  const [module, setModule] = useState<FormModule | undefined>(loaded);
  useEffect(() => {
    if (module || !needed) return;
    let cancelled = false;
    loadRecordForm().then(
      // A transition: React draws the form's fields in slices, not in one long task that holds
      // the phone's main thread (a 30-field form took about 150 ms at 4x CPU slowdown).
      (m) => !cancelled && startTransition(() => setModule(m)),
      (e: unknown) => console.error('The form could not be loaded:', e),
    );
    return () => {
      cancelled = true;
    };
  }, [module, needed]);
  return module?.RecordForm;
}
