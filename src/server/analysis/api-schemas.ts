import { errorResponses } from '../api-docs/kind-schemas.js';
import { CONTRACT_TIME_SCHEMA } from '../http/contract-time.js';

/** OpenAPI descriptions of the analysis routes (also what their answers are serialised by). */

export const TESTER_TAGS = ['Issue video analysis'];
export const WORKER_TAGS = ['Issue video analysis: workers'];

const envelope = (data: unknown) => ({ type: 'object', properties: { code: { type: 'integer' }, msg: { type: 'string' }, data } });
const nullableText = { type: ['string', 'null'] };

export const refusals = { ...errorResponses, 409: { $ref: 'ErrorEnvelope#' } };

export const historySchema = {
  type: 'array',
  description: 'Finished runs, newest first: the report or the error of each.',
  items: { type: 'object', properties: { finishedAt: CONTRACT_TIME_SCHEMA, report: nullableText, error: nullableText } },
};

export const statusData = {
  type: 'object',
  properties: {
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
    history: historySchema,
  },
};

export const submitSchema = {
  tags: TESTER_TAGS,
  summary: 'Submit an issue to AI analysis (mode "" first submit, "AI_RETRY" resubmit); idempotent while a job waits or runs',
  body: {
    type: 'object',
    properties: { id: { type: ['string', 'integer'], description: 'The issue id' }, mode: { type: 'string', enum: ['', 'AI_RETRY'] } },
    required: ['id'],
  },
  response: { 200: envelope(statusData), ...refusals },
};

export const statusSchema = {
  tags: TESTER_TAGS,
  summary: "An issue's analysis: its statuses, the job's state and error, and earlier runs",
  querystring: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  response: { 200: envelope(statusData), ...refusals },
};

const jobItem = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    taskId: { type: 'integer' },
    projectName: { type: 'string' },
    attachmentFolder: { type: 'string', description: 'Project-relative folder of the issue' },
    issueTitle: nullableText,
    issueDescription: nullableText,
    issueCategory: nullableText,
    issueSeverity: nullableText,
    workingCondition: nullableText,
    weather: nullableText,
    faultMileage: { type: ['number', 'string', 'null'] },
    submittedAt: CONTRACT_TIME_SCHEMA,
    files: {
      type: 'array',
      description: 'The video and image files directly in the issue folder (not desensitized/)',
      items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' }, mimeType: { type: 'string' } } },
    },
  },
};

const idTask = {
  type: 'object',
  properties: { id: { type: ['string', 'integer'] }, taskId: { type: ['string', 'integer'], description: 'Always -3 (issue file analysis)' } },
  required: ['id'],
};

const fileQuery = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string', description: 'A file name in the issue folder' } },
  required: ['id', 'name'],
};

/** A file's bytes, whole (200) or the Range asked for (206). */
const fileBytes = {
  200: { description: 'The whole file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
  206: {
    description: 'The part of the file the Range header asked for',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  },
};

export const workerSchemas = {
  todolist: {
    tags: WORKER_TAGS,
    summary: 'Issues waiting for a worker in its projects, oldest submission first (worker accounts only)',
    response: { 200: envelope({ type: 'array', items: jobItem }), ...refusals },
  },
  start: {
    tags: WORKER_TAGS,
    summary: 'Claim an issue with a lease, or renew your own claim; exactly one worker wins',
    body: idTask,
    response: {
      200: envelope({ type: 'object', properties: { id: { type: 'integer' }, leaseSeconds: { type: 'integer' }, leaseUntil: { type: 'string' } } }),
      ...refusals,
    },
  },
  file: {
    tags: WORKER_TAGS,
    summary: 'The bytes of an original file of a claimed issue (Range supported; holder only)',
    querystring: fileQuery,
    response: { ...fileBytes, ...refusals },
  },
  putDesensitized: {
    tags: WORKER_TAGS,
    summary: 'Store the blurred copy of a file as desensitized/<name> in the issue folder (raw bytes; holder only)',
    querystring: fileQuery,
    response: { 200: envelope({ type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } } }), ...refusals },
  },
  getDesensitized: {
    tags: WORKER_TAGS,
    summary: 'The bytes of a desensitized copy of a claimed issue (holder only)',
    querystring: fileQuery,
    response: { ...fileBytes, ...refusals },
  },
  submitToAi: {
    tags: WORKER_TAGS,
    summary: 'Desensitization done, analysis begins (holder only)',
    body: { ...idTask, properties: { ...idTask.properties, remark: { type: 'string' } } },
    response: { 200: envelope({ type: 'null' }), ...refusals },
  },
  finish: {
    tags: WORKER_TAGS,
    summary: 'End the claim with the report, the error, or neither when no model is configured (holder only)',
    body: {
      ...idTask,
      properties: {
        ...idTask.properties,
        report: { type: 'string', description: 'The analysis in markdown' },
        error: { type: 'string', description: 'Why the run failed' },
        stage: { type: 'string', enum: ['desensitize', 'analyze'] },
        remark: { type: 'string' },
      },
    },
    response: { 200: envelope({ type: 'object', properties: { id: { type: 'integer' }, state: { type: 'string' } } }), ...refusals },
  },
};
