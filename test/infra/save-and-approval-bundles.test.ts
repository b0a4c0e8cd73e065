/**
 * What WorkflowWrite and ApprovalHttp carry but never run (esbuild's metafile of each handler bundled as
 * RuntimeFunction bundles it): WorkflowWrite checks a `cidr` without ipaddr.js, an external engine without the
 * HTTP adapter, a body without every response schema of the API, and writes workflows with the workflow store
 * alone (no run, job, graph-step, approval or human-task records); the approval pages describe fetch_url without
 * its HTML parser. Sizes: `npm run bench:bundles` (docs/deploy.md, "Function bundles").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type LambdaBundle, lambdaBundles } from '../support/lambda-bundle.ts';

let bundles: Record<string, LambdaBundle>;
beforeAll(async () => {
  bundles = await lambdaBundles(['workflow-write', 'approval-http']);
}, 120_000);

/** The input files a function's bundle holds code from, matching `pattern`. */
const holds = (handler: string, pattern: RegExp) =>
  Object.entries(bundles[handler]!.inputs)
    .filter(([path, input]) => input.bytesInOutput > 0 && pattern.test(path))
    .map(([path]) => path);

describe('the WorkflowWrite bundle', () => {
  it('holds the save-time checks: the cidr matcher, the engine settings, the definition body schema', () => {
    expect(
      holds(
        'workflow-write',
        /shared\/(triggers\/ip-address|external\/http\/settings|api\/write-schemas)\.ts$/,
      ),
    ).toHaveLength(3);
  });

  it('holds no address library, no external adapter code, no API response schemas', () => {
    expect(
      holds(
        'workflow-write',
        /node_modules\/ipaddr\.js\/|shared\/external\/http\/(client|dispatch|status|artifacts|protocol)\.ts|shared\/api\/schemas\.ts/,
      ),
    ).toEqual([]);
  });

  it('writes with the workflow store: none of the run, job, graph-step, approval or human-task records', () => {
    // shared/store/workflow-store.ts; DynamoStore (every record of the table) is the other functions' store.
    expect(
      holds('workflow-write', /shared\/store\/(workflow-store|workflows|workflow-drafts)\.ts$/),
    ).toHaveLength(3);
    expect(
      holds(
        'workflow-write',
        /shared\/store\/(dynamo-store|commit|runs|job-snapshots|steps|approvals|human-tasks|anchors|message-\w+)\.ts$|shared\/jobs\/(records|schemas|spend|grant-head)\.ts$|shared\/schemas\/(run|ledger|message|approval|human-task|graph-step)\.ts$/,
      ),
    ).toEqual([]);
  });
});

describe('the ApprovalHttp bundle', () => {
  it('describes fetch_url from its spec, without the HTML parser that runs it', () => {
    expect(holds('approval-http', /shared\/actions\/http\/fetch-url-spec\.ts$/)).toHaveLength(1);
    expect(
      holds(
        'approval-http',
        /node_modules\/(htmlparser2|entities|domhandler)\/|shared\/actions\/http\/html-text\.ts/,
      ),
    ).toEqual([]);
  });
});
