/** The JSON Schema of workflow files, for editors (YAML language server, VS Code). */

import { AnyWorkflowDefinitionSchema } from '../schemas/any-workflow.ts';
import * as z from '../zod.ts';

export function workflowJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(AnyWorkflowDefinitionSchema, {
      io: 'input',
      unrepresentable: 'any',
      target: 'draft-2020-12',
    }),
    $id: 'https://github.com/wf-runtime/wf-runtime/docs/workflow.schema.json',
    title: 'Workflow definition',
  };
}
