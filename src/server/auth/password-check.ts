import { Gate, hashOnce, verifyPassword } from '../users/password-hashing.js';
import { userKey } from './login-throttle.js';

// Sign-ins handled at once and waiting per client address and per username. An address may have
// more waiting: an office behind one address signs in at nine together.
const CHECKS_PER_ADDRESS = 2;
const WAITING_PER_ADDRESS = 16;
const CHECKS_PER_USERNAME = 2;
const WAITING_PER_USERNAME = 8;
const perAddress = new Map<string, Gate>();
const perUsername = new Map<string, Gate>();
/** Recent time a real check took (moving average): a missing user's answer waits as long. */
let typicalMs: number | undefined;
let calibration: Promise<void> | undefined;

async function enter(map: Map<string, Gate>, key: string, max: number, maxWaiting: number): Promise<void> {
  let gate = map.get(key);
  if (gate === undefined) map.set(key, (gate = new Gate(max, maxWaiting)));
  await gate.enter();
}

function leave(map: Map<string, Gate>, key: string): void {
  if (map.get(key)?.leave()) map.delete(key);
}

/**
 * Admits a sign-in before anything else is done for it (database included), a few at once per
 * address and per username (trusted devices aside), a few more waiting, any beyond refused at once
 * (HashingBusyError, 503), whether the user exists or not: a flood of one username from many
 * addresses costs a few queries and hashes, not one per request. `isTrusted` (a valid device
 * cookie) is asked once the address's place is held; `release` gives the places back.
 */
export async function admitSignIn(address: string, username: string, isTrusted: () => Promise<boolean>) {
  const name = userKey(username);
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
 * A password check. A missing user (stored undefined) costs no hash: its answer waits as long as
 * real checks take (one calibration hash per process), so timing does not tell. Trusted goes first.
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
