/**
 * `RuntimeApi`: the HTTP API (API Gateway HTTP API). `/v1/{proxy+}` goes to the API function, the
 * workflow-write routes (shared/api/workflow-write-routes.ts) to the WorkflowWrite function, and `/mcp` (the
 * jobs MCP server, docs/jobs.md) to the MCP function, all behind IAM (SigV4) or one JWT authorizer; `/approvals/{proxy+}` goes to the approval function without an authorizer,
 * because approval links are protected by their HMAC signature (single use, bound to approver and expiry).
 */

import type { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as authorizers from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as integrations from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { gatewayPath, WORKFLOW_WRITE_ROUTES } from '../../shared/api/workflow-write-routes.ts';
import { acknowledge } from './nag.ts';
import { vendedLogGroupNameFor } from './vended-logs.ts';

/** Options of a JWT authorizer. */
export interface JwtAuthOptions {
  /** Token issuer, an https URL (e.g. `https://cognito-idp.<region>.amazonaws.com/<pool id>`). */
  readonly issuer: string;
  /** Accepted audiences (`aud` or, for Cognito access tokens, `client_id`); at least one. */
  readonly audience: readonly string[];
}

/** How callers of `/v1` are authenticated. */
export class ApiAuth {
  /** IAM (SigV4-signed requests); the owner is the caller's IAM principal. */
  public static iam(): ApiAuth {
    return new ApiAuth('iam', undefined);
  }

  /** A JWT authorizer (OIDC issuer and audience); the owner is the token's subject. */
  public static jwt(options: JwtAuthOptions): ApiAuth {
    let issuer: URL | undefined;
    try {
      issuer = new URL(options.issuer);
    } catch {
      issuer = undefined;
    }
    if (issuer?.protocol !== 'https:') {
      throw new Error(
        `ApiAuth.jwt: issuer '${options.issuer}' is not an https URL; pass the OIDC issuer, ` +
          "e.g. 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf'.",
      );
    }
    if (options.audience.length === 0 || options.audience.some((aud) => aud.trim() === '')) {
      throw new Error('ApiAuth.jwt: audience is empty; pass at least one non-empty audience (client id).');
    }
    return new ApiAuth('jwt', options);
  }

  /** `iam` or `jwt`; the API function reads it from `WF_API_AUTH` to know where the identity is. */
  public readonly kind: 'iam' | 'jwt';
  private readonly jwtOptions: JwtAuthOptions | undefined;

  private constructor(kind: 'iam' | 'jwt', jwtOptions: JwtAuthOptions | undefined) {
    this.kind = kind;
    this.jwtOptions = jwtOptions;
  }

  /** The route authorizer for `/v1`. */
  public authorizer(): apigw.IHttpRouteAuthorizer {
    if (this.jwtOptions === undefined) return new authorizers.HttpIamAuthorizer();
    return new authorizers.HttpJwtAuthorizer('JwtAuthorizer', this.jwtOptions.issuer, {
      jwtAudience: [...this.jwtOptions.audience],
    });
  }
}

/** Stage throttling. */
export interface ApiThrottle {
  /** Steady-state requests per second. */
  readonly rateLimit: number;
  /** Burst capacity. */
  readonly burstLimit: number;
}

/** Properties of a `RuntimeApi`. */
export interface RuntimeApiProps {
  /** Serves `/v1/{proxy+}` (functions/api.ts). */
  readonly apiFunction: lambda.IFunction;
  /** Serves the workflow-write routes, `POST /v1/workflows` and the version saves (functions/workflow-write.ts). */
  readonly workflowWriteFunction: lambda.IFunction;
  /** Serves `/mcp`, the jobs MCP server (functions/mcp.ts). */
  readonly mcpFunction: lambda.IFunction;
  /** Serves `/approvals/{proxy+}` and `/human-tasks/{proxy+}` (functions/approval-http.ts). */
  readonly approvalFunction: lambda.IFunction;
  /** Authentication of `/v1`. @default ApiAuth.iam() */
  readonly auth?: ApiAuth;
  /** Stage throttling. @default { rateLimit: 50, burstLimit: 100 } */
  readonly throttle?: ApiThrottle;
  /** Retention of the access log group. @default logs.RetentionDays.ONE_MONTH */
  readonly accessLogRetention?: logs.RetentionDays;
  /** What happens to the access log group when it leaves the stack. @default - the CDK default (RETAIN) */
  readonly accessLogRemovalPolicy?: RemovalPolicy;
  /** Name of the API. @default - the construct path */
  readonly apiName?: string;
}

/** Paths of the route families: the API, the jobs MCP server, and the signed pages (approvals, human tasks). */
export const API_ROUTES = {
  v1: '/v1/{proxy+}',
  mcp: '/mcp',
  approvals: '/approvals/{proxy+}',
  humanTasks: '/human-tasks/{proxy+}',
} as const;

/** The runtime's HTTP API with access logging and throttling. */
export class RuntimeApi extends Construct {
  /** The HTTP API. */
  public readonly httpApi: apigw.HttpApi;
  /** The `$default` stage (access logs, throttling). */
  public readonly stage: apigw.HttpStage;
  /** The access log group. */
  public readonly accessLogGroup: logs.LogGroup;
  /** How `/v1` is authenticated. */
  public readonly auth: ApiAuth;

  constructor(scope: Construct, id: string, props: RuntimeApiProps) {
    super(scope, id);
    const throttle = props.throttle ?? { rateLimit: 50, burstLimit: 100 };
    for (const [name, value] of Object.entries(throttle)) {
      if (!Number.isFinite(value) || value <= 0) {
        throw new Error(
          `RuntimeApi '${id}': throttle.${name} ${value} must be a positive number of requests per second.`,
        );
      }
    }
    this.auth = props.auth ?? ApiAuth.iam();

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      description: 'Workflow runtime API (/v1) and approval pages (/approvals)',
      createDefaultStage: false,
      ...(props.apiName === undefined ? {} : { apiName: props.apiName }),
    });
    // Under /aws/vendedlogs/: access logging would otherwise add this group to the account's CloudWatch Logs
    // resource policy (5120 characters, shared by every stack in the account; vended-logs.ts).
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      logGroupName: vendedLogGroupNameFor(this, 'apigateway'),
      retention: props.accessLogRetention ?? logs.RetentionDays.ONE_MONTH,
      ...(props.accessLogRemovalPolicy === undefined ? {} : { removalPolicy: props.accessLogRemovalPolicy }),
    });
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        // No query string and no headers: approval links carry their signature in the URL.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
            userArn: '$context.identity.userArn',
          }),
        ),
      },
    });

    // One authorizer for /v1 and /mcp: the MCP clients are the /v1/jobs clients. `/v1/{proxy+}` (a greedy
    // path variable) matches only below /v1, so /mcp is a route of its own, exact path, any method
    // (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-routes.html), served by
    // its own function so the Api bundle carries no MCP SDK.
    const authorizer = this.auth.authorizer();
    this.httpApi.addRoutes({
      path: API_ROUTES.v1,
      methods: [apigw.HttpMethod.ANY],
      integration: new integrations.HttpLambdaIntegration('ApiIntegration', props.apiFunction),
      authorizer,
    });
    // The routes that parse and validate a workflow definition go to their own function, so the Api bundle
    // carries no YAML parser, Ajv or JSONata. A route with a method and a full path is a better match than
    // `ANY /v1/{proxy+}`; a request with another method on the same path falls through to the greedy route, i.e.
    // the Api function, whose 405 knows these routes
    // (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-routes.html, "Routing API
    // requests": exact route and method first, then greedy path variables, then ANY).
    const writes = new integrations.HttpLambdaIntegration(
      'WorkflowWriteIntegration',
      props.workflowWriteFunction,
    );
    for (const route of WORKFLOW_WRITE_ROUTES) {
      this.httpApi.addRoutes({
        path: gatewayPath(route.path),
        methods: [route.method as apigw.HttpMethod],
        integration: writes,
        authorizer,
      });
    }
    this.httpApi.addRoutes({
      path: API_ROUTES.mcp,
      methods: [apigw.HttpMethod.ANY],
      integration: new integrations.HttpLambdaIntegration('McpIntegration', props.mcpFunction),
      authorizer,
    });
    const pages = new integrations.HttpLambdaIntegration('ApprovalIntegration', props.approvalFunction);
    const approvalRoutes = [API_ROUTES.approvals, API_ROUTES.humanTasks].flatMap((path) =>
      this.httpApi.addRoutes({
        path,
        methods: [apigw.HttpMethod.ANY],
        integration: pages,
        authorizer: new apigw.HttpNoneAuthorizer(),
      }),
    );
    for (const route of approvalRoutes) {
      acknowledge(route, 'AwsSolutions-APIG4', {
        reason:
          'Approval and human-task pages are opened from emailed links by people without AWS credentials; each ' +
          'link is an HMAC-SHA256 signature over the approval or task, its holder, expiry and arguments or form ' +
          'hash, checked by the handler, and a decision or submission is a single-use conditional write (GET ' +
          'changes nothing).',
      });
    }
  }

  /** The API's base URL, without a trailing slash, e.g. `https://abc123.execute-api.eu-west-1.amazonaws.com`. */
  public get endpoint(): string {
    return this.httpApi.apiEndpoint;
  }
}
