/**
 * GitHub integration verbs: `github_create_issue` and `github_create_comment` on the connector's repository
 * (REST API, `Authorization: Bearer <token>` bound to the API origin). Results give the number and URL of
 * what was created, not the whole response.
 */

import type { Action } from '../../core/actions.ts';
import { cutText } from '../../core/byte-caps.ts';
import type {
  GithubCreateCommentConnectorSchema,
  GithubCreateIssueConnectorSchema,
} from '../../schemas/connector.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import * as z from '../../zod.ts';
import { ConnectorConfigError } from '../errors.ts';
import { egressFailure, failed, succeeded } from '../outcome.ts';
import { type PublishPolicy, sendsOutside } from '../publish-policy.ts';
import { resolveSlot, sendConnectorRequest } from './send.ts';

/** A declared GitHub connector (either verb). */
export type GithubConnector = z.output<
  typeof GithubCreateIssueConnectorSchema | typeof GithubCreateCommentConnectorSchema
>;

/** The REST API version the requests ask for. */
export const GITHUB_API_VERSION = '2022-11-28';
/** User-Agent of GitHub calls (GitHub refuses requests without one). */
export const DEFAULT_USER_AGENT = 'wf-runtime';

/** Input of `github_create_issue`. */
export const GithubIssueInput = z.strictObject({
  title: z.string().check(z.minLength(1), z.maxLength(256), z.describe('Issue title.')),
  body: z.string().check(z.maxLength(65_536), z.describe('Issue body (Markdown).')),
  labels: z
    .optional(z.array(z.string().check(z.minLength(1), z.maxLength(50))).check(z.maxLength(20)))
    .check(z.describe('Labels to set (they must exist).')),
});

/** Input of `github_create_comment`. */
export const GithubCommentInput = z.strictObject({
  number: z.number().check(z.int(), z.positive(), z.describe('The issue or pull request number.')),
  body: z.string().check(z.minLength(1), z.maxLength(65_536), z.describe('Comment body (Markdown).')),
});

/** `{apiBaseUrl}/repos/{owner}/{repo}` with each segment checked and encoded. */
function repoUrl(name: string, connector: GithubConnector, path: string): URL {
  const [owner = '', repo = ''] = connector.repo.split('/');
  for (const segment of [owner, repo]) {
    if (segment === '.' || segment === '..')
      throw new ConnectorConfigError(name, `'${connector.repo}' is not a repository`);
  }
  const base = connector.apiBaseUrl.replace(/\/+$/, '');
  return new URL(`${base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${path}`);
}

type Created = { number?: number; id?: number; html_url?: string; message?: string };

/** What differs between the verbs: input, path below the repository, payload and the result text. */
type Verb<I> = {
  input: z.ZodMiniType<I>;
  path(input: I): string;
  payload(input: I): unknown;
  done(created: Created, input: I): string;
};

function githubAction<I>(
  name: string,
  connector: GithubConnector,
  definition: WorkflowDefinition,
  verb: Verb<I>,
  userAgent: string,
  publish: PublishPolicy | undefined,
): Action {
  return {
    name,
    description: `${connector.description} Repository: ${connector.repo}.`,
    input: verb.input,
    idempotent: connector.idempotent,
    irreversible: connector.irreversible || connector.externalPublish,
    // Creating issues and comments is a POST: outside the deployment it publishes, whatever was declared.
    publishesExternally: () => sendsOutside('POST', connector.apiBaseUrl, publish),
    async run(raw, ctx) {
      const input = raw as I;
      const url = repoUrl(name, connector, verb.path(input));
      const token = await resolveSlot(ctx, name, definition, connector.credential.slot);
      let response: Awaited<ReturnType<typeof sendConnectorRequest>>;
      try {
        response = await sendConnectorRequest(ctx, {
          method: 'POST',
          url,
          headers: {
            accept: 'application/vnd.github+json',
            'content-type': 'application/json',
            'X-GitHub-Api-Version': GITHUB_API_VERSION,
            'user-agent': userAgent,
          },
          body: JSON.stringify(verb.payload(input)),
          credential: { name: 'Authorization', value: `Bearer ${token}` },
        });
      } catch (error) {
        return egressFailure(error);
      }
      let created: Created = {};
      try {
        created = JSON.parse(response.body) as Created;
      } catch {
        // not JSON: reported below with the status
      }
      if (response.status >= 400 || typeof created !== 'object' || created === null) {
        const why = typeof created?.message === 'string' ? created.message : response.body;
        return failed(`GitHub answered HTTP ${response.status}: ${cutText(why, 500)}`);
      }
      return succeeded(verb.done(created, input));
    },
  };
}

/** `github_create_issue`: POST /repos/{owner}/{repo}/issues. */
export function githubCreateIssueAction(
  name: string,
  connector: GithubConnector,
  definition: WorkflowDefinition,
  options: { userAgent?: string; publish?: PublishPolicy } = {},
): Action {
  return githubAction(
    name,
    connector,
    definition,
    {
      input: GithubIssueInput,
      path: () => '/issues',
      payload: (input) => input,
      done: (created) =>
        `Created issue #${created.number ?? '?'} in ${connector.repo}: ${created.html_url ?? '(no URL returned)'}`,
    },
    options.userAgent ?? DEFAULT_USER_AGENT,
    options.publish,
  );
}

/** `github_create_comment`: POST /repos/{owner}/{repo}/issues/{number}/comments. */
export function githubCreateCommentAction(
  name: string,
  connector: GithubConnector,
  definition: WorkflowDefinition,
  options: { userAgent?: string; publish?: PublishPolicy } = {},
): Action {
  return githubAction(
    name,
    connector,
    definition,
    {
      input: GithubCommentInput,
      path: (input) => `/issues/${input.number}/comments`,
      payload: (input) => ({ body: input.body }),
      done: (created, input) =>
        `Commented on #${input.number} in ${connector.repo}: ${created.html_url ?? '(no URL returned)'} (comment ${created.id ?? '?'})`,
    },
    options.userAgent ?? DEFAULT_USER_AGENT,
    options.publish,
  );
}
