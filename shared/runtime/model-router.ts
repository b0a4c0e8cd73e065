/**
 * Which model adapter serves a request: Claude on the Anthropic API (an API key), Claude on Amazon Bedrock
 * (IAM credentials, the deployment's region), or the scripted server (offline) selecting the fixture named
 * after the workflow, through either SDK. Every source uses a real SDK.
 */
import { maxOutputTokensOf } from '../core/output-tokens.ts';
import type { ModelPort, ModelRequest } from '../core/ports.ts';
import { ModelConfigError } from '../model/errors.ts';
import { createAnthropicModel, createBedrockModel, type StaticAwsCredentials } from '../model/index.ts';
import type { MessagesModelOptions } from '../model/messages-port.ts';
import { FIXTURE_HEADER, RECORDING_OWNER_HEADER, RECORDING_RUN_HEADER } from '../model/recording-headers.ts';

export type ModelSource =
  /**
   * `recording`: name the workflow in the fixture header and the run in the run header, for the recording
   * proxy at `baseURL` (it keeps one conversation per run: shared/model/recording-proxy.ts).
   */
  | { kind: 'anthropic'; apiKey: string; baseURL?: string; recording?: boolean }
  | { kind: 'bedrock'; region: string; baseURL?: string; credentials?: StaticAwsCredentials }
  /** `via` picks the SDK (and so the wire API) the scripted server is spoken to with. Default `anthropic`. */
  | { kind: 'scripted'; baseURL: string; via?: 'anthropic' | 'bedrock' };

/** Fake static credentials for the scripted server: the Bedrock SDK signs with them, nobody checks them. */
const SCRIPTED_AWS_CREDENTIALS: StaticAwsCredentials = {
  accessKeyId: 'AKIDSCRIPTEDMODEL',
  secretAccessKey: 'scripted',
};

/** One port per workflow, each made by `make` with the workflow's name (the fixture header's value). */
function perWorkflow(make: (workflow: string) => ModelPort): ModelPort {
  const byWorkflow = new Map<string, ModelPort>();
  return {
    // Every such port takes the default (per-model) thinking style.
    maxOutputTokens: maxOutputTokensOf,
    call(request) {
      const workflow = request.workflow ?? 'default';
      let model = byWorkflow.get(workflow);
      if (!model) {
        model = make(workflow);
        byWorkflow.set(workflow, model);
      }
      return model.call(request);
    },
  };
}

/**
 * The recording proxy's headers of one request: the fixture (workflow) name the recording is saved under, the
 * run it belongs to and its owner (the proxy's limits are per owner). Without a run id nothing is recorded (the proxy keys conversations by run only).
 */
function recordingHeaders(request: ModelRequest): Record<string, string> {
  return {
    [FIXTURE_HEADER]: request.workflow ?? 'default',
    ...(request.runId ? { [RECORDING_RUN_HEADER]: request.runId } : {}),
    ...(request.owner ? { [RECORDING_OWNER_HEADER]: request.owner } : {}),
  };
}

/** `common`: options every adapter of the source takes (the AWS Turn's invocation deadline). */
export function modelFor(
  source: ModelSource,
  common: Pick<MessagesModelOptions, 'callTimeLimitMs'> = {},
): ModelPort {
  if (source.kind === 'anthropic') {
    const options = {
      ...common,
      apiKey: source.apiKey,
      ...(source.baseURL ? { baseURL: source.baseURL } : {}),
    };
    if (!source.recording) return createAnthropicModel(options);
    return createAnthropicModel({ ...options, requestHeaders: recordingHeaders });
  }
  if (source.kind === 'bedrock') {
    return createBedrockModel({
      ...common,
      region: source.region,
      ...(source.baseURL ? { baseURL: source.baseURL } : {}),
      ...(source.credentials ? { credentials: source.credentials } : {}),
    });
  }
  return perWorkflow((fixture) => {
    const scripted = { ...common, baseURL: source.baseURL, defaultHeaders: { [FIXTURE_HEADER]: fixture } };
    return source.via === 'bedrock'
      ? createBedrockModel({ region: 'us-east-1', credentials: SCRIPTED_AWS_CREDENTIALS, ...scripted })
      : createAnthropicModel({ apiKey: 'scripted', ...scripted });
  });
}

/**
 * The Bedrock source of a deployment: the region is the Lambda's own (`AWS_REGION`, which Lambda always
 * sets: https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime),
 * never a workflow's; credentials come from the function's role through the AWS default chain.
 */
export function bedrockSourceFrom(env: Record<string, string | undefined>): ModelSource {
  const region = env.AWS_REGION?.trim();
  if (!region) {
    throw new ModelConfigError(
      'AWS_REGION is not set: the turn function cannot tell which Bedrock region to call',
    );
  }
  return { kind: 'bedrock', region };
}
