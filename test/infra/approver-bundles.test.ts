/**
 * The approver declarations compiled into a bundle (RuntimeFunction `bundledConstants`, an esbuild define of
 * `process.env.WF_APPROVER_OWNERS`): real bundles with the local esbuild. A probe handler over the production
 * approver-reach module answers from what was bundled, whatever the environment holds; the asset hash (the
 * output's) follows the declarations, so a change deploys new code; the real request-approval bundle holds the
 * declarations and no read of the variable.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdkJsonContext } from '../../infra/cdk-context.ts';
import { ENV } from '../../infra/constructs/env-names.ts';
import { REPO_ROOT, RuntimeFunction } from '../../infra/constructs/runtime-function.ts';

// An apostrophe, a dollar sign and a backslash are valid in an address's local part: they reach the bundle intact.
const ODD = "o'brien+$HOME\\x@example.com";
const DECLARED = JSON.stringify({
  'carol@example.com': ['team-a'],
  'boss@example.com': ['team-a', 'team-b'],
  [ODD]: ['team-b'],
});
const OTHERS = JSON.stringify({ 'carol@example.com': ['team-b'] });

type Built = { dir: string; s3Key: string; environment: Record<string, unknown> };
let outdir: string;
let probeRoot: string;
const built: Record<string, Built> = {};

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'wf-approver-bundles-'));
  // A project whose one handler asks the production module who is reachable (no AWS client in the bundle).
  probeRoot = mkdtempSync(join(tmpdir(), 'wf-approver-probe-'));
  mkdirSync(join(probeRoot, 'functions'));
  cpSync(join(REPO_ROOT, 'package-lock.json'), join(probeRoot, 'package-lock.json'));
  // The repository's esbuild (`npx --no-install esbuild` in the project root).
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(probeRoot, 'node_modules'));
  writeFileSync(
    join(probeRoot, 'functions', 'probe.ts'),
    `import { awsApproverReach } from ${JSON.stringify(join(REPO_ROOT, 'shared/runtime/aws/approver-reach.ts'))};\n` +
      'export const handler = async (e: { approver: string; owner: string }) => awsApproverReach().reaches(e.approver, e.owner);\n',
  );
  const app = new App({
    outdir,
    context: { ...cdkJsonContext(), 'aws:cdk:enable-asset-metadata': true },
    builtinCloudFormationValidation: false,
  });
  const stack = new Stack(app, 'ApproverBundles');
  const probe = (declared: string) => ({
    handlerName: 'probe',
    projectRoot: probeRoot,
    bundledConstants: { [ENV.approverOwners]: declared },
  });
  const functions = {
    Declared: new RuntimeFunction(stack, 'Declared', probe(DECLARED)),
    DeclaredAgain: new RuntimeFunction(stack, 'DeclaredAgain', probe(DECLARED)),
    Others: new RuntimeFunction(stack, 'Others', probe(OTHERS)),
    RequestApproval: new RuntimeFunction(stack, 'RequestApproval', {
      handlerName: 'request-approval',
      bundledConstants: { [ENV.approverOwners]: DECLARED },
    }),
  };
  app.synth();
  const template = JSON.parse(readFileSync(join(outdir, 'ApproverBundles.template.json'), 'utf8')) as {
    Resources: Record<string, { Metadata: Record<string, string>; Properties: Record<string, unknown> }>;
  };
  for (const [id, fn] of Object.entries(functions)) {
    const resource = template.Resources[stack.getLogicalId(fn.function.node.defaultChild as never)]!;
    built[id] = {
      dir: join(outdir, resource.Metadata['aws:asset:path']!),
      s3Key: (resource.Properties.Code as { S3Key: string }).S3Key,
      environment: (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
    };
  }
}, 240_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
  rmSync(probeRoot, { recursive: true, force: true });
});

describe('Approver declarations in the bundle', () => {
  it('answers per owner from the bundled declarations, whatever the environment says', async () => {
    const { handler } = createRequire(import.meta.url)(join(built.Declared!.dir, 'index.js')) as {
      handler: (e: { approver: string; owner: string }) => Promise<boolean>;
    };
    const saved = process.env[ENV.approverOwners];
    // The environment declares the opposite: a bundle that read it would answer the other way round.
    process.env[ENV.approverOwners] = JSON.stringify({ 'carol@example.com': ['team-b'] });
    try {
      expect(await handler({ approver: 'carol@example.com', owner: 'team-a' })).toBe(true);
      expect(await handler({ approver: 'carol@example.com', owner: 'team-b' })).toBe(false);
      expect(await handler({ approver: 'Boss@Example.com', owner: 'team-b' })).toBe(true);
      expect(await handler({ approver: 'mallory@example.com', owner: 'team-a' })).toBe(false);
      expect(await handler({ approver: ODD, owner: 'team-b' })).toBe(true);
      expect(await handler({ approver: ODD, owner: 'team-a' })).toBe(false);
    } finally {
      if (saved === undefined) delete process.env[ENV.approverOwners];
      else process.env[ENV.approverOwners] = saved;
    }
  });

  it('sets no environment variable for them', () => {
    for (const each of Object.values(built)) expect(each.environment[ENV.approverOwners]).toBeUndefined();
  });

  it('changes the asset (the function code CloudFormation deploys) when the declarations change, only then', () => {
    expect(built.Declared!.s3Key).toBe(built.DeclaredAgain!.s3Key);
    expect(built.Others!.s3Key).not.toBe(built.Declared!.s3Key);
  });

  it('compiles them into the real request-approval bundle, leaving no read of the variable', () => {
    const code = readFileSync(join(built.RequestApproval!.dir, 'index.js'), 'utf8');
    // As booleans: a failed toContain would print the whole bundle.
    // The plain addresses verbatim (the odd one is escaped in the minified string; the probe reads it back).
    const plain = JSON.stringify({
      'carol@example.com': ['team-a'],
      'boss@example.com': ['team-a', 'team-b'],
    });
    expect(code.includes(plain.slice(0, -1))).toBe(true);
    // The name stays only in the parse error's message: no `process.env.WF_APPROVER_OWNERS` read is left.
    expect(code.includes(`.env.${ENV.approverOwners}`)).toBe(false);
  });
});
