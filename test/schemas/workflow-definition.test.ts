import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asAgentDefinition } from '../../shared/schemas/any-workflow.ts';
import {
  parseWorkflowText,
  validateWorkflowDefinition,
  workflowJsonSchema,
} from '../../shared/workflow-file/index.ts';

const examplesDir = new URL('../../examples/', import.meta.url);
const workflowFiles = readdirSync(examplesDir).filter((file) => /\.workflow\.(ya?ml|json)$/.test(file));

/** A minimal valid definition that each bad case breaks in one place. */
const base = () => ({
  name: 'daily-digest',
  model: { id: 'claude-sonnet-5-5' },
  prompt: { system: 'Summarize.' },
  allowedActions: ['fetch_url', 'post_digest'] as string[],
  connectors: {
    post_digest: {
      kind: 'http',
      description: 'Post the digest.',
      method: 'POST',
      url: 'https://site.example.com/posts',
      credential: { slot: 'site_token' },
    },
  } as Record<string, unknown>,
  gates: { fetch_url: 'allow' } as Record<string, unknown>,
  approvals: { approvers: ['lead@example.com'] },
  trigger: { type: 'schedule', expression: 'cron(0 7 * * ? *)', timezone: 'Europe/Berlin' } as Record<
    string,
    unknown
  >,
  budget: { maxUsdPerRun: 1 } as Record<string, unknown>,
  credRefs: { site_token: { secret: 'wf/site-token' } } as Record<string, unknown>,
});
type Def = ReturnType<typeof base>;

describe('Workflow definition', () => {
  it.each(workflowFiles)('accepts the example %s', (file) => {
    const result = parseWorkflowText(readFileSync(new URL(file, examplesDir), 'utf8'));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('accepts the minimal base definition and applies defaults', () => {
    const result = validateWorkflowDefinition(base());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.definition.budget).toMatchObject({
      maxTurns: 20,
      maxToolCallsPerTurn: 8,
      runTimeoutSeconds: 3600,
    });
    expect(asAgentDefinition(result.definition).model).toMatchObject({
      provider: 'anthropic',
      thinking: 'off',
      maxTokens: 4096,
    });
    expect(result.definition.destination).toEqual({ type: 'stored' });
  });

  const cases: [string, (def: Def) => unknown, string, RegExp][] = [
    ['missing model', (d) => ({ ...d, model: undefined }), 'model', /is required/],
    [
      'model with neither id nor role',
      (d) => ({ ...d, model: {} }),
      'model',
      /either an explicit model id or a role/,
    ],
    [
      'unknown model role',
      (d) => ({ ...d, model: { role: 'genius' } }),
      'model.role',
      /unknown model role 'genius'/,
    ],
    [
      'gate for an action not in allowedActions',
      (d) => ({ ...d, gates: { delete_repo: 'allow' } }),
      'gates.delete_repo',
      /neither in allowedActions nor the destination/,
    ],
    [
      'negative budget',
      (d) => ({ ...d, budget: { maxUsdPerRun: -1 } }),
      'budget.maxUsdPerRun',
      /greater than 0/,
    ],
    [
      'invalid cron expression',
      (d) => ({ ...d, trigger: { type: 'schedule', expression: 'cron(61 7 * * ? *)' } }),
      'trigger',
      /./,
    ],
    [
      'invalid event pattern',
      (d) => ({ ...d, trigger: { type: 'event', pattern: { source: 'not-an-array' } } }),
      'trigger.pattern',
      /./,
    ],
    [
      'credRefs entry that is a raw secret',
      (d) => ({ ...d, credRefs: { site_token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' } }),
      'credRefs.site_token',
      /not a value.*GitHub token/,
    ],
    [
      'credRefs reference whose name is a raw key',
      (d) => ({ ...d, credRefs: { site_token: { secret: 'sk-ant-api03-AAAAAAAAAAAAAAAAAAAA' } } }),
      'credRefs.site_token.secret',
      /looks like an API key/,
    ],
    [
      'oversized prompt',
      (d) => ({ ...d, prompt: { system: 'x'.repeat(100_001) } }),
      'prompt.system',
      /too long/,
    ],
    [
      'duplicate action name',
      (d) => ({ ...d, allowedActions: ['fetch_url', 'post_digest', 'fetch_url'] }),
      'allowedActions[2]',
      /listed twice/,
    ],
    // An action name is the tool name the model is offered: one the Messages API refuses
    // (^[a-zA-Z0-9_-]{1,64}$, docs/scripted-model.md "Request rules") is refused when the workflow is saved.
    [
      'action name the Messages API refuses as a tool name (a dot)',
      (d) => ({ ...d, allowedActions: ['fetch_url', 'notes.put'] }),
      'allowedActions[1]',
      /lower snake case/,
    ],
    [
      'action name the Messages API refuses as a tool name (65 characters)',
      (d) => ({ ...d, allowedActions: ['fetch_url', 'x'.repeat(65)] }),
      'allowedActions[1]',
      /at most 64/,
    ],
    [
      'unknown action name',
      (d) => ({ ...d, allowedActions: ['fetch_url', 'post_digest', 'launch_rocket'] }),
      'allowedActions[2]',
      /neither a built-in action nor a connector/,
    ],
    [
      'connector using an undeclared credential slot',
      (d) => ({ ...d, credRefs: {} }),
      'connectors.post_digest.credential.slot',
      /not declared in credRefs/,
    ],
    [
      'approval gate without approvers',
      (d) => ({ ...d, approvals: undefined, gates: { fetch_url: 'needs_approval' } }),
      'gates.fetch_url',
      /needs approvers/,
    ],
    ['unknown top-level field', (d) => ({ ...d, shedule: 'daily' }), '(root)', /unknown field 'shedule'/],
    ['bad workflow name', (d) => ({ ...d, name: 'Daily Digest!' }), 'name', /must be a slug/],
    [
      'zero max turns',
      (d) => ({ ...d, budget: { maxUsdPerRun: 1, maxTurns: 0 } }),
      'budget.maxTurns',
      /at least 1/,
    ],
    ['unknown trigger type', (d) => ({ ...d, trigger: { type: 'webhook' } }), 'trigger.type', /./],
    [
      'invalid time zone',
      (d) => ({ ...d, trigger: { type: 'schedule', expression: 'rate(1 day)', timezone: 'Mars/Olympus' } }),
      'trigger',
      /./,
    ],
    [
      'connector with a file URL',
      (d) => ({
        ...d,
        connectors: { post_digest: { ...(d.connectors.post_digest as object), url: 'file:///etc/passwd' } },
      }),
      'connectors.post_digest.url',
      /http\(s\) URL/,
    ],
    [
      'http destination naming no connector',
      (d) => ({ ...d, destination: { type: 'http', action: 'nowhere' } }),
      'destination.action',
      /not a connector/,
    ],
    [
      'approval timeout too short',
      (d) => ({ ...d, approvals: { approvers: ['a@example.com'], timeoutSeconds: 5 } }),
      'approvals.timeoutSeconds',
      /at least 60 seconds/,
    ],
  ];

  it.each(cases)('refuses %s with a field-level error', (_name, mutate, path, message) => {
    const result = validateWorkflowDefinition(mutate(base()));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const error = result.errors.find(
      (candidate) => candidate.path === path || candidate.path.startsWith(`${path}.`),
    );
    expect(error, `errors were ${JSON.stringify(result.errors)}`).toBeDefined();
    expect(error?.message).toMatch(message);
    for (const each of result.errors) expect(each.message).not.toMatch(/\n\s+at /);
  });

  it('gives one error per offending field path', () => {
    const result = validateWorkflowDefinition({
      ...base(),
      model: {},
      budget: { maxUsdPerRun: -1, maxTurns: 0 },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.errors.map((error) => error.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toEqual(expect.arrayContaining(['model', 'budget.maxUsdPerRun', 'budget.maxTurns']));
  });

  it('names the line of a YAML syntax error', () => {
    const result = parseWorkflowText('name: a\nmodel: [unclosed\n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message).toMatch(/line \d+/);
  });

  it('keeps docs/workflow.schema.json in step with the zod schema (run npm run schemas)', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../docs/workflow.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(JSON.parse(JSON.stringify(workflowJsonSchema())));
  });
});
