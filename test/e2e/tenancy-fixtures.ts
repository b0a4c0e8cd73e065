/**
 * The fixtures of the tenancy check (tenancy-routes.test.ts): one row per route of the local stack's HTTP
 * server, keyed `METHOD path` as Hono lists it, and one row per tool of the jobs MCP server, each naming its
 * probes (tenancy-probe.ts says what a probe is and how it is sent; tenancy-probe-builders.ts holds the builders
 * the rows share). A route or tool without a row fails the check, so a new one is covered the day it is added.
 * Every query, header and body field that is an id (tenancy-fields.ts) is named by a probe of its route's row,
 * or exempt in FIELD_EXEMPTIONS with its reason.
 */
import { API_ROUTES } from './tenancy-api-routes.ts';
import { PAGE_ROUTES } from './tenancy-page-routes.ts';
import type { Fixture, ToolProbe } from './tenancy-probe.ts';

/**
 * Every route's row: the API's (tenancy-api-routes.ts), then the pages' and the console's
 * (tenancy-page-routes.ts). Add a new route's row to the file of its surface.
 */
export const ROUTES: Record<string, Fixture> = { ...API_ROUTES, ...PAGE_ROUTES };

/**
 * Query and body fields that are ids (tenancy-fields.ts) but name nothing of another owner's to probe, by field
 * (on every route) or by `METHOD path field`: why each is exempt.
 */
export const FIELD_EXEMPTIONS: Record<string, string> = {
  'body.model.id': "a model of the deployment's catalog, the same for every owner",
  'body.nodes[].model.id': "a model of the deployment's catalog, the same for every owner",
  'body.nodes[].id': 'names a node of the definition itself',
  'body.engine':
    'an external engine the deployment enables for every owner (externalEngines): none is an owner’s',
  'body.nodes[].engine':
    'an external engine the deployment enables for every owner (externalEngines): none is an owner’s',
  'POST /local/events body.id':
    "the event's own id, chosen by its sender: it dedupes runs per workflow, and B's events reach B's workflows only (tenancy of events)",
};

/**
 * Query parameters the console and the pages read by name (tenancy-query.ts) that name nothing of an owner's,
 * so no probe sends A's value in them: why each is exempt.
 */
export const QUERY_EXEMPTIONS: Record<string, string> = {
  status:
    "the console's runs filter by status: one of the run statuses (RUN_STATUSES), the same for every owner",
  kind: "the console's runs filter by kind: agent, graph or external, the same for every owner",
};

/**
 * Form fields the pages and the console read by name (tenancy-form.ts) that name nothing of an owner's, so no
 * probe sends A's value in them: why each is exempt.
 */
export const FORM_EXEMPTIONS: Record<string, string> = {
  decision: "the approval form's choice: `approve` or `deny`, the same for every owner",
};

/** The jobs MCP server's tools, each with its probes. */
export const TOOLS: Record<string, ToolProbe[]> = {
  submit_agent_job: [{ args: { prompt: 'What time is it?', dryRun: true } }],
  get_agent_job: [{ ids: { jobId: 'job' } }],
  cancel_agent_job: [{ ids: { jobId: 'job' } }],
  // A page token of A's client's jobs: refused as a token of nobody's.
  list_agent_jobs: [{ args: {} }, { ids: { nextToken: 'jobsToken' }, code: 'validation_failed' }],
};
