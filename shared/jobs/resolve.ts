/**
 * Resolving a submission against a grant: the tools, model, limits and budget a job would run under, and
 * the agent definition it runs (the grant snapshot ∩ the request). Pure; every refusal names its field.
 */
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { type PriceTable, priceFor } from '../core/pricing.ts';
import { MODEL_ROLES } from '../schemas/model-spec.ts';
import { AgentDefinitionShapeSchema, type WorkflowDefinition } from '../schemas/workflow.ts';
import { JobRejectedError } from './errors.ts';
import type { GrantRecord } from './records.ts';
import type { GrantSpec, JobConstraints, SubmitJobRequest } from './schemas.ts';

/** The models a deployment can run: its price table and its roles (role → model id). */
export type ModelCatalog = { prices: PriceTable; roles: Record<string, string> };

/** The system prompt of a grant that gives none. */
export const DEFAULT_JOB_SYSTEM =
  'You are an agent carrying out a task delegated by another service. Use the tools you are given when the task needs them; do not describe actions you did not take. Finish with a concise answer.';

const isRole = (model: string) => (MODEL_ROLES as readonly string[]).includes(model);

/** The gate mode a grant gives `name` (no entry: allow). */
export function grantGateOf(grant: GrantSpec, name: string): 'allow' | 'needs_approval' | 'deny' {
  const gate = grant.gates[name];
  return gate === undefined ? 'allow' : typeof gate === 'string' ? gate : gate.mode;
}

/**
 * The agent definition a grant gives a job using `tools` with `model` and `maxTurns`. Its trigger is on demand,
 * which has no save-time checks, so the shape's checks are all of them.
 */
export function definitionFor(grant: GrantSpec, tools: string[], model: string, maxTurns: number) {
  const pick = <T>(record: Record<string, T>) =>
    Object.fromEntries(Object.entries(record).filter(([name]) => tools.includes(name)));
  return AgentDefinitionShapeSchema.safeParse({
    name: grant.name,
    model: isRole(model) ? { role: model } : { id: model },
    prompt: { system: grant.system ?? DEFAULT_JOB_SYSTEM },
    allowedActions: tools,
    connectors: pick(grant.connectors),
    gates: pick(grant.gates),
    ...(grant.approvals ? { approvals: grant.approvals } : {}),
    trigger: { type: 'on_demand' },
    destination: { type: 'stored' },
    budget: {
      maxUsdPerRun: grant.maxUsdPerJob,
      ...(grant.maxUsdPerDay !== undefined ? { maxUsdPerDay: grant.maxUsdPerDay } : {}),
      maxTurns,
      runTimeoutSeconds: grant.jobTimeoutSeconds,
    },
    credRefs: grant.credRefs,
  });
}

export type ResolvedJob = {
  constraints: JobConstraints;
  definition: WorkflowDefinition;
  /** SHA-256 of the normalized request (defaults filled in): equal requests coalesce. */
  requestHash: string;
};

/** Resolves `request` under `record`'s grant, or throws JobRejectedError naming the field. */
export function resolveJob(
  record: GrantRecord,
  request: SubmitJobRequest,
  models: ModelCatalog,
): ResolvedJob {
  const grant = record.grant;
  const granted = grant.actions.filter((name) => grantGateOf(grant, name) !== 'deny');
  const tools = request.tools ?? granted;
  tools.forEach((name, index) => {
    if (!granted.includes(name))
      throw new JobRejectedError(
        'outside_grant',
        `tools[${index}]`,
        `the grant does not allow the tool '${name}'`,
      );
  });
  const model = request.model ?? grant.models[0]!;
  if (!grant.models.includes(model))
    throw new JobRejectedError(
      'outside_grant',
      'model',
      `the grant does not allow the model '${model}'; allowed: ${grant.models.join(', ')}`,
    );
  const modelId = isRole(model) ? models.roles[model] : model;
  try {
    if (!modelId) throw new Error(`no model is configured for role '${model}'`);
    priceFor(modelId, models.prices);
  } catch (error) {
    throw new JobRejectedError(
      'unpriced_model',
      'model',
      `the model '${model}' has no price here, so its budget cannot be enforced (${(error as Error).message})`,
    );
  }
  const maxTurns = request.maxTurns ?? grant.maxTurns;
  if (maxTurns > grant.maxTurns)
    throw new JobRejectedError(
      'outside_grant',
      'maxTurns',
      `exceeds the grant's limit of ${grant.maxTurns} turns`,
    );
  const parsed = definitionFor(grant, tools, model, maxTurns);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The grant was checked when saved; a definition it cannot make is its own fault, refused closed.
    throw new JobRejectedError(
      'not_granted',
      'grant',
      `the grant cannot make a valid job (${issue?.path.join('.')}: ${issue?.message})`,
    );
  }
  const constraints: JobConstraints = {
    tools: tools.map((name) => ({ name, gate: grantGateOf(grant, name) })),
    model: modelId!,
    maxTurns,
    budget: {
      maxUsdPerJob: grant.maxUsdPerJob,
      ...(grant.maxUsdPerDay !== undefined ? { maxUsdPerDay: grant.maxUsdPerDay } : {}),
    },
    timeoutSeconds: grant.jobTimeoutSeconds,
    maxAttempts: grant.maxAttempts,
    grantVersion: record.version,
  };
  const requestHash = sha256Hex(
    canonicalJson({ prompt: request.prompt, tools: [...tools].sort(), model: modelId, maxTurns }),
  );
  return { constraints, definition: parsed.data, requestHash };
}
