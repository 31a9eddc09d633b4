import fs from 'node:fs';
import { Readable } from 'node:stream';

// The worker's client of the server's fileAnalyze protocol (docs/worker.md).

export interface JobFile {
  name: string;
  size: number;
  mimeType: string;
}
export interface Job {
  /** The issue id: a number from this server (ids are integers), a string from older backends. */
  id: number | string;
  taskId: number;
  projectName: string;
  attachmentFolder: string;
  issueTitle: string;
  issueDescription: string;
  issueCategory: string;
  issueSeverity: string;
  workingCondition: string;
  weather: string;
  faultMileage: number | string | null;
  submittedAt: string;
  files: JobFile[];
  /** The fileAnalyze path of the kind the job came from: every later call of the job goes there. */
  queue: string;
}
export interface Lease {
  id: number | string;
  leaseSeconds: number;
  leaseUntil: string;
}
export interface FinishBody {
  report?: string;
  error?: string;
  stage?: 'desensitize' | 'analyze';
  remark?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Where the worker learns the analysed kinds' fileAnalyze paths (GET, worker accounts only). */
const QUEUES = '/api/analysis/queues';

export class WorkerApi {
  private token = '';
  constructor(
    private readonly serverUrl: string,
    private readonly username: string,
    private readonly password: string,
    /** The fileAnalyze paths to poll; when none are given they are asked of the server. */
    private queues: string[] = [],
  ) {}

  private url(p: string): string {
    return new URL(p, this.serverUrl).href;
  }

  private async call<T>(method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(this.url(p), {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as { code?: number; msg?: string; data?: T };
    if (!res.ok || (json.code !== undefined && json.code !== 200)) throw new ApiError(res.status, `${method} ${p}: ${res.status} ${json.msg ?? ''}`.trim());
    return json.data as T;
  }

  /** Signs in with the worker account (the token is used by every later call), and learns the queues once. */
  async login(): Promise<void> {
    const data = await this.call<{ access_token: string }>('POST', '/api/auth/login', { username: this.username, password: this.password });
    this.token = data.access_token;
    if (this.queues.length === 0) this.queues = (await this.call<{ fileAnalyze: string }[]>('GET', QUEUES)).map((q) => q.fileAnalyze);
  }

  /** The jobs waiting in every queue, each marked with its queue. */
  async todolist(): Promise<Job[]> {
    const lists = await Promise.all(
      this.queues.map(async (queue) => (await this.call<Omit<Job, 'queue'>[]>('GET', `${queue}/todolist`)).map((job) => ({ ...job, queue }))),
    );
    return lists.flat();
  }
  start(job: Job): Promise<Lease> {
    return this.call('POST', `${job.queue}/start`, { id: job.id, taskId: -3 });
  }
  submitToAI(job: Job, remark?: string): Promise<unknown> {
    return this.call('POST', `${job.queue}/submitToAI`, { id: job.id, taskId: -3, remark });
  }
  finish(job: Job, body: FinishBody): Promise<unknown> {
    return this.call('POST', `${job.queue}/finish`, { id: job.id, taskId: -3, ...body });
  }

  /** The original file's bytes as a stream. */
  async download(job: Job, name: string): Promise<ReadableStream<Uint8Array>> {
    const res = await fetch(this.url(`${job.queue}/file?id=${encodeURIComponent(String(job.id))}&name=${encodeURIComponent(name)}`), {
      headers: { authorization: `Bearer ${this.token}` },
    });
    if (!res.ok || !res.body) throw new ApiError(res.status, `GET file ${name}: ${res.status}`);
    return res.body;
  }

  /** Streams a desensitized file to the server (videos can be gigabytes: never held in memory). */
  async upload(job: Job, name: string, file: string): Promise<void> {
    const { size } = await fs.promises.stat(file);
    const res = await fetch(this.url(`${job.queue}/desensitized?id=${encodeURIComponent(String(job.id))}&name=${encodeURIComponent(name)}`), {
      method: 'PUT',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/octet-stream', 'content-length': String(size) },
      body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream<Uint8Array>,
      duplex: 'half',
    } as RequestInit);
    if (!res.ok) throw new ApiError(res.status, `PUT desensitized ${name}: ${res.status}`);
  }
}
