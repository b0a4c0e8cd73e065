/**
 * docs/data-model.md checked against the code: the item table's key layouts are what the store's key functions
 * build, the sort-key order and the range reads hold, the delegated jobs' keys are `jobKeys`, and the limits the
 * page quotes are the constants the code uses.
 */
import { describe, expect, it } from 'vitest';
import {
  REPORT_MAX_ACTIONS,
  REPORT_MAX_BYTES,
  RUN_ITEM_MARGIN_BYTES,
  reportCutNote,
} from '../../shared/core/deliver.ts';
import { MERGED_TRANSACTION_BOUND } from '../../shared/core/staged-change.ts';
import { MAX_VALUE_DEPTH } from '../../shared/core/storable.ts';
import { STORED_ERROR_MESSAGE_UNITS, STORED_ERROR_NAME_UNITS } from '../../shared/core/stored-error.ts';
import {
  capRefusal,
  capResultText,
  capToolResult,
  MAX_APPROVAL_ARGS_BYTES,
  MAX_ASSISTANT_CONTENT_BYTES,
  MAX_REFUSAL_BYTES,
  MAX_RESULT_TEXT_BYTES,
  MAX_TOOL_RESULT_BYTES,
  MAX_TOOL_USE_ID_BYTES,
  MAX_TOOL_USES_PER_MESSAGE,
} from '../../shared/core/transcript-limits.ts';
import { grantIndexKeys, JOB_STATES, jobKeys } from '../../shared/jobs/records.ts';
import { RUN_TRANSITIONS } from '../../shared/schemas/run.ts';
import { indexKeys, keys } from '../../shared/store/keys.ts';
import { MESSAGE_ITEM_BUDGET_BYTES } from '../../shared/store/message-items.ts';
import { RUN_SCOPE_CACHE_SIZE } from '../../shared/store/run-scopes.ts';
import { TABLE_KEYS } from '../../shared/store/table.ts';
import { TRANSACTION_MAX_BYTES, TRANSACTION_MAX_ITEMS } from '../../shared/store/transaction-limits.ts';
import { triggerIndexKey } from '../../shared/store/trigger-index.ts';
import { VERSION_CACHE_SIZE } from '../../shared/store/version-cache.ts';
import { fencedBlocks, pageText, tableRows } from './fenced-blocks.ts';

const PAGE = 'data-model.md';
const page = pageText(PAGE);

/** What the page's placeholders stand for in these checks: `<name>` a string, `<name, N digits>` a number. */
const VALUES: Record<string, string | number> = {
  owner: 'auth0|abc',
  workflowId: 'wf_abc123def456',
  id: 'wf_abc123def456',
  version: 7,
  name: 'daily',
  runId: 'run_1',
  'graph runId': 'run_1',
  createdAt: '2026-12-02T10:00:00.000Z',
  hour: '2026-12-02T10',
  seq: 3,
  'seq of its first entry': 5,
  part: 2,
  'tool_use id': 'toolu_01',
  nodeId: 'triage',
  stepId: 'triage',
  attempt: 1,
  approvalId: 'apr_1',
  taskId: 'htk_run_1_triage_1',
  'YYYY-MM-DD': '2026-12-02',
  scope: 'runs',
  key: 'k-1',
  type: 'schedule',
  anchors: 4,
  changes: 9,
  clientId: 'ci-bot',
  grantId: 'grt_1',
  v: 2,
  n: 12,
  hash: 'ab12',
};

/** A page template with its placeholders filled in; `<x, N digits>` is x zero-padded to N digits. */
function render(template: string): string {
  return template.replace(/<([^<>,]+)(?:, (\d+) digits)?>/g, (_, name: string, width?: string) => {
    const value = VALUES[name];
    if (value === undefined) throw new Error(`no value for the placeholder <${name}>`);
    return width === undefined ? String(value) : String(value).padStart(Number(width), '0');
  });
}
const code = (cell: string) => /^`(.*)`$/.exec(cell)?.[1];
const {
  owner,
  workflowId: wf,
  runId,
  createdAt,
  name,
} = VALUES as {
  owner: string;
  workflowId: string;
  runId: string;
  createdAt: string;
  name: string;
};

/** The item table in page order: a prefix of the row's first cell, and the keys the code builds for it. */
const ITEMS: [string, Record<string, string>][] = [
  ['workflow head', keys.workflowHead(owner, wf)],
  ['workflow version', keys.workflowVersion(owner, wf, 7)],
  ['workflow name claim', keys.workflowName(owner, name)],
  [
    'run',
    {
      ...keys.run(runId),
      ...indexKeys.runByOwner(owner, createdAt, runId),
      ...indexKeys.runByWorkflow(owner, wf, createdAt, runId),
    },
  ],
  ['transcript message', keys.message(runId, 3)],
  ['continuation of a large transcript message', keys.messagePart(runId, 3, 2)],
  ['tool-execution ledger row', keys.ledger(runId, 'toolu_01')],
  ['audit entries', keys.audit(runId, 5)],
  ['run note', keys.note(runId, name)],
  ['graph step', keys.step(runId, 'triage')],
  ["graph run's resume wait token", keys.resumeToken(runId)],
  ['approval', { ...keys.approval('apr_1'), ...indexKeys.approvalByOwner(owner, createdAt, 'apr_1') }],
  [
    'human task',
    {
      ...keys.humanTask(runId, 'triage', 1),
      ...indexKeys.humanTaskByOwner(owner, createdAt, 'htk_run_1_triage_1'),
    },
  ],
  ['per-day spend', keys.daySpend(owner, wf, '2026-12-02')],
  ["spend of a graph run's agent children", keys.graphSpend(runId)],
  ['idempotency marker', keys.idempotency(owner, 'runs', 'k-1')],
  ['pending-run marker', keys.pendingRun(createdAt, runId)],
  ['trigger index', triggerIndexKey('schedule', owner, wf)],
  ['owner anchor (', keys.ownerAnchor(owner, 3)],
  ['owner anchor chain head', keys.ownerAnchorHead(owner)],
  ['run anchored marker', keys.ownerAnchorRun(owner, runId)],
  ['pending anchor', keys.ownerAnchorPending(owner, runId)],
  ['workflow change (', keys.ownerChange(owner, 3)],
  ['workflow-change chain head', keys.ownerChangeHead(owner)],
  ['signed head', keys.signedHead(owner, 4, 9)],
];

/** The sort keys of one run's partition, by kind. */
const runPartition = {
  audit: keys.audit(runId, 5).sk,
  budget: keys.graphSpend(runId).sk,
  humanTask: keys.humanTask(runId, 'triage', 1).sk,
  message: keys.message(runId, 3).sk,
  messagePart: keys.messagePart(runId, 3, 2).sk,
  note: keys.note(runId, name).sk,
  resume: keys.resumeToken(runId).sk,
  run: keys.run(runId).sk,
  step: keys.step(runId, 'triage').sk,
  ledger: keys.ledger(runId, 'toolu_01').sk,
};
const between = (from: string, to: string) =>
  Object.entries(runPartition)
    .filter(([, sk]) => sk >= from && sk <= to)
    .map(([kind]) => kind)
    .sort();

describe('docs/data-model.md', () => {
  it('has no fenced blocks (its examples are tables): a block added needs a check here', () => {
    expect(fencedBlocks(PAGE)).toEqual([]);
  });

  it("names the table's keys, indexes and TTL attribute as TABLE_KEYS does", () => {
    const intro = /^Everything lives in one table[\s\S]*?\n\n/m.exec(page)?.[0] ?? '';
    expect(intro).toContain(
      `partition key \`${TABLE_KEYS.partitionKey}\`, sort key \`${TABLE_KEYS.sortKey}\``,
    );
    expect(intro).toContain(`TTL on\n\`${TABLE_KEYS.ttlAttribute}\``);
    const header = '| item | `pk` | `sk` | `gsi1pk` / `gsi1sk` | `gsi2pk` / `gsi2sk` |';
    expect(header).toContain(`\`${TABLE_KEYS.byOwner.partitionKey}\` / \`${TABLE_KEYS.byOwner.sortKey}\``);
    expect(header).toContain(
      `\`${TABLE_KEYS.byWorkflow.partitionKey}\` / \`${TABLE_KEYS.byWorkflow.sortKey}\``,
    );
  });

  it("every row of the item table is the key the store's key functions build", () => {
    const rows = tableRows(PAGE, '| item | `pk` | `sk` | `gsi1pk` / `gsi1sk` | `gsi2pk` / `gsi2sk` |');
    expect(rows).toHaveLength(ITEMS.length);
    rows.forEach(([item, pk, sk, gsi1, gsi2], index) => {
      const [label, built] = ITEMS[index] as [string, Record<string, string>];
      expect(item?.startsWith(label), item).toBe(true);
      const documented: Record<string, string> = {
        pk: render(code(pk ?? '') ?? ''),
        sk: render(code(sk ?? '') ?? ''),
      };
      for (const [cell, index] of [
        [gsi1, 'gsi1'],
        [gsi2, 'gsi2'],
      ] as const) {
        const pair = /^`(.*)` \/ `(.*)`$/.exec(cell ?? '');
        if (!pair) continue;
        documented[`${index}pk`] = render(pair[1] ?? '');
        documented[`${index}sk`] = render(pair[2] ?? '');
      }
      expect(documented, label).toEqual(built);
    });
  });

  it('the sort-key order of a run partition, and the range reads it gives, are those of the key functions', () => {
    const order = /`(AUD#… < HTK#… < [^`]*)`/.exec(page)?.[1]?.split(' < ') ?? [];
    const kinds = ['audit', 'humanTask', 'message', 'note', 'resume', 'run', 'step', 'ledger'] as const;
    expect(order.map((sk) => sk.replace('…', ''))).toEqual(
      kinds.map((kind) => runPartition[kind].replace(/#.*$/, '#')),
    );
    const sorted = kinds.map((kind) => runPartition[kind]).sort();
    expect(sorted).toEqual(kinds.map((kind) => runPartition[kind]));
    // BUDGET "sorts between `AUD#` and `HTK#`, outside every range read".
    expect(runPartition.budget > runPartition.audit && runPartition.budget < runPartition.humanTask).toBe(
      true,
    );
    // "sk BETWEEN 'MSG#' AND 'RUN'": the messages (and their parts), notes, the resume token, the run item last.
    expect(page).toContain("`pk = RUN#r AND sk BETWEEN 'MSG#' AND 'RUN'`");
    expect(between('MSG#', 'RUN')).toEqual(['message', 'messagePart', 'note', 'resume', 'run']);
    // "sk BETWEEN 'RUN' AND 'STEP$'" (the run and its steps; up to 'TOOL$' with its ledger rows).
    expect(page).toContain("`pk = RUN#<runId> AND sk BETWEEN 'RUN' AND 'STEP$'`");
    expect(between('RUN', 'STEP$')).toEqual(['run', 'step']);
    expect(between('RUN', 'TOOL$')).toEqual(['ledger', 'run', 'step']);
  });

  it('every key prefix an access pattern reads is a prefix of keys the code builds', () => {
    const rows = tableRows(PAGE, '| pattern | how |');
    const built = ITEMS.flatMap(([, item]) => Object.values(item));
    const quoted = rows.flatMap(([, how]) =>
      [...(how ?? '').matchAll(/'([A-Z]+(?:#[^']*)?)'/g)].map((m) => render(m[1] as string)),
    );
    expect(quoted).toEqual(expect.arrayContaining(['WF#', 'MSG#', 'TOOL#', 'AUD#', 'NOTE#', 'HTK#', 'APR#']));
    for (const prefix of quoted)
      expect(
        built.some((key) => key.startsWith(prefix)),
        prefix,
      ).toBe(true);
  });

  it("every row of the delegated jobs' table is a key jobKeys builds", () => {
    const rows = tableRows(PAGE, '| pk | sk | what |');
    const built = [
      jobKeys.grantHead('auth0|abc', 'ci-bot'),
      jobKeys.grantVersion('grt_1', 2),
      jobKeys.slots('grt_1'),
      jobKeys.job('grt_1', 12),
      jobKeys.queued('grt_1', 12),
      jobKeys.active('grt_1', 12),
      jobKeys.request('grt_1', 'ab12'),
      jobKeys.idempotency('grt_1', 'k-1'),
      jobKeys.sweepCursor(),
    ];
    expect(
      rows.map(([pk, sk]) => ({ pk: render(code(pk ?? '') ?? ''), sk: render(code(sk ?? '') ?? '') })),
    ).toEqual(built);
    const grant = rows[0]?.[2] ?? '';
    const index = grantIndexKeys('auth0|abc', 'ci-bot', 'grt_1');
    expect(grant).toContain(`\`gsi1\` \`OWNER#<owner>\` / \`GRANT#<clientId>\``);
    expect(render('OWNER#<owner>')).toBe(index.gsi1pk);
    expect(render('GRANT#<clientId>')).toBe(index.gsi1sk);
    expect(grant).toContain(`\`gsi2\` \`${index.gsi2pk}\` / \`<grantId>\``);
    expect(grant).toContain('`CLIENT#<clientId>` / `GRANT`');
    expect(jobKeys.legacyGrantHead('ci-bot')).toEqual({ pk: render('CLIENT#<clientId>'), sk: 'GRANT' });
    const states = /state \((`[a-z]+`(?:, `[a-z]+`)*)\)/.exec(rows[3]?.[2] ?? '')?.[1];
    expect(states?.split(', ').map((state) => state.slice(1, -1))).toEqual([...JOB_STATES]);
  });

  it('the transcript caps are the constants of transcript-limits.ts, and cut where the page says', () => {
    const rows = tableRows(PAGE, '| what | cap | when exceeded |');
    const caps = Object.fromEntries(rows.map(([what, cap]) => [what?.replace(/ \(.*$/, ''), cap]));
    expect(caps).toEqual({
      'one tool result': `${MAX_TOOL_RESULT_BYTES.toLocaleString('en')} bytes, marker included`,
      'one refusal': `${MAX_REFUSAL_BYTES.toLocaleString('en')} bytes`,
      'tool calls in one model answer': String(MAX_TOOL_USES_PER_MESSAGE),
      'a tool_use id or name': `${MAX_TOOL_USE_ID_BYTES} bytes`,
      'one model answer': `${MAX_ASSISTANT_CONTENT_BYTES.toLocaleString('en')} bytes`,
      'arguments of a call that needs approval': `${MAX_APPROVAL_ARGS_BYTES.toLocaleString('en')} bytes`,
      "the run's `result.text`": `${MAX_RESULT_TEXT_BYTES / 1024} KiB`,
      "a `report` destination's report": `${REPORT_MAX_ACTIONS} actions, then ${REPORT_MAX_BYTES / 1024} KiB or the room its run item has left under 400 KB (${RUN_ITEM_MARGIN_BYTES / 1024} KiB kept for keys and the delivery record)`,
    });
    const ending = (what: string) =>
      /ending `([^`]*)`/.exec(rows.find(([cell]) => cell?.startsWith(what))?.[2] ?? '')?.[1] ?? '?';
    const long = '€'.repeat(100_000);
    const result = capToolResult(long);
    expect(result.endsWith(ending('one tool result'))).toBe(true);
    expect(Buffer.byteLength(result)).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
    expect(capRefusal(long).endsWith(ending('one refusal'))).toBe(true);
    expect(Buffer.byteLength(capRefusal(long))).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
    expect(capResultText(long).endsWith(ending("the run's `result.text`"))).toBe(true);
    expect(reportCutNote(1000).trim()).toBe(ending("a `report` destination's report").replace('N', '1000'));
  });

  it('the limits the prose quotes are the constants the code uses', () => {
    expect(page).toContain(`each filled to at most ${MESSAGE_ITEM_BUDGET_BYTES.toLocaleString('en')} bytes`);
    expect(page).toContain(
      `\`shared/store/run-scopes.ts\`, ${RUN_SCOPE_CACHE_SIZE.toLocaleString('en')} runs`,
    );
    expect(page).toContain(`\`shared/store/version-cache.ts\`, ${VERSION_CACHE_SIZE} versions`);
    expect(page).toContain(
      `would pass\n  ${MERGED_TRANSACTION_BOUND.items} items or ${MERGED_TRANSACTION_BOUND.bytes / 1024 / 1024} MB`,
    );
    expect(page).toContain(
      `at most ${TRANSACTION_MAX_ITEMS} items and ${TRANSACTION_MAX_BYTES / 1024 / 1024} MB in all`,
    );
    expect(page.replace(/\s+/g, ' ')).toContain(
      `the name cut to ${STORED_ERROR_NAME_UNITS} and the message to ${STORED_ERROR_MESSAGE_UNITS.toLocaleString('en')} UTF-16 units`,
    );
    // The depth a value may nest, where an owner sends it and where a tool_use input is kept as a map.
    expect(page.replace(/\s+/g, ' ')).toContain(
      `a value may nest ${MAX_VALUE_DEPTH} levels, \`MAX_VALUE_DEPTH\``,
    );
    expect(page.replace(/\s+/g, ' ')).toContain(`nesting past ${MAX_VALUE_DEPTH} levels; [data types]`);
    expect(page).toContain('`RUN_TRANSITIONS` (data, in `shared/schemas/run.ts`)');
    expect(Object.keys(RUN_TRANSITIONS).length).toBeGreaterThan(0);
  });
});
