/**
 * The jobs MCP server driven by the official MCP client over real HTTP on loopback, against the local stack
 * and the scripted model: tools and their schemas, submit, poll to completion, cancel, list, and refusals.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRefSchema, ListJobsSchema, SubmitJobSchema } from '../../shared/jobs/index.ts';
import * as z from '../../shared/zod.ts';
import {
  baseGrant,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  type JobsStack,
  startJobsStack,
  textFixture,
} from '../jobs/support.ts';
import { bearer, callTool, connectMcp, textOf } from './support.ts';

describe('MCP: the job tools at /mcp', () => {
  let e2e: JobsStack;
  let bot: Client;
  const url = () => `${e2e.stack.url}/mcp`;
  const as = async (clientId: string) => connectMcp(url(), bearer(clientKey(clientId)));
  const grant = async (clientId: string, spec: object) => {
    const created = await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', { clientId, grant: spec });
    expect(created.status).toBe(201);
  };
  /** Polls with get_agent_job until `until` holds. */
  const pollTool = async (client: Client, jobId: string, until: (job: { status: string }) => boolean) => {
    for (let i = 0; i < 600; i++) {
      const polled = await callTool(client, 'get_agent_job', { jobId });
      expect(polled.isError).toBeFalsy();
      if (until(polled.structuredContent.job)) return polled;
      await sleep(50);
    }
    throw new Error(`job ${jobId} did not reach the expected state`);
  };

  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'Done: 42.'), gatedFixture()], {
      clientIds: ['mcp-bot', 'mcp-gated', 'mcp-reader', 'mcp-other'],
    });
    await grant('mcp-bot', baseGrant());
    await grant('mcp-gated', gatedGrant());
    await grant('mcp-reader', baseGrant({ scopes: ['jobs:read'] }));
    await grant('mcp-other', baseGrant());
    bot = await as('mcp-bot');
  });
  afterAll(async () => {
    await bot?.close();
    await e2e.close();
  });

  it('lists the four tools with the input schemas of the REST routes', async () => {
    const { tools } = await bot.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual([
      'cancel_agent_job',
      'get_agent_job',
      'list_agent_jobs',
      'submit_agent_job',
    ]);
    const jsonSchema = (schema: z.ZodMiniType) => z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
    expect(byName.submit_agent_job?.inputSchema).toEqual(jsonSchema(SubmitJobSchema));
    expect(byName.get_agent_job?.inputSchema).toEqual(jsonSchema(JobRefSchema));
    expect(byName.cancel_agent_job?.inputSchema).toEqual(jsonSchema(JobRefSchema));
    expect(byName.list_agent_jobs?.inputSchema).toEqual(jsonSchema(ListJobsSchema));
    expect(byName.submit_agent_job?.inputSchema.required).toEqual(['prompt']);
    expect(byName.get_agent_job?.annotations?.readOnlyHint).toBe(true);
  });

  it('submits a job, polls it to done, and answers what the REST routes answer', async () => {
    const submitted = await callTool(bot, 'submit_agent_job', { prompt: 'Answer over MCP.' });
    expect(submitted.isError).toBeFalsy();
    expect(submitted.structuredContent).toMatchObject({
      coalesced: false,
      job: { jobId: expect.any(String) },
    });
    expect(submitted.structuredContent.job.result).toBeUndefined();
    expect(JSON.parse(textOf(submitted))).toEqual(submitted.structuredContent);
    const jobId: string = submitted.structuredContent.job.jobId;

    const done = await pollTool(bot, jobId, (job) => job.status === 'done');
    expect(done.structuredContent.job).toMatchObject({ status: 'done', result: { text: 'Done: 42.' } });
    const rest = await call(e2e.stack, clientKey('mcp-bot'), 'GET', `/v1/jobs/${jobId}`);
    expect(rest.status).toBe(200);
    expect(done.structuredContent).toEqual(rest.body);

    const listed = await callTool(bot, 'list_agent_jobs', { status: 'done' });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent.jobs.map((job: { jobId: string }) => job.jobId)).toContain(jobId);
    const restList = await call(e2e.stack, clientKey('mcp-bot'), 'GET', '/v1/jobs?status=done');
    expect(listed.structuredContent).toEqual(restList.body);
  });

  it('answers a dry run with the resolved constraints and queues nothing', async () => {
    const dry = await callTool(bot, 'submit_agent_job', { prompt: 'Just checking.', dryRun: true });
    expect(dry.structuredContent).toMatchObject({
      dryRun: true,
      constraints: { model: 'claude-sonnet-5-5', maxTurns: 5 },
    });
  });

  it('cancels a job that waits for approval and says its run was stopped', async () => {
    const gated = await as('mcp-gated');
    try {
      const submitted = await callTool(gated, 'submit_agent_job', { prompt: 'Append a line.' });
      const jobId: string = submitted.structuredContent.job.jobId;
      await pollTool(gated, jobId, (job) => job.status === 'awaiting_approval');
      const cancelled = await callTool(gated, 'cancel_agent_job', { jobId });
      expect(cancelled.isError).toBeFalsy();
      expect(cancelled.structuredContent).toMatchObject({ stopped: 'run', job: { status: 'cancelled' } });
      const again = await callTool(gated, 'cancel_agent_job', { jobId });
      expect(again.structuredContent).toMatchObject({ stopped: 'nothing', job: { status: 'cancelled' } });
    } finally {
      await gated.close();
    }
  });

  it("answers another client's job id exactly like a missing one: not found", async () => {
    const submitted = await callTool(bot, 'submit_agent_job', { prompt: 'Mine only.' });
    const jobId: string = submitted.structuredContent.job.jobId;
    const other = await as('mcp-other');
    try {
      const foreign = await callTool(other, 'get_agent_job', { jobId });
      const missing = await callTool(other, 'get_agent_job', { jobId: `${jobId}9` });
      const malformed = await callTool(other, 'get_agent_job', { jobId: 'job_nope' });
      expect(foreign.isError).toBe(true);
      expect(foreign.structuredContent).toEqual({ error: { code: 'not_found', message: 'job not found' } });
      expect(missing).toEqual(foreign);
      expect(malformed).toEqual(foreign);
      const cancelForeign = await callTool(other, 'cancel_agent_job', { jobId });
      expect(cancelForeign).toEqual(foreign);
    } finally {
      await other.close();
    }
  });

  it('refuses a tool whose scope the grant lacks, naming the scope', async () => {
    const reader = await as('mcp-reader');
    try {
      const refused = await callTool(reader, 'submit_agent_job', { prompt: 'Not allowed.' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error).toMatchObject({
        code: 'scope_missing',
        fields: [{ path: 'scope' }],
      });
      expect(textOf(refused)).toContain("'jobs:submit'");
      // The scope it has still works.
      const listed = await callTool(reader, 'list_agent_jobs', {});
      expect(listed.isError).toBeFalsy();
    } finally {
      await reader.close();
    }
  });

  it('names the field of an invalid or out-of-grant argument', async () => {
    const blank = await callTool(bot, 'submit_agent_job', { prompt: '   ' });
    expect(blank.isError).toBe(true);
    expect(textOf(blank)).toMatch(/must not be empty at prompt/);
    const unknown = await callTool(bot, 'submit_agent_job', { prompt: 'x', owner: 'someone-else' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/owner/);
    const outside = await callTool(bot, 'submit_agent_job', { prompt: 'x', tools: ['fetch_url'] });
    expect(outside.isError).toBe(true);
    expect(outside.structuredContent.error).toMatchObject({
      code: 'outside_grant',
      fields: [{ path: 'tools[0]' }],
    });
  });

  it('refuses a request without credentials, with an unknown key, or with an owner credential', async () => {
    await expect(connectMcp(url())).rejects.toMatchObject({ code: 401, message: /unauthenticated/ });
    await expect(connectMcp(url(), bearer('wfc_not_a_key_of_anyone_at_all'))).rejects.toMatchObject({
      code: 401,
    });
    // An owner's own credential is not a client, as on /v1/jobs.
    await expect(connectMcp(url(), bearer(e2e.stack.apiKey))).rejects.toMatchObject({
      code: 403,
      message: /delegated clients/,
    });
    const raw = await fetch(url(), {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers GET and DELETE with 405 (stateless: no SSE stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url(), { method, headers: bearer(clientKey('mcp-bot')) });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
