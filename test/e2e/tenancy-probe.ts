/**
 * What a probe of the tenancy check (tenancy-routes.test.ts) is: who sends it, and which of owner A's objects
 * each id in its request stands for.
 *
 * A probe names, for each id in the request (path parameter, query parameter, header, JSON body field:
 * `ref(kind)`), which of owner A's objects it stands for; the check sends it once with A's id and once with a
 * well-formed missing id of the same kind, as owner B (or B's client, or a sibling client of A's), and both
 * answers must be the same. A probe that names no id is sent once: its answer must mention none of A's ids.
 * Either way, nothing of A's may change. The rows naming the probes of each route and tool are in
 * tenancy-fixtures.ts; the builders they share, in tenancy-probe-builders.ts.
 */
/** A's objects, by kind: each has a missing counterpart of the same shape (MISSING in the test). */
export type IdKind =
  | 'agentWorkflow'
  | 'graphWorkflow'
  | 'externalWorkflow'
  | 'agentRun'
  | 'graphRun'
  | 'externalRun'
  | 'jobRun'
  /** The child agent run of A's graph run's triage step. */
  | 'childRun'
  | 'approval'
  /** The signed link (`t`) A's approver was sent for A's approval. */
  | 'approvalLink'
  /** The form nonce (`nonce`) and sealed state (`state`) of A's approval page, as A's approver opened it. */
  | 'approvalNonce'
  | 'approvalState'
  | 'humanTask'
  /** The signed link (`t`) A's assignee was sent for A's human task. */
  | 'humanTaskLink'
  /** The form nonce (`nonce`) of A's human-task page, as A's assignee opened it. */
  | 'humanTaskNonce'
  | 'job'
  | 'client'
  /** The key of a delegated client of A's (a sign-in form's `key`: a client key signs nobody in). */
  | 'clientKey'
  /** The `nextToken` of the first page (limit 1) of A's runs, and of A's workflows. */
  | 'runsToken'
  | 'workflowsToken'
  /** The `nextToken` of a first page of A's: approvals, human tasks, owner audit, a client's jobs (as the client
   * and on the owner's grant route), and of one run's transcript, receipts, audit and steps. */
  | 'approvalsToken'
  | 'humanTasksToken'
  | 'auditToken'
  | 'jobsToken'
  | 'grantJobsToken'
  | 'transcriptToken'
  | 'receiptsToken'
  | 'runAuditToken'
  | 'stepsToken'
  /** A credential secret in A's namespace (`wf/<ownerKey(A)>/…`). */
  | 'secret'
  /** A client A granted (its second), for a body naming a client: B granting it must take nothing of A's. */
  | 'grantedClient'
  /** A's owner id, as the approval pages' unsigned read hints name it (`owner=`). */
  | 'owner'
  /** An alert topic the stack declares for A only (`alertTopics` with `owners`). */
  | 'alertTopic'
  /** An approver the stack declares for A only (its `approvers` option). */
  | 'approver'
  /** The Idempotency-Key A started its external run with, and the one A's client submitted its job with. */
  | 'runKey'
  | 'jobKey'
  /** The If-Match under which A's agent workflow takes a new version: its latest version (`"1"`). */
  | 'versionTag';

/** Who asks: B's owner key, B's client key, a second client of A's, B in the console, or nobody. */
export type Caller = 'ownerB' | 'clientB' | 'siblingA' | 'consoleB' | 'anonymous';

/**
 * B's own objects, for a probe whose path names B's and whose query or body names A's: B's two runs waiting for
 * approval each have an approval, its signed link and the nonce of its rendered form; B's graph run waits on a
 * human task, with its assignee's link and the nonce of its rendered form.
 */
export type OwnKind =
  | 'workflow'
  | 'graph'
  | 'externalWorkflow'
  | 'run'
  | 'approval'
  | 'approvalLink'
  | 'approvalNonce'
  | 'approval2'
  | 'approvalLink2'
  | 'approvalNonce2'
  | 'humanTask'
  | 'humanTaskLink'
  | 'humanTaskNonce';

/**
 * One of B's own ids: the same in both requests, or, for a request that can be made only once (a decision),
 * `second` in the request with the missing id.
 */
export type OwnValue = { own: OwnKind; second?: OwnKind };
/**
 * A path, query or header value: one of A's ids (swapped for a missing one), a literal sent as is, or one of
 * B's own ids.
 */
export type Value = IdKind | { literal: string } | OwnValue;
export const lit = (literal: string): Value => ({ literal });
export const own = (kind: OwnKind, second?: OwnKind): OwnValue =>
  second ? { own: kind, second } : { own: kind };

/** In a probe's JSON body, where one of A's ids goes (a missing one of the same kind in the second request). */
export const REF = '$tenancyRef';
export type Ref = { [REF]: IdKind };
export const ref = (kind: IdKind): Ref => ({ [REF]: kind });

export type Probe = {
  as: Caller;
  /** Every path parameter of the route. */
  params?: Record<string, Value>;
  query?: Record<string, Value>;
  /**
   * Request headers that name an earlier request (Idempotency-Key) or a version (If-Match): each a header
   * parameter of the route in the OpenAPI document.
   */
  headers?: Record<string, Value>;
  /** A minimal valid JSON body. */
  json?: unknown;
  /**
   * A form, for the pages and sign-in: each field a literal, `B` for B's key, one of B's ids, or `ref(kind)`
   * for one of A's (swapped for a missing one as any id).
   */
  form?: Record<string, string | OwnValue | Ref>;
  /** The status the missing id answers (default 404): proves the probe reached the id check. */
  status?: number;
  /** The field a 400 must name (`error.fields[].path`): proves a body or query id was the reason. */
  field?: string;
  /**
   * B's probes are sent again with the key of a client of A's own: what a client gets on an owner's route, for
   * A's id and a missing one alike (default 403).
   */
  clientStatus?: number;
  /**
   * The request starts work of B's that goes on after its answer (a run, a job, a run resumed by a decision):
   * B's items are read for the comparison once they stop changing.
   */
  settles?: boolean;
  /**
   * Fields of the answer (dotted paths in its body) that tell how far B's new work had got when it was read, a
   * matter of timing: left out of both answers. Where the work ended is compared in B's items, once settled.
   */
  progress?: string[];
};

export type Fixture = { probes: Probe[] } | { exempt: string };

/**
 * The jobs MCP server's tools, each with its probes: which arguments are ids of A's (a nested one by its path),
 * minimal valid other arguments, and the error code the missing id answers (default not_found).
 */
export type ToolProbe = { ids?: Record<string, IdKind>; args?: Record<string, unknown>; code?: string };
