/** Writes docs/workflow.schema.json from the zod schema (npm run schemas). A test keeps it current. */
import { writeFileSync } from 'node:fs';
import { workflowJsonSchema } from '../shared/workflow-file/json-schema.ts';

writeFileSync(
  new URL('../docs/workflow.schema.json', import.meta.url),
  `${JSON.stringify(workflowJsonSchema(), null, 2)}\n`,
);
console.log('wrote docs/workflow.schema.json');
