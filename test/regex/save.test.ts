/**
 * The save check refuses a regex the linear-time engine cannot run, naming the keyword or expression at
 * fault, and runs no owner regex itself (the save bundle has no linear engine; V8's would backtrack).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateWorkflowDefinition } from '../../shared/workflow-file/index.ts';
import { apiHarness } from '../api/helpers.ts';
import { at, refundGraph } from '../graph/fixtures.ts';

type Graph = ReturnType<typeof refundGraph>;
const errorsOf = (graph: Graph) => {
  const result = validateWorkflowDefinition(graph);
  return result.ok ? [] : result.errors;
};
afterEach(() => vi.restoreAllMocks());

describe('save check: regexes', () => {
  it.each([
    [
      'an edge condition',
      (g: Graph) => {
        g.edges[1].when = '$contains(steps.triage.output.reason, /(\\w+) \\1/)';
      },
      'edges[1].when',
      'backreference',
    ],
    [
      'a form field',
      (g: Graph) => {
        g.nodes[at(g, 'manager_review')].form.properties.note = { type: 'string', pattern: '^(?!x)' };
      },
      'nodes[2].form.properties.note.pattern',
      'negative lookahead',
    ],
    [
      'a structured output key pattern',
      (g: Graph) => {
        g.nodes[at(g, 'triage')].output.patternProperties = { '^(?<=a)b': { type: 'string' } };
      },
      'nodes[1].output.patternProperties.^(?<=a)b',
      'lookbehind',
    ],
    [
      'the input schema',
      (g: Graph) => {
        g.input.properties.message.pattern = 'a{2000}';
      },
      'input.properties.message.pattern',
      'repetition of more than 1000',
    ],
  ])('refuses %s that RE2 cannot run, naming it', (_what, breakIt, path, problem) => {
    const graph = refundGraph();
    breakIt(graph);

    expect(errorsOf(graph)).toEqual([{ path, message: expect.stringContaining(problem) }]);
  });

  it('accepts a pattern V8 would backtrack on (it runs on RE2), and runs no pattern to check a timeout output', () => {
    const graph = refundGraph();
    const review = graph.nodes[at(graph, 'manager_review')];
    review.form.properties.note = { type: 'string', pattern: '(a+)+$' };
    review.onTimeout.output = { approve: false, note: `${'a'.repeat(22)}!` };
    let runs = 0;
    const exec = RegExp.prototype.exec;
    vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
      if (this.source === '(a+)+$') runs += 1;
      return exec.call(this, text);
    });

    expect(errorsOf(graph)).toEqual([]);
    expect(runs).toBe(0);
  });

  it('answers the API 400 naming the pattern keyword', async () => {
    const h = apiHarness();
    const graph = refundGraph();
    graph.nodes[at(graph, 'manager_review')].form.properties.note = { type: 'string', pattern: '(a)\\1' };

    const reply = await h.alice.post('/v1/workflows', graph);

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      {
        path: 'nodes[2].form.properties.note.pattern',
        message: expect.stringContaining('backreference (\\1)'),
      },
    ]);
  });
});
