import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Selectable } from 'kysely';
import type { UploadFragmentTable } from '../db/types.js';

// The fragments of an upload session (upload_fragments, docs/decisions/028): which count, and what a session still wants.

/** A fragment's claim, renewed while its bytes flow: after a crash, sending them again waits at most this long. */
export const FRAGMENT_LEASE_SECONDS = 15;
export const FRAGMENT_RENEW_MS = 5000;
/** Fragments of one session that may be in flight at once. */
export const MAX_FRAGMENTS_IN_FLIGHT = 4;

export type FragmentRefusal =
  | { reason: 'overlap' | 'order' | 'busy'; received: number }
  /** The session ended or is being committed. */
  | { reason: 'gone' };

/** What a written fragment leaves: the acknowledged prefix, and the ranges still wanted. */
export interface FragmentDone {
  received: number;
  expiresAt: string;
  nextExpectedRanges: string[];
}

export const WRITING = 0;
export const SYNCED = 1;
export const WRITTEN = 2;

export type FragmentRecord = Pick<Selectable<UploadFragmentTable>, 'start_byte' | 'end_byte' | 'done' | 'writer' | 'locked_until' | 'lock_id'>;

export interface FragmentRow {
  start: number;
  end: number;
  state: 'writing' | 'written' | 'synced';
}

/** The kernel this process writes through (host and boot id), whose page cache keeps unsynced bytes through a kill; else the process. */
export function writerIdentity(): string {
  try {
    return `${os.hostname()} ${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`;
  } catch {
    return `${os.hostname()} process ${process.pid} ${randomBytes(6).toString('hex')}`;
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** The byte ranges still wanted: from `received` to the end, less the written fragments (sorted). */
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

/** A lapsed fragment whose bytes no longer count: being written by a dead request, or unsynced by another kernel. */
export function hasLapsed(r: FragmentRecord, now: number, writer: string): boolean {
  if (r.locked_until === null || r.locked_until >= iso(now)) return false;
  const done = Number(r.done);
  return done === WRITING || (done === WRITTEN && r.writer !== writer);
}

/** The fragments that count, by start: synced; written by this kernel or a live writer; being written by a live request. */
export function classify(rows: FragmentRecord[], now: number, writer: string): FragmentRow[] {
  const out: FragmentRow[] = [];
  for (const r of rows) {
    const done = Number(r.done);
    const live = r.locked_until !== null && r.locked_until >= iso(now);
    const f = { start: Number(r.start_byte), end: Number(r.end_byte) };
    if (done === SYNCED) out.push({ ...f, state: 'synced' });
    else if (done === WRITTEN && (r.writer === writer || live)) out.push({ ...f, state: 'written' });
    else if (done === WRITING && live) out.push({ ...f, state: 'writing' });
  }
  return out.sort((a, b) => a.start - b.start);
}
