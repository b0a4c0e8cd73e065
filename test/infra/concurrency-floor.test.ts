/**
 * The Lambda concurrency the stack needs for one graph run at full fan-out beside the API, from the synthesized
 * template, is the floor docs/deploy.md's prerequisites name: a change to the graph's MaxConcurrency or to the
 * functions behind the API changes it, and this fails until the docs say so. Below the account's quota Lambda
 * throttles (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flatTemplate, logicalId, synthRuntime } from './synth.ts';

type State = { Type: string; MaxConcurrency?: number; ItemProcessor?: { States: Record<string, State> } };

/** The largest MaxConcurrency of a Map state in a definition, nested ones included. */
const widestMap = (states: Record<string, State>): number =>
  Math.max(
    1,
    ...Object.values(states).map((state) =>
      state.Type === 'Map' ? (state.MaxConcurrency ?? 40) * widestMap(state.ItemProcessor?.States ?? {}) : 1,
    ),
  );

describe('Lambda concurrency floor', () => {
  it('is graph fan-out + the API functions + jobs sweep + start-run, as docs/deploy.md says', () => {
    const synthesized = synthRuntime();
    const template = flatTemplate(synthesized.template);
    const graphId = logicalId(synthesized.stack.runtime.graphStateMachine.stateMachine);
    const graph = template.findResources('AWS::StepFunctions::StateMachine')[graphId];
    const fanOut = widestMap(JSON.parse(graph?.Properties.DefinitionString as string).States);
    const apiFunctions = new Set(
      Object.values(template.findResources('AWS::ApiGatewayV2::Integration')).map((each) =>
        String(each.Properties.IntegrationUri),
      ),
    ).size;
    const floor = fanOut + apiFunctions + 1 + 1;
    expect([fanOut, apiFunctions, floor]).toEqual([10, 4, 16]);

    const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const prerequisites = doc.slice(doc.indexOf('## Prerequisites'), doc.indexOf('## Settings'));
    expect(prerequisites).toContain(`Lambda concurrency of at least ${floor}**`);
    expect(prerequisites).toContain(`${fanOut} (the graph machine runs up to ${fanOut} steps at once`);
  });
});
