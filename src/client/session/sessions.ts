import { useCallback, useEffect, useState } from 'react';
import { differenceInMinutes, format, parse } from 'date-fns';
import { KEYS, storage } from './storage';

/** Dates as the records carry them: 'yyyy-MM-dd HH:mm:ss' in the phone's local time. */
export const DATE_TIME = 'yyyy-MM-dd HH:mm:ss';

export interface RunningSession {
  startedAt: string;
  /** Who started it: a session belongs to its user, and another user signing in on the phone does not see it. */
  owner?: string;
}

/** What an ended drive puts in the new drive record. */
export interface DrivePrefill {
  driveDate: string;
  startTime: string;
  stopTime: string;
  travelTime: number;
}

/** What an ended charging session puts in the new charging record. */
export interface ChargingPrefill {
  chargeDate: string;
  startChargeTime: string;
  endChargeTime: string;
  totalChargeTime: number;
}

function load(key: string): RunningSession | null {
  const raw = storage.read(key);
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

function minutesBetween(start: string, end: string): number {
  return Math.max(0, differenceInMinutes(parse(end, DATE_TIME, new Date()), parse(start, DATE_TIME, new Date())));
}

export type SessionKind = 'drive' | 'charging';

/** The signed-in user's running sessions, for the sign-out question. */
export function runningSessions(): { kind: SessionKind; startedAt: string }[] {
  const out: { kind: SessionKind; startedAt: string }[] = [];
  for (const kind of ['drive', 'charging'] as const) {
    const session = load(kind === 'drive' ? KEYS.driveSession : KEYS.chargingSession);
    if (session) out.push({ kind, startedAt: session.startedAt });
  }
  return out;
}

/** Ends the signed-in user's running sessions without a record (the user chose so when signing out). */
export function discardSessions(): void {
  for (const key of [KEYS.driveSession, KEYS.chargingSession]) if (load(key)) storage.write(key, null);
}

/**
 * The two sessions: where each is kept, which running sessions refuse its start (SPEC.md
 * section 4: Start Charging is refused while driving), and what its end puts in the new record.
 */
const SESSIONS: Record<SessionKind, { key: string; blockedBy: SessionKind[]; prefill: (start: string, end: string) => DrivePrefill | ChargingPrefill }> = {
  drive: {
    key: KEYS.driveSession,
    blockedBy: [],
    prefill: (start, end) => ({ driveDate: start.slice(0, 10), startTime: start, stopTime: end, travelTime: minutesBetween(start, end) }),
  },
  charging: {
    key: KEYS.chargingSession,
    blockedBy: ['drive'],
    prefill: (start, end) => ({ chargeDate: start.slice(0, 10), startChargeTime: start, endChargeTime: end, totalChargeTime: minutesBetween(start, end) }),
  },
};

const systemNow = (): Date => new Date();

function loadAll(): Record<SessionKind, RunningSession | null> {
  return { drive: load(SESSIONS.drive.key), charging: load(SESSIONS.charging.key) };
}

/**
 * The drive and charging sessions of this phone (local only, kept across reloads). Start Drive
 * is refused while driving; Start Charging while charging or driving; ending needs a running one.
 */
export function useSessions(now: () => Date = systemNow) {
  const [running, setRunning] = useState(loadAll);

  // Another tab of the app may start or end a session.
  useEffect(() => {
    const onStorage = (): void => setRunning(loadAll());
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  /** Starts a session unless it or a blocking one is running; false when refused. */
  const start = useCallback(
    (kind: SessionKind): boolean => {
      const { key, blockedBy } = SESSIONS[kind];
      if (load(key) || blockedBy.some((other) => load(SESSIONS[other].key))) return false;
      const owner = storage.username();
      const session: RunningSession = { startedAt: format(now(), DATE_TIME), ...(owner ? { owner } : {}) };
      storage.write(key, JSON.stringify(session));
      setRunning((r) => ({ ...r, [kind]: session }));
      return true;
    },
    [now],
  );

  /** Ends a running session and returns what the new record starts with; null when none runs. */
  const end = useCallback(
    (kind: SessionKind): DrivePrefill | ChargingPrefill | null => {
      const { key, prefill } = SESSIONS[kind];
      const session = load(key);
      if (!session) return null;
      storage.write(key, null);
      setRunning((r) => ({ ...r, [kind]: null }));
      return prefill(session.startedAt, format(now(), DATE_TIME));
    },
    [now],
  );

  const canStart = (kind: SessionKind): boolean => running[kind] === null && SESSIONS[kind].blockedBy.every((other) => running[other] === null);
  return { running, canStart, canEnd: (kind: SessionKind): boolean => running[kind] !== null, start, end };
}
