/**
 * `external_task` nodes at save time: the node's shape (engine name, mode, timeout), its payload templates (over
 * the input and upstream steps only), its result schema (a JSON Schema object that later conditions may read),
 * its credential slot; and, through the API, its engine against the deployment's registry. Every error names
 * the node.
 */
import { describe, expect, it } from 'vitest';
import { validateWorkflowDefinition } from '../../shared/workflow-file/index.ts';
import { apiHarness, itemsOf, ownTableName } from '../api/helpers.ts';

/* biome-ignore lint/suspicious/noExplicitAny: test fixtures are mutated freely by the cases. */
type Loose = Record<string, any>;

/** start → prepare (service) → build (external) → done, and a conditional branch on the build's result. */
const externalGraph = (): Loose => ({
  kind: 'graph',
  name: 'nightly-build',
  input: { type: 'object', properties: { branch: { type: 'string' } }, required: ['branch'] },
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  credRefs: { engine_token: { secret: 'wf/alice/engine-token' } },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'prepare', type: 'service_task', action: 'notes_append', args: { name: 'log', line: 'go' } },
    {
      id: 'build',
      type: 'external_task',
      engine: 'http-runtime',
      mode: 'live',
      payload: { branch: '{{ input.branch }}', after: '{{ steps.prepare.status }}', fixed: 3 },
      output: {
        type: 'object',
        properties: { passed: { type: 'boolean' }, failures: { type: 'integer' } },
        required: ['passed'],
      },
      credential: 'engine_token',
      timeoutSeconds: 1800,
    },
    { id: 'done', type: 'end' },
    { id: 'broken', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'prepare' },
    { from: 'prepare', to: 'build' },
    { from: 'build', to: 'done', when: 'steps.build.output.passed = true' },
    { from: 'build', to: 'broken', when: 'steps.build.output.passed = false' },
  ],
});

const errorsOf = (graph: Loose) => {
  const result = validateWorkflowDefinition(graph);
  return result.ok ? [] : result.errors;
};

describe('external_task validation: good nodes', () => {
  it('accepts a live node with templated payload, result schema, credential slot and conditions on its output', () => {
    expect(errorsOf(externalGraph())).toEqual([]);
  });

  it('fills the defaults: mode off (nothing is dispatched until chosen), an empty payload, a one-hour timeout', () => {
    const graph = externalGraph();
    graph.nodes[2] = { id: 'build', type: 'external_task', engine: 'http-runtime' };
    graph.edges = graph.edges.slice(0, 2).concat({ from: 'build', to: 'done' });
    graph.nodes.pop();
    const result = validateWorkflowDefinition(graph);
    expect(result.ok).toBe(true);
    const node = result.ok && result.definition.kind === 'graph' ? result.definition.nodes[2] : undefined;
    expect(node).toMatchObject({ mode: 'off', payload: {}, timeoutSeconds: 3600 });
  });
});

const badNodes: [string, (g: Loose) => void, string, string][] = [
  [
    'engine name that is no engine name',
    (g) => {
      g.nodes[2].engine = 'Batch_Runner';
    },
    'nodes[2].engine',
    'must be an engine name',
  ],
  [
    'unknown mode',
    (g) => {
      g.nodes[2].mode = 'dry_run';
    },
    'nodes[2].mode',
    'must be one of "off", "shadow", "report_only", "live"',
  ],
  [
    'timeout under a minute',
    (g) => {
      g.nodes[2].timeoutSeconds = 5;
    },
    'nodes[2].timeoutSeconds',
    'must be at least 60',
  ],
  [
    'unknown field',
    (g) => {
      g.nodes[2].script = 'make';
    },
    'nodes[2]',
    'script',
  ],
  [
    'payload template over a step that does not exist',
    (g) => {
      g.nodes[2].payload.branch = '{{ steps.nope.output }}';
    },
    'nodes[2].payload.branch',
    "node 'build': 'steps.nope': there is no step 'nope'",
  ],
  [
    'payload template over a step that is not upstream',
    (g) => {
      g.nodes[2].payload.nested = { deep: ['{{ steps.done.status }}'] };
    },
    'nodes[2].payload.nested.deep[0]',
    "node 'build': 'steps.done': step 'done' is not upstream of node 'build'",
  ],
  [
    'payload template that does not parse',
    (g) => {
      g.nodes[2].payload.branch = '{{ input.branch + }}';
    },
    'nodes[2].payload.branch',
    "node 'build': template placeholder 1 does not parse",
  ],
  [
    'result schema that is not a JSON Schema',
    (g) => {
      g.nodes[2].output = { type: 'object', properties: { passed: { type: 'yes-no' } } };
    },
    'nodes[2].output',
    "node 'build': ",
  ],
  [
    'result schema that is not an object',
    (g) => {
      g.nodes[2].output = { type: 'string' };
    },
    'nodes[2].output',
    "node 'build': a structured output is a JSON Schema with type 'object'",
  ],
  [
    'credential slot not declared in credRefs',
    (g) => {
      g.nodes[2].credential = 'other_token';
    },
    'nodes[2].credential',
    "node 'build': credential slot 'other_token' is not declared in credRefs",
  ],
  [
    'condition over a field the result schema lacks',
    (g) => {
      g.edges[2].when = 'steps.build.output.passes = true';
    },
    'edges[2].when',
    "'steps.build.output.passes' is not a field of the output schema of 'build'",
  ],
];

describe('external_task validation: bad nodes are refused naming the node', () => {
  it.each(badNodes)('%s', (_name, breakIt, path, fragment) => {
    const graph = externalGraph();
    breakIt(graph);
    expect(errorsOf(graph)).toContainEqual({ path, message: expect.stringContaining(fragment) });
  });
});

/** As saved through the API: without the credential, whose secret must be in the saving owner's namespace. */
const savable = (): Loose => {
  const graph = externalGraph();
  delete graph.credRefs;
  delete graph.nodes[2].credential;
  return graph;
};

const tableName = await ownTableName();

describe("Saving a graph checks each external_task's engine against the deployment", () => {
  const h = apiHarness({ tableName });
  const none = apiHarness({ externalEngines: null });

  it('accepts an enabled engine', async () => {
    expect((await h.alice.post('/v1/workflows', savable())).status).toBe(201);
  });

  it('refuses unknown engines, one 400 field per node naming it, and writes nothing', async () => {
    const graph = savable();
    graph.name = 'two-engines';
    graph.nodes[2].engine = 'nope-engine';
    graph.nodes.splice(3, 0, { id: 'second', type: 'external_task', engine: 'batch-runner', mode: 'shadow' });
    graph.edges.splice(2, 0, { from: 'prepare', to: 'second' }, { from: 'second', to: 'done' });
    graph.edges = graph.edges.filter((edge: Loose) => edge.to !== 'broken');
    graph.edges = graph.edges.map((edge: Loose) => ({ from: edge.from, to: edge.to }));
    graph.nodes = graph.nodes.filter((node: Loose) => node.id !== 'broken');
    expect(errorsOf(graph)).toEqual([]);
    const before = await itemsOf(h.store, h.owners.alice);
    const reply = await h.alice.post('/v1/workflows', graph);
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      {
        path: 'nodes[2].engine',
        message: expect.stringMatching(/^node 'build': unknown external engine "nope-engine"/),
      },
      {
        path: 'nodes[3].engine',
        message: expect.stringMatching(/^node 'second': unknown external engine "batch-runner"/),
      },
    ]);
    expect(await itemsOf(h.store, h.owners.alice)).toBe(before);
  });

  it('refuses an external_task when the deployment configures no engine, on a draft too', async () => {
    const reply = await none.alice.post('/v1/workflows?draft=true', savable());
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0]).toMatchObject({ path: 'nodes[2].engine' });
    expect(reply.body.error.fields[0].message).toContain("node 'build'");
  });
});
