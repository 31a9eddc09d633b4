import type { Config } from '../config.js';
import { randomPassword } from './password-hashing.js';
import type { UserRepository } from './user-repository.js';

/** On the first start creates the configured initial user, or a 'demo' user whose random password is printed once. */
export async function seedFirstUser(users: UserRepository, config: Pick<Config, 'initialUser'>, print: (line: string) => void): Promise<void> {
  if ((await users.count()) > 0) return;
  if (config.initialUser) {
    const u = config.initialUser;
    await users.add(u);
    print(`Created the initial user '${u.username}' (project ${u.project}, vehicle ${u.vehicle}) from INITIAL_* settings.`);
    return;
  }
  const password = randomPassword();
  await users.add({ username: 'demo', password, project: 'DEMO', vehicle: '636_green' });
  print(
    [
      '',
      '  No users yet, so a first user was created. This password is shown only once:',
      `    username: demo    password: ${password}    (project DEMO, vehicle 636_green)`,
      '  Change it with: npm run users -- passwd demo',
      '',
    ].join('\n'),
  );
}

/** A start-up notice between two rules of '=' as wide as its longest line, with a blank line around it (main.ts prints it last). */
export function framed(text: string): string {
  const lines = text.split('\n');
  while (lines[0]?.trim() === '') lines.shift();
  while (lines.at(-1)?.trim() === '') lines.pop();
  const rule = '='.repeat(Math.max(20, ...lines.map((line) => line.length)));
  return ['', rule, ...lines, rule, ''].join('\n');
}
