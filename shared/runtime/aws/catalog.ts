/** The action catalog of the functions that gate actions (turn, deliver) and its specs (the approval pages). */
import { ENV } from '../../../infra/constructs/env-names.ts';
import { type PublishPolicy, parseInternalHosts } from '../../actions/publish-policy.ts';
import { actionSpecCatalog } from '../../actions/spec-catalog.ts';
import type { ActionCatalog, ActionSpecCatalog } from '../../core/actions.ts';
import type { DynamoStore } from '../../store/index.ts';
import { actionCatalogFor } from '../engine-deps.ts';
import { awsEnv } from './env.ts';

/** The operator's internal hosts: unsafe HTTP requests to any other host are external publishes. */
export const awsPublishPolicy = (): PublishPolicy => ({
  internalHosts: parseInternalHosts(awsEnv()[ENV.internalHosts]),
});

export const awsCatalog = (store: DynamoStore): ActionCatalog =>
  actionCatalogFor(store, { publish: awsPublishPolicy() });

/** The specs of `awsCatalog` (the approval pages show actions, never run them): no HTML parser bundled. */
export const awsActionSpecs = (): ActionSpecCatalog => actionSpecCatalog({ publish: awsPublishPolicy() });
