/**
 * docs/graph-workflows.md checked against the code. Its YAML examples (and the invalid ones with the errors shown
 * under them) are validated by test/cli/workflow-file-doc.test.ts; here: the refund example runs its branches on
 * the real readiness rules, every example error of the Validation table is what the validator answers the refund
 * (or nightly-build) example changed as the rule says, the run data and step statuses are the code's, the limits
 * are the constants, and the `wf` lines parse.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ApiError } from '../../shared/api/errors.ts';
import { checkExternalDefinition } from '../../shared/api/external-checks.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../../shared/external/builtins.ts';
import { createEngineChecks } from '../../shared/external/registry.ts';
import { VALUE_BOUNDS } from '../../shared/graph/expression-bounds.ts';
import { EXPRESSION_LIMITS } from '../../shared/graph/expressions.ts';
import {
  MAX_DEFINITION_BYTES,
  MAX_OUTGOING_EDGES,
  MAX_TEMPLATE_PLACEHOLDERS,
  type RunData,
  readiness,
  STEP_DATA_FIELDS,
  STEP_STATUSES,
} from '../../shared/graph/index.ts';
import { MAX_SCHEMA_BYTES } from '../../shared/graph/json-schemas.ts';
import type { AnyWorkflowDefinition } from '../../shared/schemas/any-workflow.ts';
import { parseWorkflowText } from '../../shared/workflow-file/index.ts';
import { wf } from '../cli/support.ts';
import { blockWith, fencedBlocks, pageText, tableRows } from './fenced-blocks.ts';

const PAGE = 'graph-workflows.md';
const page = pageText(PAGE);
const flat = page.replace(/\s+/g, ' ');
const UNREACHABLE = 'http://127.0.0.1:1';
const dir = mkdtempSync(join(tmpdir(), 'wf-docs-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Node = Record<string, unknown> & { id: string; type: string };
type Graph = Record<string, unknown> & { nodes: Node[]; edges: Record<string, unknown>[] };
const refund = () => parse(blockWith(PAGE, 'name: refund-request').body) as Graph;
const nightly = () => parse(blockWith(PAGE, 'name: nightly-build').body) as Graph;
const node = (graph: Graph, id: string) => graph.nodes.find((each) => each.id === id) as Node;
/** nightly-build with its build step at nodes[2], as the table's external_task errors name it. */
function nightlyAt2(): Graph {
  const graph = nightly();
  graph.nodes.splice(1, 0, { id: 'prepare', type: 'service_task', action: 'current_time' });
  graph.edges[0] = { from: 'start', to: 'prepare' };
  graph.edges.push({ from: 'prepare', to: 'build' });
  return graph;
}
const problems = (graph: Graph) => {
  const result = parseWorkflowText(JSON.stringify(graph));
  return result.ok ? [] : result.errors.map((error) => `${error.path}: ${error.message}`);
};

/** An edit of a graph in place, as a change. */
const change = (edit: (graph: Graph) => void) => (graph: Graph) => {
  edit(graph);
  return graph;
};

/** One change of an example per example error of the Validation table, in the table's order. */
const CHANGES: ((graph: Graph) => Graph | string[])[] = [
  (g) => ({ ...g, nodes: [...g.nodes, { id: 'start2', type: 'start' }] }),
  (g) => ({ ...g, nodes: g.nodes.filter((n) => n.type !== 'end') }),
  change((g) => {
    (g.nodes[4] as Node).id = 'triage';
  }),
  (g) => ({ ...g, edges: [...g.edges, { from: 'triage', to: 'ghost' }] }),
  (g) => ({ ...g, edges: [...g.edges, { from: 'done', to: 'draft_reply' }] }),
  (g) => ({ ...g, edges: [...g.edges, { from: 'start', to: 'triage' }] }),
  (g) => ({ ...g, edges: [...g.edges, { from: 'draft_reply', to: 'triage' }] }),
  (g) => ({
    ...g,
    nodes: [...g.nodes, { id: 'orphan', type: 'service_task', action: 'current_time' }],
    edges: [...g.edges, { from: 'orphan', to: 'done' }],
  }),
  (g) => ({
    ...g,
    nodes: [...g.nodes, { id: 'dead_end', type: 'service_task', action: 'current_time' }],
    edges: [...g.edges, { from: 'triage', to: 'dead_end', when: 'steps.triage.output.amount = 0' }],
  }),
  (g) => {
    // Both edges out of triage without their conditions: the two branches run at the same time.
    for (const edge of g.edges.slice(1, 3)) delete edge.when;
    return g;
  },
  ...[
    'steps.triage.output.amount >',
    'steps.triag.output.amount > 100',
    "steps.draft_reply.status = 'succeeded'",
    'amount > 100',
    'steps.triage.result > 100',
    'steps.triage.output.total > 100',
    '$random() > 0.5',
  ].map((when) =>
    change((g) => {
      (g.edges[1] as { when: string }).when = when;
    }),
  ),
  change((g) => {
    node(g, 'triage').prompt = 'Customer message: {{ input.mesage }}';
  }),
  change((g) => {
    (node(g, 'issue_refund').args as Record<string, string>).note = '{{ steps.draft_reply.output.text }}';
  }),
  change((g) => {
    (node(g, 'manager_review').context as string[])[1] = 'steps.triage.output.why';
  }),
  change((g) => {
    (node(g, 'triage').output as { required: string[] }).required.push('total');
  }),
  change((g) => {
    node(g, 'triage').output = { type: 'string' };
  }),
  change((g) => {
    form(g).items = { type: 'array', items: { type: 'string' } };
  }),
  change((g) => {
    (form(g).note as Record<string, string>).format = 'rich-text';
  }),
  change((g) => {
    node(g, 'manager_review').onTimeout = { action: 'continue', output: { note: 'timed out' } };
  }),
  change((g) => {
    form(g).code = { type: 'string', pattern: '(a)\\1' };
  }),
  (g) => ({ ...g, input: { type: 'object', properties: { message: { type: 'strin' } } } }),
  change((g) => {
    node(g, 'issue_refund').action = 'issue_refnd';
  }),
  (g) => {
    const { approvals: _approvals, ...rest } = g;
    return rest as Graph;
  },
  change((g) => {
    node(g, 'triage').allowedActions = ['current_time', 'lookup_order'];
  }),
  change((g) => {
    node(g, 'triage').gates = { http_request: 'deny' };
  }),
  (g) => ({ ...g, gates: { fetch_url: 'deny' } }),
  () => {
    const g = nightlyAt2();
    (node(g, 'build').payload as Record<string, string>).branch = '{{ steps.nope.output }}';
    return g;
  },
  () => {
    const g = nightlyAt2();
    node(g, 'build').output = { type: 'string' };
    return g;
  },
  () => {
    const g = nightlyAt2();
    node(g, 'build').credential = 'other_token';
    return g;
  },
  () => {
    const g = nightlyAt2();
    node(g, 'build').engine = 'nope-engine';
    const definition = parseWorkflowText(JSON.stringify(g));
    expect(definition.ok).toBe(true);
    const engines = createEngineChecks(BUILTIN_ENGINE_FACTORIES, {
      'http-runtime': { enabled: true, settings: { endpoint: 'https://engine.internal' } },
    });
    try {
      checkExternalDefinition(
        { externalEngines: engines },
        (definition as { definition: AnyWorkflowDefinition }).definition,
      );
    } catch (error) {
      return ((error as ApiError).fields ?? []).map((field) => `${field.path}: ${field.message}`);
    }
    return [];
  },
  (g) => ({ ...g, destination: { type: 'http', action: 'issue_refund' } }),
  (g) => {
    const ends = Array.from({ length: 21 }, (_, i) => ({ id: `end_${i}`, type: 'end' }));
    return {
      ...g,
      nodes: [...g.nodes, ...ends],
      edges: [
        ...g.edges,
        ...ends.map((end, i) => ({ from: 'triage', to: end.id, when: `input.message = '${i}'` })),
      ],
    };
  },
];
function form(graph: Graph): Record<string, unknown> {
  return (node(graph, 'manager_review').form as { properties: Record<string, unknown> }).properties;
}

/** Steps the refund example runs, on the real readiness rules, with the outputs given per step. */
async function walk(outputs: Record<string, unknown>): Promise<{ succeeded: string[]; skipped: string[] }> {
  const graph = parseWorkflowText(blockWith(PAGE, 'name: refund-request').body);
  if (!graph.ok || graph.definition.kind !== 'graph') throw new Error('the refund example is no graph');
  const data: RunData = { input: { message: 'refund please' }, steps: {} };
  const succeeded: string[] = [];
  const skipped: string[] = [];
  for (let round = 0; round < 20; round++) {
    const next = await readiness(graph.definition, data);
    for (const id of next.skipped) {
      skipped.push(id);
      data.steps[id] = { status: 'skipped' };
    }
    for (const { id } of next.ready) {
      succeeded.push(id);
      data.steps[id] = { status: 'succeeded', output: outputs[id] };
    }
    if (next.outcome !== 'running') break;
  }
  return { succeeded, skipped };
}

describe('docs/graph-workflows.md', () => {
  it('has the eleven blocks this file and workflow-file-doc.test.ts check', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual([
      'yaml',
      'text',
      ...['yaml invalid', 'text', 'yaml invalid', 'text', 'yaml invalid', 'text'],
      'sh',
      '',
      'yaml',
    ]);
  });

  it.each([
    ['over 100: a manager reviews, approves, the refund is issued', 150, true],
    ['over 100: a manager declines', 150, false],
    ['up to 100: issued without a review', 40, undefined],
  ])('the refund example runs as the page says, %s', async (_, amount, approve) => {
    const { succeeded, skipped } = await walk({
      triage: { amount, reason: 'damaged', customerId: 'c_1' },
      manager_review: { approve },
      issue_refund: { refundId: 'r_1' },
    });
    if (amount <= 100) {
      expect(succeeded).toEqual(['start', 'triage', 'issue_refund', 'draft_reply', 'done']);
      expect(skipped).toEqual(['manager_review', 'declined']);
    } else if (approve) {
      expect(succeeded).toEqual(['start', 'triage', 'manager_review', 'issue_refund', 'draft_reply', 'done']);
      expect(skipped).toEqual(['declined']);
    } else {
      expect(succeeded).toEqual(['start', 'triage', 'manager_review', 'declined']);
      expect(skipped).toEqual(['issue_refund', 'draft_reply', 'done']);
    }
  });

  it('every example error of the Validation table is what the validator answers', () => {
    const errors = tableRows(PAGE, '| rule | example error |').map(
      ([, error]) => /^`(.*)`$/.exec(error ?? '')?.[1],
    );
    expect(errors.every((error) => error !== undefined)).toBe(true);
    expect(errors).toHaveLength(CHANGES.length);
    errors.forEach((documented, index) => {
      const changed = (CHANGES[index] as (graph: Graph) => Graph | string[])(refund());
      const answered = Array.isArray(changed) ? changed : problems(changed);
      // `…` stands for the rest of the message (unless the message itself has one).
      const [head = '', tail = ''] = (documented ?? '').split('…');
      expect(
        answered.some(
          (each) =>
            each === documented ||
            (each.startsWith(head.replace(/\($/, '')) && each.endsWith(tail.replace(/^\)/, ''))),
        ),
        `${documented}\nnot in\n${answered.join('\n')}`,
      ).toBe(true);
    });
  });

  it('the run data has the step fields and statuses of the code', () => {
    const block = blockWith(PAGE, '"steps": { "<nodeId>"').body;
    const fields = [...(/"<nodeId>": \{ (.*) \}/.exec(block)?.[1] ?? '').matchAll(/"(\w+)":/g)].map(
      (m) => m[1],
    );
    expect(fields).toEqual([...STEP_DATA_FIELDS]);
    expect(flat).toContain(`Only these three fields exist on a step`);
    const statuses = /`status` is one of (.*?)\. /.exec(flat)?.[1] ?? '';
    expect([...statuses.matchAll(/`(\w+)`/g)].map((m) => m[1])).toEqual([...STEP_STATUSES]);
    const chain = blockWith(PAGE, 'pending → running').body;
    expect([...chain.matchAll(/\w+/g)].map((m) => m[0]).sort()).toEqual([...STEP_STATUSES].sort());
  });

  it('the limits are the constants the validator and the evaluator use', () => {
    const schema = JSON.parse(pageText('workflow.schema.json')) as {
      oneOf: { properties: Record<string, { const?: string; minItems?: number; maxItems?: number }> }[];
    };
    const graph = schema.oneOf.find((variant) => variant.properties.kind?.const === 'graph')?.properties;
    const kb = (bytes: number) => `${bytes / 1000} KB`;
    expect(flat).toContain(
      `Limits: ${graph?.nodes?.maxItems} nodes, ${graph?.edges?.maxItems} edges, ${MAX_OUTGOING_EDGES} outgoing edges per node, ${kb(MAX_DEFINITION_BYTES)} of definition`,
    );
    expect(flat).toContain(
      `${kb(MAX_SCHEMA_BYTES)} per JSON Schema, ${EXPRESSION_LIMITS.maxSourceChars.toLocaleString('en')} characters per condition, ${MAX_TEMPLATE_PLACEHOLDERS} placeholders per template`,
    );
    expect(flat).toContain(`the steps (${graph?.nodes?.minItems} to ${graph?.nodes?.maxItems})`);
    expect(flat).toContain(`up to ${graph?.edges?.maxItems}: \`from\``);
    expect(flat).toContain(`At most ${MAX_TEMPLATE_PLACEHOLDERS} placeholders per template`);
    const l = EXPRESSION_LIMITS;
    expect(flat).toContain(
      `at most ${l.maxSourceChars.toLocaleString('en')} characters of expression, ${l.maxSteps.toLocaleString('en')} evaluation steps, ${l.maxDepth} levels of evaluation depth, sequences of ${l.maxSequence.toLocaleString('en')} items, ${kb(l.maxInputBytes)} of run data in and ${kb(l.maxResultBytes)} of result out`,
    );
    expect(flat).toContain(
      `One bound is on time: a backstop of ${l.backstopCpuMs / 1000} s of CPU per evaluation (\`GRAPH_TOO_MUCH_CPU\`)`,
    );
    const perInvocation = l.maxStepsPerInvocation.toLocaleString('en');
    expect(flat).toContain(`share a step budget: **${perInvocation} evaluation steps in all**`);
    expect(flat).toContain(
      `${l.maxSteps.toLocaleString('en')} evaluation steps per expression, and ${perInvocation} for all`,
    );
    expect(flat).toContain(`took more than ${l.maxStepsPerInvocation} evaluation steps together`);
    expect(flat).toContain(
      `at most ${VALUE_BOUNDS.maxValueChars.toLocaleString('en')} characters (or items) per value`,
    );
    expect(flat).toContain(
      `at most ${VALUE_BOUNDS.maxProducedUnits.toLocaleString('en')} characters and items`,
    );
  });

  it("the Deadline section's advice quotes the example file's run timeout and review timeout", () => {
    const quoted =
      /\(\[`(examples\/refund-request\.graph\.yaml)`\]\(\.\.\/\1\): (\d+) h for a (\d+) h review\)/.exec(
        flat,
      );
    expect(quoted, 'the sentence names the example file').not.toBeNull();
    const file = parse(readFileSync(new URL(`../../${quoted?.[1]}`, import.meta.url), 'utf8')) as Graph & {
      budget: { runTimeoutSeconds: number };
    };
    const review = file.nodes.find((each) => each.type === 'human_task') as Node & { timeoutSeconds: number };
    expect([file.budget.runTimeoutSeconds / 3600, review.timeoutSeconds / 3600]).toEqual([
      Number(quoted?.[2]),
      Number(quoted?.[3]),
    ]);
  });

  it('the draft and publish lines parse and go to send their request', async () => {
    const lines = blockWith(PAGE, '--draft')
      .body.split('\n')
      .map((line) => line.replace(/\s+#.*$/, ''));
    expect(lines).toHaveLength(2);
    const file = join(dir, 'refund.graph.yaml');
    writeFileSync(file, blockWith(PAGE, 'name: refund-request').body);
    for (const line of lines) {
      const argv = line
        .split(/\s+/)
        .slice(1)
        .map((word) => (word === 'refund.graph.yaml' ? file : word));
      const result = await wf(argv, { WF_URL: UNREACHABLE, WF_API_KEY: 'wfl_docs_example_key' });
      expect(result.stderr, line).toBe(
        `wf: cannot reach the runtime at ${UNREACHABLE} (fetch failed); is it running? (wf local up)`,
      );
    }
  });
});
