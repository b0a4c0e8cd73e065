/**
 * B's own objects, for the tenancy check: an agent workflow with an open draft (version 2) and two runs waiting
 * for approval, a graph workflow with a draft, a graph run waiting on a human task, and an external run that
 * ended. Their ids go in `ownB` (tenancy-ids.ts): probes name them in a path beside A's ids in a query or body.
 */
import { applyWorkflowText, eventually } from './support.ts';
import { ownB } from './tenancy-ids.ts';
import { linksOfB } from './tenancy-links.ts';
import { agentDefinition, graphDefinition } from './tenancy-probe-builders.ts';
import { asA, KEY_B, ownerOf } from './tenancy-stack.ts';
import { EXTERNAL, GATED } from './tenancy-world-a.ts';

/** Makes B's objects and fills in `ownB`. */
export async function makeObjectsOfB(): Promise<void> {
  const b = ownerOf(KEY_B);
  ownB.workflow = await applyWorkflowText(
    b,
    'tenancy-b-own',
    GATED.replace('tenancy-a-agent', 'tenancy-b-own'),
  );
  await asA(
    'POST',
    `/v1/workflows/${ownB.workflow}/versions?draft=true`,
    agentDefinition('tenancy-b-own'),
    KEY_B,
  );
  ownB.graph = (
    await asA('POST', '/v1/workflows', graphDefinition('tenancy-b-graph', 'editor@example.com'), KEY_B)
  ).workflow.workflowId;
  await asA(
    'POST',
    `/v1/workflows/${ownB.graph}/versions?draft=true`,
    graphDefinition('tenancy-b-graph', 'manager@example.com'),
    KEY_B,
  );
  const external = await applyWorkflowText(
    b,
    'tenancy-b-external',
    EXTERNAL.replace('tenancy-a-external', 'tenancy-b-external'),
  );
  ownB.externalWorkflow = external;
  ownB.run = (await asA('POST', `/v1/workflows/${external}/runs`, { input: {} }, KEY_B)).run.runId;
  await linksOfB(b);
  await eventually("B's external run to end", async () => {
    const { run } = await asA('GET', `/v1/runs/${ownB.run}`, undefined, KEY_B);
    return ['done', 'failed'].includes(run.status) ? true : undefined;
  });
}
