/**
 * Which alert topics an owner may name in `destination.topicArn` (docs/deploy.md, "Alert topics"). The
 * deployment declares topics (`alertTopics`); a topic declared with `owners` is usable by those owners only,
 * one declared without is usable by every owner (as before owners could be listed). Checked when a workflow
 * is saved or published (shared/api/workflow-checks.ts) and again when a run delivers
 * (shared/runtime/destinations.ts): a definition saved before the declaration changed is refused then.
 */
import * as z from '../zod.ts';

/** Topic ARN → the owners that may use it; a declared topic missing here is open to every owner. */
export type AlertTopicOwners = Readonly<Record<string, readonly string[]>>;

/** The deployment's alert topics as the functions see them (environment: WF_ALERT_TOPIC_ARN(S), _OWNERS). */
export type AlertTopicPolicy = {
  /** Topics a workflow may name (the declared ones and the default). */
  declared: readonly string[];
  /** Declared topics restricted to some owners. */
  owners?: AlertTopicOwners | undefined;
};

/** Whether `owner` may name `topicArn`: declared, and either open to every owner or listing this owner. */
export function mayUseAlertTopic(policy: AlertTopicPolicy, owner: string, topicArn: string): boolean {
  if (!policy.declared.includes(topicArn)) return false;
  const listed = policy.owners?.[topicArn];
  return listed === undefined || listed.includes(owner);
}

/** The declared topics `owner` may name (never another owner's: a refusal lists only these). */
export function alertTopicsFor(policy: AlertTopicPolicy, owner: string): string[] {
  return policy.declared.filter((topicArn) => mayUseAlertTopic(policy, owner, topicArn));
}

const AlertTopicOwnersSchema = z.array(
  z.object({
    topicArn: z.string().check(z.minLength(1)),
    owners: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  }),
);

/**
 * The `WF_ALERT_TOPIC_OWNERS` value (JSON: `[{"topicArn": …, "owners": […]}]`, written by the CDK construct).
 * Throws on anything else: a restriction that cannot be read must not turn into "every owner".
 */
export function parseAlertTopicOwners(text: string | undefined): AlertTopicOwners {
  if (text === undefined || text === '') return {};
  let entries: z.infer<typeof AlertTopicOwnersSchema>;
  try {
    entries = AlertTopicOwnersSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new Error('WF_ALERT_TOPIC_OWNERS is not a list of {topicArn, owners}', { cause: error });
  }
  const owners: Record<string, string[]> = {};
  for (const { topicArn, owners: listed } of entries)
    owners[topicArn] = [...(owners[topicArn] ?? []), ...listed];
  return owners;
}
