import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ALICE, ROOT } from './server.js';

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** The environment of a server process on dataDir with Alice as its first user and no client build. */
export function processEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    INITIAL_USERNAME: ALICE.username,
    INITIAL_PASSWORD: ALICE.password,
    INITIAL_PROJECT: ALICE.project,
    INITIAL_VEHICLE: ALICE.vehicle,
    CLIENT_DIR: 'no-client-build',
    ...extra,
  };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
}

/** One server process, as `npm start` runs it (from the sources, through tsx), on its own port. */
export async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('is serving')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited (${code}):\n${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * Ends a server process and waits until it has exited: by default at once, as a crash or `kill -9`
 * would (no handler runs, nothing is flushed); with SIGTERM as `docker stop` would.
 */
export async function stopProcess(p: ServerProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => p.child.once('exit', () => resolve()));
  p.child.kill(signal);
  await exited;
}
