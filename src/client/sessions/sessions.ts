import { useCallback, useEffect, useState } from 'react';
import { differenceInMinutes, format, parse } from 'date-fns';
import type { WorkspaceSessionMeta } from '../../shared/kind-types';
import { kindsWith } from '../kinds/kinds-with';
import { storage } from '../lib/storage';

/** Dates as the records carry them, in the phone's local time. */
const DATE_TIME = 'yyyy-MM-dd HH:mm:ss';

/** A running session; `owner`: who started it (another user signing in on the phone does not see it). */
type RunningSession = { startedAt: string; owner?: string };

/** What an ended session puts in its new record (x-kind.workspace.session.fills): field -> value. */
type SessionPrefill = Record<string, string | number>;

/** The kinds with a session, in Workspace order. */
export const SESSION_KINDS = kindsWith((kind) => kind.meta.workspace?.session);

const byName = new Map(SESSION_KINDS.map((s) => [s.kind.name, s]));

/** Where a kind's running session is kept in local storage (docs/PRODUCT.md section 8: driveSession, chargingSession). */
const sessionKey = (kind: string): string => `${kind}Session`;

function load(kind: string): RunningSession | null {
  const raw = storage.read(sessionKey(kind));
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as RunningSession;
    if (typeof value.startedAt !== 'string') return null;
    // Kept for its owner; sessions saved before sessions had owners belong to whoever is signed in.
    if (typeof value.owner === 'string' && value.owner !== (storage.username() ?? '')) return null;
    return value;
  } catch {
    return null;
  }
}

/** The new record's values from a session's start and end, as the kind's schema says (fills: date, start, end, minutes). */
function prefillOf(session: WorkspaceSessionMeta, start: string, end: string): SessionPrefill {
  const { date, start: startField, end: endField, minutes } = session.fills;
  return {
    ...(date ? { [date]: start.slice(0, 10) } : {}),
    ...(startField ? { [startField]: start } : {}),
    ...(endField ? { [endField]: end } : {}),
    ...(minutes ? { [minutes]: Math.max(0, differenceInMinutes(parse(end, DATE_TIME, new Date()), parse(start, DATE_TIME, new Date()))) } : {}),
  };
}

function loadAll(): Record<string, RunningSession | null> {
  return Object.fromEntries(SESSION_KINDS.map(({ kind }) => [kind.name, load(kind.name)]));
}

/** The signed-in user's running sessions, for the sign-out question. */
export function runningSessions(): { kind: string; startedAt: string }[] {
  return Object.entries(loadAll()).flatMap(([kind, session]) => (session ? [{ kind, startedAt: session.startedAt }] : []));
}

/** Ends the signed-in user's running sessions without a record (the user chose so when signing out). */
export function discardSessions(): void {
  for (const { kind } of runningSessions()) storage.write(sessionKey(kind), null);
}

/**
 * The Workspace sessions of this phone (kept across reloads), one per kind with x-kind.workspace.session.
 * A start is refused while it or one of its blockedBy kinds runs (no charging while driving).
 */
export function useSessions(now: () => Date = () => new Date()) {
  const [running, setRunning] = useState(loadAll);

  // Another tab of the app may start or end a session.
  useEffect(() => {
    const onStorage = (): void => setRunning(loadAll());
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  /** Starts a session unless it or a blocking one is running; false when refused. */
  const start = useCallback(
    (kind: string): boolean => {
      const spec = byName.get(kind);
      if (!spec || load(kind) || (spec.entry.blockedBy ?? []).some((other) => load(other))) return false;
      const owner = storage.username();
      const session: RunningSession = { startedAt: format(now(), DATE_TIME), ...(owner ? { owner } : {}) };
      storage.write(sessionKey(kind), JSON.stringify(session));
      setRunning((r) => ({ ...r, [kind]: session }));
      return true;
    },
    [now],
  );

  /** Ends a running session and returns what the new record starts with; null when none runs. */
  const end = useCallback(
    (kind: string): SessionPrefill | null => {
      const spec = byName.get(kind);
      const session = load(kind);
      if (!spec || !session) return null;
      storage.write(sessionKey(kind), null);
      setRunning((r) => ({ ...r, [kind]: null }));
      return prefillOf(spec.entry, session.startedAt, format(now(), DATE_TIME));
    },
    [now],
  );

  const isRunning = (kind: string): boolean => (running[kind] ?? null) !== null;
  const canStart = (kind: string): boolean =>
    byName.has(kind) && !isRunning(kind) && (byName.get(kind)?.entry.blockedBy ?? []).every((other) => !isRunning(other));
  return { running, canStart, canEnd: isRunning, start, end };
}
