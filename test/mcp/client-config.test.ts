/**
 * The client configurations in docs/jobs.md ("MCP") work as written: the `mcpServers` JSON and the
 * `claude mcp add` line, with their URL pointed at a local stack and the token taken from the environment.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { baseGrant, call, clientKey, type JobsStack, startJobsStack, textFixture } from '../jobs/support.ts';
import { callTool, connectMcp } from './support.ts';

const mcpSection = () => {
  const doc = readFileSync(new URL('../../docs/jobs.md', import.meta.url), 'utf8');
  return doc.slice(doc.indexOf('## MCP'));
};

const ServersConfigSchema = z.object({
  mcpServers: z.record(
    z.string(),
    z.object({ type: z.literal('http'), url: z.url(), headers: z.record(z.string(), z.string()) }),
  ),
});

/** `${NAME}` expanded from `env`, as Claude Code expands its `.mcp.json`. */
const expand = (text: string, env: Record<string, string>) =>
  text.replaceAll(/\$\{([A-Z_]+)\}/g, (_, name: string) => env[name] ?? '');

/** The documented URL's origin swapped for the local stack's, path kept. */
const local = (documented: string, stackUrl: string) => `${stackUrl}${new URL(documented).pathname}`;

describe('docs/jobs.md MCP client configuration', () => {
  let e2e: JobsStack;
  const env = () => ({ WF_JOBS_TOKEN: clientKey('doc-bot') });

  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'Configured.')], { clientIds: ['doc-bot'] });
    const created = await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', {
      clientId: 'doc-bot',
      grant: baseGrant(),
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => e2e.close());

  it('connects with the documented mcpServers JSON and submits a job', async () => {
    const block = /```json\n([\s\S]*?)```/.exec(mcpSection())?.[1];
    expect(block).toBeDefined();
    const config = ServersConfigSchema.parse(JSON.parse(expand(block ?? '', env())));
    const [server] = Object.values(config.mcpServers);
    expect(server?.url).toMatch(/\/mcp$/);
    const client = await connectMcp(local(server?.url ?? '', e2e.stack.url), server?.headers ?? {});
    try {
      const submitted = await callTool(client, 'submit_agent_job', { prompt: 'From the documented config.' });
      expect(submitted.isError).toBeFalsy();
      expect(submitted.structuredContent.job.jobId).toMatch(/^job_/);
    } finally {
      await client.close();
    }
  });

  it('connects with the documented `claude mcp add` line', async () => {
    const line = /^claude mcp add .*$/m.exec(mcpSection())?.[0] ?? '';
    const parsed = /--transport http (\S+) (\S+) --header "([^"]+)"/.exec(line);
    expect(parsed).not.toBeNull();
    const [, name, url = '', header = ''] = parsed ?? [];
    expect(name).toBe('wf-jobs');
    const [headerName = '', ...rest] = expand(header, env()).split(': ');
    const client = await connectMcp(local(url, e2e.stack.url), { [headerName]: rest.join(': ') });
    try {
      const listed = await callTool(client, 'list_agent_jobs', {});
      expect(listed.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
