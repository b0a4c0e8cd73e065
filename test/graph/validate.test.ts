import { describe, expect, it } from 'vitest';
import { validateWorkflowDefinition } from '../../shared/workflow-file/index.ts';
import { at, refundGraph, serviceNode } from './fixtures.ts';

type Graph = ReturnType<typeof refundGraph>;
const errorsOf = (graph: Graph) => {
  const result = validateWorkflowDefinition(graph);
  return result.ok ? [] : result.errors;
};

describe('graph validation: good graphs', () => {
  it('accepts the refund example shape from issue #13', () => {
    expect(errorsOf(refundGraph())).toEqual([]);
  });
  it('accepts parallel branches that join before one end', () => {
    const graph = refundGraph();
    graph.nodes = [
      { id: 'start', type: 'start' },
      serviceNode('a'),
      serviceNode('b'),
      serviceNode('join'),
      { id: 'done', type: 'end' },
    ];
    graph.edges = [
      { from: 'start', to: 'a' },
      { from: 'start', to: 'b' },
      { from: 'a', to: 'join' },
      { from: 'b', to: 'join', when: 'steps.b.status = "succeeded"' },
      { from: 'join', to: 'done' },
    ];
    expect(errorsOf(graph)).toEqual([]);
  });
  it('accepts parallel branches that both end in the same end node (which joins them)', () => {
    const graph = refundGraph();
    graph.nodes = [
      { id: 'start', type: 'start' },
      serviceNode('a'),
      serviceNode('b'),
      { id: 'done', type: 'end' },
    ];
    graph.edges = [
      { from: 'start', to: 'a' },
      { from: 'start', to: 'b' },
      { from: 'a', to: 'done' },
      { from: 'b', to: 'done' },
    ];
    expect(errorsOf(graph)).toEqual([]);
  });
  it('refuses parallel branches ending in different ends, though one of them is conditional', () => {
    const graph = refundGraph();
    graph.nodes = [
      { id: 'start', type: 'start' },
      serviceNode('a'),
      serviceNode('b'),
      { id: 'done', type: 'end' },
      { id: 'other', type: 'end' },
    ];
    graph.edges = [
      { from: 'start', to: 'a' },
      { from: 'start', to: 'b' },
      { from: 'a', to: 'done' },
      { from: 'b', to: 'done', when: 'input.message = "1"' },
      { from: 'b', to: 'other', when: 'input.message = "2"' },
    ];
    expect(errorsOf(graph)).toEqual([
      {
        path: 'nodes[0]',
        message: expect.stringContaining("can reach different end nodes ('done' and 'other')"),
      },
    ]);
  });
});

/** Each case breaks the refund graph in one place: [name, break it, exact path, message fragment]. */
const badGraphs: [string, (graph: Graph) => void, string, string][] = [
  [
    'two starts',
    (g) => g.nodes.push({ id: 'start2', type: 'start' }) && g.edges.push({ from: 'start2', to: 'triage' }),
    'nodes[7]',
    "node 'start2': a second start node",
  ],
  [
    'no start',
    (g) => {
      g.nodes[0].type = 'end';
      g.edges.shift();
    },
    'nodes',
    'exactly one start node; there is none',
  ],
  [
    'no end',
    (g) => {
      g.nodes.splice(5, 2);
      g.edges = g.edges.filter((e: { to: string }) => !['done', 'declined'].includes(e.to));
    },
    'nodes',
    'at least one end node',
  ],
  [
    'duplicate node id',
    (g) => {
      g.nodes[at(g, 'draft_reply')].id = 'triage';
    },
    'nodes[4].id',
    "node 'triage': the id is already used by nodes[1]",
  ],
  [
    'dangling edge target',
    (g) => g.edges.push({ from: 'triage', to: 'ghost' }),
    'edges[7].to',
    "edge 'triage' → 'ghost': 'ghost' is not a node",
  ],
  [
    'dangling edge source',
    (g) => g.edges.push({ from: 'ghost', to: 'done' }),
    'edges[7].from',
    "'ghost' is not a node of this graph",
  ],
  [
    'edge into start',
    (g) => g.edges.push({ from: 'triage', to: 'start' }),
    'edges[7].to',
    'no edge may lead into the start node',
  ],
  [
    'edge out of an end',
    (g) => g.edges.push({ from: 'done', to: 'draft_reply' }),
    'edges[7].from',
    "edge 'done' → 'draft_reply': no edge may leave an end node",
  ],
  [
    'duplicate edge',
    (g) => g.edges.push({ from: 'start', to: 'triage' }),
    'edges[7]',
    'the same edge as edges[0]',
  ],
  [
    'cycle',
    (g) => g.edges.push({ from: 'draft_reply', to: 'triage' }),
    'edges[7]',
    'closes a cycle (triage → manager_review → issue_refund → draft_reply → triage)',
  ],
  [
    'unreachable node',
    (g) => {
      g.nodes.push(serviceNode('orphan'));
      g.edges.push({ from: 'orphan', to: 'done' });
    },
    'nodes[7]',
    "node 'orphan': cannot be reached from the start node 'start'",
  ],
  [
    'node with no way to an end',
    (g) => {
      g.nodes.push(serviceNode('dead_end'));
      g.edges.push({ from: 'triage', to: 'dead_end', when: 'false' });
    },
    'nodes[7]',
    "node 'dead_end': has no path to an end node",
  ],
  [
    'condition on an unknown step',
    (g) => {
      g.edges[1].when = 'steps.triag.output.amount > 100';
    },
    'edges[1].when',
    "there is no step 'triag'",
  ],
  [
    'condition on a step that is not upstream',
    (g) => {
      g.edges[1].when = 'steps.draft_reply.status = "succeeded"';
    },
    'edges[1].when',
    "step 'draft_reply' is not upstream of edge 'triage' → 'manager_review'",
  ],
  [
    'bad JSONata',
    (g) => {
      g.edges[1].when = 'steps.triage.output.amount >';
    },
    'edges[1].when',
    "edge 'triage' → 'manager_review': does not parse",
  ],
  [
    'condition reading something other than run data',
    (g) => {
      g.edges[1].when = 'amount > 100';
    },
    'edges[1].when',
    "'amount' is not run data",
  ],
  [
    'condition on a field the output schema lacks',
    (g) => {
      g.edges[1].when = 'steps.triage.output.total > 100';
    },
    'edges[1].when',
    "'steps.triage.output.total' is not a field of the output schema of 'triage'",
  ],
  [
    'condition on an unknown step field',
    (g) => {
      g.edges[1].when = 'steps.triage.result.amount > 100';
    },
    'edges[1].when',
    'a step has only status, output, timedOut',
  ],
  [
    'nondeterministic condition',
    (g) => {
      g.edges[1].when = '$random() > 0.5';
    },
    'edges[1].when',
    '$random() is not allowed',
  ],
  [
    'prompt template on an unknown input field',
    (g) => {
      g.nodes[1].prompt = 'Message: {{ input.mesage }}';
    },
    'nodes[1].prompt',
    "node 'triage': 'input.mesage' is not a field of the input schema",
  ],
  [
    'prompt template that does not parse',
    (g) => {
      g.nodes[4].prompt = 'Amount {{ steps.triage.output.amount + }}';
    },
    'nodes[4].prompt',
    "node 'draft_reply': template placeholder 1 does not parse",
  ],
  [
    'service args template on a later step',
    (g) => {
      g.nodes[3].args.note = '{{ steps.draft_reply.output }}';
    },
    'nodes[3].args.note',
    "step 'draft_reply' is not upstream of node 'issue_refund'",
  ],
  [
    'human task context on an unknown field',
    (g) => {
      g.nodes[2].context[1] = 'steps.triage.output.why';
    },
    'nodes[2].context[1]',
    "'steps.triage.output.why' is not a field",
  ],
  [
    'structured-output schema invalid',
    (g) => {
      g.nodes[1].output.required = ['amount', 'total'];
    },
    'nodes[1].output',
    'required property "total" is not defined',
  ],
  [
    'structured-output schema not an object',
    (g) => {
      g.nodes[1].output = { type: 'string' };
    },
    'nodes[1].output',
    "type 'object'",
  ],
  [
    'form field of an unsupported kind',
    (g) => {
      g.nodes[2].form.properties.items = { type: 'array', items: { type: 'string' } };
    },
    'nodes[2].form.properties.items',
    'field \'items\' has type "array"',
  ],
  [
    'form with an unknown string format',
    (g) => {
      g.nodes[2].form.properties.note.format = 'rich-text';
    },
    'nodes[2].form.properties.note',
    "forms know only 'long-text'",
  ],
  [
    'timeout output that does not match the form',
    (g) => {
      g.nodes[2].onTimeout.output = { note: 'late' };
    },
    'nodes[2].onTimeout.output',
    "must have required property 'approve'",
  ],
  [
    'service action that does not exist',
    (g) => {
      g.nodes[3].action = 'issue_refnd';
    },
    'nodes[3].action',
    "'issue_refnd' is neither a built-in action nor a connector",
  ],
  [
    'irreversible service action without approvers',
    (g) => {
      delete g.approvals;
      g.nodes[2].assignees = ['manager@example.com'];
    },
    'nodes[3].action',
    'always needs approval',
  ],
  [
    'agent_task action that does not exist',
    (g) => {
      g.nodes[1].allowedActions = ['fetch_url', 'lookup_order'];
    },
    'nodes[1].allowedActions[1]',
    "node 'triage': 'lookup_order' is neither a built-in action",
  ],
  [
    'agent_task gate for an action it is not allowed',
    (g) => {
      g.nodes[1].gates = { http_request: 'allow' };
    },
    'nodes[1].gates.http_request',
    "gate for 'http_request', which is not in this node's allowedActions",
  ],
  [
    'graph gate no service_task uses',
    (g) => {
      g.gates = { fetch_url: 'deny' };
    },
    'gates.fetch_url',
    'which no service_task calls',
  ],
  [
    'parallel branches that never join',
    (g) => {
      g.edges[2] = { from: 'triage', to: 'issue_refund' };
      g.edges[4] = { from: 'manager_review', to: 'declined' };
      g.edges.splice(3, 1);
    },
    'nodes[1]',
    "node 'triage': its branches to 'manager_review' and 'issue_refund' run at the same time and never join",
  ],
  [
    'input schema invalid',
    (g) => {
      g.input = { type: 'object', properties: { message: { type: 'text' } } };
    },
    'input',
    'the input schema is not a valid JSON Schema',
  ],
  [
    'too many outgoing edges',
    (g) => {
      for (let i = 0; i < 21; i += 1) {
        g.nodes.push({ id: `end_${i}`, type: 'end' });
        g.edges.push({ from: 'triage', to: `end_${i}`, when: `input.k = ${i}` });
      }
    },
    'nodes[1]',
    "node 'triage': has 23 outgoing edges; the limit is 20",
  ],
];

describe('graph validation: bad graphs are refused naming the node or edge', () => {
  it('has at least 20 cases', () => expect(badGraphs.length).toBeGreaterThanOrEqual(20));
  it.each(badGraphs)('%s', (_name, breakIt, path, fragment) => {
    const graph = refundGraph();
    breakIt(graph);
    const errors = errorsOf(graph);
    expect(errors).toContainEqual({ path, message: expect.stringContaining(fragment) });
  });
});
