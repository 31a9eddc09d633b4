import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Selectable } from 'kysely';
import type { UploadFragmentTable } from '../db/types.js';

/**
 * The fragments of an upload session (upload_fragments, docs/decisions/028): their limits, their
 * states, which of them count, and the byte ranges a session still wants. The database side is
 * sessions.ts.
 */

/**
 * A fragment's claim: short, and renewed every FRAGMENT_RENEW_MS while its bytes flow, so that
 * after a crash (whose requests never release their claims) a client sending the same bytes again
 * waits at most this long for the dead claim to lapse.
 */
export const FRAGMENT_LEASE_SECONDS = 15;
export const FRAGMENT_RENEW_MS = 5000;
/** Fragments of one session that may be in flight at once (sent before the previous one answered). */
export const MAX_FRAGMENTS_IN_FLIGHT = 4;

/** Why a fragment may not be written now. */
export type FragmentRefusal =
  /** It starts before the next expected byte: those bytes are stored already. */
  | { reason: 'overlap'; received: number }
  /** It starts after a gap that nothing received or in flight fills (yet: it may be on its way). */
  | { reason: 'order'; received: number }
  /** Another request is writing bytes it covers, or too many fragments are in flight. */
  | { reason: 'busy'; received: number }
  /** The session ended (expired, cancelled, finished) or is being committed. */
  | { reason: 'gone' };

/** What a written fragment leaves: the acknowledged contiguous prefix, and the ranges still wanted. */
export interface FragmentDone {
  received: number;
  expiresAt: string;
  nextExpectedRanges: string[];
}

/** upload_fragments.done: being written, synced, or written and acknowledged but not yet synced. */
export const WRITING = 0;
export const SYNCED = 1;
export const WRITTEN = 2;

/** An upload_fragments row as read. */
export type FragmentRecord = Pick<Selectable<UploadFragmentTable>, 'start_byte' | 'end_byte' | 'done' | 'writer' | 'locked_until' | 'lock_id'>;

export interface FragmentRow {
  start: number;
  end: number;
  state: 'writing' | 'written' | 'synced';
  lockId: string | null;
}

/**
 * Which running kernel this process writes through: the host and its boot id. Bytes a process
 * wrote (not yet synced) survive its kill -9 in that kernel's page cache, but not a power cut or
 * a reboot, which change the boot id. Where no boot id can be read, the process itself is the
 * writer: its unsynced fragments are then asked for again after any crash.
 */
export function writerIdentity(): string {
  try {
    return `${os.hostname()} ${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`;
  } catch {
    return `${os.hostname()} process ${process.pid} ${randomBytes(6).toString('hex')}`;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The byte ranges still wanted: from `received` to the end, less the written fragments (sorted) beyond it. */
export function missingRanges(received: number, total: number | undefined, written: { start: number; end: number }[]): string[] {
  if (total !== undefined && received >= total) return [];
  const out: string[] = [];
  let cursor = received;
  for (const f of written) {
    if (f.start > cursor) out.push(`${cursor}-${f.start - 1}`);
    cursor = Math.max(cursor, f.end);
  }
  if (total === undefined || cursor < total) out.push(`${cursor}-`);
  return out;
}

/** How far from `received` the fragments (sorted) reach without a gap. */
export function prefix(received: number, fragments: { start: number; end: number }[]): number {
  let cursor = received;
  for (const f of fragments) if (f.start <= cursor) cursor = Math.max(cursor, f.end);
  return cursor;
}

/** A fragment whose claim lapsed and whose bytes no longer count: being written by a dead request, or written where `writer` is not. */
export function hasLapsed(r: FragmentRecord, now: number, writer: string): boolean {
  if (r.locked_until === null || r.locked_until >= iso(now)) return false;
  const done = Number(r.done);
  return done === WRITING || (done === WRITTEN && r.writer !== writer);
}

/**
 * The fragments that count, by start: synced ones; written ones whose bytes this kernel (`writer`)
 * holds, or whose writer elsewhere is still alive; and ones being written by a live request.
 */
export function classify(rows: FragmentRecord[], now: number, writer: string): FragmentRow[] {
  const out: FragmentRow[] = [];
  for (const r of rows) {
    const done = Number(r.done);
    const live = r.locked_until !== null && r.locked_until >= iso(now);
    const f = { start: Number(r.start_byte), end: Number(r.end_byte), lockId: r.lock_id };
    if (done === SYNCED) out.push({ ...f, state: 'synced' });
    else if (done === WRITTEN && (r.writer === writer || live)) out.push({ ...f, state: 'written' });
    else if (done === WRITING && live) out.push({ ...f, state: 'writing' });
  }
  return out.sort((a, b) => a.start - b.start);
}
