import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadDotEnv } from '../src/server/config.js';
import { openDb } from '../src/server/db/database.js';
import { migrate } from '../src/server/db/migrations.js';
import { randomPassword } from '../src/server/users/password-hashing.js';
import { loadRegistry } from '../src/server/schemas.js';
import { isWorker, UserInputError, UserRepository, workerProjects } from '../src/server/users/user-repository.js';

const USAGE = `Manage who can sign in (uses the same DATA_DIR / DATABASE_URL as the server).

  npm run users -- add <username> --project <project> --vehicle <vehicle no> [--nick <name>] [--password-stdin]
  npm run users -- add-worker <username> --projects <P1,P2> [--password-stdin]
  npm run users -- passwd <username> [--password-stdin]
  npm run users -- list
  npm run users -- remove <username>

Without --password-stdin a random password is made and printed once.
The project is the department name that scopes everything the user sees.
A worker account (the video analysis worker, npm run worker) may call only the fileAnalyze
routes, for the issues of the projects it is given.`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      projects: { type: 'string' },
      vehicle: { type: 'string' },
      nick: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, username] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const root = path.resolve(import.meta.dirname, '..');
  loadDotEnv(root);
  const config = loadConfig(process.env, root);
  const db = await openDb(config);
  try {
    await migrate(db, loadRegistry(config.schemasDir).values());
    const users = new UserRepository(db.kysely);
    const password = async (): Promise<{ value: string; generated: boolean }> =>
      values['password-stdin'] ? { value: await readStdin(), generated: false } : { value: randomPassword(), generated: true };
    const needName = (): string => {
      if (username === undefined) throw new UserInputError(`'${command}' needs a username`);
      return username;
    };
    switch (command) {
      case 'add': {
        const name = needName();
        if (values.project === undefined || values.vehicle === undefined) throw new UserInputError('add needs --project and --vehicle');
        const pw = await password();
        await users.add({
          username: name,
          password: pw.value,
          project: values.project,
          vehicle: values.vehicle,
          ...(values.nick ? { nickName: values.nick } : {}),
        });
        console.log(`Added '${name}' (project ${values.project}, vehicle ${values.vehicle}).${pw.generated ? ` Password: ${pw.value}` : ''}`);
        return 0;
      }
      case 'add-worker': {
        const name = needName();
        if (values.projects === undefined) throw new UserInputError('add-worker needs --projects P1,P2');
        const pw = await password();
        const worker = await users.addWorker({ username: name, password: pw.value, projects: values.projects.split(',') });
        console.log(`Added worker '${name}' (projects ${workerProjects(worker).join(', ')}).${pw.generated ? ` Password: ${pw.value}` : ''}`);
        return 0;
      }
      case 'passwd': {
        const name = needName();
        const pw = await password();
        await users.setPassword(name, pw.value);
        console.log(`Changed the password of '${name}' and signed it out everywhere.${pw.generated ? ` New password: ${pw.value}` : ''}`);
        return 0;
      }
      case 'list': {
        const all = await users.list();
        if (all.length === 0) console.log('No users.');
        for (const u of all) {
          if (isWorker(u)) console.log(`${u.username}\tprojects ${workerProjects(u).join(',')}\tsince ${u.created_at.slice(0, 10)}\trole worker`);
          else console.log(`${u.username}\tproject ${u.project}\tvehicle ${u.vehicle_no}\tsince ${u.created_at.slice(0, 10)}\trole tester`);
        }
        return 0;
      }
      case 'remove': {
        const name = needName();
        await users.remove(name);
        console.log(`Removed '${name}'. Records they made stay in their project.`);
        return 0;
      }
      default:
        console.error(`Unknown command '${command}'.\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await db.kysely.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UserInputError || err instanceof ConfigError) console.error(`Error: ${err.message}`);
    else console.error(err);
    process.exit(1);
  },
);
