/**
 * Functions that only read workflow definitions bundle none of the save-time checks: no croner, no trigger
 * expression or event-pattern validation (schemas/trigger-checks.ts), while WorkflowWrite, which saves
 * definitions, keeps them; the Api function bundles no local event bus. esbuild's metafile of each handler bundled as RuntimeFunction bundles it (CommonJS,
 * the module build, the Lambda aliases). Sizes: `npm run bench:bundles`.
 */
import { describe, expect, it } from 'vitest';
import { lambdaBundle } from '../support/lambda-bundle.ts';

/** The repository files and packages a function's bundle holds code from. */
async function inputsOf(handler: string): Promise<string[]> {
  const { inputs } = await lambdaBundle(handler, { WF_MODEL_PROVIDER: 'anthropic' });
  return Object.entries(inputs)
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
  it.each(['turn', 'start-run', 'expire', 'deliver', 'graph-advance'])(
    'keeps the trigger save-time checks out of %s',
    async (handler) => {
      expect(saveTimeChecks(await inputsOf(handler))).toEqual([]);
    },
    60_000,
  );

  it("keeps the local stack's event bus (pattern matcher, ipaddr.js) out of the Api function", async () => {
    // On AWS, POST /v1/events puts events on EventBridge; the local bus is passed in by the local stack only.
    const inputs = await inputsOf('api');
    expect(
      inputs.filter((path) =>
        /node_modules\/ipaddr\.js\/|shared\/api\/routes\/local-events\.ts|shared\/triggers\/event-pattern\.ts/.test(
          path,
        ),
      ),
    ).toEqual([]);
    expect(inputs).toContain('shared/api/routes/events.ts');
  }, 60_000);

  it('bundles them in WorkflowWrite, which saves definitions', async () => {
    const found = saveTimeChecks(await inputsOf('workflow-write'));
    expect(found.some((path) => path.includes('node_modules/croner/'))).toBe(true);
    expect(found).toContain('shared/schemas/trigger-checks.ts');
  }, 60_000);
});
