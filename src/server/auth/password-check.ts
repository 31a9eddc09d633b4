import { HashingBusyError, hashOnce, verifyPassword } from '../users/password-hashing.js';

// Sign-ins are admitted and checked here; the hashing itself (scrypt, its thread-pool slots) is
// the users' (users/password-hashing.ts), which creating and changing users share.

/**
 * Sign-ins handled at once per client address and per username (trusted devices aside), and how
 * many more may wait their turn; any beyond are refused at once (503). See admitSignIn. An address
 * may have more waiting than a username: an office behind one address signs in at nine together.
 */
export const CHECKS_PER_ADDRESS = 2;
export const WAITING_PER_ADDRESS = 16;
export const CHECKS_PER_USERNAME = 2;
export const WAITING_PER_USERNAME = 8;
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

/** A sign-in admitted to be handled: whether it carries a valid device cookie of the user, and its places to give back. */
export interface Admission {
  trusted: boolean;
  release: () => void;
}

/**
 * Admits a sign-in before anything else is done for it (database included): at most
 * CHECKS_PER_ADDRESS per client address and CHECKS_PER_USERNAME per username (trusted devices
 * aside) are handled at once, WAITING_PER_ADDRESS / WAITING_PER_USERNAME more wait their turn, and
 * any beyond are refused at once (HashingBusyError, 503), whether the username exists or not. So a flood of one username from
 * many addresses costs a few database turns and hashes, not one per request, and cannot hold a
 * real user's queries up behind its own. `isTrusted` (a valid device cookie) is asked once the address's place is held.
 */
export async function admitSignIn(address: string, username: string, isTrusted: () => Promise<boolean>): Promise<Admission> {
  const name = username.toLowerCase().slice(0, 100);
  await enter(perAddress, address, CHECKS_PER_ADDRESS, WAITING_PER_ADDRESS);
  let trusted = false;
  try {
    trusted = await isTrusted();
    if (!trusted) await enter(perUsername, name, CHECKS_PER_USERNAME, WAITING_PER_USERNAME);
  } catch (e) {
    leave(perAddress, address);
    throw e;
  }
  let released = false;
  return {
    trusted,
    release: () => {
      if (released) return;
      released = true;
      leave(perAddress, address);
      if (!trusted) leave(perUsername, name);
    },
  };
}

/**
 * A sign-in's password check. A username that does not exist (stored undefined) costs no scrypt:
 * its answer waits as long as recent real checks took (one calibration hash per process), so
 * timing does not tell whether the user exists. A check from a trusted device goes first.
 */
export async function checkSignIn(password: string, stored: string | undefined, trusted: boolean): Promise<boolean> {
  const started = Date.now();
  if (stored === undefined) {
    if (typicalMs === undefined) {
      calibration ??= hashOnce().then(() => {
        typicalMs ??= Date.now() - started;
      });
      await calibration;
    }
    const wait = Math.min(3000, typicalMs ?? 100) * (0.9 + Math.random() * 0.2) - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return false;
  }
  const valid = await verifyPassword(password, stored, trusted);
  const took = Date.now() - started;
  typicalMs = typicalMs === undefined ? took : typicalMs * 0.8 + took * 0.2;
  return valid;
}
