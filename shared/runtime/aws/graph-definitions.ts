/** The graph definitions of a run's pinned version, read through the store once per container (graph functions). */
import { graphDefinitions } from '../../graph-run/definitions.ts';
import type { GraphDefinitionOf } from '../../graph-run/ports.ts';
import { awsStore } from './store.ts';

let definitions: GraphDefinitionOf | undefined;

export function awsGraphDefinitions(): GraphDefinitionOf {
  definitions ??= graphDefinitions(awsStore());
  return definitions;
}
