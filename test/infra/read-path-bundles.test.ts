/**
 * Functions that only read workflow definitions bundle none of the save-time checks: no croner, no trigger
 * expression or event-pattern validation (schemas/trigger-checks.ts), while WorkflowWrite, which saves
 * definitions, keeps them; the Api function bundles no local event bus. esbuild's metafile of each handler bundled as RuntimeFunction bundles it (CommonJS,
 * the module build, the Lambda aliases). Sizes: `npm run bench:bundles`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type LambdaBundle, lambdaBundles } from '../support/lambda-bundle.ts';

const READ_PATH = ['turn', 'start-run', 'expire', 'deliver', 'graph-advance'];

// Every handler this file reads, bundled in one esbuild call (see lambdaBundles).
let bundles: Record<string, LambdaBundle>;
beforeAll(async () => {
  bundles = await lambdaBundles([...READ_PATH, 'api', 'workflow-write'], { WF_MODEL_PROVIDER: 'anthropic' });
}, 120_000);

/** The repository files and packages a function's bundle holds code from. */
function inputsOf(handler: string): string[] {
  return Object.entries(bundles[handler]!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

const saveTimeChecks = (inputs: string[]) =>
  inputs.filter((path) =>
    /node_modules\/croner\/|shared\/schemas\/trigger-checks\.ts|shared\/triggers\/(schedule-cron|schedule-expression|event-pattern-validate)\.ts/.test(
      path,
    ),
  );

describe('read-path bundles', () => {
  it.each(READ_PATH)('keeps the trigger save-time checks out of %s', (handler) => {
    expect(saveTimeChecks(inputsOf(handler))).toEqual([]);
  });

  it.each(READ_PATH)("keeps the jobs API's request and view schemas out of %s", (handler) => {
    // The store decodes job records with three of shared/jobs/schemas.ts's schemas; the rest (SubmitJobSchema,
    // ListJobsSchema, …) are built in `@__PURE__` closures, which esbuild drops where nothing uses them, and the
    // views (JobViewSchema, …) are built by jobViewSchemas() in view-schemas.ts, which only the OpenAPI document
    // calls. The Api function serves the jobs routes and the document, and keeps them all.
    const bytes = (name: string, file = 'schemas') =>
      bundles[name]!.inputs[`shared/jobs/${file}.ts`]?.bytesInOutput ?? 0;
    expect(bytes('api')).toBeGreaterThan(0);
    expect(bytes('api', 'view-schemas')).toBeGreaterThan(0);
    expect(bytes(handler)).toBeLessThan((bytes('api') + bytes('api', 'view-schemas')) * 0.6);
    expect(bytes(handler, 'view-schemas')).toBe(0);
  });

  it("keeps the local stack's event bus (pattern matcher, ipaddr.js) out of the Api function", () => {
    // On AWS, POST /v1/events puts events on EventBridge; the local bus is passed in by the local stack only.
    const inputs = inputsOf('api');
    expect(
      inputs.filter((path) =>
        /node_modules\/ipaddr\.js\/|shared\/api\/routes\/local-events\.ts|shared\/triggers\/event-pattern\.ts/.test(
          path,
        ),
      ),
    ).toEqual([]);
    expect(inputs).toContain('shared/api/routes/events.ts');
  });

  it('bundles them in WorkflowWrite, which saves definitions', () => {
    const found = saveTimeChecks(inputsOf('workflow-write'));
    expect(found.some((path) => path.includes('node_modules/croner/'))).toBe(true);
    expect(found).toContain('shared/schemas/trigger-checks.ts');
  });
});
