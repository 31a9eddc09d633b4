import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt with N=2^15 costs about 50-100 ms and 32 MiB per hash: slow for a guesser, fine for a sign-in.
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;

export class HashingBusyError extends Error {
  constructor() {
    super('The server is busy checking sign-ins; try again in a few seconds');
  }
}

/** At most `max` inside at once, then a line of at most `maxWaiting` (refused beyond, 503); `first` has its own line, served first. */
export class Gate {
  private active = 0;
  private readonly lines = { first: [] as (() => void)[], others: [] as (() => void)[] };
  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  async enter(first = false): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return;
    }
    const line = first ? this.lines.first : this.lines.others;
    if (line.length >= this.maxWaiting) throw new HashingBusyError();
    await new Promise<void>((resolve) => line.push(resolve));
  }

  /** Hands the place to the next in line; true when the gate is left empty. */
  leave(): boolean {
    const next = this.lines.first.shift() ?? this.lines.others.shift();
    if (next) next();
    else this.active--;
    return this.active <= 0;
  }
}

/**
 * scrypt runs on libuv's thread pool, which file reads and writes share: hashing goes one at a
 * time, so a flood of sign-ins leaves threads for files; past 128 waiting it is refused (503).
 * Checks with a valid device cookie wait in their own line, served first.
 */
const hashSlot = new Gate(1, 128);
let hashes = 0;

async function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }, first = false): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  await hashSlot.enter(first);
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      hashes++;
      scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
    });
  } finally {
    hashSlot.leave();
  }
}

/** scrypt computations since the process started (tests bound the work an attack causes). */
export const hashesComputed = (): number => hashes;

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

/** One hash as a real check costs it, for answers that must take as long without checking anything. */
export async function hashOnce(): Promise<void> {
  await derive(randomBytes(16).toString('hex'), randomBytes(16), PARAMS);
}

/** A random password that is easy to type on a phone: 16 characters without look-alikes. */
export function randomPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(16);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
