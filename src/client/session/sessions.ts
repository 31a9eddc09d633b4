import { useCallback, useEffect, useState } from 'react';
import { differenceInMinutes, format, parse } from 'date-fns';
import { KEYS, storage } from './storage';

/** Dates as the records carry them: 'yyyy-MM-dd HH:mm:ss' in the phone's local time. */
export const DATE_TIME = 'yyyy-MM-dd HH:mm:ss';

export interface RunningSession {
  startedAt: string;
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
    return typeof value.startedAt === 'string' ? value : null;
  } catch {
    return null;
  }
}

function minutesBetween(start: string, end: string): number {
  return Math.max(0, differenceInMinutes(parse(end, DATE_TIME, new Date()), parse(start, DATE_TIME, new Date())));
}

/**
 * The drive and charging sessions of this phone (local only, kept across reloads). Start Drive
 * is refused while driving; Start Charging while charging or driving; ending needs a running one.
 */
const systemNow = (): Date => new Date();

export function useSessions(now: () => Date = systemNow) {
  const [drive, setDrive] = useState<RunningSession | null>(() => load(KEYS.driveSession));
  const [charging, setCharging] = useState<RunningSession | null>(() => load(KEYS.chargingSession));

  // Another tab of the app may start or end a session.
  useEffect(() => {
    const onStorage = (): void => {
      setDrive(load(KEYS.driveSession));
      setCharging(load(KEYS.chargingSession));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const startDrive = useCallback((): boolean => {
    if (load(KEYS.driveSession)) return false;
    const session = { startedAt: format(now(), DATE_TIME) };
    storage.write(KEYS.driveSession, JSON.stringify(session));
    setDrive(session);
    return true;
  }, [now]);

  const endDrive = useCallback((): DrivePrefill | null => {
    const session = load(KEYS.driveSession);
    if (!session) return null;
    const stopTime = format(now(), DATE_TIME);
    storage.write(KEYS.driveSession, null);
    setDrive(null);
    return { driveDate: session.startedAt.slice(0, 10), startTime: session.startedAt, stopTime, travelTime: minutesBetween(session.startedAt, stopTime) };
  }, [now]);

  const startCharging = useCallback((): boolean => {
    if (load(KEYS.chargingSession) || load(KEYS.driveSession)) return false;
    const session = { startedAt: format(now(), DATE_TIME) };
    storage.write(KEYS.chargingSession, JSON.stringify(session));
    setCharging(session);
    return true;
  }, [now]);

  const endCharging = useCallback((): ChargingPrefill | null => {
    const session = load(KEYS.chargingSession);
    if (!session) return null;
    const end = format(now(), DATE_TIME);
    storage.write(KEYS.chargingSession, null);
    setCharging(null);
    return { chargeDate: session.startedAt.slice(0, 10), startChargeTime: session.startedAt, endChargeTime: end, totalChargeTime: minutesBetween(session.startedAt, end) };
  }, [now]);

  return {
    drive,
    charging,
    canStartDrive: drive === null,
    canEndDrive: drive !== null,
    canStartCharging: charging === null && drive === null,
    canEndCharging: charging !== null,
    startDrive,
    endDrive,
    startCharging,
    endCharging,
  };
}
