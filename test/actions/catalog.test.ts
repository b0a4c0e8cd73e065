import { describe, expect, it } from 'vitest';
import { toolSpecOf } from '../../shared/core/actions.ts';
import { actionCatalogFor } from '../../shared/runtime/engine-deps.ts';
import { BUILTIN_ACTION_NAMES } from '../../shared/schemas/builtin-actions.ts';
import { ScriptedModel, engineDeps as testEngineDeps } from '../support/engine.ts';
import { testStore } from '../support/store.ts';
import { definitionWith } from './support.ts';

const store = testStore();
const definition = definitionWith({
  allowedActions: ['post_it', 'sign_it', 'tell_it', 'file_it', 'comment_it'],
  connectors: {
    post_it: { kind: 'http', description: 'Post.', method: 'POST', url: 'https://api.example.com/posts' },
    sign_it: { kind: 'signed_webhook', url: 'https://hooks.example.com/in', credential: { slot: 'key' } },
    tell_it: { kind: 'slack_webhook', credential: { slot: 'key' } },
    file_it: { kind: 'github_create_issue', repo: 'o/r', credential: { slot: 'key' } },
    comment_it: { kind: 'github_create_comment', repo: 'o/r', credential: { slot: 'key' } },
  },
  credRefs: { key: { secret: 'wf/owner-test/key' } },
});

describe('actionCatalogFor', () => {
  const catalog = actionCatalogFor(store);

  it.each(BUILTIN_ACTION_NAMES)('implements the built-in %s', (name) => {
    expect(catalog.resolve(name, definition)?.name).toBe(name);
  });

  it.each(['post_it', 'sign_it', 'tell_it', 'file_it', 'comment_it'])(
    'turns the connector %s into an action of that name',
    (name) => {
      const action = catalog.resolve(name, definition);
      expect(action?.name).toBe(name);
      expect(toolSpecOf(action!).inputSchema).toMatchObject({ type: 'object' });
    },
  );

  it.each(['not_declared', 'constructor', '__proto__', 'toString'])('resolves nothing for %s', (name) => {
    expect(catalog.resolve(name, definition)).toBeUndefined();
  });

  it('offers http_request and fetch_url to the model with their input schemas', () => {
    expect(toolSpecOf(catalog.resolve('http_request', definition)!).inputSchema).toMatchObject({
      type: 'object',
      properties: {
        method: { enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] },
        url: { type: 'string' },
      },
      required: ['url'],
      additionalProperties: false,
    });
    expect(toolSpecOf(catalog.resolve('fetch_url', definition)!).inputSchema).toMatchObject({
      properties: { url: { type: 'string' } },
      required: ['url'],
    });
  });

  it('is matched by the test engine’s catalog, so engine tests see the same vocabulary', () => {
    const deps = testEngineDeps(store, new ScriptedModel([]));
    for (const name of [...BUILTIN_ACTION_NAMES, 'post_it', 'tell_it'])
      expect(deps.actions.resolve(name, definition)?.name).toBe(name);
  });
});
