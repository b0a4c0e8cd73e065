import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { Action, ActionCatalog } from '../../shared/core/actions.ts';
import { type DenialFault, denialText, effectiveGrant, evaluateGate } from '../../shared/core/gate.ts';
import { MAX_REFUSAL_BYTES } from '../../shared/core/transcript-limits.ts';
import { asAgentDefinition } from '../../shared/schemas/any-workflow.ts';
import type { WorkflowDefinition } from '../../shared/schemas/workflow.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/index.ts';

const action = (name: string, flags: Partial<Action> = {}): Action => ({
  name,
  description: name,
  input: z.object({ text: z.string() }).strict(),
  idempotent: false,
  irreversible: false,
  run: async () => ({ content: 'ok', isError: false }),
  ...flags,
});

const catalog = (actions: Action[]): ActionCatalog => ({
  resolve: (name) => actions.find((a) => a.name === name),
});

function definition(overrides: Record<string, unknown> = {}): WorkflowDefinition {
  const result = validateWorkflowDefinition({
    name: 'gate-test',
    model: { id: 'claude-sonnet-5-5' },
    prompt: { system: 'x' },
    allowedActions: ['notes_put', 'notes_append', 'current_time'],
    approvals: { approvers: ['a@example.com'] },
    trigger: { type: 'on_demand' },
    budget: { maxUsdPerRun: 1 },
    ...overrides,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return asAgentDefinition(result.definition);
}

const tools = catalog([
  action('notes_put'),
  action('notes_append'),
  action('current_time', { irreversible: true }),
]);

describe('Gate', () => {
  it.each([
    ['an allowed action with valid input', 'notes_put', { text: 'x' }, {}, 'allow'],
    [
      'an action gated needs_approval',
      'notes_append',
      { text: 'x' },
      { gates: { notes_append: 'needs_approval' } },
      'needs_approval',
    ],
    [
      'an irreversible action the workflow marks allow',
      'current_time',
      { text: 'x' },
      { gates: { current_time: 'allow' } },
      'needs_approval',
    ],
    ['an action gated deny', 'notes_put', { text: 'x' }, { gates: { notes_put: 'deny' } }, 'deny'],
    ['an action outside the allow-set', 'http_request', { text: 'x' }, {}, 'deny'],
    ['an unknown tool', 'launch_rocket', {}, {}, 'deny'],
    ['schema-invalid input', 'notes_put', { text: 42 }, {}, 'deny'],
    ['input with an unexpected field', 'notes_put', { text: 'x', extra: true }, {}, 'deny'],
  ])('decides %s', (_case, name, input, overrides, expected) => {
    const def = definition(overrides);
    const result = evaluateGate({ name, input }, effectiveGrant(def, def, true), tools, def);
    expect(result.decision).toBe(expected);
  });

  // An approval keeps the exact arguments as a DynamoDB map, where a number below 1e-130 cannot be stored
  // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-data-types): the
  // write asking for approval failed, and the turn with it. (An integer past 2^53 is denied in every mode: below.)
  it.each([[1e-200, 'input.amount is too small to store']])(
    'denies a call needing approval whose input %s cannot be stored, naming the field',
    (amount, why) => {
      const amounts = catalog([action('notes_append', { input: z.object({ amount: z.number() }).strict() })]);
      const def = definition({ gates: { notes_append: 'needs_approval' } });
      const grant = effectiveGrant(def, def, true);
      expect(evaluateGate({ name: 'notes_append', input: { amount } }, grant, amounts, def)).toEqual({
        decision: 'deny',
        reason: expect.stringContaining(`the input cannot be stored for its approval (${why}`),
        fault: 'input',
      });
      const fine = evaluateGate({ name: 'notes_append', input: { amount: 1e-130 } }, grant, amounts, def);
      expect(fine.decision).toBe('needs_approval');
    },
  );

  // The SDK read the model's digits with JSON.parse: past 2^53 the number was rounded, and sending it would be a
  // side effect on another number (shared/core/inexact-number.ts).
  it.each([
    ['allow', {}],
    ['needs_approval', { gates: { notes_append: 'needs_approval' } }],
  ])('denies, under %s, a call holding a number past 2^53, naming the field', (_mode, overrides) => {
    const accounts = catalog([
      action('notes_append', {
        input: z.object({ account: z.object({ id: z.union([z.number(), z.string()]) }) }).strict(),
      }),
    ]);
    const def = definition(overrides);
    const grant = effectiveGrant(def, def, true);
    const decide = (id: unknown) =>
      evaluateGate({ name: 'notes_append', input: { account: { id } } }, grant, accounts, def);
    expect(decide(JSON.parse('12345678901234567890'))).toEqual({
      decision: 'deny',
      reason:
        'input.account.id was read as 12345678901234567000: a number past 9007199254740991 in magnitude ' +
        'cannot be read exactly, so it may not be the number that was written; send such a value (an id, say) as ' +
        'a string',
      fault: 'input',
    });
    expect(decide(-(2 ** 53)).decision).toBe('deny');
    expect(decide(Number.MAX_SAFE_INTEGER).decision).not.toBe('deny');
    expect(decide('12345678901234567890').decision).not.toBe('deny');
  });

  it('denies a number past 2^53 before the schema refuses its type, and one the parse put in', () => {
    const def = definition();
    const grant = effectiveGrant(def, def, true);
    const asWritten = evaluateGate({ name: 'notes_put', input: { text: 2 ** 64 } }, grant, tools, def);
    expect(asWritten).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/^input\.text was read/),
    });
    const defaulted = catalog([
      action('notes_put', { input: z.object({ text: z.string(), n: z.number().default(2 ** 60) }) }),
    ]);
    expect(evaluateGate({ name: 'notes_put', input: { text: 'x' } }, grant, defaulted, def)).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/^input\.n was read as/),
    });
  });

  it('denies everything when the workflow is disabled', () => {
    const def = definition();
    expect(
      evaluateGate({ name: 'notes_put', input: { text: 'x' } }, effectiveGrant(def, def, false), tools, def),
    ).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/withdrawn or disabled/),
    });
  });

  it('intersects the run version with the live policy, the stricter gate winning', () => {
    const version = definition();
    const live = definition({
      allowedActions: ['notes_put', 'current_time'],
      gates: { notes_put: 'needs_approval' },
    });
    const grant = effectiveGrant(version, live, true);
    expect([...grant.keys()].sort()).toEqual(['current_time', 'notes_put']);
    expect(grant.get('notes_put')?.mode).toBe('needs_approval');
  });

  it('withdraws a connector the latest version declares differently, or whose credential names another secret', () => {
    const hook = (url: string) => ({
      kind: 'http',
      description: 'Posts.',
      method: 'POST',
      url,
      credential: { slot: 'hook_token' },
      input: { type: 'object', properties: {} },
    });
    const withHook = (url: string, secret: string) =>
      definition({
        allowedActions: ['notes_put', 'hook'],
        connectors: { hook: hook(url) },
        credRefs: { hook_token: { secret } },
      });
    const version = withHook('https://hooks.example.com/a', 'wf/owner/hook');
    const granted = (live: WorkflowDefinition) => [...effectiveGrant(version, live, true).keys()].sort();

    expect(granted(withHook('https://hooks.example.com/a', 'wf/owner/hook'))).toEqual(['hook', 'notes_put']);
    expect(granted(withHook('https://hooks.example.com/b', 'wf/owner/hook'))).toEqual(['notes_put']);
    expect(granted(withHook('https://hooks.example.com/a', 'wf/owner/other'))).toEqual(['notes_put']);
  });

  it("withdraws nothing for a connector's new description or input schema alone, and withdraws it for any other field", () => {
    const hook = (changes: Record<string, unknown>) =>
      definition({
        allowedActions: ['notes_put', 'hook'],
        connectors: {
          hook: {
            kind: 'http',
            description: 'Posts.',
            method: 'POST',
            url: 'https://hooks.example.com/a',
            ...changes,
          },
        },
      });
    const version = hook({});
    const granted = (live: WorkflowDefinition) => [...effectiveGrant(version, live, true).keys()].sort();

    const told = {
      description: 'Posts a note.',
      input: { type: 'object', properties: { text: { type: 'string' } } },
    };
    expect(granted(hook(told))).toEqual(['hook', 'notes_put']);
    expect(granted(hook({ idempotent: true }))).toEqual(['notes_put']);
    expect(granted(hook({ body: 'none' }))).toEqual(['notes_put']);
  });

  it('denies, and does not throw, when deciding faults', () => {
    const def = definition();
    const faulty: ActionCatalog = {
      resolve: () => {
        throw new Error('policy lookup failed');
      },
    };
    expect(
      evaluateGate({ name: 'notes_put', input: { text: 'x' } }, effectiveGrant(def, def, true), faulty, def),
    ).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/could not evaluate/),
    });
  });

  it('denies a needs_approval action when no approver is configured', () => {
    const def = { ...definition(), approvals: undefined } as unknown as WorkflowDefinition;
    const grant = effectiveGrant(def, def, true);
    grant.set('notes_append', { mode: 'needs_approval', approvers: [], timeoutSeconds: 60 });
    expect(evaluateGate({ name: 'notes_append', input: { text: 'x' } }, grant, tools, def).decision).toBe(
      'deny',
    );
  });
});

describe('Gate: whose fault a denial is', () => {
  const def = definition({ gates: { notes_append: 'needs_approval', notes_put: 'allow' } });
  const grant = effectiveGrant(def, def, true);
  const denied = (name: string, input: unknown, under = def, actions = tools) =>
    evaluateGate({ name, input }, under === def ? grant : effectiveGrant(under, under, true), actions, under);

  // Only what the model wrote stands in the way: the same action with a corrected input may pass.
  it.each([
    ['a schema mismatch', 'notes_put', { text: 42 }, /^the input does not match the action's schema/],
    ['an unexpected field', 'notes_put', { text: 'x', extra: true }, /^the input does not match/],
    ['a number past 2^53', 'notes_put', { text: 2 ** 64 }, /^input\.text was read as/],
    [
      'an input too deep to keep for its approval',
      'notes_append',
      { text: 'x', ...nested(40) },
      /^the input cannot be stored for its approval/,
    ],
  ])('calls %s an input fault', (_case, name, input, reason) => {
    const lenient = catalog([
      action('notes_put'),
      action('notes_append', { input: z.object({ text: z.string() }).loose() }),
    ]);
    expect(denied(name, input, def, lenient)).toEqual({
      decision: 'deny',
      reason: expect.stringMatching(reason),
      fault: 'input',
    });
  });

  // Nothing the model could write gets past these.
  it.each([
    ['an action outside the allow-set', () => denied('http_request', { text: 'x' })],
    ['an unknown tool', () => denied('launch_rocket', {})],
    [
      'a gate of deny',
      () => denied('notes_put', { text: 'x' }, definition({ gates: { notes_put: 'deny' } })),
    ],
    [
      'a withdrawn action',
      () => evaluateGate({ name: 'notes_put', input: { text: 'x' } }, new Map(), tools, def),
    ],
    [
      'no action of that name in the catalog',
      () => evaluateGate({ name: 'notes_put', input: { text: 'x' } }, grant, catalog([]), def),
    ],
    [
      'no approvers',
      () => {
        const none = new Map(grant);
        none.set('notes_append', { mode: 'needs_approval', approvers: [], timeoutSeconds: 60 });
        return evaluateGate({ name: 'notes_append', input: { text: 'x' } }, none, tools, def);
      },
    ],
    [
      'a fault while deciding',
      () =>
        evaluateGate(
          { name: 'notes_put', input: { text: 'x' } },
          grant,
          {
            resolve: () => {
              throw new Error('x');
            },
          },
          def,
        ),
    ],
  ])('calls %s a policy fault', (_case, decide) => {
    expect(decide()).toMatchObject({ decision: 'deny', fault: 'policy' });
  });

  it('a policy fault is final even when the input is also wrong', () => {
    expect(denied('notes_put', { text: 42 }, definition({ gates: { notes_put: 'deny' } }))).toMatchObject({
      decision: 'deny',
      fault: 'policy',
    });
  });
});

describe('denialText', () => {
  it.each<[DenialFault, string]>([
    ['policy', 'Do not retry it; continue without it, or say what you could not do.'],
    ['input', 'Correct the input and call again if the task still needs it.'],
  ])('tells the model after a %s denial: %s', (fault, next) => {
    expect(denialText({ reason: 'the reason', fault })).toBe(
      `Denied: the reason. This call was not executed. ${next}`,
    );
  });

  it('invites a corrected call for an input the schema refuses, as the gate decides it', () => {
    const def = definition();
    const gate = evaluateGate(
      { name: 'notes_put', input: { text: 42 } },
      effectiveGrant(def, def, true),
      tools,
      def,
    );
    if (gate.decision !== 'deny') throw new Error('expected a denial');
    const told = denialText(gate);
    expect(told).toMatch(/^Denied: the input does not match the action's schema \(text: /);
    expect(told).toMatch(/Correct the input and call again if the task still needs it\.$/);
    expect(told).not.toContain('Do not retry');
  });

  it('cuts a long reason, never what to do next, and stays within the refusal cap', () => {
    const told = denialText({ reason: 'é'.repeat(MAX_REFUSAL_BYTES), fault: 'input' });
    expect(Buffer.byteLength(told)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
    expect(told).toMatch(/é \[truncated\]\. This call was not executed\. Correct the input and call again/);
  });
});

/** `{ a: { a: … } }`, `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}
