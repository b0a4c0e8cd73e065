import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdkJsonContext } from '../../infra/cdk-context.ts';
import { ENV } from '../../infra/constructs/env-names.ts';
import { lazyRequires } from '../../infra/constructs/lazy-libraries.ts';
import { RuntimeFunction } from '../../infra/constructs/runtime-function.ts';
import { runInFreshProcess } from '../support/lambda-bundle.ts';

let outdir: string;
/** Bundle code (index.js) by function id. */
const code: Record<string, string> = {};
/** The source files each bundle holds code from (its index.js.map's `sources`), by function id. */
const sources: Record<string, string[]> = {};
let expireDir: string;
let approvalDir: string;

beforeAll(() => {
  // Real bundles, with the local esbuild (no Docker), of handlers of the repository.
  outdir = mkdtempSync(join(tmpdir(), 'wf-bundling-'));
  const app = new App({
    outdir,
    // Asset metadata (as the CDK CLI asks for it) names each function's asset directory.
    context: { ...cdkJsonContext(), 'aws:cdk:enable-asset-metadata': true },
    builtinCloudFormationValidation: false,
  });
  const stack = new Stack(app, 'Bundling');
  const functions = {
    Expire: new RuntimeFunction(stack, 'Expire', { handlerName: 'expire' }),
    ExpireTraced: new RuntimeFunction(stack, 'ExpireTraced', { handlerName: 'expire', traceAwsCalls: true }),
    TurnAnthropic: new RuntimeFunction(stack, 'TurnAnthropic', {
      handlerName: 'turn',
      bundledEnvironment: { [ENV.modelProvider]: 'anthropic' },
    }),
    TurnBedrock: new RuntimeFunction(stack, 'TurnBedrock', {
      handlerName: 'turn',
      bundledEnvironment: { [ENV.modelProvider]: 'bedrock' },
    }),
    ApprovalHttp: new RuntimeFunction(stack, 'ApprovalHttp', { handlerName: 'approval-http' }),
  };
  app.synth();
  const template = JSON.parse(readFileSync(join(outdir, 'Bundling.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata: Record<string, string> }>;
  };
  for (const [id, fn] of Object.entries(functions)) {
    const logicalId = stack.getLogicalId(fn.function.node.defaultChild as never);
    const asset = template.Resources[logicalId]!.Metadata['aws:asset:path']!;
    code[id] = readFileSync(join(outdir, asset, 'index.js'), 'utf8');
    sources[id] = JSON.parse(readFileSync(join(outdir, asset, 'index.js.map'), 'utf8')).sources;
    if (id === 'Expire') expireDir = join(outdir, asset);
    if (id === 'ApprovalHttp') approvalDir = join(outdir, asset);
  }
}, 240_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

/** Presence checks as booleans: a failed toContain would print the whole bundle. */
const holds = (id: string, text: string) => code[id]!.includes(text);

describe('RuntimeFunction bundling', () => {
  it('bundles the handler with the local esbuild into one CommonJS file with an external source map', () => {
    expect(readdirSync(expireDir).sort()).toEqual(['index.js', 'index.js.map']);
    expect(/sourceMappingURL=index\.js\.map\s*$/.test(code.Expire!)).toBe(true);
  });

  it('is CommonJS throughout: no import statement or import.meta (node:http would build its ESM facade)', () => {
    expect(code.Expire!.startsWith('"use strict";')).toBe(true);
    expect(/^import\s/m.test(code.Expire!)).toBe(false);
    expect(holds('Expire', 'import.meta')).toBe(false);
  });

  it('exports handler and bundles the AWS SDK clients it uses (no require of @aws-sdk/*)', () => {
    expect(/module\.exports\s*=/.test(code.Expire!)).toBe(true);
    expect(/\bhandler:\s*\(\)\s*=>/.test(code.Expire!)).toBe(true);
    // The DynamoDB document client's command names, sent as the operation in every request.
    expect(holds('Expire', 'TransactWriteItems')).toBe(true);
    // The only @aws-sdk require left is the CRT signer's optional one, named in an error message.
    expect(/require\("@aws-sdk\/(?!signature-v4-crt")/.test(code.Expire!)).toBe(false);
    expect(existsSync(join(expireDir, 'index.js.map'))).toBe(true);
  });

  it('keeps a handler to what its path uses: Expire has no model SDK, no HTTP client, no KMS, no zod locales', () => {
    // KMS's and STS's service names (TrentService, AWSSecurityTokenServiceV20110615).
    for (const absent of [
      'api.anthropic.com',
      'llhttp',
      'TrentService',
      'AWSSecurityTokenServiceV20110615',
    ]) {
      expect(holds('Expire', absent), absent).toBe(false);
    }
    // zod's Hebrew locale message for an invalid input (zod/v4/locales/he.js).
    expect(holds('Expire', 'קלט לא תקין')).toBe(false);
  });

  it('stays within 750 KB with the AWS SDK bundled (Expire, npm run bench:bundles for every function)', () => {
    expect(Buffer.byteLength(code.Expire!)).toBeLessThanOrEqual(750 * 1024);
  });

  it('loads the fetch API at init in Turn, whose every invocation uses it, and not in Expire', () => {
    // shared/runtime/web-fetch.ts: its error message marks the call's presence.
    const marker = 'this Node.js has no fetch API';
    expect(holds('TurnAnthropic', marker)).toBe(true);
    expect(holds('Expire', marker)).toBe(false);
  });

  it("bundles Turn with the deployment's model provider only", () => {
    // The Bedrock client's base URL override, a string that survives minification.
    expect(holds('TurnAnthropic', 'ANTHROPIC_BEDROCK_BASE_URL')).toBe(false);
    expect(holds('TurnBedrock', 'ANTHROPIC_BEDROCK_BASE_URL')).toBe(true);
    expect(holds('TurnAnthropic', 'api.anthropic.com')).toBe(true);
  });
});

describe('RuntimeFunction lazy libraries (infra/constructs/lazy-libraries.ts)', () => {
  it('ships the packages only some invocations use as files beside the bundle, exactly those it requires', () => {
    expect(lazyRequires(code.ApprovalHttp!).sort()).toEqual(['ajv', 're2js']);
    expect(readdirSync(join(approvalDir, 'node_modules')).sort()).toEqual(['wf-lazy']);
    expect(readdirSync(join(approvalDir, 'node_modules/wf-lazy')).sort()).toEqual([
      'ajv.js',
      'ajv.js.map',
      're2js.js',
      're2js.js.map',
    ]);
    // The packages' code is in those files, not in the bundle: RE2's and Ajv's error texts.
    expect(holds('ApprovalHttp', 'missing closing )')).toBe(false);
    expect(holds('ApprovalHttp', 'addKeywords: keyword must be string or non-empty array')).toBe(false);
    // A bundle that requires none ships none.
    expect(lazyRequires(code.Expire!)).toEqual([]);
  });

  it('imports the bundle without loading them; the first use finds each where Node looks from index.js', () => {
    const answer = runInFreshProcess(
      approvalDir,
      `require(${JSON.stringify(join(approvalDir, 'index.js'))});\n` +
        "const lazy = () => Object.keys(require.cache).filter((f) => f.includes('/node_modules/wf-lazy/')).length;\n" +
        'const atImport = lazy();\n' +
        "const { RE2JS } = require('wf-lazy/re2js');\n" +
        "const { Ajv2020 } = require('wf-lazy/ajv');\n" +
        "const matched = RE2JS.compile('a+b').matcher('xaab').find(0);\n" +
        "const valid = new Ajv2020().compile({ type: 'string', maxLength: 2 })('abc');\n" +
        'console.log(JSON.stringify({ atImport, matched, valid, loaded: lazy() }));\n',
    );
    expect(answer).toEqual({ atImport: 0, matched: true, valid: false, loaded: 2 });
  });
});

describe('RuntimeFunction credentials', () => {
  /** Sources of the default chain's other links: SSO, ini files, process, web identity, container/IMDS, login. */
  const chainLink =
    /node_modules\/(@aws-sdk\/(credential-provider-(?!env\/)[^/]+|nested-clients|token-providers)|@smithy\/credential-provider-imds)\//;

  it('takes the credentials Lambda sets in the environment and bundles no other link of the default chain', () => {
    for (const id of ['Expire', 'TurnAnthropic']) {
      expect(
        sources[id]!.filter((source) => chainLink.test(source)),
        id,
      ).toEqual([]);
      expect(
        sources[id]!.some((source) => source.endsWith('shared/runtime/aws/lambda-credentials.ts')),
        id,
      ).toBe(true);
      // SSO's and SSO OIDC's service names, the web-identity and container-credential variables.
      for (const absent of [
        'SWBPortalService',
        'AWSSSOOIDCService',
        'AWS_WEB_IDENTITY_TOKEN_FILE',
        'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      ]) {
        expect(holds(id, absent), `${id}: ${absent}`).toBe(false);
      }
    }
  });

  it('gives the Bedrock client the same credentials, without the other providers of @aws-sdk/credential-providers', () => {
    // The Bedrock client imports the package for its chain (lambda-credential-providers.ts); bundled whole, it
    // brought every provider and the SSO, STS and Cognito clients they use.
    const providerLink =
      /node_modules\/(@aws-sdk\/(credential-providers|credential-provider-(?!env\/)[^/]+|client-cognito-identity)|@smithy\/credential-provider-imds)\//;
    expect(sources.TurnBedrock!.filter((source) => providerLink.test(source))).toEqual([]);
    expect(
      sources.TurnBedrock!.some((source) =>
        source.endsWith('shared/runtime/aws/lambda-credential-providers.ts'),
      ),
    ).toBe(true);
    for (const absent of ['AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI']) {
      expect(holds('TurnBedrock', absent), absent).toBe(false);
    }
  });

  it('keeps the STS client where owner sessions use it (Turn reads owner secrets with an AssumeRole session)', () => {
    expect(
      sources.TurnAnthropic!.some((source) =>
        source.endsWith('@aws-sdk/client-sts/dist-es/commands/AssumeRoleCommand.js'),
      ),
    ).toBe(true);
    expect(holds('TurnAnthropic', 'AWSSecurityTokenServiceV20110615')).toBe(true);
    expect(
      sources.TurnAnthropic!.some((source) => source.endsWith('shared/credentials/owner-sessions.ts')),
    ).toBe(true);
  });
});

describe('RuntimeFunction traceAwsCalls', () => {
  it('bundles the Powertools Tracer and the X-Ray SDK only when AWS calls are traced', () => {
    // Property names survive minification: the Tracer's method and the X-Ray SDK's daemon setting.
    for (const marker of ['captureAWSv3Client', 'AWS_XRAY_DAEMON_ADDRESS']) {
      expect(holds('Expire', marker), marker).toBe(false);
      expect(holds('ExpireTraced', marker), marker).toBe(true);
    }
  });
});

describe('RuntimeFunction bundledEnvironment', () => {
  it('refuses a name that is not a variable name, or one also in environment', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Names');
    expect(
      () => new RuntimeFunction(stack, 'Bad', { handlerName: 'expire', bundledEnvironment: { 'A-B': 'x' } }),
    ).toThrow(/bundledEnvironment name 'A-B' is not an identifier/);
    expect(
      () =>
        new RuntimeFunction(stack, 'Twice', {
          handlerName: 'expire',
          environment: { WF_X: 'a' },
          bundledEnvironment: { WF_X: 'b' },
        }),
    ).toThrow(/bundledEnvironment name 'WF_X' .* is also in environment/);
  });
});
