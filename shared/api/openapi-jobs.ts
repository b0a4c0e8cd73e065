/** The delegated-jobs operations (docs/jobs.md) as data for openapi.ts, with their component schemas. */

import { ChangeGrantSchema, CreateGrantSchema, ListJobsSchema, SubmitJobSchema } from '../jobs/schemas.ts';
import { jobViewSchemas } from '../jobs/view-schemas.ts';
import * as zod from '../zod.ts';
import type { Operation } from './openapi-operations.ts';
import * as s from './schemas.ts';

export const JOB_INPUT_COMPONENTS: Record<string, zod.ZodMiniType> = {
  SubmitJobRequest: SubmitJobSchema,
  CreateGrantRequest: CreateGrantSchema,
  ChangeGrantRequest: ChangeGrantSchema,
};

/** The jobs API's answers, built on the OpenAPI document's first request (view-schemas.ts). */
export function jobOutputComponents(): Record<string, zod.ZodMiniType> {
  const {
    CancelJobResultSchema,
    GrantViewSchema,
    JobViewSchema,
    ListJobsResultSchema,
    SubmitJobResultSchema,
  } = jobViewSchemas();
  return {
    Job: JobViewSchema,
    JobResponse: zod.object({ job: JobViewSchema }),
    SubmitJobResponse: SubmitJobResultSchema,
    CancelJobResponse: CancelJobResultSchema,
    JobPage: ListJobsResultSchema,
    Grant: GrantViewSchema,
    GrantResponse: zod.object({ grant: GrantViewSchema }),
    GrantList: zod.object({ grants: zod.array(GrantViewSchema) }),
    GrantHistory: zod.object({ versions: zod.array(GrantViewSchema) }),
  };
}

const CLIENT_ONLY = {
  '403': 'Not a client identity with a live grant and the scope (not_granted, scope_missing).',
};
const JOB_NOT_FOUND = {
  '404': 'Not one of the caller’s jobs (foreign, missing and malformed ids answer alike).',
};
const GRANT_NOT_FOUND = { '404': 'Not one of the owner’s grants.' };
const BODY = {
  '400': 'Invalid body, naming each field.',
  '413': 'Body larger than 1 MiB.',
  '415': 'Unsupported Content-Type.',
};

export const JOB_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/v1/jobs',
    operationId: 'submitJob',
    tag: 'jobs',
    summary: 'Submit a job under the calling client’s grant (or a dry run).',
    description:
      'The answer is the job’s id and state, never its result. An identical submission while an earlier one is queued or running answers that job with `coalesced: true`.',
    headers: [
      {
        name: 'Idempotency-Key',
        schema: s.IdempotencyKeySchema,
        description:
          'Repeating a submission with the same key and request answers the same job; another request is a 409.',
      },
    ],
    body: { schema: 'SubmitJobRequest', mediaTypes: ['application/json'], required: true },
    responses: {
      '202': {
        description: 'Accepted: a new job, queued or running (with or without an Idempotency-Key).',
        schema: 'SubmitJobResponse',
      },
      '200': {
        description: 'A dry run’s constraints, or the existing job (coalesced or repeated key).',
        schema: 'SubmitJobResponse',
      },
    },
    errors: {
      ...BODY,
      '400':
        'Invalid body, naming each field; also a prompt whose job would not fit with the grant’s definition (validation_failed on prompt), or an unpriced model.',
      '403':
        'not_granted, scope_missing, or outside_grant (a tool, the model or maxTurns), naming the field.',
      '409': 'idempotency_conflict.',
      '429': 'queue_full: the concurrency quota and the queue are full.',
    },
  },
  {
    method: 'get',
    path: '/v1/jobs',
    operationId: 'listJobs',
    tag: 'jobs',
    query: ListJobsSchema,
    summary: 'The calling client’s jobs, newest first.',
    responses: { '200': { description: 'A page.', schema: 'JobPage' } },
    errors: {
      '400': 'Invalid query, or a nextToken this listing did not issue (naming nextToken).',
      ...CLIENT_ONLY,
    },
  },
  {
    method: 'get',
    path: '/v1/jobs/{id}',
    operationId: 'getJob',
    tag: 'jobs',
    pathParams: ['id'],
    summary: 'Poll a job: status, queue position, result, stop reason, usage, cost, retry disposition.',
    responses: { '200': { description: 'Found.', schema: 'JobResponse' } },
    errors: { ...CLIENT_ONLY, ...JOB_NOT_FOUND },
  },
  ...(['delete', 'post'] as const).map(
    (method): Operation => ({
      method,
      path: method === 'delete' ? '/v1/jobs/{id}' : '/v1/jobs/{id}/cancel',
      operationId: method === 'delete' ? 'cancelJob' : 'cancelJobPost',
      tag: 'jobs',
      pathParams: ['id'],
      summary: 'Cancel a job; says what was stopped (queued, run, nothing).',
      responses: { '200': { description: 'The job after cancelling.', schema: 'CancelJobResponse' } },
      errors: {
        ...CLIENT_ONLY,
        ...JOB_NOT_FOUND,
        '409':
          "job_busy: the job changed state under each of the cancel's looks (rare); a cancel already recorded on it stands: retry after Retry-After seconds.",
      },
    }),
  ),
  {
    method: 'post',
    path: '/v1/grants',
    operationId: 'createGrant',
    tag: 'grants',
    summary: 'Grant a client delegated jobs (again, after a revocation).',
    body: { schema: 'CreateGrantRequest', mediaTypes: ['application/json'], required: true },
    responses: {
      '201': { description: 'Granted (version 1, or the next after a revocation).', schema: 'GrantResponse' },
    },
    errors: {
      ...BODY,
      '409':
        "This owner already granted the client (narrow, widen or revoke it); another owner's grant of the same id is never seen.",
    },
  },
  {
    method: 'get',
    path: '/v1/grants',
    operationId: 'listGrants',
    tag: 'grants',
    summary: 'The owner’s grants.',
    responses: { '200': { description: 'The grants.', schema: 'GrantList' } },
    errors: {},
  },
  {
    method: 'get',
    path: '/v1/grants/{clientId}',
    operationId: 'getGrant',
    tag: 'grants',
    pathParams: ['clientId'],
    summary: 'One grant, as it is now.',
    responses: { '200': { description: 'Found.', schema: 'GrantResponse' } },
    errors: GRANT_NOT_FOUND,
  },
  {
    method: 'get',
    path: '/v1/grants/{clientId}/history',
    operationId: 'getGrantHistory',
    tag: 'grants',
    pathParams: ['clientId'],
    summary: 'Every version of a grant, oldest first, with who changed it.',
    responses: { '200': { description: 'Found.', schema: 'GrantHistory' } },
    errors: GRANT_NOT_FOUND,
  },
  {
    method: 'get',
    path: '/v1/grants/{clientId}/jobs',
    operationId: 'listGrantJobs',
    tag: 'grants',
    pathParams: ['clientId'],
    query: ListJobsSchema,
    summary: 'The jobs the client ran under this grant, newest first: the views its client polls.',
    responses: { '200': { description: 'A page.', schema: 'JobPage' } },
    errors: { ...GRANT_NOT_FOUND, '400': 'Invalid query or nextToken.' },
  },
  ...(['narrow', 'widen'] as const).map(
    (direction): Operation => ({
      method: 'post',
      path: `/v1/grants/{clientId}/${direction}`,
      operationId: `${direction}Grant`,
      tag: 'grants',
      pathParams: ['clientId'],
      summary:
        direction === 'narrow'
          ? 'Replace the grant by a narrower one: running jobs are checked against it at every tool call.'
          : 'Replace the grant by a wider one: new jobs may use more.',
      body: { schema: 'ChangeGrantRequest', mediaTypes: ['application/json'], required: true },
      responses: { '200': { description: 'The new version.', schema: 'GrantResponse' } },
      errors: { ...BODY, ...GRANT_NOT_FOUND, '409': 'expectedVersion is stale, or the grant is revoked.' },
    }),
  ),
  {
    method: 'post',
    path: '/v1/grants/{clientId}/revoke',
    operationId: 'revokeGrant',
    tag: 'grants',
    pathParams: ['clientId'],
    summary: 'Revoke a grant: queued jobs never start, running ones end at their next turn.',
    responses: { '200': { description: 'The revoked version.', schema: 'GrantResponse' } },
    errors: GRANT_NOT_FOUND,
  },
];
