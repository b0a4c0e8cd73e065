/**
 * The request schemas of the workflow-write routes (shared/api/routes/workflow-writes.ts, workflow-versions.ts),
 * apart from shared/api/schemas.ts (which re-exports them for the OpenAPI document) so the WorkflowWrite
 * function does not bundle every response schema of the API (docs/deploy.md, "Function bundles").
 */

import { MAX_VALUE_DEPTH, refineStorable, type StorableLimits } from '../core/storable.ts';
import { AnyWorkflowDefinitionSchema } from '../schemas/any-workflow.ts';
import * as z from '../zod.ts';

/** JSON/YAML nesting allowed in a body before any schema sees it (deep inputs stop here, not in a stack overflow). */
export const MAX_BODY_DEPTH = 32;
/**
 * A stored workflow version must stay well under DynamoDB's 400 KB item limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-items): 350,000 bytes
 * as JSON and as DynamoDB counts the stored value (a list of 170,000 `1`s is 340,000 bytes of JSON but over
 * 400 KB stored: it was a 500 from the write).
 */
export const DEFINITION_LIMITS: StorableLimits = {
  maxDepth: MAX_VALUE_DEPTH,
  maxBytes: 350_000,
  maxStoredBytes: 350_000,
};

/** A workflow definition of any kind as a request body (JSON or YAML), stored as one immutable version. */
// Pure: only the workflow-write routes and the OpenAPI document use it; other bundles drop it (and Ajv, JSONata).
export const WorkflowDefinitionBodySchema = /* @__PURE__ */ AnyWorkflowDefinitionSchema.check(
  /* @__PURE__ */ z.superRefine(/* @__PURE__ */ refineStorable(DEFINITION_LIMITS)),
);

/** `If-Match` header of a new version: the version the change is based on, e.g. `"3"`. */
export const IfMatchSchema = z.pipe(
  z
    .string()
    .check(
      z.regex(
        /^(W\/)?"?[1-9]\d{0,9}"?$/,
        'must be the latest version number the change is based on, e.g. "3"',
      ),
    ),
  z.transform((value) => Number(value.replaceAll(/\D/g, ''))),
);

/** The query of `POST /v1/workflows/{id}/versions`: `draft=true` saves a draft instead of publishing. */
export const SaveVersionQuerySchema = z.strictObject({
  draft: z
    ._default(z.enum(['true', 'false']), 'false')
    .check(z.describe('true: save a draft (not run, not used by triggers) to replace and publish later.')),
});
