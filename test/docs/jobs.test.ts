/**
 * docs/jobs.md checked against the code: the curl submission is a valid job request, the grant table names the
 * grant's fields and defaults, the refusal table's statuses are the API's, the job statuses, the retry numbers
 * and the MCP tools are the code's, and the CLI lines parse and go to send their request. (The two MCP client
 * configurations are exercised by test/mcp/client-config.test.ts; the grant file by test/jobs/cli.test.ts.)
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mapDomainError } from '../../shared/api/errors.ts';
import { JobRejectedError } from '../../shared/jobs/errors.ts';
import { MAX_PREVIOUS_RUN_IDS, QUEUE_SCAN_BOUND } from '../../shared/jobs/lifecycle.ts';
import { CAPACITY_ERRORS, DEFAULT_RETRY_POLICY, TRANSIENT_ERRORS } from '../../shared/jobs/retry.ts';
import {
  GrantSpecSchema,
  JOB_SCOPES,
  JOB_STATUSES,
  JobRefSchema,
  ListJobsSchema,
  SubmitJobSchema,
} from '../../shared/jobs/schemas.ts';
import { SWEEP_TIME_MARGIN_MS } from '../../shared/jobs/sweep-scope.ts';
import { JOB_TOOLS } from '../../shared/mcp/tools.ts';
import { wf } from '../cli/support.ts';
import { blockWith, fencedBlocks, pageText, tableRows } from './fenced-blocks.ts';

const PAGE = 'jobs.md';
const flat = pageText(PAGE).replace(/\s+/g, ' ');
const UNREACHABLE = 'http://127.0.0.1:1';
const dir = mkdtempSync(join(tmpdir(), 'wf-docs-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The names in a table cell: each `code` span. */
const codes = (cell: string | undefined) =>
  [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

describe('docs/jobs.md', () => {
  it('has the four blocks this file and client-config.test.ts check', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual(['sh', 'text', 'sh', 'json']);
  });

  it('the curl submission is a valid job request to POST /v1/jobs', () => {
    const block = blockWith(PAGE, 'curl -X POST').body;
    expect(block).toMatch(/curl -X POST "\$API\/v1\/jobs"/);
    const body = /-d '(\{.*\})'/.exec(block)?.[1] ?? '';
    expect(SubmitJobSchema.safeParse(JSON.parse(body)).success).toBe(true);
  });

  it('the grant table names every field of GrantSpecSchema, with its defaults', () => {
    const rows = tableRows(
      PAGE,
      '| field               | meaning                                                                                                      |',
    );
    expect(rows.flatMap(([field]) => codes(field)).sort()).toEqual(Object.keys(GrantSpecSchema.shape).sort());
    const parsed = GrantSpecSchema.parse({
      name: 'docs',
      actions: [],
      models: ['balanced'],
      maxTurns: 1,
      maxUsdPerJob: 1,
      concurrency: 1,
      scopes: ['jobs:read'],
    });
    const meaning = (field: string) => rows.find(([cell]) => codes(cell).includes(field))?.[1] ?? '';
    expect(meaning('maxQueued')).toContain(`(default ${parsed.maxQueued})`);
    expect(meaning('maxAttempts')).toContain(`(default ${parsed.maxAttempts})`);
    expect(meaning('jobTimeoutSeconds')).toContain(`(default ${parsed.jobTimeoutSeconds})`);
    expect(codes(meaning('scopes'))).toEqual([...JOB_SCOPES]);
  });

  it("the refusal table's statuses and fields are the API's answers", () => {
    const rows = tableRows(
      PAGE,
      '| status | code             | when                                                                  | field       |',
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const [status, code, , field] of rows) {
      const kind = code ?? '';
      const answer = mapDomainError(
        new JobRejectedError(kind as ConstructorParameters<typeof JobRejectedError>[0], 'x', 'x'),
      );
      expect(`${answer?.status} ${answer?.code}`, kind).toBe(`${status} ${kind}`);
      expect(codes(field).length, kind).toBeGreaterThan(0);
    }
  });

  it('the job statuses are the code’s', () => {
    const listed = /The job: `status` \(([^)]*)\)/.exec(flat)?.[1];
    expect(codes(listed)).toEqual([...JOB_STATUSES]);
  });

  it('the retry table and the numbers around it are the runtime’s', () => {
    const rows = tableRows(
      PAGE,
      "| the run's error                                   | the job                                                                                 |",
    );
    const [capacity, transient] = rows;
    expect(codes(capacity?.[0])).toEqual([...CAPACITY_ERRORS]);
    for (const name of codes(transient?.[0])) expect(TRANSIENT_ERRORS, name).toContain(name);
    const p = DEFAULT_RETRY_POLICY;
    expect(capacity?.[1]).toContain(`${p.capacityWaitMs / 1000} s)`);
    expect(capacity?.[1]).toContain(`at most ${p.maxCapacityWaits})`);
    expect(transient?.[1]).toContain(
      `${p.backoffBaseMs / 1000} s doubling to ${p.backoffMaxMs / 60_000} min`,
    );
    for (const quoted of [
      `**last ${MAX_PREVIOUS_RUN_IDS}** earlier runs (\`MAX_PREVIOUS_RUN_IDS\``,
      `at most ${QUEUE_SCAN_BOUND.toLocaleString('en')} jobs per promotion`,
      `${SWEEP_TIME_MARGIN_MS / 1000} s left (\`SWEEP_TIME_MARGIN_MS\``,
    ])
      expect(flat.includes(quoted), quoted).toBe(true);
  });

  it('the MCP tools table names the tools and their inputs', () => {
    const rows = tableRows(
      PAGE,
      '| tool               | scope         | input                                              | result (as REST)                    |',
    );
    expect(rows.map(([tool]) => codes(tool)[0])).toEqual(JOB_TOOLS.map((tool) => tool.name));
    const inputs = {
      submit_agent_job: SubmitJobSchema,
      get_agent_job: JobRefSchema,
      cancel_agent_job: JobRefSchema,
      list_agent_jobs: ListJobsSchema,
    };
    for (const [tool, , input] of rows) {
      const name = codes(tool)[0] as keyof typeof inputs;
      expect(codes(input), name).toEqual(Object.keys(inputs[name].shape));
      expect(JOB_TOOLS.find((each) => each.name === name)?.inputSchema, name).toBe(inputs[name]);
    }
  });

  it('the CLI lines parse and go to send their request', async () => {
    const narrower = join(dir, 'narrower.grant.yaml');
    copyFileSync(new URL('../../examples/ci-bot.grant.yaml', import.meta.url), narrower);
    const lines = blockWith(PAGE, 'wf grant create')
      .body.split('\n')
      .map((line) => line.replace(/\s+#.*$/, ''));
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const argv = (line.match(/'[^']*'|"[^"]*"|\S+/g) ?? [])
        .slice(1)
        .map((word) => word.replace(/^(['"])(.*)\1$/, '$2'))
        .map((word) => (word === 'narrower.grant.yaml' ? narrower : word))
        .map((word) => (word === '$CLIENT_KEY' ? 'wfl_docs_client_key_0001' : word));
      const result = await wf(argv, { WF_URL: UNREACHABLE, WF_API_KEY: 'wfl_docs_example_key' });
      expect(result.stderr, line).toBe(
        `wf: cannot reach the runtime at ${UNREACHABLE} (fetch failed); is it running? (wf local up)`,
      );
    }
  });
});
