/**
 * A representative flow through every deployed function, driven through their real handler modules
 * (lambdas.ts): the API (runs, cancel, disable) and WorkflowWrite (workflows with each trigger kind, a draft
 * saved, replaced and published, a published save), Turn, RequestApproval, the
 * approval pages (GET, POST approve), Expire, Deliver (stored, report, alert on the default and on a
 * declared topic, http with a credential), MarkFailed, and start-run from a schedule and from an event; two
 * runs of one owner ending together (Deliver, MarkFailed, two jobs cancelled through the Mcp), one losing the
 * owner anchor chain's head to the other (dynamodb-interleave.ts holds its anchor back: contendedAnchors); an
 * undeliverable approval; a day-capped graph's child run, stopped by MarkFailed when that graph fails; delegated
 * jobs through the jobs MCP server and the api's /v1/jobs routes as a JWT client, one of them cancelled while the
 * sweep starts it; starts whose StartExecution failed (without an Idempotency-Key the api asks DescribeExecution
 * and ends the run; with one the run is left pending until the jobs sweep's pending-runs step, eleven minutes on,
 * ends it); a schedule's trigger whose start was refused, its run ended unstarted by the jobs sweep and the
 * trigger redriven (a new run in its place).
 */
import { vi } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { servedByWorkflowWrite } from '../../shared/api/workflow-write-routes.ts';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import { approvalFormBody, readApprovalForm } from '../../shared/demo/approve.ts';
import { childRunIdFor } from '../../shared/graph-run/wait.ts';
import { PENDING_SWEEP_LIMITS } from '../../shared/runs/pending-sweep.ts';
import type { DynamoInterleave } from './dynamodb-interleave.ts';
import type { FakeAws } from './fake-aws.ts';
import { httpEvent, type Lambdas } from './lambdas.ts';
import { ACCOUNT } from './template.ts';

export const CALLER = { accountId: ACCOUNT, userArn: `arn:aws:iam::${ACCOUNT}:user/alice` };
export const OWNER = `${ACCOUNT}:user:alice`;
/** The owner's credential for the http destination: in its namespace, tagged with its key (recorded-calls). */
export const HOOK_TOKEN_SECRET = `wf/${ownerKey(OWNER)}/hook-token`;
export const API = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com';
export const APPROVER = 'ops@example.com';

type Response = { statusCode: number; body: string };

/** The function API Gateway sends a request to: WorkflowWrite for its routes, the Api function otherwise. */
const apiFunctionFor = (method: string, path: string) =>
  servedByWorkflowWrite(method, path.split('?')[0] ?? '') ? 'workflow-write' : 'api';

const workflow = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  model: { id: 'claude-sonnet-5-5', maxTokens: 1024 },
  prompt: { system: 'Append the line with notes_append.' },
  allowedActions: ['notes_append'],
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1, maxTurns: 4 },
  ...extra,
});

/** An external workflow on the IAM stack's engine (`http-runtime` at a loopback address, test/iam/stack.ts). */
const externalWorkflow = (name: string, mode: 'shadow' | 'live') => ({
  kind: 'external',
  name,
  engine: 'http-runtime',
  mode,
  payload: { job: 'nightly' },
  resultArtifact: 'result.json',
  credential: 'engine_token',
  credRefs: { engine_token: { secret: HOOK_TOKEN_SECRET } },
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
});

/** A graph: triage (agent), refund (service, with a credential) and review (human) in parallel, then end. */
const graphWorkflow = () => ({
  kind: 'graph',
  name: 'graph-flow',
  trigger: { type: 'schedule', expression: 'cron(0 9 * * ? *)', timezone: 'UTC' },
  budget: { maxUsdPerRun: 1 },
  connectors: {
    refund: {
      kind: 'http',
      description: 'Pays a refund.',
      method: 'POST',
      // A literal loopback address: the egress guard refuses it without any DNS lookup.
      url: 'https://127.0.0.1:9/refunds',
      input: { type: 'object', properties: { amount: { type: 'number' } } },
      credential: { slot: 'hook_token' },
      idempotent: true,
    },
  },
  credRefs: { hook_token: { secret: HOOK_TOKEN_SECRET } },
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'triage',
      type: 'agent_task',
      model: { id: 'claude-sonnet-5-5', maxTokens: 1024 },
      system: 'Triage.',
      prompt: 'Triage {{ input.message }}',
    },
    { id: 'refund', type: 'service_task', action: 'refund', args: { amount: 5 } },
    {
      id: 'review',
      type: 'human_task',
      title: 'Review',
      assignees: [APPROVER],
      form: { type: 'object', properties: { ok: { type: 'boolean' } } },
      timeoutSeconds: 60,
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'triage' },
    { from: 'start', to: 'refund' },
    { from: 'start', to: 'review' },
    { from: 'triage', to: 'done' },
    { from: 'refund', to: 'done' },
    { from: 'review', to: 'done' },
  ],
});

const gatedGraphWorkflow = () => {
  const graph = graphWorkflow();
  return {
    ...graph,
    name: 'graph-gated-flow',
    trigger: { type: 'on_demand' },
    gates: { refund: 'needs_approval' },
    approvals: { approvers: [APPROVER], timeoutSeconds: 60 },
    nodes: graph.nodes.filter((node) => node.id === 'start' || node.id === 'refund' || node.id === 'done'),
    edges: [
      { from: 'start', to: 'refund' },
      { from: 'refund', to: 'done' },
    ],
  };
};

/** A graph whose one step hands work to an engine: a child run of the external kind (shadow: nothing is sent). */
const externalGraphWorkflow = () => ({
  kind: 'graph',
  name: 'graph-external',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'build', type: 'external_task', engine: 'http-runtime', mode: 'shadow', payload: { job: 'b' } },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'build' },
    { from: 'build', to: 'done' },
  ],
});

/** A graph whose service step is a built-in action: notes_append, an UpdateItem on the run's note. */
const notesGraphWorkflow = () => ({
  kind: 'graph',
  name: 'graph-notes',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'note', type: 'service_task', action: 'notes_append', args: { name: 'log', line: 'from a step' } },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'note' },
    { from: 'note', to: 'done' },
  ],
});

/**
 * A day-capped graph (`budget.maxUsdPerDay`) with one agent step: its child run counts on the graph workflow's
 * day counter (shared/graph-run/agent-view.ts).
 */
const dayCappedGraphWorkflow = () => ({
  kind: 'graph',
  name: 'graph-day-capped',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 },
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'triage',
      type: 'agent_task',
      model: { id: 'claude-sonnet-5-5', maxTokens: 1024 },
      system: 'Triage.',
      prompt: 'Triage {{ input.message }}',
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'triage' },
    { from: 'triage', to: 'done' },
  ],
});

const gated = {
  gates: { notes_append: 'needs_approval' },
  approvals: { approvers: [APPROVER], timeoutSeconds: 60 },
};

export async function driveFlow(
  fns: Lambdas,
  fake: FakeAws,
  topics: { declared: string; defaultTopic: string },
  /** The functions' DynamoDB endpoint, which lets another writer in first (the contended anchors). */
  dynamo: DynamoInterleave,
): Promise<{ runs: Record<string, string>; deliveries: Record<string, unknown> }> {
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = (await fns.invoke(
      apiFunctionFor(method, path),
      httpEvent(method, `${API}${path}`, {
        iam: CALLER,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )) as Response;
    if (response.statusCode >= 300)
      throw new Error(`${method} ${path}: ${response.statusCode} ${response.body}`);
    return JSON.parse(response.body) as Record<string, { workflowId: string; runId: string }>;
  };
  /** The api's answer as it is, whatever its status (a start that fails). */
  const rawApi = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    (await fns.invoke(
      apiFunctionFor(method, path),
      httpEvent(method, `${API}${path}`, {
        iam: CALLER,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )) as Response;
  const create = async (definition: unknown) =>
    (await api('POST', '/v1/workflows', definition)).workflow!.workflowId;
  let starts = 0;
  const start = async (workflowId: string) =>
    (await api('POST', `/v1/workflows/${workflowId}/runs`, {}, { 'Idempotency-Key': `k-${++starts}` })).run!
      .runId;
  // As the run machine passes it: the pointer, and the input its execution was started with (a run's first
  // execution names its workflow head, which the first turn reads with the run and its first message).
  const turn = (runId: string, n: number) =>
    fns.invoke('turn', {
      runId,
      turn: n,
      segmentStartTurn: 0,
      execution: fake.executionInputs.get(runId),
    }) as Promise<{ next: string; turn: number }>;
  /** Turns until the run leaves the loop; returns the outcome. */
  const loop = async (runId: string, from = 0) => {
    let outcome = await turn(runId, from);
    while (outcome.next === 'continue') outcome = await turn(runId, outcome.turn);
    return outcome;
  };
  const runs: Record<string, string> = {};
  /** The run ids of the owner's anchor chain, each page of `GET /v1/audit` verified. */
  const anchoredRuns = async () => {
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const page = (await api(
        'GET',
        `/v1/audit${token ? `?nextToken=${encodeURIComponent(token)}` : ''}`,
      )) as unknown as {
        anchors: { entries: { runId: string }[]; verification: { ok: boolean } };
        nextToken?: string;
      };
      if (!page.anchors.verification.ok) throw new Error('the owner anchor chain does not verify');
      ids.push(...page.anchors.entries.map((entry) => entry.runId));
      token = page.nextToken;
    } while (token);
    return ids;
  };
  /**
   * Two runs of the owner that end together contend for the owner chain's head (shared/store/anchors.ts):
   * `first`'s anchor transaction reaches the table only once `second`'s invocation anchored its run, so it loses
   * the head, registers its run's head for the group commit (a ConditionCheck of the run's anchor marker with
   * the pending item's Put, shared/store/anchor-group.ts) and anchors it in the group. Both end anchored once.
   */
  const contendedAnchors = async (
    fn: string,
    first: () => Promise<string>,
    second: () => Promise<string>,
  ) => {
    const runIds: string[] = [];
    await dynamo.before(
      (operation, body) => operation === 'TransactWriteItems' && body.includes('"ANCHORHEAD"'),
      async () => runIds.push(await second()),
      async () => runIds.push(await first()),
    );
    const anchored = await anchoredRuns();
    for (const runId of runIds)
      if (anchored.filter((id) => id === runId).length !== 1)
        throw new Error(
          `${fn}: run ${runId} is anchored ${anchored.filter((id) => id === runId).length} times`,
        );
  };
  /** `fn` invoked with `event`, answering the run it ends. */
  const ending = (fn: HandlerName, event: { runId: string } & Record<string, unknown>) => async () => {
    await fns.invoke(fn, event);
    return event.runId;
  };

  // Workflows: each trigger kind syncs its schedule or rule; each destination kind.
  const gatedId = await create(workflow('gated', { ...gated, destination: { type: 'alert' } }));
  const scheduledId = await create(
    workflow('scheduled', {
      trigger: { type: 'schedule', expression: 'cron(0 8 * * ? *)', timezone: 'UTC' },
    }),
  );
  // Versions (the WorkflowWrite function): a draft, replaced, published (the schedule follows it), then a
  // published save.
  const at = (hour: number) => ({ type: 'schedule', expression: `cron(0 ${hour} * * ? *)`, timezone: 'UTC' });
  await api(
    'POST',
    `/v1/workflows/${scheduledId}/versions?draft=true`,
    workflow('scheduled', { trigger: at(9) }),
  );
  await api('PUT', `/v1/workflows/${scheduledId}/versions/2`, workflow('scheduled', { trigger: at(10) }));
  await api('POST', `/v1/workflows/${scheduledId}/versions/2/publish`);
  await api('POST', `/v1/workflows/${scheduledId}/versions`, workflow('scheduled', { trigger: at(8) }));
  const eventedId = await create(
    workflow('evented', { trigger: { type: 'event', pattern: { source: ['com.example.tracker'] } } }),
  );
  const destinations = {
    stored: { type: 'stored' },
    report: { type: 'report', title: 'Daily' },
    alertDeclared: { type: 'alert', topicArn: topics.declared, subject: 'A subject' },
    http: { type: 'http', action: 'notify_hook' },
  } as const;
  const destinationIds: Record<string, string> = {};
  for (const [kind, destination] of Object.entries(destinations))
    destinationIds[kind] = await create(
      workflow(`to-${kind.replaceAll(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, {
        destination,
        ...(kind === 'http'
          ? {
              connectors: {
                notify_hook: {
                  kind: 'http',
                  description: 'Receives the run result.',
                  method: 'POST',
                  // A literal loopback address: the egress guard refuses it without any DNS lookup.
                  url: 'https://127.0.0.1:9/wf',
                  input: {
                    type: 'object',
                    properties: {
                      runId: { type: 'string' },
                      workflow: { type: 'string' },
                      result: { type: 'string' },
                    },
                  },
                  credential: { slot: 'hook_token' },
                },
              },
              credRefs: { hook_token: { secret: HOOK_TOKEN_SECRET } },
            }
          : {}),
      }),
    );

  // Approved: turn → request-approval (SNS) → page GET → POST approve (SendTaskSuccess) → turn → deliver.
  runs.approved = await start(gatedId);
  const waiting = await loop(runs.approved);
  // As the run machine passes it: the whole Turn outcome, whose approval ids are read with the run (BatchGetItem).
  await fns.invoke('request-approval', {
    runId: runs.approved,
    turn: waiting.turn,
    taskToken: 'token-approved',
    turnOutcome: waiting,
  });
  const link = /https:\/\/\S+\/approvals\/\S+/.exec(fake.published.at(-1)?.message ?? '')?.[0];
  if (!link) throw new Error('no approval link was published');
  const page = (await fns.invoke('approval-http', httpEvent('GET', link))) as Response;
  const form = readApprovalForm(page.body, link);
  const origin = new URL(link).origin;
  await fns.invoke(
    'approval-http',
    httpEvent('POST', form.action, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin,
        'sec-fetch-site': 'same-origin',
      },
      body: approvalFormBody(form, 'approve'),
    }),
  );
  // Asked again with nothing pending (a re-requested wait): request-approval answers it at once.
  await fns.invoke('request-approval', {
    runId: runs.approved,
    turn: waiting.turn,
    taskToken: 'token-again',
  });
  await loop(runs.approved, waiting.turn);
  await fns.invoke('deliver', { runId: runs.approved, turn: 0 });

  // Expired: the wait times out, Expire denies, the run goes on.
  runs.expired = await start(gatedId);
  const parked = await loop(runs.expired);
  // A state from an earlier release carries no approval ids: the run is read first (GetItem).
  await fns.invoke('request-approval', {
    runId: runs.expired,
    turn: parked.turn,
    taskToken: 'token-expired',
  });
  // Step Functions calls Expire when the wait's TimeoutSeconds (60 s) have passed.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 120_000);
  try {
    await fns.invoke('expire', { runId: runs.expired, turn: parked.turn });
  } finally {
    vi.useRealTimers();
  }
  await loop(runs.expired, parked.turn);
  // Its alert is refused by SNS (as IAM or a topic policy would): the delivery record must say so.
  fake.forbiddenTopics.add(topics.defaultTopic);
  await fns.invoke('deliver', { runId: runs.expired, turn: 0 });
  fake.forbiddenTopics.delete(topics.defaultTopic);

  // Undeliverable: the approval topic refuses the notice (as IAM or a topic policy would), so request-approval
  // denies the approval at once and tells the owner on the owner-notices topic (shared/approvals-http/
  // request-approval.ts, tellUndeliverable).
  const approvalsTopic = fake.published.find((p) => p.message.includes('/approvals/'))?.topicArn;
  if (!approvalsTopic) throw new Error('no approval notice was published');
  runs.undeliverable = await start(gatedId);
  const unsent = await loop(runs.undeliverable);
  const publishedBefore = fake.published.length;
  fake.forbiddenTopics.add(approvalsTopic);
  try {
    await fns.invoke('request-approval', {
      runId: runs.undeliverable,
      turn: unsent.turn,
      taskToken: 'token-undeliverable',
      turnOutcome: unsent,
    });
  } finally {
    fake.forbiddenTopics.delete(approvalsTopic);
  }
  if (!fake.published.slice(publishedBefore).some((p) => p.topicArn !== approvalsTopic))
    throw new Error('the undeliverable approval told no owner');

  // Cancelled while waiting (StopExecution).
  runs.cancelled = await start(gatedId);
  await loop(runs.cancelled);
  await api('POST', `/v1/runs/${runs.cancelled}/cancel`);
  // Cancelled before its first turn: the cancel moves it out of `pending`, so its commit deletes the run's
  // pending-run marker (shared/store/pending-runs.ts), a Delete part in a `PENDINGRUN#` partition.
  runs.cancelledPending = await start(gatedId);
  await api('POST', `/v1/runs/${runs.cancelledPending}/cancel`);

  // Every destination kind.
  for (const [kind, workflowId] of Object.entries(destinationIds)) {
    runs[kind] = await start(workflowId);
    await loop(runs[kind]);
    await fns.invoke('deliver', { runId: runs[kind], turn: 0 });
  }
  // Two deliveries of the owner at once: the first loses the chain head to the second (contendedAnchors).
  runs.deliverLoses = await start(destinationIds.stored!);
  runs.deliverWins = await start(destinationIds.stored!);
  await loop(runs.deliverLoses);
  await loop(runs.deliverWins);
  await contendedAnchors(
    'deliver',
    ending('deliver', { runId: runs.deliverLoses, turn: 0 }),
    ending('deliver', { runId: runs.deliverWins, turn: 0 }),
  );

  // A day-capped workflow (`budget.maxUsdPerDay`): the tool turn, told its attempt as the state machine tells
  // it, reserves the next turn ahead in its commit, so the run holds a reservation the day counts. MarkFailed
  // gives it back to the day: a `daySpend` Update in its TransactWriteItems, which IAM authorizes as
  // dynamodb:UpdateItem (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
  const dayCappedId = await create(
    workflow('day-capped', {
      budget: { maxUsdPerRun: 1, maxTurns: 4, maxUsdPerDay: 5 },
      trigger: { type: 'schedule', expression: 'cron(0 7 * * ? *)', timezone: 'UTC' },
    }),
  );
  runs.dayCapped = await start(dayCappedId);
  const toolTurn = (await fns.invoke('turn', {
    runId: runs.dayCapped,
    turn: 0,
    segmentStartTurn: 0,
    attempt: { retryCount: 0, redriveCount: 0, executionId: 'exec-day-capped' },
  })) as { next: string };
  if (toolTurn.next !== 'continue') throw new Error(`the day-capped tool turn answered ${toolTurn.next}`);
  const reserved = (await api('GET', `/v1/runs/${runs.dayCapped}`)).run as unknown as {
    reservation?: { daily?: boolean };
  };
  if (reserved.reservation?.daily !== true)
    throw new Error('the day-capped run holds no daily reservation after its tool turn');
  await fns.invoke('mark-failed', {
    runId: runs.dayCapped,
    error: { Error: 'States.TaskFailed', Cause: '{"errorMessage":"the model call failed"}' },
  });
  // Its schedule starts a run too: whatever a run's creation writes for a day-capped workflow, start-run's
  // grants are simulated against it.
  await fns.invoke('start-run', {
    owner: OWNER,
    workflowId: dayCappedId,
    scheduledTime: '2026-12-01T07:00:00Z',
  });

  // MarkFailed, start-run from a schedule and from an event.
  runs.failed = await start(destinationIds.stored!);
  await fns.invoke('mark-failed', {
    runId: runs.failed,
    error: { Error: 'States.Timeout', Cause: '{"errorMessage":"timed out"}' },
  });
  // Two runs failed at once: MarkFailed's anchor loses the chain head to the other's (contendedAnchors).
  runs.failLoses = await start(destinationIds.stored!);
  runs.failWins = await start(destinationIds.stored!);
  const timeout = { Error: 'States.Timeout', Cause: '{"errorMessage":"timed out"}' };
  await contendedAnchors(
    'mark-failed',
    ending('mark-failed', { runId: runs.failLoses, error: timeout }),
    ending('mark-failed', { runId: runs.failWins, error: timeout }),
  );
  await fns.invoke('start-run', {
    owner: OWNER,
    workflowId: scheduledId,
    scheduledTime: '2026-12-01T08:00:00Z',
  });
  await fns.invoke('start-run', {
    owner: OWNER,
    workflowId: eventedId,
    event: { id: 'e-1', source: 'com.example.tracker', 'detail-type': 'Issue Opened', detail: {} },
  });

  // Delegated jobs: the owner grants a client (on AWS, a JWT machine client submits; see documented-needs.ts),
  // and the minutely sweep looks for work.
  await api('POST', '/v1/grants', {
    clientId: 'ci-bot',
    grant: {
      name: 'ci-jobs',
      actions: ['notes_append'],
      models: ['claude-sonnet-5-5'],
      maxTurns: 4,
      maxUsdPerJob: 1,
      concurrency: 2,
      scopes: ['jobs:submit', 'jobs:read', 'jobs:cancel'],
    },
  });
  await api('GET', '/v1/grants');
  await fns.invoke('jobs-sweep', {});

  // The jobs MCP server (its own function), as the JWT client ci-bot: submit, list, cancel.
  let rpcId = 0;
  const mcp = async (name: string, args: Record<string, unknown>) => {
    const response = (await fns.invoke(
      'mcp',
      httpEvent('POST', `${API}/mcp`, {
        // The owner scope the user pool's operator allows on ci-bot's app client: its grant is OWNER's.
        jwt: { sub: 'ci-bot', client_id: 'ci-bot', scope: `wf-jobs/owner:${OWNER}` },
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++rpcId,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      }),
      { WF_API_AUTH: 'jwt' },
    )) as Response;
    const answer = JSON.parse(response.body) as {
      result?: { isError?: boolean; structuredContent?: { job: { jobId: string } } };
    };
    if (response.statusCode !== 200 || !answer.result || answer.result.isError)
      throw new Error(`mcp ${name}: ${response.statusCode} ${response.body}`);
    return answer.result.structuredContent;
  };
  const submitted = await mcp('submit_agent_job', { prompt: 'Append a line for the record.' });
  // Two more jobs from the same client: the grant's two slots are taken, so the third waits queued.
  const running = (await mcp('submit_agent_job', { prompt: 'Append a second line.' })) as
    | { job: { jobId: string } }
    | undefined;
  const queued = (await mcp('submit_agent_job', { prompt: 'Append a third line.' })) as
    | { job: { jobId: string; status: string } }
    | undefined;
  if (queued?.job.status !== 'queued')
    throw new Error(`the third job should wait queued: ${queued?.job.status}`);
  // The first job's run ends (MarkFailed is its machine's last task); Step Functions' status-change event
  // invokes the sweep (the RunEnded rule), which settles that job and starts the queued one.
  const firstRun = (submitted as { job: { runId?: string } } | undefined)?.job.runId;
  if (!firstRun) throw new Error('the first job has no run');
  await fns.invoke('mark-failed', { runId: firstRun });
  await fns.invoke('jobs-sweep', {
    source: 'aws.states',
    'detail-type': 'Step Functions Execution Status Change',
    detail: { status: 'FAILED', input: JSON.stringify({ runId: firstRun, turn: 0, segmentStartTurn: 0 }) },
  });
  await mcp('list_agent_jobs', {});
  // Cancelling a running job stops its execution. The other two jobs' runs are cancelled at once: the first
  // cancel's anchor loses the owner chain's head to the second's (contendedAnchors).
  const cancelJob = (jobId: string | undefined) => async () => {
    const cancelled = (await mcp('cancel_agent_job', { jobId })) as
      | { job: { runId?: string }; stopped: string }
      | undefined;
    if (cancelled?.stopped !== 'run' || !cancelled.job.runId)
      throw new Error(`the job's cancel stopped ${cancelled?.stopped}, not its run`);
    return cancelled.job.runId;
  };
  await contendedAnchors('mcp', cancelJob(running?.job.jobId), cancelJob(queued.job.jobId));

  // The api's /v1/jobs routes, as the same JWT client (the api of a deployment that takes JWTs: WF_API_AUTH,
  // its own container). Two jobs take the grant's slots and a third waits queued. The first one's run ends and
  // the sweep, settling it, starts the queued one, which the client cancels while the sweep is starting it: the
  // cancel's mark (markCancelRequested, the api cancel's first write) lands once the sweep created the run and
  // before it recorded it, so the sweep cancels that run itself (shared/jobs/lifecycle.ts startJobRun →
  // cancelStartedRun: StopExecution) and the client's cancel finds the job ended. The second job is cancelled
  // running: the api stops its run and gives its slot back (a Delete of its slot entry, a `GRANT#` partition).
  const jobsApi = async (method: string, path: string, body?: unknown) => {
    const response = (await fns.invoke(
      'api',
      httpEvent(method, `${API}${path}`, {
        jwt: { sub: 'ci-bot', client_id: 'ci-bot', scope: `wf-jobs/owner:${OWNER}` },
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
      { WF_API_AUTH: 'jwt' },
    )) as Response;
    if (response.statusCode >= 300)
      throw new Error(`api ${method} ${path}: ${response.statusCode} ${response.body}`);
    return JSON.parse(response.body) as {
      job: { jobId: string; status: string; runId?: string };
      stopped?: string;
    };
  };
  const apiJobs: Awaited<ReturnType<typeof jobsApi>>['job'][] = [];
  for (const prompt of ['Append a fourth line.', 'Append a fifth line.', 'Append a sixth line.'])
    apiJobs.push((await jobsApi('POST', '/v1/jobs', { prompt })).job);
  const [endsFirst, cancelledRunning, startedBySweep] = apiJobs;
  if (
    endsFirst?.status !== 'running' ||
    cancelledRunning?.status !== 'running' ||
    startedBySweep?.status !== 'queued'
  )
    throw new Error(`the api's jobs should be running, running, queued: ${JSON.stringify(apiJobs)}`);
  await fns.invoke('mark-failed', { runId: endsFirst.runId });
  await dynamo.before(
    // The sweep's write recording the started job's run (state running, conditional on no cancel).
    (operation, body) =>
      operation === 'TransactWriteItems' &&
      body.includes(`"${startedBySweep.jobId}"`) &&
      body.includes('"state":{"S":"running"}'),
    () =>
      fns.within('api', async () => {
        const { awsStore } = await import('../../shared/runtime/aws/store.ts');
        const { getJobRecord, markCancelRequested } = await import('../../shared/jobs/queue-store.ts');
        const { parseJobId } = await import('../../shared/schemas/job.ts');
        const ref = parseJobId(startedBySweep.jobId)!;
        const ctx = awsStore().ctx;
        const job = await getJobRecord(ctx, ref.grantId, ref.number);
        if (job?.state !== 'starting' || !(await markCancelRequested(ctx, job, new Date().toISOString())))
          throw new Error(`the queued job is not being started: ${job?.state}`);
      }),
    () =>
      fns.invoke('jobs-sweep', {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: {
          status: 'FAILED',
          input: JSON.stringify({ runId: endsFirst.runId, turn: 0, segmentStartTurn: 0 }),
        },
      }),
  );
  const cancelledStarting = await jobsApi('DELETE', `/v1/jobs/${startedBySweep.jobId}`);
  if (cancelledStarting.job.status !== 'cancelled' || !cancelledStarting.job.runId)
    throw new Error(`the job cancelled while starting: ${JSON.stringify(cancelledStarting)}`);
  runs.jobCancelledStarting = cancelledStarting.job.runId;
  const cancelledRun = await jobsApi('POST', `/v1/jobs/${cancelledRunning.jobId}/cancel`);
  if (cancelledRun.stopped !== 'run')
    throw new Error(`the running job's cancel stopped ${cancelledRun.stopped}`);
  // Graph runs: Advance, a child agent run that answers its step when it ends (deliver, then mark-failed on a
  // second attempt's child), a service step that reads a credential, a human task (human-task signs a link and
  // publishes it on the approval topic; its page and form submission go through approval-http, which answers
  // the wait), CompleteStep, pause → AwaitResume → resume, retry a step, cancel, a scheduled start, a
  // run cancelled while its human task waits, and an agent step's child run cancelled on its own.
  const graphId = await create(graphWorkflow());
  runs.graph = await start(graphId);
  const graphRun = runs.graph;
  const ref = (stepId: string, type: string, attempt = 1) => ({ runId: graphRun, stepId, type, attempt });
  await fns.invoke('graph-advance', { runId: graphRun });
  await fns.invoke('graph-wait', { ...ref('triage', 'agent_task'), taskToken: 'graph-triage-1' });
  const child = childRunIdFor(graphRun, 'triage', 1);
  await loop(child);
  await fns.invoke('deliver', { runId: child, turn: 0 });
  await fns.invoke('graph-service', { ...ref('refund', 'service_task'), decide: false });
  const requested = await fns.invoke('human-task', {
    ...ref('review', 'human_task'),
    timeoutSeconds: 60,
    taskToken: 'graph-review-1',
  });
  if ((requested as { started?: string }).started !== 'human_task_requested')
    throw new Error(`the human task was not requested: ${JSON.stringify(requested)}`);
  const taskLink = /https:\/\/\S+\/human-tasks\/\S+/.exec(fake.published.at(-1)?.message ?? '')?.[0];
  if (!taskLink) throw new Error('no human-task link was published');
  const taskPage = (await fns.invoke('approval-http', httpEvent('GET', taskLink))) as Response;
  const taskForm = readApprovalForm(taskPage.body, taskLink);
  const taskSubmitted = (await fns.invoke(
    'approval-http',
    httpEvent('POST', taskForm.action, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(taskLink).origin,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ t: taskForm.t, nonce: taskForm.nonce, 'f.ok': 'on' }).toString(),
    }),
  )) as Response;
  if (taskSubmitted.statusCode !== 200)
    throw new Error(`the human task submission answered ${taskSubmitted.statusCode}`);
  // The wait re-driven after the submission (a retried invocation): human-task answers it at once.
  await fns.invoke('human-task', {
    ...ref('review', 'human_task'),
    timeoutSeconds: 60,
    taskToken: 'graph-review-again',
  });
  await fns.invoke('graph-advance', {
    ...ref('triage', 'agent_task'),
    result: { childRunId: child, status: 'denied' },
  });
  await fns.invoke('graph-advance', { ...ref('review', 'human_task'), result: { output: { ok: true } } });
  await fns.invoke('graph-advance', { runId: graphRun });
  // Advance answered `failed` (triage denied): MarkGraphFailed ends the run (a retry is taken only once it has).
  await fns.invoke('mark-failed', {
    runId: graphRun,
    error: { Error: 'StepFailed', Cause: 'triage denied' },
  });
  await api('POST', `/v1/runs/${graphRun}/steps/triage/retry`);
  await api('POST', `/v1/runs/${graphRun}/steps/refund/retry`);
  await fns.invoke('graph-advance', { runId: graphRun });
  await fns.invoke('graph-wait', { ...ref('triage', 'agent_task', 2), taskToken: 'graph-triage-2' });
  await fns.invoke('mark-failed', { runId: childRunIdFor(graphRun, 'triage', 2) });
  await api('POST', `/v1/runs/${graphRun}/pause`);
  await fns.invoke('graph-wait', { runId: graphRun, taskToken: 'graph-resume' });
  await api('POST', `/v1/runs/${graphRun}/resume`);
  // Paused and resumed before the execution reaches AwaitResume: graph-wait answers its own wait at once.
  await api('POST', `/v1/runs/${graphRun}/pause`);
  await api('POST', `/v1/runs/${graphRun}/resume`);
  const early = await fns.invoke('graph-wait', { runId: graphRun, taskToken: 'graph-resume-early' });
  if ((early as { started?: string }).started !== 'resumed')
    throw new Error(`AwaitResume after an early resume: ${JSON.stringify(early)}`);
  await api('GET', `/v1/runs/${graphRun}/steps`);
  await api('POST', `/v1/runs/${graphRun}/cancel`);
  await fns.invoke('start-run', { owner: OWNER, workflowId: graphId, scheduledTime: '2026-12-01T09:00:00Z' });
  // A human task no assignee can be sent (the topic refuses the publish): closed, its wait failed at once.
  const approvalTopic = fake.published.find((p) => p.message.includes('/human-tasks/'))?.topicArn;
  if (!approvalTopic) throw new Error('no human-task notice was published');
  runs.graphUndeliverable = await start(graphId);
  await fns.invoke('graph-advance', { runId: runs.graphUndeliverable });
  fake.forbiddenTopics.add(approvalTopic);
  try {
    await fns.invoke('human-task', {
      runId: runs.graphUndeliverable,
      stepId: 'review',
      type: 'human_task',
      attempt: 1,
      timeoutSeconds: 60,
      taskToken: 'graph-review-undeliverable',
    });
  } finally {
    fake.forbiddenTopics.delete(approvalTopic);
  }
  // A run cancelled while its human task waits: the api closes the task and fails its wait (HumanTask.Closed).
  runs.graphCancelled = await start(graphId);
  await fns.invoke('graph-advance', { runId: runs.graphCancelled });
  await fns.invoke('human-task', {
    runId: runs.graphCancelled,
    stepId: 'review',
    type: 'human_task',
    attempt: 1,
    timeoutSeconds: 60,
    taskToken: 'graph-review-cancelled',
  });
  await api('POST', `/v1/runs/${runs.graphCancelled}/cancel`);
  // A graph step's agent child run cancelled on its own: the api stops the child's execution on the run machine
  // and answers the step's wait on the graph machine (nothing else would: shared/runs/cancel-run.ts).
  runs.graphChildCancelled = await start(graphId);
  await fns.invoke('graph-advance', { runId: runs.graphChildCancelled });
  await fns.invoke('graph-wait', {
    runId: runs.graphChildCancelled,
    stepId: 'triage',
    type: 'agent_task',
    attempt: 1,
    taskToken: 'graph-triage-cancelled',
  });
  await api('POST', `/v1/runs/${childRunIdFor(runs.graphChildCancelled, 'triage', 1)}/cancel`);
  // A human task nobody answers: its wait's timer fires (States.Timeout) and RecordStepError (graph-advance)
  // records the task expired before the step's onTimeout; the owner's list then shows it expired.
  runs.graphTimedOut = await start(graphId);
  const timedOut = { runId: runs.graphTimedOut, stepId: 'review', type: 'human_task', attempt: 1 };
  await fns.invoke('graph-advance', { runId: runs.graphTimedOut });
  await fns.invoke('human-task', { ...timedOut, timeoutSeconds: 60, taskToken: 'graph-review-timeout' });
  await fns.invoke('graph-advance', {
    ...timedOut,
    error: { Error: 'States.Timeout', Cause: 'The task timed out.' },
  });
  const expiredTasks = (await api('GET', '/v1/human-tasks?status=expired')) as unknown as {
    items: { runId: string }[];
  };
  if (!expiredTasks.items.some((task) => task.runId === runs.graphTimedOut))
    throw new Error('the timed-out human task was not recorded expired');

  // A gated service step: it asks (approval record, the workflow head as a ConditionCheck), its wait asks
  // RequestApproval (SNS) for that approval only, the page's approval answers the graph machine's wait, and the
  // step runs again and calls. A second one expires: Expire, then the step fails closed.
  const gatedGraphId = await create(gatedGraphWorkflow());
  for (const decision of ['approve', 'expire'] as const) {
    const runId = await start(gatedGraphId);
    runs[`graphGated_${decision}`] = runId;
    const step = { runId, stepId: 'refund', type: 'service_task', attempt: 1, decide: false };
    const asked = (await fns.invoke('graph-service', step)) as { approvalId?: string };
    if (!asked.approvalId) throw new Error('the gated service step asked for no approval');
    await fns.invoke('request-approval', {
      runId,
      turn: 0,
      approvalId: asked.approvalId,
      taskToken: `graph-approval-${decision}`,
    });
    if (decision === 'approve') {
      const stepLink = /https:\/\/\S+\/approvals\/\S+/.exec(fake.published.at(-1)?.message ?? '')?.[0];
      if (!stepLink) throw new Error('no approval link was published for the graph step');
      const stepPage = (await fns.invoke('approval-http', httpEvent('GET', stepLink))) as Response;
      const stepForm = readApprovalForm(stepPage.body, stepLink);
      await fns.invoke(
        'approval-http',
        httpEvent('POST', stepForm.action, {
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            origin: new URL(stepLink).origin,
            'sec-fetch-site': 'same-origin',
          },
          body: approvalFormBody(stepForm, 'approve'),
        }),
      );
    } else {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 120_000);
      try {
        await fns.invoke('expire', { runId, turn: 0 });
      } finally {
        vi.useRealTimers();
      }
    }
    await fns.invoke('graph-service', step);
  }

  // External runs: the api starts them on the external machine; Start decides and records (shadow), or reads
  // the workflow's credential and calls the engine (live: the egress guard refuses the loopback endpoint, so
  // the start settles refused and the run ends failed, anchored), under the ledger.
  const externalLive = await create(externalWorkflow('external-live', 'live'));
  runs.externalLive = await start(externalLive);
  const publishedBeforeExternal = fake.published.length;
  await fns.invoke('external', { runId: runs.externalLive, step: 'start' });
  // Ended failed by its own Start, its execution stops without MarkExternalFailed: the external function tells
  // the owner on the owner-notices topic (functions/external.ts).
  if (
    !fake.published
      .slice(publishedBeforeExternal)
      .some((p) => p.attributes.owner === OWNER && p.message.includes(runs.externalLive!))
  )
    throw new Error('the failed external run told no owner');
  await fns.invoke('external', { runId: runs.externalLive, step: 'observe' });
  await fns.invoke('external', { runId: runs.externalLive, step: 'finish' });
  const externalShadow = await create(externalWorkflow('external-shadow', 'shadow'));
  runs.externalShadow = await start(externalShadow);
  await fns.invoke('external', { runId: runs.externalShadow, step: 'start' });
  await fns.invoke('start-run', {
    owner: OWNER,
    workflowId: externalShadow,
    scheduledTime: '2026-12-01T09:00:00Z',
  });

  // A graph's external_task: graph-wait starts the child external run on the external machine; the external
  // function's Start ends it (shadow) and answers the step's wait on the graph machine; CompleteStep.
  const externalGraphId = await create(externalGraphWorkflow());
  runs.externalGraph = await start(externalGraphId);
  const build = { runId: runs.externalGraph, stepId: 'build', type: 'external_task', attempt: 1 };
  await fns.invoke('graph-advance', { runId: runs.externalGraph });
  await fns.invoke('graph-wait', { ...build, timeoutSeconds: 3900, taskToken: 'graph-build-1' });
  const externalChild = childRunIdFor(runs.externalGraph, 'build', 1);
  await fns.invoke('external', { runId: externalChild, step: 'start' });
  await fns.invoke('graph-advance', {
    ...build,
    result: { childRunId: externalChild, status: 'done', stopReason: 'shadow' },
  });

  // A graph service step that runs a built-in action (notes_append): graph-service appends the line.
  const notesGraphId = await create(notesGraphWorkflow());
  runs.graphNotes = await start(notesGraphId);
  await fns.invoke('graph-advance', { runId: runs.graphNotes });
  await fns.invoke('graph-service', {
    runId: runs.graphNotes,
    stepId: 'note',
    type: 'service_task',
    attempt: 1,
    decide: false,
  });
  const noteSteps = (await api('GET', `/v1/runs/${runs.graphNotes}/steps`)) as unknown as {
    steps: { stepId: string; status: string }[];
  };
  const noteStep = noteSteps.steps.find((step) => step.stepId === 'note');
  if (noteStep?.status !== 'succeeded')
    throw new Error(`the notes_append step did not succeed: ${JSON.stringify(noteStep)}`);

  // A day-capped graph's agent step: graph-wait creates the child run with turn 0's reservation, in one
  // transaction with an ADD on the graph run's counter (`RUN#<graph run>`) and on the workflow's day counter
  // (`SPEND#<owner>#<workflow>`): Update actions, which IAM authorizes as dynamodb:UpdateItem
  // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
  const dayCappedGraphId = await create(dayCappedGraphWorkflow());
  runs.graphDayCapped = await start(dayCappedGraphId);
  await fns.invoke('graph-advance', { runId: runs.graphDayCapped });
  const dayCappedWait = (await fns.invoke('graph-wait', {
    runId: runs.graphDayCapped,
    stepId: 'triage',
    type: 'agent_task',
    attempt: 1,
    taskToken: 'graph-day-capped',
  })) as { started?: string };
  if (dayCappedWait.started !== 'child_started')
    throw new Error(`the day-capped graph's wait answered ${JSON.stringify(dayCappedWait)}`);
  const dayCappedChild = (await api('GET', `/v1/runs/${childRunIdFor(runs.graphDayCapped, 'triage', 1)}`))
    .run as unknown as { reservation?: { daily?: boolean } };
  if (dayCappedChild.reservation?.daily !== true)
    throw new Error("the day-capped graph's child run holds no daily reservation");
  // That graph then fails while its agent step's child runs (MarkGraphFailed after the machine's Catch):
  // mark-failed cancels the child run and stops its execution on the run machine, by the ARN graph-wait recorded
  // on the step (shared/graph-run/end-children.ts).
  await fns.invoke('mark-failed', {
    runId: runs.graphDayCapped,
    error: { Error: 'States.Runtime', Cause: 'the graph execution failed' },
  });
  const dayCappedChildEnded = (
    await api('GET', `/v1/runs/${childRunIdFor(runs.graphDayCapped, 'triage', 1)}`)
  ).run as unknown as { status: string };
  if (dayCappedChildEnded.status !== 'cancelled')
    throw new Error(`the failed graph's child run is ${dayCappedChildEnded.status}, not cancelled`);

  // Starts whose StartExecution fails without telling whether it happened (503, past the SDK's retries). Without
  // an Idempotency-Key nothing would start the run again: the api tries twice more, asks DescribeExecution
  // whether an attempt started it (ExecutionDoesNotExist) and ends the run failed (shared/runs/start-run.ts,
  // settleFirstStart), for a run of each machine it starts runs on. With a key the run is left pending for the
  // caller's repeat, which does not come.
  const unstartedId = await create(workflow('unstarted'));
  fake.startsUnavailable = true;
  try {
    for (const workflowId of [unstartedId, graphId, externalShadow]) {
      const answer = await rawApi('POST', `/v1/workflows/${workflowId}/runs`, {});
      if (answer.statusCode !== 502 || !answer.body.includes('run_not_started'))
        throw new Error(`an unkeyed start that failed answered ${answer.statusCode} ${answer.body}`);
    }
    const keyed = await rawApi(
      'POST',
      `/v1/workflows/${unstartedId}/runs`,
      {},
      { 'Idempotency-Key': 'k-unstarted' },
    );
    if (keyed.statusCode < 500) throw new Error(`a keyed start that failed answered ${keyed.statusCode}`);
  } finally {
    fake.startsUnavailable = false;
  }
  const pending = (await api('GET', `/v1/runs?workflowId=${unstartedId}&status=pending`)) as unknown as {
    items: { runId: string }[];
  };
  const unstarted = pending.items[0]?.runId;
  if (pending.items.length !== 1 || !unstarted) throw new Error('the keyed start left no run pending');
  runs.unstarted = unstarted;
  // Past minAgeMs the minutely sweep's pending-runs step (shared/runs/pending-sweep.ts) asks DescribeExecution
  // of every start still pending: the flow's scheduled and evented starts (their executions exist: their markers
  // go) and the keyed one (none: ended failed, its reservation given back, and anchored). Another run of the
  // owner ends meanwhile, so the sweep's anchor loses the chain head to it (contendedAnchors).
  runs.sweepContender = await start(destinationIds.stored!);
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + PENDING_SWEEP_LIMITS.minAgeMs + 60_000);
  try {
    await contendedAnchors(
      'jobs-sweep',
      async () => {
        await fns.invoke('jobs-sweep', {});
        return unstarted;
      },
      ending('mark-failed', {
        runId: runs.sweepContender,
        error: { Error: 'States.Timeout', Cause: '{"errorMessage":"timed out"}' },
      }),
    );
  } finally {
    vi.useRealTimers();
  }
  // The caller's repeat, at last, answers the ended run.
  const repeated = (
    await api('POST', `/v1/workflows/${unstartedId}/runs`, {}, { 'Idempotency-Key': 'k-unstarted' })
  ).run as unknown as { runId: string; status: string; error?: { name: string } };
  if (
    repeated.runId !== unstarted ||
    repeated.status !== 'failed' ||
    repeated.error?.name !== 'ExecutionNotStarted'
  )
    throw new Error(`the swept start: ${JSON.stringify(repeated)}`);

  // A schedule's trigger whose every start was refused (its run left pending, the invocation failed: on AWS the
  // trigger goes to the dead-letter queue), the jobs sweep 11 minutes later ending the run unstarted
  // (DescribeExecution: no such execution), then the trigger redriven: start-run creates a new run in its place
  // and takes the idempotency marker over in that transaction (a Put of `IDEM#…` conditional on still naming the
  // ended run, shared/store/runs.ts), with turn 0's reservation on the day's counter, and links the ended run to
  // it (an Update of its run item: `replacedBy`).
  const redrivenId = await create(
    workflow('redriven', {
      budget: { maxUsdPerRun: 1, maxTurns: 4, maxUsdPerDay: 5 },
      trigger: { type: 'schedule', expression: 'cron(0 6 * * ? *)', timezone: 'UTC' },
    }),
  );
  const redriven = { owner: OWNER, workflowId: redrivenId, scheduledTime: '2026-12-01T06:00:00Z' };
  fake.refusedStarts.remaining = 1;
  const refused = await fns.invoke('start-run', redriven).catch((error: unknown) => error);
  fake.refusedStarts.remaining = 0;
  if ((refused as { name?: string }).name !== 'RunStartPendingError')
    throw new Error(`the refused trigger answered ${JSON.stringify(refused)}`);
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 11 * 60_000);
  try {
    await fns.invoke('jobs-sweep', {});
    const replaced = (await fns.invoke('start-run', redriven)) as { runId: string; created: boolean };
    const replacement = (await api('GET', `/v1/runs/${replaced.runId}`)).run as unknown as {
      trigger: { replacesRunId?: string };
    };
    if (!replaced.created || !replacement.trigger.replacesRunId)
      throw new Error(`the redriven trigger started no new run: ${JSON.stringify(replaced)}`);
    // The same transaction linked the ended run to it (an Update of its run item).
    const ended = (await api('GET', `/v1/runs/${replacement.trigger.replacesRunId}`)).run as unknown as {
      replacedBy?: string;
    };
    if (ended.replacedBy !== replaced.runId)
      throw new Error(`the ended run is not linked to its replacement: ${JSON.stringify(ended)}`);
    runs.redrivenEnded = replacement.trigger.replacesRunId;
    runs.redriven = replaced.runId;
  } finally {
    vi.useRealTimers();
  }

  // Reads, and the trigger cleanup when workflows are disabled and deleted.
  await api('GET', '/v1/workflows');
  await api('GET', `/v1/runs/${runs.approved}`);
  await api('GET', `/v1/runs?limit=10`);
  await api('GET', `/v1/runs/${runs.approved}/transcript`);
  await api('GET', `/v1/runs/${runs.approved}/audit`);
  await api('GET', '/v1/approvals');
  await api('GET', '/v1/audit');
  await api('POST', '/v1/events', {
    Entries: [{ Source: 'com.example.tracker', DetailType: 'Issue Opened', Detail: '{"severity":3}' }],
  });
  await api('POST', `/v1/workflows/${scheduledId}/disable`);
  await api('POST', `/v1/workflows/${eventedId}/disable`);
  await api('DELETE', `/v1/workflows/${gatedId}`);

  const deliveries: Record<string, unknown> = {};
  for (const [name, runId] of Object.entries(runs))
    deliveries[name] = (
      (await api('GET', `/v1/runs/${runId}`)).run as unknown as { delivery?: unknown }
    ).delivery;
  return { runs, deliveries };
}
