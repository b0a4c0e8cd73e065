/**
 * Which model adapter serves a request: real Claude with an API key, or the scripted Messages-API server
 * (offline) selecting the fixture named after the workflow. Both use the real Anthropic SDK.
 */
import type { ModelPort } from '../core/ports.ts';
import { createAnthropicModel } from '../model/index.ts';

export type ModelSource =
  | { kind: 'anthropic'; apiKey: string; baseURL?: string }
  | { kind: 'scripted'; baseURL: string };

export function modelFor(source: ModelSource): ModelPort {
  if (source.kind === 'anthropic') {
    return createAnthropicModel({
      apiKey: source.apiKey,
      ...(source.baseURL ? { baseURL: source.baseURL } : {}),
    });
  }
  const byWorkflow = new Map<string, ModelPort>();
  return {
    call(request) {
      const fixture = request.workflow ?? 'default';
      let model = byWorkflow.get(fixture);
      if (!model) {
        model = createAnthropicModel({
          apiKey: 'scripted',
          baseURL: source.baseURL,
          defaultHeaders: { 'x-scripted-fixture': fixture },
        });
        byWorkflow.set(fixture, model);
      }
      return model.call(request);
    },
  };
}
