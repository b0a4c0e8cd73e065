/**
 * Whether a step output parsed from JSON can be stored in its step item as it is. A JSON answer may hold what
 * DynamoDB refuses in an item: an empty field name (`{"": 1}`: "Empty attribute name"), a number below 1e-130 in
 * magnitude ("Number underflow"), nesting past 32 levels
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-data-types,
 * #limits-attributes); and the document client refuses an integer past 2^53 (`12345678901234567890`, an id many
 * APIs send). Such an output failed the write that ends the step, after the call was made. Checked as the API
 * checks the values it stores (shared/core/storable.ts).
 */
import { MAX_VALUE_DEPTH, storableIssues } from '../core/storable.ts';

/** Why `output` cannot be stored, naming where (`output.id …`), or undefined when it can. */
export function unstorableOutput(output: unknown): string | undefined {
  const [issue] = storableIssues(output, { maxDepth: MAX_VALUE_DEPTH }, ['output']);
  return issue ? `${issue.path} ${issue.message}` : undefined;
}
