import { MAX_ID, recordId, recordIdInBody } from '../api-docs/parameters.js';
import { CONTRACT_TIME_SCHEMA } from '../http/contract-time.js';
import { envelope, errorResponses, refused } from '../http/envelope.js';
import { message } from '../http/route-validation.js';
import { ANALYSIS_CONTEXT_KEYS } from '../../shared/meta-schema.js';

// The schemas of the analysis routes: their OpenAPI documentation, their parameters' and bodies'
// validation (http/route-validation.ts) and their answers' serialisation.

/** docs/PRODUCT.md section 8: the issue file analysis task id (the protocol's one task, whatever the kind). */
export const ANALYSIS_TASK_ID = -3;
/** The longest report a worker may send, and the longest remark or error. */
const MAX_REPORT = 200_000;
const MAX_TEXT = 4000;

const TESTER_TAGS = ['Issue video analysis'];
export const WORKER_TAGS = ['Issue video analysis: workers'];

const nullableText = { type: ['string', 'null'] };
const object = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ type: 'object', properties, ...more });

const statusData = object({
  id: { type: 'integer' },
  issueStatus: nullableText,
  videoAnalysisStatus: nullableText,
  videoDesensitizationStatus: nullableText,
  state: { type: ['string', 'null'], description: 'The analysis job: queued, claimed, done or failed; null before the first submit' },
  error: { ...nullableText, description: 'What went wrong in the last run, when it failed' },
  remark: nullableText,
  updatedAt: {
    ...CONTRACT_TIME_SCHEMA,
    type: ['string', 'null'],
    description: "When the job last changed, 'yyyy-MM-dd HH:mm:ss' in the server's local time; null before the first submit",
  },
  history: {
    type: 'array',
    description: 'Finished runs, newest first: the report or the error of each.',
    items: object({ finishedAt: CONTRACT_TIME_SCHEMA, report: nullableText, error: nullableText }),
  },
});

const jobItem = object({
  id: { type: 'integer' },
  taskId: { type: 'integer' },
  projectName: { type: 'string' },
  attachmentFolder: { type: 'string', description: 'Project-relative folder of the issue' },
  ...Object.fromEntries(ANALYSIS_CONTEXT_KEYS.map((k) => [k, k === 'faultMileage' ? { type: ['number', 'string', 'null'] } : nullableText])),
  submittedAt: CONTRACT_TIME_SCHEMA,
  files: {
    type: 'array',
    description: 'The video and image files directly in the issue folder (not desensitized/)',
    items: object({ name: { type: 'string' }, size: { type: 'integer' }, mimeType: { type: 'string' } }),
  },
});

/** A file's bytes, whole (200) or the Range asked for (206). */
const binary = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
const fileBytes = {
  200: { description: 'The whole file', content: binary },
  206: { description: 'The part of the file the Range header asked for', content: binary },
};

const text = (max: number, description: string) => ({ type: ['string', 'null'], maxLength: max, description });

/** The ids in a kind's analysis routes' bodies and queries; `noun` is what its records are called. */
function idSchemas(noun: string) {
  const idWords = message(
    `must be ${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun.toLowerCase()} id, a whole number from 1 to ${MAX_ID}`,
    `必须是记录 id，即 1 到 ${MAX_ID} 之间的整数`,
  );
  const id = recordIdInBody(`The ${noun.toLowerCase()} id`, idWords);
  const taskId = {
    type: ['integer', 'string', 'null'],
    enum: [ANALYSIS_TASK_ID, String(ANALYSIS_TASK_ID), null],
    description: `Always ${ANALYSIS_TASK_ID} (issue file analysis)`,
    ...message(`must be ${ANALYSIS_TASK_ID} (issue file analysis)`, `必须是 ${ANALYSIS_TASK_ID}（问题文件分析）`),
  };
  const idTaskWords = message('must be a JSON object such as {"id": 12, "taskId": -3}', '必须是 JSON 对象，如 {"id": 12, "taskId": -3}');
  /** A worker's body: the id, the task id, and `more`. */
  const idTask = (more: Record<string, unknown> = {}) => object({ id, taskId, ...more }, { required: ['id'], ...idTaskWords });
  const name = {
    type: 'string',
    description: `A file name in the ${noun.toLowerCase()}'s folder, without folders`,
    ...message(`must be the name of a file in the ${noun.toLowerCase()}'s folder, such as clip.mp4`, '必须是记录文件夹中的文件名，如 clip.mp4'),
  };
  const queryId = recordId(`The ${noun.toLowerCase()} id`, idWords);
  const fileQuery = object({ id: queryId, name }, { required: ['id', 'name'] });
  return { id, idTask, queryId, fileQuery };
}

/** One route's schema: its tags and summary, what it takes, and its answer (an envelope of `data`, or `responses`). */
function route(tags: string[], summary: string, takes: Record<string, unknown>, data: unknown, responses?: Record<string, unknown>) {
  return { tags, summary, ...takes, response: { ...(responses ?? { 200: envelope(data) }), ...errorResponses, 409: refused() } };
}

const MODE = {
  type: ['string', 'null'],
  enum: ['', 'AI_RETRY', null],
  description: "'' (or none) for the first submit, 'AI_RETRY' to resubmit",
  ...message("must be '' (first submit) or 'AI_RETRY' (resubmit)", "必须是 ''（首次提交）或 'AI_RETRY'（重新提交）"),
};
const SUBMIT_WORDS = message('must be a JSON object such as {"id": 12, "mode": ""}', '必须是 JSON 对象，如 {"id": 12, "mode": ""}');
const LEASE = object({ id: { type: 'integer' }, leaseSeconds: { type: 'integer' }, leaseUntil: { type: 'string' } });
const FINISH = {
  report: text(MAX_REPORT, 'The analysis in markdown'),
  error: text(MAX_TEXT, 'Why the run failed'),
  stage: { type: ['string', 'null'], enum: ['desensitize', 'analyze', null], description: 'Which stage failed, with error' },
  remark: text(MAX_TEXT, 'A note on the run'),
};

/** The schemas of a kind's analysis routes; `noun` is what its records are called (x-kind.analysis.noun). */
export function analysisSchemas(noun: string) {
  const { id, idTask, queryId, fileQuery } = idSchemas(noun);
  const W = WORKER_TAGS;
  return {
    submit: route(
      TESTER_TAGS,
      'Submit an issue to AI analysis (mode "" first submit, "AI_RETRY" resubmit); idempotent while a job waits or runs',
      { body: object({ id, mode: MODE }, { required: ['id'], ...SUBMIT_WORDS }) },
      statusData,
    ),
    status: route(
      TESTER_TAGS,
      "An issue's analysis: its statuses, the job's state and error, and earlier runs",
      { querystring: object({ id: queryId }, { required: ['id'] }) },
      statusData,
    ),
    todolist: route(W, 'Issues waiting for a worker in its projects, oldest submission first (worker accounts only)', {}, { type: 'array', items: jobItem }),
    start: route(W, 'Claim an issue with a lease, or renew your own claim; exactly one worker wins', { body: idTask() }, LEASE),
    file: route(W, 'The bytes of an original file of a claimed issue (Range supported; holder only)', { querystring: fileQuery }, undefined, fileBytes),
    putDesensitized: route(
      W,
      'Store the blurred copy of a file as desensitized/<name> in the issue folder (raw bytes; holder only)',
      { querystring: fileQuery },
      object({ name: { type: 'string' }, size: { type: 'integer' } }),
    ),
    getDesensitized: route(W, 'The bytes of a desensitized copy of a claimed issue (holder only)', { querystring: fileQuery }, undefined, fileBytes),
    submitToAi: route(
      W,
      'Desensitization done, analysis begins (holder only)',
      { body: idTask({ remark: text(MAX_TEXT, 'A note on the desensitization') }) },
      { type: 'null' },
    ),
    finish: route(
      W,
      'End the claim with the report, the error, or neither when no model is configured (holder only)',
      { body: idTask(FINISH) },
      object({ id: { type: 'integer' }, state: { type: 'string' } }),
    ),
  };
}
