/**
 * `RuntimeFunction`: the one place that holds the Lambda defaults of the runtime (Node.js on arm64,
 * minified esbuild CommonJS bundles that include the AWS SDK, external source maps, X-Ray, a log group with
 * retention, Powertools settings). Bundle sizes and import times: `npm run bench:bundles`; the choices: docs/deploy.md, "Function
 * bundles".
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { COMMON_ENV, ENV } from './env-names.ts';
import { LAZY_PACKAGE } from './lazy-libraries.ts';
import { mcpSdkForBundle } from './mcp-sdk-bundle.ts';
import { acknowledge } from './nag.ts';

/** The repository root: `projectRoot` of the bundles and home of `functions/` and `package-lock.json`. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Modules the Lambda bundles take in place of a package (esbuild `alias`). Local mode, the CLI and the tests
 * import the package itself.
 * - The AWS SDK's default credential chain becomes the execution role's credentials from the environment, the
 *   only link of the chain that runs in Lambda (shared/runtime/aws/lambda-credentials.ts says why and cites AWS).
 *   So does `@aws-sdk/credential-providers`, which the Bedrock client imports for the same chain
 *   (shared/runtime/aws/lambda-credential-providers.ts).
 * - `yaml` (WorkflowWrite's YAML bodies) is taken from the package's ES module build, the same sources as the
 *   CommonJS build its `exports` map gives Node: esbuild then tree-shakes it and hoists its ~60 modules into
 *   the bundle's scope instead of one CommonJS wrapper each (112 → 96 KB). The one difference, a warning
 *   written with `console.warn` instead of `process.emitWarning`, is never reached by the options the API
 *   parses with (test/api/yaml-builds.test.ts compares the two builds' results and errors).
 * - `jsonata`, `re2js` and Ajv (`ajv/dist/2020.js`) become shims (shared/runtime/bundle-shims/) that load the
 *   package on first use, only in an invocation that runs an expression, an owner's pattern or an owner's JSON
 *   Schema. Each shim requires `wf-lazy/<name>`, a file of its own beside the bundle (lazy-libraries.ts), so
 *   the package is not even parsed at a cold start. So does `htmlparser2`, which only `fetch_url` reading an
 *   HTML body uses.
 */
export const LAMBDA_BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': join(REPO_ROOT, 'shared/runtime/aws/lambda-credentials.ts'),
  '@aws-sdk/credential-providers': join(REPO_ROOT, 'shared/runtime/aws/lambda-credential-providers.ts'),
  yaml: join(REPO_ROOT, 'node_modules/yaml/browser/index.js'),
  jsonata: join(REPO_ROOT, 'shared/runtime/bundle-shims/jsonata.ts'),
  re2js: join(REPO_ROOT, 'shared/runtime/bundle-shims/re2js.ts'),
  'ajv/dist/2020.js': join(REPO_ROOT, 'shared/runtime/bundle-shims/ajv.ts'),
  htmlparser2: join(REPO_ROOT, 'shared/runtime/bundle-shims/htmlparser2.ts'),
  '@smithy/core/event-streams': join(REPO_ROOT, 'shared/runtime/bundle-shims/no-event-streams.ts'),
};

/**
 * Aliases of one function's bundle, over LAMBDA_BUNDLE_ALIASES, by handler name.
 * - mcp: `ajv` and `ajv-formats` become shared/mcp/ajv-not-bundled.ts. The MCP SDK's `Server` imports its Ajv
 *   provider at module level but uses it only for elicitation answers; the server never elicits and passes
 *   its own refusing validator (shared/mcp/server.ts), so Ajv never runs (−120 KB, measured with
 *   `npm run bench:bundles`). Other functions validate owners' JSON Schemas with Ajv and keep it. An alias
 *   of a package applies to its subpaths too, so `ajv/dist/2020.js` (shared/json-schema/validators.ts, which
 *   the Mcp bundle reaches and tree-shakes away) is mapped back to the package's file; an alias of the exact
 *   path wins over the package's.
 */
export const HANDLER_BUNDLE_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  mcp: {
    ajv: join(REPO_ROOT, 'shared/mcp/ajv-not-bundled.ts'),
    'ajv-formats': join(REPO_ROOT, 'shared/mcp/ajv-not-bundled.ts'),
    'ajv/dist/2020.js': join(REPO_ROOT, 'node_modules/ajv/dist/2020.js'),
  },
};

/**
 * The aliases of `functions/<handlerName>.ts`'s bundle built with `bundledEnvironment`: the Lambda ones and its
 * own. A Bedrock deployment's Turn keeps `@smithy/core/event-streams`: the Bedrock clients it bundles import
 * the module statically.
 */
export function bundleAliasesOf(
  handlerName: string,
  bundledEnvironment: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const aliases: Record<string, string> = {
    ...LAMBDA_BUNDLE_ALIASES,
    ...HANDLER_BUNDLE_ALIASES[handlerName],
  };
  if (bundledEnvironment[ENV.modelProvider] === 'bedrock') delete aliases['@smithy/core/event-streams'];
  // The MCP SDK with its protocol schemas in pure closures, so the ones the server never references are not
  // bundled and not built at each cold start (mcp-sdk-bundle.ts). Written on first use, hence not in the table.
  if (handlerName === 'mcp') aliases['@modelcontextprotocol/sdk'] = mcpSdkForBundle(REPO_ROOT);
  return aliases;
}

/**
 * What every bundle leaves external (esbuild `external`):
 * - `wf-lazy/*`: the packages only some invocations use, files of their own beside the bundle
 *   (lazy-libraries.ts: each is copied in after esbuild if the bundle requires it).
 * - The Anthropic SDK's agent toolset, by its resolved path. The SDK's client imports its beta resources, whose
 *   environments worker `import()`s the toolset. Turn never runs that worker, and tree shaking drops it, but
 *   esbuild decides which modules to wrap in lazy initializers before it shakes: the toolset imports the SDK's
 *   client back, so ~120 modules of the SDK and `@opentelemetry/api` were wrapped, and V8 compiles a wrapped
 *   module's body twice at a cold start. External, the file is not parsed and nothing is wrapped for it. The
 *   bundle keeps no reference to it (test/infra/lazy-wrappers.test.ts); were a future SDK to reach it, the
 *   `import()` would fail (the file is not in the asset) rather than run anything.
 */
export const BUNDLE_EXTERNALS: readonly string[] = [
  LAZY_PACKAGE,
  join(REPO_ROOT, 'node_modules/@anthropic-ai/sdk/tools/agent-toolset/node.mjs'),
];

/** Powertools log levels accepted by `POWERTOOLS_LOG_LEVEL`. */
export type PowertoolsLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** Properties of a `RuntimeFunction`. */
export interface RuntimeFunctionProps {
  /** Handler module name: the function bundles `functions/<handlerName>.ts` and calls its `handler` export. */
  readonly handlerName: string;
  /** @default - no description */
  readonly description?: string;
  /** Memory in MiB (128–10240). @default 512 */
  readonly memorySize?: number;
  /** Timeout (at most 15 minutes). @default Duration.seconds(30) */
  readonly timeout?: Duration;
  /** Extra environment variables, merged over the Powertools and Node defaults. @default - none */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Environment variables fixed when the function is bundled: set in its environment like `environment`,
   * and each `process.env.NAME` in the code replaced by the value (an esbuild define), so code for other
   * values is not bundled. The value must not change without a rebuild. @default - none
   */
  readonly bundledEnvironment?: Readonly<Record<string, string>>;
  /**
   * Values compiled into the bundle only: each `process.env.NAME` in the code replaced by the value (an esbuild
   * define), and NOT set in the function's environment, so they take none of Lambda's 4 KB of environment
   * variables (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). For settings that are
   * lists growing with the deployment (the approver declarations). A change rebuilds the bundle: its asset hash
   * is the output's, so the function's S3 key changes, which is what makes CloudFormation update the code
   * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-lambda-function-code.html).
   * @default - none
   */
  readonly bundledConstants?: Readonly<Record<string, string>>;
  /** Retention of the function's log group. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** What happens to the log group when it leaves the stack. @default - the CDK default for log groups (RETAIN) */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** `POWERTOOLS_LOG_LEVEL`. @default 'INFO' */
  readonly logLevel?: PowertoolsLogLevel;
  /** `POWERTOOLS_SERVICE_NAME`. @default 'wf-runtime' */
  readonly serviceName?: string;
  /** `POWERTOOLS_METRICS_NAMESPACE`. @default 'WfRuntime' */
  readonly metricsNamespace?: string;
  /** Reserved concurrency. @default - unreserved */
  readonly reservedConcurrentExecutions?: number;
  /** Root holding `functions/` and `package-lock.json`. @default - this repository's root */
  readonly projectRoot?: string;
  /**
   * Bundle the Powertools Tracer: an X-Ray subsegment per AWS SDK call and run/owner annotations, ~125 KB
   * more per bundle (shared/runtime/tracing.ts). Lambda active tracing is on either way. @default false
   */
  readonly traceAwsCalls?: boolean;
}

/** Runtime settings shared by every function; change them here and only here. */
export const RUNTIME_FUNCTION_DEFAULTS = {
  runtime: lambda.Runtime.NODEJS_24_X,
  architecture: lambda.Architecture.ARM_64,
  memorySize: 512,
  timeoutSeconds: 30,
  logRetention: logs.RetentionDays.ONE_MONTH,
  logLevel: 'INFO',
  serviceName: 'wf-runtime',
  metricsNamespace: 'WfRuntime',
} as const;

/** A Lambda function of the runtime, bundled from `functions/<handlerName>.ts` with the shared defaults. */
export class RuntimeFunction extends Construct implements iam.IGrantable {
  /** The Lambda function. */
  public readonly function: NodejsFunction;
  /** Its log group (retention applied). */
  public readonly logGroup: logs.LogGroup;
  /** Its execution role: no managed policies, only what is granted to it. */
  public readonly role: iam.Role;
  /** The handler module name. */
  public readonly handlerName: string;
  /** The values compiled into the bundle only (`bundledConstants`), for checks and the IAM simulation. */
  public readonly bundledConstants: Readonly<Record<string, string>>;
  public readonly grantPrincipal: iam.IPrincipal;

  constructor(scope: Construct, id: string, props: RuntimeFunctionProps) {
    super(scope, id);
    const projectRoot = props.projectRoot ?? REPO_ROOT;
    const entry = validate(id, props, projectRoot);
    this.handlerName = props.handlerName;
    this.bundledConstants = { ...props.bundledConstants };
    const bundledEnvironment = {
      ...props.bundledEnvironment,
      [COMMON_ENV.tracing]: props.traceAwsCalls ? 'aws-calls' : 'invocations',
    };

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RUNTIME_FUNCTION_DEFAULTS.logRetention,
      ...(props.logRemovalPolicy === undefined ? {} : { removalPolicy: props.logRemovalPolicy }),
    });
    // An own role instead of the default one: the default attaches the AWSLambdaBasicExecutionRole managed
    // policy (logs on every log group); this one may write to its own log group only.
    this.role = new iam.Role(this, 'ServiceRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${props.handlerName} function`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: 'handler',
      projectRoot,
      depsLockFilePath: join(projectRoot, 'package-lock.json'),
      runtime: RUNTIME_FUNCTION_DEFAULTS.runtime,
      architecture: RUNTIME_FUNCTION_DEFAULTS.architecture,
      memorySize: props.memorySize ?? RUNTIME_FUNCTION_DEFAULTS.memorySize,
      timeout: props.timeout ?? Duration.seconds(RUNTIME_FUNCTION_DEFAULTS.timeoutSeconds),
      tracing: lambda.Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      ...(props.description === undefined ? {} : { description: props.description }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      environment: {
        [COMMON_ENV.powertoolsServiceName]: props.serviceName ?? RUNTIME_FUNCTION_DEFAULTS.serviceName,
        [COMMON_ENV.powertoolsLogLevel]: props.logLevel ?? RUNTIME_FUNCTION_DEFAULTS.logLevel,
        [COMMON_ENV.powertoolsMetricsNamespace]:
          props.metricsNamespace ?? RUNTIME_FUNCTION_DEFAULTS.metricsNamespace,
        ...props.environment,
        ...bundledEnvironment,
      },
      bundling: {
        // CommonJS output (index.js, which Lambda loads as CommonJS:
        // https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html#nodejs-commonjs-es-modules), so the
        // bundle requires Node's built-ins. An ES module's `import ... from 'node:http'` builds node:http's ESM
        // facade, which reads every export and so loads Node's internal undici (~45 ms of CPU, measured) even
        // in functions that never call fetch.
        format: OutputFormat.CJS,
        // The lowest Node.js line the runtime supports; the bundle runs unchanged on newer ones.
        target: 'node22',
        // Packages' ES module builds (tree-shaken: e.g. only the DynamoDB commands the code sends). Packages
        // with an `exports` map resolve through esbuild's `module` condition, which comes first in theirs.
        mainFields: ['module', 'main'],
        // An external map beside the bundle, for turning a logged stack into source positions and names
        // offline. Not loaded at run time (no --enable-source-maps): Node would read and parse it on every cold
        // start and on every stack trace.
        sourceMap: true,
        // The mappings, not a copy of every source: a third of the map's size.
        sourcesContent: false,
        minify: true,
        // No keepNames: it adds an Object.defineProperty call per named function and class, run at import
        // (up to 6% of the import's CPU in the larger bundles, measured). Stack traces show minified names;
        // the source map restores them.
        keepNames: false,
        // The AWS SDK is bundled, not taken from the Lambda runtime: the version the tests ran is the one
        // deployed, and a bundle imports faster than the runtime's CommonJS packages load from node_modules
        // (docs/deploy.md, "Function bundles", with the measurements). External: only BUNDLE_EXTERNALS.
        externalModules: [...BUNDLE_EXTERNALS],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // Run by the Node.js running the synth, which runs this TypeScript file too.
          afterBundling: (_inputDir: string, outputDir: string) => [
            [process.execPath, LAZY_LIBRARIES_SCRIPT, outputDir].map(shellQuoted).join(' '),
          ],
        },
        define: definesOf({ ...bundledEnvironment, ...this.bundledConstants }),
        esbuildArgs: {
          '--alias': Object.entries(bundleAliasesOf(props.handlerName, bundledEnvironment)).map(
            ([name, path]) => `${name}=${path}`,
          ),
        },
      },
    });
    this.grantPrincipal = this.function.grantPrincipal;

    acknowledge(this.role, 'AwsSolutions-IAM5[Resource::*]', {
      reason:
        'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no ' +
        'resource-level permissions (Resource "*" is the only valid value).',
    });
  }

  /** Adds an environment variable to the function. */
  public addEnvironment(key: string, value: string): this {
    this.function.addEnvironment(key, value);
    return this;
  }
}

/** The script that copies a bundle's lazy libraries beside it (`afterBundling`). */
const LAZY_LIBRARIES_SCRIPT = join(REPO_ROOT, 'infra/constructs/lazy-libraries.ts');

/** `text` as one POSIX shell word (the bundling commands run in a shell). */
function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `process.env.NAME` → the JSON string of its value, as esbuild's define takes it. */
function definesOf(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [`process.env.${name}`, JSON.stringify(value)]),
  );
}

function validate(id: string, props: RuntimeFunctionProps, projectRoot: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(props.handlerName)) {
    throw new Error(
      `RuntimeFunction '${id}': handlerName '${props.handlerName}' is not a module name; ` +
        "use the kebab-case file name under functions/ without '.ts', e.g. 'request-approval'.",
    );
  }
  const entry = join(projectRoot, 'functions', `${props.handlerName}.ts`);
  if (!existsSync(entry)) {
    throw new Error(
      `RuntimeFunction '${id}': entry ${relative(process.cwd(), entry)} does not exist; ` +
        'create it exporting `handler`, or fix handlerName.',
    );
  }
  for (const [field, names] of [
    ['bundledEnvironment', Object.keys(props.bundledEnvironment ?? {})],
    ['bundledConstants', Object.keys(props.bundledConstants ?? {})],
  ] as const) {
    for (const name of names) {
      const elsewhere =
        props.environment?.[name] !== undefined ||
        (field === 'bundledConstants' && props.bundledEnvironment?.[name] !== undefined);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || elsewhere) {
        throw new Error(
          `RuntimeFunction '${id}': ${field} name '${name}' is not an identifier or is also in environment` +
            `${field === 'bundledConstants' ? ' or bundledEnvironment' : ''}; ` +
            `use a variable name like WF_MODEL_PROVIDER, set in ${field} only.`,
        );
      }
    }
  }
  const memory = props.memorySize;
  if (memory !== undefined && (!Number.isInteger(memory) || memory < 128 || memory > 10_240)) {
    throw new Error(
      `RuntimeFunction '${id}': memorySize ${memory} is out of range; use an integer from 128 to 10240 MiB.`,
    );
  }
  const timeout = props.timeout;
  if (timeout !== undefined && !timeout.isUnresolved() && timeout.toSeconds() > 900) {
    throw new Error(
      `RuntimeFunction '${id}': timeout ${timeout.toHumanString()} exceeds Lambda's 15 minutes; use at most Duration.minutes(15).`,
    );
  }
  return entry;
}
