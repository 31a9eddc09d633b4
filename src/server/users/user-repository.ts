import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, UserTable } from '../db/types.js';
import { parseJson } from '../../shared/envelope.js';
import { hashPassword, randomPassword } from './password-hashing.js';

export type User = Selectable<UserTable>;

export type NewUser = { username: string; password: string; project: string; vehicle: string; nickName?: string };

export class UserInputError extends Error {}

/** Analysis workers (docs/decisions/021): they may call only the fileAnalyze routes, for their projects. */
const WORKER_ROLE = 'worker';

export const isWorker = (user: Pick<User, 'role'>): boolean => user.role === WORKER_ROLE;

export function workerProjects(user: Pick<User, 'role' | 'worker_projects'>): string[] {
  if (!isWorker(user) || user.worker_projects === null) return [];
  const parsed = parseJson(user.worker_projects);
  return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string' && p !== '') : [];
}

const USERNAME = /^[A-Za-z0-9_.@-]{2,50}$/;

function checkNewUser(u: NewUser): void {
  if (!USERNAME.test(u.username)) throw new UserInputError('username must be 2-50 letters, digits or . _ @ -');
  if (u.password.length < 8 || u.password.length > 200) throw new UserInputError('password must be 8-200 characters');
  if (u.project.trim() === '' || u.project.length > 100) throw new UserInputError('project must be 1-100 characters');
  if (u.vehicle.trim() === '' || u.vehicle.length > 100) throw new UserInputError('vehicle must be 1-100 characters');
}

/** Users: who may sign in, and which project (department) and vehicle they work on. */
export class UserRepository {
  /** signedOut: told when a user's sign-ins are deleted, so this process's token cache drops them at once. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly signedOut: (userId: number) => void = () => {},
  ) {}

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** On the first start creates the configured initial user, or a 'demo' user whose random password is printed once. */
  async seedFirst(initial: NewUser | undefined, print: (line: string) => void): Promise<void> {
    if ((await this.count()) > 0) return;
    if (initial) {
      await this.add(initial);
      print(`Created the initial user '${initial.username}' (project ${initial.project}, vehicle ${initial.vehicle}) from INITIAL_* settings.`);
      return;
    }
    const password = randomPassword();
    await this.add({ username: 'demo', password, project: 'DEMO', vehicle: '636_green' });
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

  findByUsername(username: string): Promise<User | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findById(id: number): Promise<User | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<User[]> {
    return this.db.selectFrom('users').selectAll().orderBy('username').execute();
  }

  async add(u: NewUser): Promise<User> {
    checkNewUser(u);
    const nick_name = u.nickName?.trim() || u.username;
    return this.insert({ username: u.username, password: u.password, project: u.project.trim(), vehicle_no: u.vehicle.trim(), nick_name });
  }

  /** A worker account for one or more projects: its project column holds the first, its scope is worker_projects. */
  async addWorker(w: { username: string; password: string; projects: string[] }): Promise<User> {
    const projects = [...new Set(w.projects.map((p) => p.trim()).filter((p) => p !== ''))];
    if (projects.length === 0) throw new UserInputError('a worker needs at least one project (--projects P1,P2)');
    const project = projects[0] as string;
    checkNewUser({ username: w.username, password: w.password, project, vehicle: '-' });
    for (const p of projects) if (p.length > 100) throw new UserInputError('every project must be 1-100 characters');
    const worker = { role: WORKER_ROLE, worker_projects: JSON.stringify(projects) };
    return this.insert({ username: w.username, password: w.password, project, vehicle_no: '-', nick_name: w.username, ...worker });
  }

  private async insert({ password, ...row }: Omit<Insertable<UserTable>, 'password_hash' | 'created_at'> & { password: string }): Promise<User> {
    if (await this.findByUsername(row.username)) throw new UserInputError(`user '${row.username}' already exists`);
    await this.db
      .insertInto('users')
      .values({ ...row, password_hash: await hashPassword(password), created_at: new Date().toISOString() })
      .execute();
    return (await this.findByUsername(row.username)) as User;
  }

  private async existing(username: string): Promise<User> {
    const user = await this.findByUsername(username);
    if (!user) throw new UserInputError(`no user '${username}'`);
    return user;
  }

  async setPassword(username: string, password: string): Promise<void> {
    const user = await this.existing(username);
    if (password.length < 8 || password.length > 200) throw new UserInputError('password must be 8-200 characters');
    const hash = await hashPassword(password);
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: hash }).where('id', '=', user.id).execute();
      await trx.deleteFrom('auth_tokens').where('user_id', '=', user.id).execute();
    });
    this.signedOut(user.id);
  }

  async remove(username: string): Promise<void> {
    const user = await this.existing(username);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('auth_tokens').where('user_id', '=', user.id).execute();
      await trx.deleteFrom('users').where('id', '=', user.id).execute();
    });
    this.signedOut(user.id);
  }
}
