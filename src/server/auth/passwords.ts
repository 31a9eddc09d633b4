import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt with N=2^15 costs about 50-100 ms and 32 MiB per hash: slow for a guesser, fine for a sign-in.
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;

/**
 * scrypt runs on libuv's thread pool (4 threads), which file reads and writes share. Hashing is
 * let through HASH_SLOTS at a time, so a flood of sign-ins leaves threads for downloads and
 * uploads; past HASH_QUEUE waiting, a sign-in is refused at once (503) rather than queued for long.
 * Checks from a user's usual address (login-throttle.ts) wait in their own queue, served first, so
 * a flood from other addresses delays them by at most the hash in progress.
 */
const HASH_SLOTS = 1;
const HASH_QUEUE = 128;
/**
 * Sign-ins handled at once per client address and per username (usual addresses aside), and how
 * many more may wait their turn; any beyond are refused at once (503). See admitSignIn. An address
 * may have more waiting than a username: an office behind one address signs in at nine together.
 */
export const CHECKS_PER_ADDRESS = 2;
export const WAITING_PER_ADDRESS = 16;
export const CHECKS_PER_USERNAME = 2;
export const WAITING_PER_USERNAME = 8;
let running = 0;
const urgent: (() => void)[] = [];
const waiting: (() => void)[] = [];
let hashes = 0;

export class HashingBusyError extends Error {
  constructor() {
    super('The server is busy checking sign-ins; try again in a few seconds');
  }
}

async function withHashSlot<T>(work: () => Promise<T>, first = false): Promise<T> {
  if (running >= HASH_SLOTS) {
    const queue = first ? urgent : waiting;
    if (queue.length >= HASH_QUEUE) throw new HashingBusyError();
    await new Promise<void>((resolve) => queue.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    const next = urgent.shift() ?? waiting.shift();
    // The slot passes straight to the next waiter, so `running` only drops when nobody waits.
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }, first = false): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return withHashSlot(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        hashes++;
        scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
      }),
    first,
  );
}

/** scrypt computations since the process started (tests bound the work an attack causes). */
export function hashesComputed(): number {
  return hashes;
}

/** Hashes a password as 'scrypt$N$r$p$salt$key' (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Checks a password against a stored hash in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string, first = false): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const expected = Buffer.from(parts[5] as string, 'base64url');
  if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p) || expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, salt, { N, r, p }, first);
  return timingSafeEqual(actual, expected);
}

interface Gate {
  active: number;
  waiting: (() => void)[];
}
const perAddress = new Map<string, Gate>();
const perUsername = new Map<string, Gate>();
/** Recent time a real check took, waiting included (moving average), which a missing user's answer waits too. */
let typicalMs: number | undefined;
let calibration: Promise<void> | undefined;

/** Enters key's gate: at once while fewer than max are inside, else in line (refused when the line is full). */
async function enter(map: Map<string, Gate>, key: string, max: number, maxWaiting: number): Promise<void> {
  let gate = map.get(key);
  if (gate === undefined) map.set(key, (gate = { active: 0, waiting: [] }));
  if (gate.active < max) {
    gate.active++;
    return;
  }
  if (gate.waiting.length >= maxWaiting) throw new HashingBusyError();
  await new Promise<void>((resolve) => gate.waiting.push(resolve));
}

function leave(map: Map<string, Gate>, key: string): void {
  const gate = map.get(key);
  if (gate === undefined) return;
  const next = gate.waiting.shift();
  // The place passes straight to the next in line.
  if (next) next();
  else if (--gate.active <= 0) map.delete(key);
}

/** A sign-in admitted to be handled: whether it comes from the user's usual address, and its places to give back. */
export interface Admission {
  usual: boolean;
  release: () => void;
}

/**
 * Admits a sign-in before anything else is done for it (database included): at most
 * CHECKS_PER_ADDRESS per client address and CHECKS_PER_USERNAME per username (usual addresses
 * aside) are handled at once, WAITING_PER_ADDRESS / WAITING_PER_USERNAME more wait their turn, and
 * any beyond are refused at once (HashingBusyError, 503), whether the username exists or not. So a flood of one username from
 * many addresses costs a few database turns and hashes, not one per request, and cannot hold a
 * real user's queries up behind its own. `isUsual` is asked once the address's place is held.
 */
export async function admitSignIn(address: string, username: string, isUsual: () => Promise<boolean>): Promise<Admission> {
  const name = username.toLowerCase().slice(0, 100);
  await enter(perAddress, address, CHECKS_PER_ADDRESS, WAITING_PER_ADDRESS);
  let usual = false;
  try {
    usual = await isUsual();
    if (!usual) await enter(perUsername, name, CHECKS_PER_USERNAME, WAITING_PER_USERNAME);
  } catch (e) {
    leave(perAddress, address);
    throw e;
  }
  let released = false;
  return {
    usual,
    release: () => {
      if (released) return;
      released = true;
      leave(perAddress, address);
      if (!usual) leave(perUsername, name);
    },
  };
}

/**
 * A sign-in's password check. A username that does not exist (stored undefined) costs no scrypt:
 * its answer waits as long as recent real checks took (one calibration hash per process), so
 * timing does not tell whether the user exists. A check from the user's usual address goes first.
 */
export async function checkSignIn(password: string, stored: string | undefined, usual: boolean): Promise<boolean> {
  const started = Date.now();
  if (stored === undefined) {
    if (typicalMs === undefined) {
      calibration ??= derive(randomBytes(16).toString('hex'), randomBytes(16), PARAMS).then(() => {
        typicalMs ??= Date.now() - started;
      });
      await calibration;
    }
    const wait = Math.min(3000, typicalMs ?? 100) * (0.9 + Math.random() * 0.2) - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return false;
  }
  const valid = await verifyPassword(password, stored, usual);
  const took = Date.now() - started;
  typicalMs = typicalMs === undefined ? took : typicalMs * 0.8 + took * 0.2;
  return valid;
}

/** A random password that is easy to type on a phone: 16 characters without look-alikes. */
export function randomPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(16);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
